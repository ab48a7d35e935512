import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// `fieldpack-bundle` as make runs it: the settings only the executable reads (the
/// `SOURCE_DATE_EPOCH` environment variable, `--depfile`) and its streams. Runs the built
/// executable: needs `FIELDPACK_BIN`, skipped otherwise.
@Suite struct BundleCommandTests {
    static let binaries = ProcessInfo.processInfo.environment["FIELDPACK_BIN"]

    /// Deduped records of one observation updated at 10:00 in UTC+2 (08:00 UTC), and a pipeline.
    private func inputs(_ directory: TemporaryDirectory, pipeline: String = #"{"name": "epoch", "inat": ["unused"]}"#) throws
        -> (deduped: String, pipeline: String)
    {
        try directory.write("page.json", page([
            observationJSON(id: 1, updatedAt: "2024-05-01T10:00:00+02:00", photos: [(id: 10, license: "cc-by", width: 2048)])
        ]))
        try ingestAndDedupe([directory.file("page.json")], in: directory)
        return (directory.file("deduped.jsonl"), try directory.write("pipeline.json", pipeline))
    }

    private func bundle(_ arguments: [String], sourceDateEpoch: String) throws -> ProcessResult {
        try run("\(try #require(Self.binaries))/fieldpack-bundle", arguments, environment: ["SOURCE_DATE_EPOCH": sourceDateEpoch])
    }

    private func buildDate(_ database: String) throws -> String? {
        try Database(path: database, mode: .immutable).scalar("SELECT value FROM bundle_info WHERE key = 'build_date'")
    }

    /// The depfile is written before the database: a run stopped between the two (here, one
    /// whose database cannot be put in place) never leaves a bundle without the depfile that
    /// would make make rebuild it when the measured sizes change.
    @Test(.enabled(if: binaries != nil))
    func theDepfileIsWrittenBeforeTheDatabase() throws {
        let directory = try TemporaryDirectory()
        // Named as a path from where the tool runs (the repository root, as under make).
        let sizes = try directory.write("sizes.csv", "photo_id,tier,bytes\n10,small,18000\n")
        let (deduped, pipeline) = try inputs(directory, pipeline: #"{"name": "epoch", "inat": ["unused"], "costs": {"measured_sizes": "\#(sizes)"}}"#)
        // Records damaged at their end: the run fails while it loads them, after its checks.
        let damaged = try directory.write("damaged.jsonl", try text(deduped) + "[\"obs\", \n")
        let output = directory.file("content.sqlite")
        let result = try bundle([damaged, "--pipeline", pipeline, "--output", output, "--depfile", directory.file("content.d")], sourceDateEpoch: "1700000000")
        #expect(result.status != 0)
        #expect(!FileSystem.exists(output))
        #expect(try text(directory.file("content.d")).contains("sizes.csv"))
    }

    @Test(.enabled(if: binaries != nil))
    func theBuildDateComesFromSourceDateEpochAndTheOptionWinsOverIt() throws {
        let directory = try TemporaryDirectory()
        let (deduped, pipeline) = try inputs(directory)
        let output = directory.file("content.sqlite")
        let arguments = [deduped, "--pipeline", pipeline, "--output", output]

        // 1700000000 s after 1970-01-01T00:00:00Z is 2023-11-14T22:13:20Z.
        let fromEnvironment = try bundle(arguments, sourceDateEpoch: "1700000000")
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.stderr)")
        #expect(try buildDate(output) == "2023-11-14T22:13:20Z")

        // The option wins over the variable: one day after the epoch.
        let fromOption = try bundle(arguments + ["--source-date-epoch", "86400"], sourceDateEpoch: "1700000000")
        #expect(fromOption.status == 0, "\(fromOption.stderr)")
        #expect(try buildDate(output) == "1970-01-02T00:00:00Z")

        // An empty variable counts as unset: the newest record's updated_at, in UTC.
        let fromData = try bundle(arguments, sourceDateEpoch: "")
        #expect(fromData.status == 0, "\(fromData.stderr)")
        #expect(try buildDate(output) == "2024-05-01T08:00:00Z")
    }

    @Test(.enabled(if: binaries != nil))
    func aSourceDateEpochThatIsNotSecondsIsBadUsageAndBuildsNothing() throws {
        let directory = try TemporaryDirectory()
        let (deduped, pipeline) = try inputs(directory)
        let output = directory.file("content.sqlite")
        let result = try bundle([deduped, "--pipeline", pipeline, "--output", output], sourceDateEpoch: "2024-05-01")
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix(
            "fieldpack-bundle: error: SOURCE_DATE_EPOCH must be Unix seconds, not \"2024-05-01\"\nusage: fieldpack-bundle "))
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test(.enabled(if: binaries != nil))
    func aSuccessfulBuildWritesItsFilesAndOnlyASummaryLineOnStderr() throws {
        let directory = try TemporaryDirectory()
        let (deduped, pipeline) = try inputs(directory)
        let output = directory.file("out/content.sqlite")
        let result = try bundle(
            [deduped, "--pipeline", pipeline, "--output", output, "--costs-report", directory.file("out/costs-report.json"),
             "--inputs", directory.file("out/inputs.json")],
            sourceDateEpoch: "")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        // 1 user, 1 photo, 1 taxon, 1 observation, 1 link; the photo ships (cc-by, credited).
        #expect(result.stderr.hasPrefix(
            "fieldpack-bundle: schema v\(Migrations.latestVersion), 1 users, 1 photos, 1 taxa, 1 observations, 1 observation_photos, 0 taxon_photos, "),
            "\(result.stderr)")
        #expect(result.stderr.contains("; photos: 1 of 1 ship (0 remote), 0 excluded; "), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("out")).sorted()
                == ["content.sqlite", "costs-report.json", "inputs.json"])
    }

    @Test(.enabled(if: binaries != nil))
    func theDepfileNamesTheMeasuredSizesFileWithSpacesEscaped() throws {
        let directory = try TemporaryDirectory()
        let sizes = try directory.write("measured sizes/sizes.csv", "photo_id,tier,bytes\n10,small,9000\n")
        let (deduped, pipeline) = try inputs(
            directory, pipeline: #"{"name": "epoch", "inat": ["unused"], "costs": {"measured_sizes": "\#(sizes)"}}"#)
        let output = directory.file("content.sqlite")
        let depfile = directory.file("content.d")
        let result = try bundle([deduped, "--pipeline", pipeline, "--output", output, "--depfile", depfile], sourceDateEpoch: "")
        #expect(result.status == 0, "\(result.stderr)")
        let escaped = sizes.replacingOccurrences(of: " ", with: "\\ ")
        // The pipeline file too, which the bundle reads nearly whole, by its times and identity.
        #expect(try depfileRules(depfile).rules == "\(output): \\\n  \(pipeline) \\\n  \(escaped)\n\(pipeline):\n\(escaped):\n")
        #expect(try depfileRules(depfile).identified == [pipeline, sizes])

        // Without measured sizes the database depends on nothing more.
        let plain = try directory.write("plain.json", #"{"name": "epoch", "inat": ["unused"]}"#)
        #expect(try bundle([deduped, "--pipeline", plain, "--output", output, "--depfile", depfile], sourceDateEpoch: "").status == 0)
        #expect(try depfileRules(depfile).rules == "\(output): \\\n  \(plain)\n\(plain):\n")
        #expect(try depfileRules(depfile).identified == [plain])
    }

    @Test(.enabled(if: binaries != nil))
    func migrateBringsAReleasedBundleToTheLatestSchemaAndSaysFromWhich() throws {
        let directory = try TemporaryDirectory()
        let source = "\(repositoryRoot)/Tests/FieldpackKitTests/Fixtures/bundles/v4.sqlite"
        let output = directory.file("content.sqlite")
        let result = try bundle(["migrate", source, "--output", output], sourceDateEpoch: "")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix(
            "fieldpack-bundle: migrated \(source) from schema v4 to v\(Migrations.latestVersion), fingerprint \(try SmallBundle.lockedFingerprint()) in "),
            "\(result.stderr)")
        #expect(try Database(path: output, mode: .immutable).int("PRAGMA user_version") == Int64(Migrations.latestVersion))
    }

    @Test(.enabled(if: binaries != nil))
    func migratingAFolderThatDoesNotVerifyNamesEachProblemAndWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let previous = directory.file("previous")
        try directory.write("previous/content.sqlite", "not a database")
        let output = directory.file("content.sqlite")
        let result = try bundle(["migrate", previous, "--output", output], sourceDateEpoch: "")
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        try #require(lines.count >= 2, "\(result.stderr)")
        #expect(lines.dropLast().allSatisfy { $0.hasPrefix("\(previous)/") && $0.contains(": error: ") }, "\(result.stderr)")
        #expect(lines.contains("\(previous)/manifest.json: error: missing"))
        #expect(lines.last == "\(previous): error: the previous bundle does not verify: \(lines.count - 1) problem(s)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
