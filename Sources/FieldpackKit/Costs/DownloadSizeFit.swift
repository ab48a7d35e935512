/// Fits the per-tier bytes-per-pixel figures to measured file sizes, when a pipeline supplies
/// some: for each tier, the least-squares slope through the origin of bytes against served
/// pixels, and how well it fits (mean absolute percentage error over that tier's samples).
public enum DownloadSizeFit {
    public struct Sample: Sendable, Equatable {
        public var tier: PhotoTier
        public var served: PixelSize
        public var bytes: Int

        public init(tier: PhotoTier, served: PixelSize, bytes: Int) {
            self.tier = tier
            self.served = served
            self.bytes = bytes
        }
    }

    public struct TierFit: Sendable, Equatable {
        public var tier: PhotoTier
        public var samples: Int
        public var bytesPerPixel: Double
        /// Mean of |estimate − measured| / measured.
        public var meanAbsolutePercentageError: Double
    }

    /// One fit per tier that has samples with pixels and bytes, smallest tier first.
    public static func fit(_ samples: [Sample]) -> [TierFit] {
        PhotoTier.allCases.compactMap { tier in
            let own = samples.filter { $0.tier == tier && $0.served.pixels > 0 && $0.bytes > 0 }
            guard !own.isEmpty else { return nil }
            var numerator = 0.0
            var denominator = 0.0
            for sample in own {
                let pixels = Double(sample.served.pixels)
                numerator += pixels * Double(sample.bytes)
                denominator += pixels * pixels
            }
            let slope = numerator / denominator
            let error = own.reduce(0.0) { total, sample in
                total + abs(slope * Double(sample.served.pixels) - Double(sample.bytes)) / Double(sample.bytes)
            } / Double(own.count)
            return TierFit(tier: tier, samples: own.count, bytesPerPixel: slope, meanAbsolutePercentageError: error)
        }
    }

    /// The model with every fitted tier's figure replaced.
    public static func apply(_ fits: [TierFit], to model: CostModel) -> CostModel {
        var model = model
        for fit in fits { model.downloadBytesPerPixel[fit.tier.ordinal] = fit.bytesPerPixel }
        return model
    }
}
