import FieldpackKit
import Foundation
import Testing

@Suite struct CostStageTests {
    private func policy() -> ShippingPolicy {
        var policy = ShippingPolicy()
        policy.targets = [
            DisplayTarget(name: "list-cell", width: 60, height: 60, scale: 3, mode: .fill),
            DisplayTarget(name: "detail", width: 390, height: 260, scale: 3, mode: .fit),
        ]
        return policy
    }

    /// Ingests and dedupes `pages`, then runs the costs stage; returns the photo lines by id.
    private func costs(_ pages: [String], in directory: TemporaryDirectory) throws -> (CostReport, [Int: [Any]]) {
        let inputs = try pages.enumerated().map { try directory.write("in-\($0.offset).json", $0.element) }
        try ingestAndDedupe(inputs, in: directory)
        let report = try CostStage(options: .init(
            input: directory.file("deduped.jsonl"), output: directory.file("photos.jsonl"),
            report: directory.file("costs-report.json"), policy: policy())).run()
        var photos: [Int: [Any]] = [:]
        for line in try lines(directory.file("photos.jsonl")) {
            let array = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [Any]
            photos[array[1] as! Int] = array
        }
        return (report, photos)
    }

    @Test func creditsComeFromTheObserverAndOnlyAllowedLicencesShip() throws {
        let directory = try TemporaryDirectory()
        let observation = observationJSON(id: 1, user: 7, photos: [(10, "cc-by", 2048), (11, "cc-by-nc", 2048), (12, nil, 2048)])
            .replacingOccurrences(of: "\"name\":null", with: "\"name\":\"Zoë Brontë\"")
        let (report, photos) = try costs([page([observation])], in: directory)
        #expect(report.photos == 3)
        #expect(report.shipped == 1)
        #expect(report.excluded == ["license:cc-by-nc": 1, "license:all-rights-reserved": 1])
        let shipped = try #require(photos[10])
        #expect(shipped[2] as? Bool == true)
        #expect(shipped[5] as? String == "(c) Zoë Brontë, some rights reserved (CC BY)")
        #expect(shipped[8] as? String == "https://inaturalist-open-data.s3.amazonaws.com/photos/10/{size}.jpg")
        // The worked example: a 2048 × 1536 photo in a 60 pt @3x cell fetches `small`.
        let cell = try #require((shipped[11] as? [[Any]])?.first)
        #expect(cell[1] as? String == "small")
        #expect(cell[6] as? Int == 138_240)
    }

    @Test func theObserversLoginStandsInForAMissingName() throws {
        let directory = try TemporaryDirectory()
        let (_, photos) = try costs([page([observationJSON(id: 1, user: 7, photos: [(10, "cc0", 800)])])], in: directory)
        #expect(photos[10]?[5] as? String == "user7, no rights reserved (CC0)")
    }

    @Test func placeholdersAndUncreditedTaxonPhotosNeverShip() throws {
        let directory = try TemporaryDirectory()
        let hidden = observationJSON(id: 1, photos: [(10, "cc-by", 800)]).replacingOccurrences(
            of: "https://inaturalist-open-data.s3.amazonaws.com/photos/10/square.jpg",
            with: "https://static.inaturalist.org/assets/media-hidden-square.png")
        // A taxon default photo with no attribution_name, in no observation: nobody to credit.
        let taxonPhoto = observationJSON(id: 2).replacingOccurrences(
            of: "\"rank_level\":10}",
            with: "\"rank_level\":10,\"default_photo\":{\"id\":77,\"license_code\":\"cc0\",\"url\":\"https://static.inaturalist.org/photos/77/square.jpg\",\"attribution\":\"no rights reserved\",\"original_dimensions\":null}}")
        let (report, _) = try costs([page([hidden, taxonPhoto])], in: directory)
        #expect(report.excluded == ["placeholder:media-hidden": 1, "no-credit": 1])
        #expect(report.shipped == 0)
    }

    @Test func sampleDataCostsMatchTheGoldenReport() throws {
        let directory = try TemporaryDirectory()
        let folder = "sample-data/inat"
        let inputs = try FileManager.default.contentsOfDirectory(atPath: "\(repositoryRoot)/\(folder)")
            .filter { !$0.hasSuffix(".md") }.sorted().map { "\(folder)/\($0)" }
        try ingestAndDedupe(inputs, in: directory)
        let pipeline = try Pipeline.load("\(repositoryRoot)/pipelines/sample.json")
        try CostStage(options: .init(
            input: directory.file("deduped.jsonl"), output: directory.file("photos.jsonl"),
            report: directory.file("costs-report.json"), policy: pipeline.shipping)).run()
        try expectGolden(directory.file("costs-report.json"), "sample-costs-report.json")
        try expectGolden(directory.file("photos.jsonl"), "sample-costs-photos.jsonl")
    }
}
