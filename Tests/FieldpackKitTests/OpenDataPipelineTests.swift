import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// `pipelines/open-data-sample.json` (the hand-written export in `sample-data/open-data/` and one
/// API copy of one of its observations) through the built executables, stage by stage as the
/// Makefile runs them. Needs `FIELDPACK_BIN`; skipped otherwise.
@Suite(.serialized) struct OpenDataPipelineTests {
    static let binaries = ProcessInfo.processInfo.environment["FIELDPACK_BIN"]

    @discardableResult
    private func stage(_ name: String, _ arguments: [String]) throws -> ProcessResult {
        let result = try run("\(Self.binaries!)/fieldpack-\(name)", arguments, directory: repositoryRoot)
        #expect(result.status == 0, "fieldpack-\(name): \(result.stderr)")
        return result
    }

    @Test(.enabled(if: binaries != nil))
    func theOpenDataSamplePipelineBuildsAVerifiedBundle() throws {
        let directory = try TemporaryDirectory()
        let out = directory.path
        let pipeline = "pipelines/open-data-sample.json"
        let ingest = try stage("inat", [
            "--pipeline", pipeline, "--output", "\(out)/records.jsonl", "--rejects", "\(out)/rejects.jsonl"])
        // The rejected rows: an observation without a uuid, a taxon row a field short.
        #expect(ingest.stderr.contains("2 rejected"), "\(ingest.stderr)")
        try stage("dedupe", ["\(out)/records.jsonl", "--output", "\(out)/deduped.jsonl", "--conflicts", "\(out)/conflicts.json"])
        try stage("wiki", [
            "--pipeline", pipeline, "--records", "\(out)/deduped.jsonl", "--output", "\(out)/articles.jsonl",
            "--report", "\(out)/wiki-report.json", "--rejects", "\(out)/wiki-rejects.jsonl"])
        try stage("bundle", [
            "\(out)/deduped.jsonl", "--pipeline", pipeline, "--output", "\(out)/content.sqlite", "--articles", "\(out)/articles.jsonl",
            "--costs-report", "\(out)/costs-report.json", "--inputs", "\(out)/inputs.json"])
        try stage("manifest", [
            "\(out)/content.sqlite", "--output", "\(out)/bundle", "--inputs", "\(out)/inputs.json", "--include", "\(out)/costs-report.json"])
        try stage("verify", ["\(out)/bundle"])

        let database = try Database(path: "\(out)/bundle/content.sqlite", mode: .readOnly)
        // Four observations, one of them also from the API: its id, its privacy, the export's links.
        #expect(try database.scalar("SELECT count(*) FROM observations") == "4")
        #expect(try database.rows("SELECT id, coordinates_obscured, place_guess FROM observations WHERE inaturalist_id IS NOT NULL")
                == [["9200001", "1", "Zwin, Knokke-Heist, BE"]])
        #expect(try database.scalar("SELECT count(*) FROM observations WHERE id < 0 AND inaturalist_id IS NULL") == "3")
        // The upper-case uuid of observations.csv and the lower-case one of photos.csv are one observation.
        #expect(try database.scalar("""
            SELECT count(*) FROM observation_photos JOIN observations ON observations.id = observation_id
            WHERE lower(uuid) = 'c41e8b07-9d3a-4f12-b6e8-0a7c5d2f9b34'
            """) == "1")
        // Photo 35925 is in two observations' rows: one photo, two links.
        #expect(try database.scalar("SELECT count(*) FROM observation_photos WHERE photo_id = 35925") == "2")
        // CC-BY-NC is not among the pipeline's licences: photo 35926 does not ship.
        #expect(try database.scalar("SELECT count(*) FROM photos WHERE id = 35926") == "0")
        // Credits: the observer's name, else the login (a None name is no name).
        #expect(try database.scalar("SELECT credit FROM photos WHERE id = 35927")?.contains(#"Kim "Kestrel" Ito"#) == true)
        #expect(try database.scalar("SELECT credit FROM photos WHERE id = 35950")?.contains("obrien") == true)
        // The export's taxon, with the API copy's common name; quotes kept in names.
        #expect(try database.rows("SELECT name, preferred_common_name FROM taxa WHERE id = 6930") == [["Anas platyrhynchos", "Canard colvert"]])
        #expect(try database.scalar("SELECT name FROM taxa WHERE id = 1000001") == "Quercus robur 'Fastigiata'")
        // Every tier URL derives from the square one, extension verbatim.
        #expect(try database.scalar("SELECT url FROM photos WHERE id = 35960") == "https://inaturalist-open-data.s3.amazonaws.com/photos/35960/square.png")
        #expect(try database.rows("SELECT width, height FROM photos WHERE id = 35960") == [["1024", "768"]])
    }
}
