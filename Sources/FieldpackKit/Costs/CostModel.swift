/// How a photo's cost is estimated for a target: which tier to fetch, how big it is on the wire,
/// and how much memory it takes decoded. Every figure here is an assumption the pipeline file may
/// override; the defaults are documented in the README.
public struct CostModel: Sendable, Equatable {
    /// Bytes per decoded pixel (RGBA8).
    public var bytesPerPixel = 4
    /// Row alignment of decoded bitmaps (Core Graphics pads rows to 64 bytes).
    public var rowAlignment = 64
    /// Estimated JPEG bytes per served pixel, per tier (in `PhotoTier.allCases` order: square,
    /// thumb, small, medium, large, original): small images compress worse.
    public var downloadBytesPerPixel: [Double] = [0.60, 0.50, 0.30, 0.22, 0.18, 0.15]
    /// The original assumed when a photo's dimensions are unknown (remote photos): the most common
    /// stored original, 2048 px on the long edge, 4:3.
    public var assumedOriginal = PixelSize(width: 2048, height: 1536)

    public init() {}

    /// bytesPerRow × height, with bytesPerRow = width × bytesPerPixel rounded up to the alignment.
    public func decodedBytes(_ size: PixelSize) -> Int {
        let row = size.width * bytesPerPixel
        let aligned = (row + rowAlignment - 1) / rowAlignment * rowAlignment
        return aligned * size.height
    }

    /// The estimated download size of `size` pixels of `tier`.
    public func downloadBytes(_ size: PixelSize, tier: PhotoTier) -> Int {
        Int((Double(size.pixels) * downloadBytesPerPixel[tier.ordinal]).rounded())
    }

    /// The cost of showing a photo whose stored original is `original` (nil: unknown) in `target`.
    /// An iNaturalist photo is served in every tier; a remote photo only as the one URL it came
    /// with (`tier` nil), at its own size.
    public func estimate(original: PixelSize?, target: DisplayTarget, remote: Bool = false) -> PhotoCost {
        let known = Self.trusted(original)
        let source = known ?? assumedOriginal
        var chosen: PhotoTier? = .original
        var upscaled = true
        if remote {
            chosen = nil
            upscaled = !target.isCovered(by: source, tier: .original)
        } else {
            for tier in PhotoTier.allCases where target.isCovered(by: tier.servedSize(original: source), tier: tier) {
                chosen = tier
                upscaled = false
                break
            }
        }
        // None covers: the smallest tier that serves as many pixels as the largest, so that every
        // target no tier covers fetches one URL (a photo under a tier's bound is that tier, and
        // every larger one, at its own size: `original` would be a second download of the same pixels).
        if upscaled, !remote {
            let largest = PhotoTier.original.servedSize(original: source)
            chosen = PhotoTier.allCases.first { $0 != .square && $0.servedSize(original: source) == largest } ?? .original
        }
        let served = chosen?.servedSize(original: source) ?? source
        let display = target.displaySize(of: served)
        return PhotoCost(
            target: target.name, tier: chosen, served: served, display: display,
            decodedBytes: decodedBytes(display), transientBytes: decodedBytes(served),
            downloadBytes: downloadBytes(served, tier: chosen ?? .original), upscaled: upscaled,
            assumedDimensions: known == nil)
    }

    /// `original` when its sides are those of an image (1 to `PhotoRecord.maximumSide`), else nil:
    /// unknown, its cost estimated from `assumedOriginal`. Ingest drops sides past the largest
    /// image; a records file edited since is not trusted to have none (their products overflow).
    static func trusted(_ original: PixelSize?) -> PixelSize? {
        let side = 1...Int(PhotoRecord.maximumSide)
        return original.flatMap { side.contains($0.width) && side.contains($0.height) ? $0 : nil }
    }

    /// The cost of every photo of one size class in `target`.
    public func estimate(_ size: SizeClass, target: DisplayTarget) -> PhotoCost {
        estimate(original: size.original, target: target, remote: size.remote)
    }
}

/// What a photo's costs depend on: whether it is remote, and its stored size (unknown when not
/// both sides are positive). Costs are computed once per class, not once per photo, and the
/// bundle stores them per class (`size_costs`), with a view giving a row per photo and target.
public struct SizeClass: Hashable, Sendable, Comparable {
    public var remote: Bool
    /// 0 × 0 when unknown.
    public var width: Int
    public var height: Int

    /// A size its cost model does not trust (`CostModel.trusted`) is unknown: the report's
    /// `assumed_dimensions` and `size_costs` count it alike.
    public init(remote: Bool, original: PixelSize?) {
        self.remote = remote
        if let original = CostModel.trusted(original) {
            width = original.width
            height = original.height
        } else {
            width = 0
            height = 0
        }
    }

    public var original: PixelSize? { width > 0 ? PixelSize(width: width, height: height) : nil }

    public static func < (a: SizeClass, b: SizeClass) -> Bool {
        (a.remote ? 1 : 0, a.width, a.height) < (b.remote ? 1 : 0, b.width, b.height)
    }
}

/// One photo in one target.
public struct PhotoCost: Sendable, Equatable {
    public var target: String
    /// The smallest tier that covers the target (or the largest, if none does); nil for a remote
    /// photo, which has only its own URL.
    public var tier: PhotoTier?
    /// The tier's size as the CDN serves it.
    public var served: PixelSize
    /// What the app draws.
    public var display: PixelSize
    /// The decoded thumbnail at display size: the app's LRU cost.
    public var decodedBytes: Int
    /// Decoding the downloaded image at its served size, before it is scaled.
    public var transientBytes: Int
    public var downloadBytes: Int
    /// No tier covers the target: the largest is shown enlarged.
    public var upscaled: Bool
    /// The photo's dimensions were unknown; `CostModel.assumedOriginal` stood in.
    public var assumedDimensions: Bool
}
