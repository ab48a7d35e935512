import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// A small bundle from constructed records, for the tests of the bundle stage, the manifest and
/// verify: two observations by two users of one taxon; photo 10 (cc-by) ships, photo 11
/// (cc-by-nc) does not under the default, commercial licences. Observation 1 was updated at
/// 10:00 in UTC+2 (08:00 UTC), observation 2 at 09:30 UTC: the newer one, though its text
/// sorts first.
enum SmallBundle {
    static let newestUpdate = "2024-05-01T09:30:00Z"

    /// The bundle tables, restated from the README's table list.
    static let tables = [
        "users", "photos", "taxa", "observations", "observation_photos", "taxon_photos", "photo_tiers", "display_targets",
        "size_costs", "articles", "destinations", "search_entries",
    ]

    /// Ingests and dedupes the records into `directory` (`deduped.jsonl`, and the input `page.json`).
    static func records(in directory: TemporaryDirectory) throws -> String {
        try directory.write("page.json", page([
            observationJSON(id: 1, updatedAt: "2024-05-01T10:00:00+02:00", user: 7, photos: [(id: 10, license: "cc-by", width: 2048)]),
            observationJSON(id: 2, updatedAt: "2024-05-01T09:30:00+00:00", user: 8, photos: [(id: 11, license: "cc-by-nc", width: 1024)]),
        ]))
        try ingestAndDedupe([directory.file("page.json")], in: directory)
        return directory.file("deduped.jsonl")
    }

    static func options(in directory: TemporaryDirectory, name: String = "small") throws -> BundleBuilder.Options {
        var options = BundleBuilder.Options(
            input: try records(in: directory), output: directory.file("content.sqlite"), pipelineName: name, policy: ShippingPolicy())
        options.inputsFile = directory.file("inputs.json")
        options.costsReport = directory.file("costs-report.json")
        return options
    }

    /// Builds `content.sqlite` (with `inputs.json` and `costs-report.json`) and publishes it to
    /// `bundle/`; returns the bundle folder.
    @discardableResult
    static func publish(in directory: TemporaryDirectory, name: String = "small") throws -> String {
        try BundleBuilder(options: try options(in: directory, name: name)).run()
        var publisher = BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("bundle"))
        publisher.inputs = directory.file("inputs.json")
        try publisher.publish()
        return directory.file("bundle")
    }

    /// The golden fingerprint of the latest schema, read from the lock file (not from the code).
    static func lockedFingerprint() throws -> String {
        let path = "\(repositoryRoot)/Sources/FieldpackKit/Bundle/Migrations.lock.json"
        let lock = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
        let entries = try #require(lock["migrations"] as? [[String: Any]])
        return try #require(entries.last?["fingerprint"] as? String)
    }

    /// `sha256sum`'s digest of a file.
    static func sha256sum(_ path: String) throws -> String {
        String(try run("/usr/bin/sha256sum", [path]).stdout.prefix(64))
    }
}

/// What the bundle stage promises about the database it writes, beyond its rows (BundleTests)
/// and its photos (PhotoShippingTests).
@Suite struct BundleBehaviourTests {
    @Test func bundleInfoNamesTheSchemaPipelineToolLicencesAndTheRowCountOfEveryTable() throws {
        let directory = try TemporaryDirectory()
        let summary = try BundleBuilder(options: try SmallBundle.options(in: directory, name: "small-one")).run()
        let database = try Database(path: directory.file("content.sqlite"), mode: .immutable)
        var info: [String: String] = [:]
        for row in try database.rows("SELECT key, value FROM bundle_info") { info[row[0]!] = row[1] }
        #expect(info["schema_version"] == String(Migrations.latestVersion))
        #expect(info["pipeline"] == "small-one")
        #expect(info["tool_version"] == "0.1.0")
        #expect(info["build_date"] == SmallBundle.newestUpdate)
        #expect(info["schema_fingerprint"] == (try SmallBundle.lockedFingerprint()))
        // The default licences, sorted: the four that allow commercial use.
        #expect(info["photos.licenses_allowed"] == "cc-by,cc-by-sa,cc0,pd")
        // One rows.<table> per table, and each is that table's count.
        #expect(Set(info.keys.filter { $0.hasPrefix("rows.") }) == Set(SmallBundle.tables.map { "rows.\($0)" }))
        for table in SmallBundle.tables {
            let count = try #require(try database.int("SELECT count(*) FROM \(table)"))
            #expect(info["rows.\(table)"] == String(count), "\(table)")
        }
        #expect(info["rows.users"] == "2" && info["rows.observations"] == "2" && info["rows.photos"] == "1")
        // The summary the executable prints says the same.
        #expect(summary.buildDate == SmallBundle.newestUpdate)
        #expect(summary.fingerprint == info["schema_fingerprint"])
        #expect(summary.counts.map { $0.table } == SmallBundle.tables)
        #expect(summary.counts.map { String($0.rows) } == SmallBundle.tables.map { info["rows.\($0)"] ?? "?" })
    }

    @Test func aBuildIntoAFolderThatDoesNotExistMakesItAndLeavesOnlyTheOutputs() throws {
        let directory = try TemporaryDirectory()
        var options = try SmallBundle.options(in: directory)
        options.output = directory.file("new/deeper/content.sqlite")
        options.costsReport = directory.file("new/deeper/costs-report.json")
        options.inputsFile = nil
        let summary = try BundleBuilder(options: options).run()
        // No scratch file, journal or hidden temp file beside the published database.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("new/deeper")).sorted()
                == ["content.sqlite", "costs-report.json"])
        let size = try FileManager.default.attributesOfItem(atPath: options.output)[.size] as! Int
        #expect(summary.bytes == size)
        #expect(size % 4096 == 0)
    }

    /// An output name so long that the scratch or temp file beside it passes the file system's
    /// limit on a name is an error naming the output and why, not the hidden file; so for any
    /// output written through a temp file.
    @Test func anOutputNameTooLongForItsTempFileIsAnErrorNamingTheOutput() throws {
        let directory = try TemporaryDirectory()
        var options = try SmallBundle.options(in: directory)
        options.output = directory.file(String(repeating: "b", count: 240) + ".sqlite")
        let error = try #require(throws: FieldpackError.self) { try BundleBuilder(options: options).run() }
        #expect(error.path == options.output, "\(error)")
        #expect(error.message.contains("its name is 247 bytes: the temp file written beside it first adds"), "\(error)")
        let report = directory.file(String(repeating: "r", count: 245) + ".json")
        let written = try #require(throws: FieldpackError.self) { try AtomicOutput(path: report) }
        #expect(written.path == report, "\(written)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { !$0.hasPrefix(".") && !$0.contains(".scratch-") })
    }

    @Test func inputsJSONListsEveryInputFileByPathSizeAndDigestSortedByPath() throws {
        let directory = try TemporaryDirectory()
        // Two inputs whose order on the command line is not their path order.
        let later = try directory.write("b-later.jsonl", observationJSON(id: 5) + "\n")
        let earlier = try directory.write("A-earlier.jsonl", observationJSON(id: 6, user: 9) + "\n")
        try ingestAndDedupe([later, earlier], in: directory)
        var options = BundleBuilder.Options(
            input: directory.file("deduped.jsonl"), output: directory.file("content.sqlite"), pipelineName: "t", policy: ShippingPolicy())
        options.inputsFile = directory.file("inputs.json")
        try BundleBuilder(options: options).run()
        let written = try text(directory.file("inputs.json"))
        #expect(written.hasSuffix("]\n"))
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(written.utf8)) as? [[String: Any]])
        #expect(entries.map { $0["path"] as? String } == [earlier, later])
        for (entry, path) in zip(entries, [earlier, later]) {
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
            #expect(entry["bytes"] as? Int == size)
            #expect(entry["sha256"] as? String == (try SmallBundle.sha256sum(path)))
            #expect(entry.keys.sorted() == ["bytes", "path", "sha256"])
        }
        // The database does not name them.
        let database = try Database(path: directory.file("content.sqlite"), mode: .immutable)
        #expect(try database.int("SELECT count(*) FROM bundle_info WHERE value LIKE '%earlier%' OR value LIKE '%later%'") == 0)
    }

    @Test func destinationsWithoutAnArticlesFileAreRefusedAndNothingIsPublished() throws {
        let directory = try TemporaryDirectory()
        var options = try SmallBundle.options(in: directory)
        options.destinations = [Destination(id: "forest", name: "Sonian Forest", wikipedia: "Sonian Forest", wikidata: nil)]
        let error = try #require(throws: FieldpackError.self) { try BundleBuilder(options: options).run() }
        #expect(error.path == directory.file("content.sqlite"))
        #expect(error.message == "the pipeline has destinations but no articles file was given")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(left == ["conflicts.json", "deduped.jsonl", "page.json", "records.jsonl", "rejects.jsonl"])
    }
}
