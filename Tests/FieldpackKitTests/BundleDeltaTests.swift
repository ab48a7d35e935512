import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// delta.json: what changed since the previous bundle, checked exactly against an independent
/// row-by-row comparison of the two bundles.
@Suite struct BundleDeltaTests {
    @discardableResult
    private func build(
        _ inputs: [String], in directory: TemporaryDirectory, previous: String? = nil, policy: ShippingPolicy? = nil
    ) throws -> String {
        try ingestAndDedupe(inputs.map { "\(repositoryRoot)/sample-data/inat/\($0)" }, in: directory)
        var options = BundleBuilder.Options(
            input: directory.file("deduped.jsonl"), output: directory.file("content.sqlite"), pipelineName: "sample",
            policy: try policy ?? samplePolicy())
        options.previous = previous
        options.delta = previous == nil ? nil : directory.file("delta.json")
        try BundleBuilder(options: options).run()
        return directory.file("content.sqlite")
    }

    /// A run that fails (here its previous bundle is not one) leaves the last build's database,
    /// inputs.json, delta.json and costs report as they were: never new provenance or a new delta
    /// beside the old database.
    @Test func aFailedBuildLeavesTheFilesBesideTheDatabaseAsTheyWere() throws {
        let directory = try TemporaryDirectory()
        let first = try TemporaryDirectory()
        let previous = try build(["observations-page-1.json"], in: first)
        try ingestAndDedupe(["observations-page-1.json", "taxa-page-1.json"].map { "\(repositoryRoot)/sample-data/inat/\($0)" }, in: directory)
        var options = BundleBuilder.Options(
            input: directory.file("deduped.jsonl"), output: directory.file("content.sqlite"), pipelineName: "sample", policy: try samplePolicy())
        options.inputsFile = directory.file("inputs.json")
        options.costsReport = directory.file("costs-report.json")
        options.previous = previous
        options.delta = directory.file("delta.json")
        try BundleBuilder(options: options).run()
        let names = ["content.sqlite", "inputs.json", "delta.json", "costs-report.json"]
        let before = try names.map { try Data(contentsOf: URL(fileURLWithPath: directory.file($0))) }
        // Other inputs, and a previous bundle that is not one: the delta fails after the load.
        try ingestAndDedupe(["observations-page-2.json"].map { "\(repositoryRoot)/sample-data/inat/\($0)" }, in: directory)
        let notABundle = try directory.write("not-a-bundle.sqlite", "")
        try Database(path: notABundle).execute("CREATE TABLE t (x)")
        options.previous = notABundle
        #expect(throws: (any Error).self) { try BundleBuilder(options: options).run() }
        #expect(try names.map { try Data(contentsOf: URL(fileURLWithPath: directory.file($0))) } == before)
    }

    /// Every row of `table` by key, as text: the row's columns (those in `columns`) and its links.
    private func snapshot(_ path: String, _ table: String, key: String, links: String?) throws -> [String: String] {
        let database = try Database(path: path, mode: .immutable)
        let columns = try database.rows("SELECT name FROM pragma_table_info(?)", [.text(table)]).compactMap { $0[0] }
        var result: [String: String] = [:]
        for row in try database.rows("SELECT \(key), * FROM \(table)") {
            var text = zip(columns, row.dropFirst()).map { "\($0)=\($1 ?? "∅")" }.joined(separator: "|")
            if let links {
                text += "|" + (try database.rows(links, [.text(row[0]!)]).map { $0.map { $0 ?? "" }.joined(separator: ":") }.joined(separator: ","))
            }
            result[row[0]!] = text
        }
        return result
    }

    /// A previous bundle whose record of migrations lacks one, or names one otherwise, is refused
    /// as `fieldpack-bundle migrate` refuses it (it was migrated on as if whole, and compared).
    @Test(arguments: ["DELETE FROM schema_migrations WHERE version = 4", "UPDATE schema_migrations SET name = 'whatever' WHERE version = 2"])
    func aPreviousBundleWithAWrongRecordOfMigrationsIsRefused(tamper: String) throws {
        let directory = try TemporaryDirectory()
        let previous = directory.file("previous-v5.sqlite")
        try FileManager.default.copyItem(atPath: "\(repositoryRoot)/Tests/FieldpackKitTests/Fixtures/bundles/v5.sqlite", toPath: previous)
        try Database(path: previous).execute(tamper)
        let error = try #require(throws: FieldpackError.self) { try build(["observations-page-1.json"], in: directory, previous: previous) }
        #expect(error.description.contains("schema_migrations"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("delta.json")))
    }

    /// A previous bundle at an older schema: the app migrates it, then takes the rows the delta
    /// lists from the new bundle. Every row it does not list must then be the new bundle's, column
    /// for column. Here the previous bundle holds the very rows of the new one in schema 2's
    /// columns, so what differs is only what the newer schema added (a photo's credit and tier
    /// offsets, an observation's geoprivacy): compared on the columns both schemas have, the delta
    /// was empty, and the app kept every photo without its credit.
    @Test func aDeltaFromAnOlderSchemaListsWhatTheMigratedPreviousBundleHoldsOtherwise() throws {
        let first = try TemporaryDirectory()
        let inputs = ["observations-page-1.json", "taxa-page-1.json", "shipping-cases.jsonl"]
        let current = try build(inputs, in: first)
        // The same rows in a bundle of schema 2: the fixture's schema, its rows replaced.
        let previous = first.file("previous-v2.sqlite")
        try FileManager.default.copyItem(atPath: "\(repositoryRoot)/Tests/FieldpackKitTests/Fixtures/bundles/v2.sqlite", toPath: previous)
        let old = try Database(path: previous)
        try old.execute("ATTACH DATABASE '\(current)' AS new")
        let tables = ["taxon_photos", "observation_photos", "observations", "photos", "taxa", "users"]
        try old.transaction {
            for table in tables { try old.execute("DELETE FROM main.\(table)") }
            for table in tables.reversed() {
                let shared = try old.rows("SELECT name FROM pragma_table_info(?, 'main') WHERE name IN (SELECT name FROM pragma_table_info(?, 'new'))", [.text(table), .text(table)])
                    .compactMap { $0[0] }.map { "\"\($0)\"" }.joined(separator: ", ")
                try old.execute("INSERT INTO main.\(table) (\(shared)) SELECT \(shared) FROM new.\(table)")
            }
        }
        try old.execute("DETACH DATABASE new")
        let second = try TemporaryDirectory()
        let rebuilt = try build(inputs, in: second, previous: previous)
        let migrated = second.file("migrated.sqlite")
        try BundleMigration(options: .init(source: previous, output: migrated)).run()
        let delta = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: second.file("delta.json")))) as! [String: Any]
        #expect(delta["previous"].flatMap { ($0 as? [String: Any])?["schema_version"] as? Int } == 2, "\(delta["previous"] ?? "")")
        let kinds: [(String, String, String?)] = [
            ("photos", "photos", nil),
            ("taxa", "taxa", "SELECT position, photo_id FROM taxon_photos WHERE taxon_id = ? ORDER BY position"),
            ("observations", "observations", "SELECT photo_id, position FROM observation_photos WHERE observation_id = ? ORDER BY photo_id"),
            ("users", "users", nil),
        ]
        var listed = 0
        for (kind, table, links) in kinds {
            let before = try snapshot(migrated, table, key: "id", links: links)
            let after = try snapshot(rebuilt, table, key: "id", links: links)
            let changes = try #require(delta[kind] as? [String: Any])
            #expect((changes["added"] as? [Any])?.isEmpty == true && (changes["removed"] as? [Any])?.isEmpty == true, "\(kind)")
            let changed = Set(((changes["changed"] as? [Any]) ?? []).map { "\($0)" })
            listed += changed.count
            for (key, row) in after where !changed.contains(key) {
                #expect(before[key] == row, "\(kind) \(key) differs after the app migrated its bundle and applied the delta")
            }
        }
        #expect(listed > 0)
        // The migrated copy compared with is gone.
        #expect(try FileManager.default.contentsOfDirectory(atPath: second.path).filter { $0.contains("scratch") || $0.contains("migrated-") } == [])
    }

    @Test func aDeltaListsExactlyWhatWasAddedChangedAndRemoved() throws {
        let first = try TemporaryDirectory()
        let second = try TemporaryDirectory()
        let previous = try build(["observations-page-1.json", "taxa-page-1.json", "shipping-cases.jsonl"], in: first)
        let current = try build(
            ["observations-page-1.json", "observations-page-2.json", "observations-page-3.json", "taxa-page-1.json", "updates.jsonl.gz"],
            in: second, previous: previous)
        let delta = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: second.file("delta.json")))) as! [String: Any]
        let kinds: [(String, String, String, String?)] = [
            ("photos", "photos", "id", nil),
            ("taxa", "taxa", "id", "SELECT position, photo_id FROM taxon_photos WHERE taxon_id = ? ORDER BY position"),
            ("observations", "observations", "id", "SELECT photo_id, position FROM observation_photos WHERE observation_id = ? ORDER BY photo_id"),
            ("users", "users", "id", nil),
        ]
        for (kind, table, key, links) in kinds {
            let old = try snapshot(previous, table, key: key, links: links)
            let new = try snapshot(current, table, key: key, links: links)
            let added = Set(new.keys).subtracting(old.keys)
            let removed = Set(old.keys).subtracting(new.keys)
            let changed = Set(new.keys).intersection(old.keys).filter { new[$0] != old[$0] }
            let listed = try #require(delta[kind] as? [String: [Int]])
            #expect(Set(listed["added"]!.map(String.init)) == added, "\(kind) added")
            #expect(Set(listed["removed"]!.map(String.init)) == removed, "\(kind) removed")
            #expect(Set(listed["changed"]!.map(String.init)) == changed, "\(kind) changed")
            #expect(listed["added"] == listed["added"]!.sorted(), "\(kind) keys are sorted")
        }
        // Every user an added observation names is in the previous bundle or listed as added: an
        // app that applies the delta has no observation pointing at a user it never got.
        let users = try #require(delta["users"] as? [String: [Int]])
        let previousUsers = Set(try snapshot(previous, "users", key: "id", links: nil).keys)
        let addedObservations = try #require((delta["observations"] as? [String: [Int]])?["added"])
        let named = try Database(path: current, mode: .immutable).rows(
            "SELECT DISTINCT user_id FROM observations WHERE id IN (\(addedObservations.map(String.init).joined(separator: ",")))").compactMap { $0[0] }
        #expect(!users["added"]!.isEmpty)
        for user in named { #expect(previousUsers.contains(user) || users["added"]!.contains(Int(user)!), "user \(user)") }
        // Concretely: the shipping cases' photos are gone, page 2's are new.
        let photos = try #require(delta["photos"] as? [String: [Int]])
        #expect(photos["removed"]!.contains(81_000_100))
        #expect(photos["added"]!.contains(81_000_024))
        // And bundle_info counts them, for the app to see before it reads the delta.
        let database = try Database(path: current, mode: .immutable)
        #expect(try database.scalar("SELECT value FROM bundle_info WHERE key = 'delta.photos.added'") == String(photos["added"]!.count))
        let digest = try SHA256.hex(ofFile: previous).0
        #expect(try database.scalar("SELECT value FROM bundle_info WHERE key = 'delta.previous_sha256'") == digest)
    }

    @Test func anUnchangedRebuildHasAnEmptyDelta() throws {
        let first = try TemporaryDirectory()
        let second = try TemporaryDirectory()
        let inputs = ["observations-page-1.json", "taxa-page-1.json"]
        let previous = try build(inputs, in: first)
        try build(inputs, in: second, previous: previous)
        let delta = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: second.file("delta.json")))) as! [String: Any]
        for kind in ["photos", "taxa", "observations", "articles"] {
            let changes = try #require(delta[kind] as? [String: [Any]])
            let total = changes.values.reduce(0) { $0 + $1.count }
            #expect(total == 0, "\(kind): \(changes)")
        }
    }

    /// The same photos with a display target made larger: no photo row changed, but the photos
    /// now fetched at another tier for it are listed as changed, exactly those (each photo's
    /// fetched URLs per target read from the `photo_costs` view of both bundles), so that the app
    /// fetches them again at the new size.
    @Test func aPhotoFetchedAtAnotherTierForADisplayTargetIsListedAsChanged() throws {
        let first = try TemporaryDirectory()
        let second = try TemporaryDirectory()
        let inputs = ["observations-page-1.json", "taxa-page-1.json", "shipping-cases.jsonl"]
        let previous = try build(inputs, in: first)
        var policy = try samplePolicy()
        let detail = try #require(policy.targets.firstIndex { $0.name == "detail" })
        policy.targets[detail].width = 1200
        policy.targets[detail].height = 900
        let current = try build(inputs, in: second, previous: previous, policy: policy)
        func fetched(_ path: String) throws -> [String: String] {
            var urls: [String: String] = [:]
            for row in try Database(path: path, mode: .immutable).rows(
                "SELECT photo_id, group_concat(target || '=' || coalesce(url, ''), ' ') FROM (SELECT * FROM photo_costs ORDER BY target) GROUP BY photo_id")
            {
                urls[row[0]!] = row[1] ?? ""
            }
            return urls
        }
        let (before, after) = (try fetched(previous), try fetched(current))
        let moved = Set(after.keys.filter { before[$0] != nil && before[$0] != after[$0] }.compactMap { Int($0) })
        #expect(!moved.isEmpty, "the larger target moved no photo to another tier")
        let delta = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: second.file("delta.json")))) as! [String: Any]
        let photos = try #require(delta["photos"] as? [String: [Int]])
        #expect(Set(photos["changed"] ?? []) == moved)
        #expect(photos["added"] == [] && photos["removed"] == [])
        // A target removed (and one added) changes no photo the app holds: nothing to fetch again.
        let third = try TemporaryDirectory()
        var fewer = try samplePolicy()
        fewer.targets.removeAll { $0.name == "map-pin" }
        fewer.targets.append(DisplayTarget(name: "banner", width: 320, height: 100, scale: 2, mode: .fill))
        try build(inputs, in: third, previous: previous, policy: fewer)
        let unchanged = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: third.file("delta.json")))) as! [String: Any]
        #expect((unchanged["photos"] as? [String: [Int]])?["changed"] == [])
    }

    /// A previous bundle at a schema newer than this tool knows is refused: the delta would
    /// tell the app to go back to an older schema.
    @Test func aPreviousBundleOfANewerSchemaIsRefused() throws {
        let (first, second) = (try TemporaryDirectory(), try TemporaryDirectory())
        let inputs = ["observations-page-1.json"]
        let previous = try build(inputs, in: first)
        try Database(path: previous).execute("PRAGMA user_version = \(Migrations.latestVersion + 1)")
        let error = try #require(throws: FieldpackError.self) { try build(inputs, in: second, previous: previous) }
        #expect(error.path == previous)
        #expect(error.message.contains("newer than this fieldpack knows"), "\(error.message)")
    }

    static let binaries = ProcessInfo.processInfo.environment["FIELDPACK_BIN"]

    /// `--previous FOLDER` is verified as the app would, as `migrate` verifies its source: a
    /// folder that does not verify is refused with its problems; a BagIt bag is read from its
    /// `data/`, as a flat folder from itself.
    @Test(.enabled(if: binaries != nil))
    func aPreviousBundleFolderIsVerifiedFirstAndMayBeABag() throws {
        let bin = try #require(Self.binaries)
        let directory = try TemporaryDirectory()
        let bundle = try buildBundle(inputs: ["\(repositoryRoot)/sample-data/inat/observations-page-1.json"], in: directory)
        var publisher = BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("bag"))
        publisher.bagIt = true
        try publisher.publish()
        let pipeline = try directory.write("pipeline.json", #"{"name": "test", "inat": ["sample-data/inat"]}"# + "\n")
        func delta(_ previous: String) throws -> ProcessResult {
            try run("\(bin)/fieldpack-bundle", [
                directory.file("deduped.jsonl"), "--pipeline", pipeline, "--output", directory.file("next.sqlite"),
                "--previous", previous, "--delta", directory.file("delta.json"),
            ])
        }
        let fromBag = try delta(directory.file("bag"))
        #expect(fromBag.status == 0, "\(fromBag.stderr)")
        let fromFolder = try delta(bundle)
        #expect(fromFolder.status == 0, "\(fromFolder.stderr)")
        // A byte of the database changed after publishing: its checksum no longer matches.
        let handle = try #require(FileHandle(forUpdatingAtPath: "\(bundle)/content.sqlite"))
        try handle.seek(toOffset: 200)
        try handle.write(contentsOf: Data([0x5A]))
        try handle.close()
        let tampered = try delta(bundle)
        #expect(tampered.status != 0)
        #expect(tampered.stderr.contains("\(bundle): error: the previous bundle does not verify"), "\(tampered.stderr)")
        // A database file named alone has no manifest to verify by: its integrity check still
        // runs (a damaged page gave a delta of garbage rows, exit 0).
        let loose = directory.file("loose.sqlite")
        try FileManager.default.copyItem(atPath: directory.file("content.sqlite"), toPath: loose)
        #expect(try delta(loose).status == 0)
        let (root, pageSize) = try {
            let database = try Database(path: loose, mode: .immutable)
            return (try database.int("SELECT rootpage FROM sqlite_schema WHERE name = 'observations'")!,
                    try database.int("PRAGMA page_size")!)
        }()
        let damage = try #require(FileHandle(forUpdatingAtPath: loose))
        try damage.seek(toOffset: UInt64((root - 1) * pageSize + 8))
        try damage.write(contentsOf: Data(repeating: 0xFF, count: 200))
        try damage.close()
        // Not there, or not a database at all: said so, not "fails integrity_check".
        let missing = try delta(directory.file("nowhere.sqlite"))
        #expect(missing.stderr.contains("\(directory.file("nowhere.sqlite")): error: does not exist"), "\(missing.stderr)")
        let json = try delta(pipeline)
        #expect(json.stderr.contains("\(pipeline): error: is not a SQLite database"), "\(json.stderr)")
        let damaged = try delta(loose)
        #expect(damaged.status != 0)
        #expect(damaged.stderr.contains("\(loose): error: the previous bundle's database fails integrity_check"), "\(damaged.stderr)")
    }

    /// The previous bundle is attached by the same escaped URI the connections use (issue 15,
    /// item 17): a path with URI characters or non-ASCII letters gives the true delta and
    /// creates nothing beside it.
    @Test(arguments: ["prev #1.sqlite", "what?.sqlite", "100%41.sqlite", "a&immutable=0.sqlite", "Zoë 蝶.sqlite"])
    func aPreviousBundleAtAnAwkwardPathGivesTheTrueDelta(name: String) throws {
        let first = try TemporaryDirectory()
        let plain = try TemporaryDirectory()
        let awkward = try TemporaryDirectory()
        let inputs = ["observations-page-1.json", "taxa-page-1.json"]
        let built = try build(inputs, in: first)
        try build(inputs + ["observations-page-2.json"], in: plain, previous: built)
        let previous = first.file(name)
        try FileManager.default.moveItem(atPath: built, toPath: previous)
        let before = try FileManager.default.contentsOfDirectory(atPath: first.path).sorted()
        try build(inputs + ["observations-page-2.json"], in: awkward, previous: previous)
        func changes(_ directory: TemporaryDirectory) throws -> [String: [String: [Int]]] {
            let delta = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("delta.json")))) as! [String: Any]
            return delta.compactMapValues { $0 as? [String: [Int]] }
        }
        let expected = try changes(plain)
        #expect(expected["photos"]?["added"]?.contains(81_000_024) == true)
        #expect(try changes(awkward) == expected)
        #expect(try FileManager.default.contentsOfDirectory(atPath: first.path).sorted() == before)
    }
}
