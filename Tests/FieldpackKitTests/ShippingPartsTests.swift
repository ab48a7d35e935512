import FieldpackKit
import Testing

@Suite struct HeroPhotoTests {
    let shippable: Set<Int64> = [2, 3, 5, 6, 7]

    private func observation(_ photo: Int64, _ observation: Int64, updated: Int64, position: Int = 0, research: Bool = true)
        -> HeroPhoto.ObservationPhoto
    {
        HeroPhoto.ObservationPhoto(photo: photo, observation: observation, updated: updated, position: position, researchGrade: research)
    }

    @Test func theDefaultPhotoWinsWhenItMayShip() {
        #expect(HeroPhoto.choose(defaultPhoto: 3, taxonPhotos: [2], observationPhotos: [], ships: shippable.contains) == 3)
    }

    @Test func thenTheFirstShippableTaxonPhotoInOrder() {
        #expect(HeroPhoto.choose(defaultPhoto: 1, taxonPhotos: [4, 5, 2], observationPhotos: [], ships: shippable.contains) == 5)
    }

    @Test func thenResearchGradeObservationPhotosNewestFirst() {
        let photos = [
            observation(6, 10, updated: 100),
            observation(7, 11, updated: 300, research: false),  // not research grade
            observation(2, 12, updated: 200, position: 1),
            observation(3, 12, updated: 200, position: 0),       // same observation, lower position
            observation(9, 13, updated: 400),                    // may not ship
        ]
        #expect(HeroPhoto.choose(defaultPhoto: 1, taxonPhotos: [4], observationPhotos: photos, ships: shippable.contains) == 3)
        #expect(HeroPhoto.choose(defaultPhoto: nil, taxonPhotos: [], observationPhotos: photos.shuffled(), ships: shippable.contains) == 3)
    }

    @Test func noShippablePhotoMeansNoHero() {
        #expect(HeroPhoto.choose(defaultPhoto: 1, taxonPhotos: [4], observationPhotos: [observation(9, 1, updated: 1)],
                                 ships: shippable.contains) == nil)
    }
}

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
