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

    /// Runs the pipeline's stages into `directory`; returns ingest's stderr.
    @discardableResult
    private func build(_ pipeline: String, into directory: TemporaryDirectory) throws -> String {
        let out = directory.path
        let ingest = try stage("inat", [
            "--pipeline", pipeline, "--output", "\(out)/records.jsonl", "--rejects", "\(out)/rejects.jsonl"])
        // As the Makefile runs it: ingest prunes by the pipeline's select, so dedupe must know it.
        try stage("dedupe", [
            "\(out)/records.jsonl", "--pipeline", pipeline, "--output", "\(out)/deduped.jsonl", "--conflicts", "\(out)/conflicts.json"])
        try stage("wiki", [
            "--pipeline", pipeline, "--records", "\(out)/deduped.jsonl", "--output", "\(out)/articles.jsonl",
            "--report", "\(out)/wiki-report.json", "--rejects", "\(out)/wiki-rejects.jsonl"])
        try stage("bundle", [
            "\(out)/deduped.jsonl", "--pipeline", pipeline, "--output", "\(out)/content.sqlite", "--articles", "\(out)/articles.jsonl",
            "--costs-report", "\(out)/costs-report.json", "--inputs", "\(out)/inputs.json"])
        try stage("manifest", [
            "\(out)/content.sqlite", "--output", "\(out)/bundle", "--inputs", "\(out)/inputs.json", "--include", "\(out)/costs-report.json"])
        try stage("verify", ["\(out)/bundle"])
        return ingest.stderr
    }

    @Test(.enabled(if: binaries != nil))
    func theOpenDataSamplePipelineWithoutItsSelectionKeepsEveryTrapOfTheExport() throws {
        let directory = try TemporaryDirectory()
        let out = directory.path
        // The sample pipeline without its "select": every observation of the export, to show the format's traps.
        var object = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: "\(repositoryRoot)/pipelines/open-data-sample.json"))) as! [String: Any]
        #expect(object.removeValue(forKey: "select") != nil)
        let pipeline = directory.file("open-data-all.json")
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: pipeline))
        let ingest = try build(pipeline, into: directory)
        // The rejected rows: an observation without a uuid, a taxon row a field short.
        #expect(ingest.contains("2 rejected"), "\(ingest)")

        let database = try Database(path: "\(out)/bundle/content.sqlite", mode: .readOnly)
        // Five observations, one of them also from the API: its id, its privacy, the export's links.
        #expect(try database.scalar("SELECT count(*) FROM observations") == "5")
        #expect(try database.rows("SELECT id, coordinates_obscured, place_guess FROM observations WHERE inaturalist_id IS NOT NULL")
                == [["9200001", "1", "Zwin, Knokke-Heist, BE"]])
        #expect(try database.scalar("SELECT count(*) FROM observations WHERE id < 0 AND inaturalist_id IS NULL") == "4")
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

    /// The sample pipeline's selection: inside the polygon around the Zwin (Knokke-Heist) and in
    /// Aves (3). Kept: 5a0c… (a mallard in the polygon) and e8b2… (observation 9200001, a mallard
    /// whose obscured public point is in it: the default rule tests the public point). Removed
    /// by places: c41e… (Antwerp, outside) and a3d9… (no coordinates); by taxa: 7d15… (an oak
    /// in the polygon).
    @Test(.enabled(if: binaries != nil))
    func theOpenDataSampleSelectionKeepsTheRegionsBirdsAndTheirTaxaPhotosAndObservers() throws {
        let directory = try TemporaryDirectory()
        try build("pipelines/open-data-sample.json", into: directory)
        let database = try Database(path: directory.file("bundle/content.sqlite"), mode: .readOnly)
        #expect(try database.rows("SELECT lower(uuid) FROM observations ORDER BY 1").map { $0[0]! } == [
            "5a0c7e62-3f1b-4d8e-9c2a-6b1f0e4d7a10", "e8b2f6a1-0c4d-4e9f-a7b3-5d1c8e2f6a45"])
        // The mallard and its ancestors, so the app can draw the tree; no oak, no Plantae.
        #expect(try database.rows("SELECT id FROM taxa ORDER BY id").map { $0[0]! } == ["1", "2", "3", "6912", "6921", "6930", "48460"])
        // The kept observations' shipped photos (35926 is CC-BY-NC), 35925 linked once now, and their observers.
        #expect(try database.rows("SELECT id FROM photos ORDER BY id").map { $0[0]! } == ["35925", "35927", "35960"])
        #expect(try database.scalar("SELECT count(*) FROM observation_photos WHERE photo_id = 35925") == "1")
        #expect(try database.rows("SELECT id FROM users ORDER BY id").map { $0[0]! } == ["505", "902"])
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("costs-report.json")))) as! [String: Any]
        let removed = ((report["selection"] as? [String: Any])?["observations"] as? [String: Any])?["removed"] as? [String: Int]
        #expect(removed == ["places": 2, "taxa": 1])
    }

    /// The missing observer is the bundle stage's finding (it needs every record; see
    /// `OpenDataWholeJobTests`): fieldpack-bundle warns, naming the export's line.
    @Test(.enabled(if: binaries != nil))
    func fieldpackBundleWarnsOfAnExportObservationsMissingObserverNamingItsLine() throws {
        let directory = try TemporaryDirectory()
        let observations = try directory.write("inaturalist-open-data-20241127/observations.csv", """
            observation_uuid\tobserver_id\tlatitude\tlongitude\tpositional_accuracy\ttaxon_id\tquality_grade\tobserved_on
            1b000000-0000-4000-8000-000000000001\t99\t50.5\t4.25\t\t\tresearch\t2024-04-30

            """)
        try directory.write("inaturalist-open-data-20241127/observers.csv", "observer_id\tlogin\tname\n7\tkim\tKim Ito\n")
        let pipeline = try directory.write("pipeline.json", #"{"name": "missing-observer", "inat": ["unused"]}"#)
        try stage("inat", [
            "--max-reject-rate", "1", "--output", directory.file("records.jsonl"), "--rejects", directory.file("rejects.jsonl"),
            directory.file("inaturalist-open-data-20241127")])
        let dedupe = try stage("dedupe", [
            directory.file("records.jsonl"), "--output", directory.file("deduped.jsonl"), "--conflicts", directory.file("conflicts.json")])
        #expect(!dedupe.stderr.contains("observer_id 99"), "\(dedupe.stderr)")
        let bundle = try stage("bundle", [
            directory.file("deduped.jsonl"), "--pipeline", pipeline, "--output", directory.file("content.sqlite")])
        #expect(bundle.stderr.contains(
            "\(observations):2: warning: observation 1b000000-0000-4000-8000-000000000001: observer_id 99 has no row in observers"),
            "\(bundle.stderr)")
    }
}
