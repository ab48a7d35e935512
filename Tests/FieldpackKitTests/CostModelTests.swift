import FieldpackKit
import FieldpackTestSupport
import Testing

@Suite struct CostModelTests {
    let model = CostModel()
    let photo = PixelSize(width: 2048, height: 1536)

    /// A side past the largest image (a records file edited after ingest) is no size the model
    /// trusts: its size class is unknown, so the report's `assumed_dimensions` (which counts
    /// classes without an original) and the estimate's `assumedDimensions` agree.
    @Test func aSidePastTheLargestImageIsAnUnknownSizeForTheClassAndTheEstimateAlike() {
        let oversized = PixelSize(width: 70_000, height: 1_000)
        let size = SizeClass(remote: false, original: oversized)
        #expect(size.original == nil)
        let target = DisplayTarget(name: "cell", width: 60, height: 60, scale: 3, mode: .fill)
        #expect(model.estimate(original: oversized, target: target).assumedDimensions)
        #expect(model.estimate(size, target: target).assumedDimensions)
        #expect(SizeClass(remote: false, original: photo).original == photo)
    }

    @Test func aListCellOf60PointsAt3xFetchesSmall() {
        let cost = model.estimate(original: photo, target: DisplayTarget(name: "cell", width: 60, height: 60, scale: 3, mode: .fill))
        #expect(cost.tier == .small)
        #expect(cost.served == PixelSize(width: 240, height: 180))
        #expect(cost.display == PixelSize(width: 180, height: 180))
        #expect(cost.decodedBytes == 138_240)  // 768-byte rows (720 rounded up to 64) × 180
        #expect(!cost.upscaled && !cost.assumedDimensions)
    }

    @Test func aDetailViewOf390By260PointsAt3xFetchesOriginalBecauseLargeReachesNeitherSide() {
        let cost = model.estimate(original: photo, target: DisplayTarget(name: "detail", width: 390, height: 260, scale: 3, mode: .fit))
        #expect(PhotoTier.large.servedSize(original: photo) == PixelSize(width: 1024, height: 768))
        #expect(cost.tier == .original)
        #expect(cost.display == PixelSize(width: 1040, height: 780))
        #expect(cost.decodedBytes == 3_244_800)
        #expect(cost.transientBytes == 2048 * 4 * 1536)
    }

    /// A photo smaller than every target's box is served at its own size by every tier from the
    /// one whose bound it fits in: the targets no tier covers fetch that smallest such tier, so
    /// one URL (one download, one cache entry) serves them all, where `original` gave the detail
    /// view a second URL for the same pixels.
    @Test func aSmallPhotoThatNoTierCoversFetchesTheSmallestTierServingAllItsPixels() {
        let small = PixelSize(width: 188, height: 188)
        let cell = model.estimate(original: small, target: DisplayTarget(name: "cell", width: 60, height: 60, scale: 3, mode: .fill))
        let detail = model.estimate(original: small, target: DisplayTarget(name: "detail", width: 390, height: 260, scale: 3, mode: .fit))
        #expect(cell.tier == .small && !cell.upscaled)
        #expect(detail.tier == .small && detail.upscaled && detail.served == small)
        // A photo over the largest bound is still served at it by `original` alone.
        let large = model.estimate(original: PixelSize(width: 4000, height: 3000), target: DisplayTarget(name: "wall", width: 1500, height: 1000, scale: 2, mode: .fit))
        #expect(large.tier == .original && large.upscaled && large.served == PixelSize(width: 2048, height: 1536))
    }

    @Test func aTinyFillTargetFetchesTheSquare() {
        let cost = model.estimate(original: photo, target: DisplayTarget(name: "pin", width: 20, height: 20, scale: 3, mode: .fill))
        #expect(cost.tier == .square)
        #expect(cost.served == PixelSize(width: 75, height: 75))
    }

    @Test(arguments: [
        // original, tier, served
        (PixelSize(width: 2048, height: 1536), PhotoTier.thumb, PixelSize(width: 100, height: 75)),
        (PixelSize(width: 2048, height: 1536), .medium, PixelSize(width: 500, height: 375)),
        (PixelSize(width: 1536, height: 2048), .small, PixelSize(width: 180, height: 240)),
        (PixelSize(width: 1445, height: 1057), .small, PixelSize(width: 240, height: 176)),  // 175.56 → 176
        (PixelSize(width: 1000, height: 333), .thumb, PixelSize(width: 100, height: 33)),    // 33.3 → 33
        (PixelSize(width: 1000, height: 335), .thumb, PixelSize(width: 100, height: 34)),    // 33.5 → 34, half up
        (PixelSize(width: 141, height: 141), .large, PixelSize(width: 141, height: 141)),    // never enlarged
        (PixelSize(width: 233, height: 233), .small, PixelSize(width: 233, height: 233)),
        (PixelSize(width: 512, height: 384), .original, PixelSize(width: 512, height: 384)),
        (PixelSize(width: 300, height: 200), .square, PixelSize(width: 75, height: 75)),
        (PixelSize(width: 2048, height: 3), .thumb, PixelSize(width: 100, height: 1)),       // 0.15 → 1, never 0 px
    ])
    func tiersFitInsideTheirBoundWithTheShortEdgeRoundedHalfUp(original: PixelSize, tier: PhotoTier, served: PixelSize) {
        #expect(tier.servedSize(original: original) == served)
    }

    @Test(arguments: [
        // target box (points at 1x), mode, expected tier for a 2048 × 1536 photo
        (80.0, 80.0, DisplayTarget.Mode.fill, PhotoTier.small),   // 100 × 75 thumb misses 80 high
        (75.0, 75.0, .fill, .square),
        (76.0, 40.0, .fill, .thumb),                              // square only within 75 × 75
        // …and only for a square box: filling a 75 × 30 strip from the square (the photo's centre
        // square) cropped the photo otherwise than filling it from the photo (until 2026-12-08).
        (75.0, 30.0, .fill, .thumb),
        (40.0, 40.0, .fill, .square),
        (100.0, 100.0, .fit, .thumb),                             // fit: 100 wide is enough
        (480.0, 100.0, .fit, .small),                             // 180 high reaches 100: shown 133 × 100
        (480.0, 400.0, .fit, .medium),
        (500.0, 400.0, .fill, .large),                            // medium is 500 × 375
        (1024.0, 800.0, .fit, .large),                            // width reaches
        (1100.0, 800.0, .fit, .original),
        (3000.0, 3000.0, .fill, .original),                       // nothing covers: upscaled
    ])
    func theSmallestCoveringTierIsChosen(width: Double, height: Double, mode: DisplayTarget.Mode, tier: PhotoTier) {
        let target = DisplayTarget(name: "t", width: width, height: height, scale: 1, mode: mode)
        let cost = model.estimate(original: photo, target: target)
        #expect(cost.tier == tier)
        #expect(cost.upscaled == (width == 3000))
    }

    @Test func unknownDimensionsUseTheStatedAssumptionAndSaySo() {
        let cost = model.estimate(original: nil, target: DisplayTarget(name: "cell", width: 60, height: 60, scale: 3, mode: .fill))
        #expect(cost.assumedDimensions)
        #expect(cost.tier == .small)
        #expect(model.estimate(original: PixelSize(width: 0, height: 0), target: DisplayTarget(
            name: "cell", width: 60, height: 60, scale: 3, mode: .fill)).assumedDimensions)
    }

    @Test func rowAlignmentAndBytesPerPixelAreParameters() {
        var model = CostModel()
        model.rowAlignment = 16
        model.bytesPerPixel = 2
        #expect(model.decodedBytes(PixelSize(width: 181, height: 10)) == 368 * 10)  // 362 → 368
    }
}
