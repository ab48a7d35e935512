import FieldpackKit
import FieldpackTestSupport
import Testing

@Suite struct DownloadSizeFitTests {
    @Test func aTierFitsItsMeasuredSizesThroughTheOrigin() throws {
        let samples = [
            DownloadSizeFit.Sample(tier: .small, served: PixelSize(width: 240, height: 180), bytes: 12_960),  // 0.30
            DownloadSizeFit.Sample(tier: .small, served: PixelSize(width: 240, height: 160), bytes: 11_520),  // 0.30
            DownloadSizeFit.Sample(tier: .large, served: PixelSize(width: 1024, height: 768), bytes: 141_558),  // 0.18
            DownloadSizeFit.Sample(tier: .large, served: PixelSize(width: 1024, height: 768), bytes: 173_015),  // 0.22
        ]
        let fits = DownloadSizeFit.fit(samples)
        #expect(fits.map(\.tier) == [.small, .large])
        let small = try #require(fits.first)
        #expect(abs(small.bytesPerPixel - 0.30) < 1e-9)
        #expect(small.meanAbsolutePercentageError < 1e-9)
        let large = try #require(fits.last)
        #expect(abs(large.bytesPerPixel - 0.20) < 0.001)
        #expect(large.meanAbsolutePercentageError > 0.05 && large.meanAbsolutePercentageError < 0.15)
        let model = DownloadSizeFit.apply(fits, to: CostModel())
        #expect(model.downloadBytesPerPixel[PhotoTier.small.ordinal] == small.bytesPerPixel)
        #expect(model.downloadBytesPerPixel[PhotoTier.medium.ordinal] == CostModel().downloadBytesPerPixel[PhotoTier.medium.ordinal])
    }
}
