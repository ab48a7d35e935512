@testable import FieldpackSynth
import Testing

@Suite struct SyntheticOpenDataTests {
    /// Each id of the synthetic taxa table is one taxon at any size: past 25M observations
    /// (100,000 genera) genus k and species k − 100000 shared an id, which put that id on both
    /// sides of the benchmark's taxon rule at iNaturalist's size (70M observations).
    @Test(arguments: [10, 499_995, 500_000, 500_005, 1_400_000])
    func everyGenusIDIsOneTaxonAndNoSpeciesAtAnySize(species: Int) {
        let genera = max(1, species / 5)
        let speciesIDs = SyntheticOpenData.speciesID(0)..<SyntheticOpenData.speciesID(species)
        var seen = Set<Int>()
        for genus in 0..<genera {
            let id = SyntheticOpenData.genusID(genus, species: species)
            #expect(!speciesIDs.contains(id), "genus \(genus) of \(species) species has species id \(id)")
            #expect(![1, 47126, 47170, 48460].contains(id))
            #expect(seen.insert(id).inserted, "genus \(genus) of \(species) species repeats id \(id)")
        }
    }

    /// Below 25M observations the export is byte for byte what it always was: the benchmark's
    /// 1M and 10M exports (and their measurements) stay comparable across runs.
    @Test func theFirstHundredThousandGeneraKeepTheirIDs() {
        for genus in [0, 3, 99_999] {
            #expect(SyntheticOpenData.genusID(genus, species: 1_400_000) == 200_000 + genus)
            #expect(SyntheticOpenData.genusID(genus, species: 500_000) == 200_000 + genus)
        }
        #expect(SyntheticOpenData.genusID(100_000, species: 1_400_000) == SyntheticOpenData.speciesID(1_400_000))
    }
}
