import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// The Makefile as GNU make users expect it: `make help`, `make -n`, `make check`, `make
/// install PREFIX=… DESTDIR=…`, `make bundle INAT=… WIKIPEDIA=…` and `BAGIT=1`, and `make test`
/// without the hostile-HTML corpus. The runs that execute stages use the built tools
/// (`FIELDPACK_BIN`, with `SKIP_TOOLS=1`), and are skipped without them.
@Suite(.serialized) struct MakeTests {
    static let binaries = ProcessInfo.processInfo.environment["FIELDPACK_BIN"]

    private func make(_ arguments: [String], bin: String? = binaries, environment: [String: String] = [:]) throws -> ProcessResult {
        try run(
            "/usr/bin/make", ["--no-print-directory", "SKIP_TOOLS=1"] + (bin.map { ["BIN=\($0)"] } ?? []) + arguments,
            directory: repositoryRoot, environment: environment)
    }

    /// A build folder as make spells it (`BUILD`, made one spelling: absolute outside the
    /// repository, without a doubled or trailing slash).
    private func spelled(_ path: String) -> String {
        var result = path
        while result.contains("//") { result = result.replacingOccurrences(of: "//", with: "/") }
        return result.count > 1 && result.hasSuffix("/") ? String(result.dropLast()) : result
    }

    /// Every target the Makefile declares for people (its `.PHONY` lines, less its internals).
    private func declaredTargets() throws -> [String] {
        let internals: Set = ["FORCE", "man-deps"]
        return try lines("\(repositoryRoot)/Makefile").filter { $0.hasPrefix(".PHONY:") }
            .flatMap { $0.dropFirst(".PHONY:".count).split(separator: " ").map(String.init) }
            .filter { !internals.contains($0) }
            // One per shard (shard-inat-$(1)): help lists them as shard-inat-I.
            .filter { !$0.contains("$(") }
    }

    @Test func helpListsEveryTargetAndTheVariablesARunTakes() throws {
        let help = try make(["help"], bin: nil)
        #expect(help.status == 0)
        let targets = try declaredTargets()
        #expect(targets.count >= 14, "\(targets)")
        for target in targets where target != "all" {
            #expect(help.stdout.contains("  make \(target) "), "make help does not list \(target)")
        }
        for variable in ["PIPELINE=", "INAT=", "WIKIPEDIA=", "NAME=", "BUILD=", "BAGIT=1", "SIGNING_KEY=", "PUBLIC_KEY=",
                         "PREVIOUS=", "SKIP_TOOLS=1", "XSS_CORPUS=", "PREFIX=", "DESTDIR="] {
            #expect(help.stdout.contains(variable), "make help does not list \(variable)")
        }
        // Every variable a person may set (`VAR ?= default` in the Makefile) is listed.
        let settable = try lines("\(repositoryRoot)/Makefile").compactMap { line -> String? in
            guard let end = line.range(of: " ?=") else { return nil }
            let name = String(line[..<end.lowerBound])
            return name.allSatisfy({ $0.isUppercase || $0 == "_" }) ? name : nil
        }
        #expect(settable.count >= 20, "\(settable)")
        for variable in settable { #expect(help.stdout.contains(variable), "make help does not list \(variable)") }
        // And every bench setting docs/benchmark.md's table gives.
        for variable in ["BENCH_RUNS", "BENCH_WIKI_N", "BENCH_SEED", "BENCH_DAMAGE", "BENCH_SCALE", "BENCH_OPEN_DATA_N", "BENCH_DUCKDB_MEMORY"] {
            #expect(help.stdout.contains(variable), "make help does not list \(variable)")
        }
    }

    /// A fresh clone has no tools to read the pipeline's name with: the dry run still prints
    /// every command, with `<name>` for the name, and runs none of them.
    @Test func aDryRunBeforeTheToolsAreBuiltPrintsEveryStageAndRunsNothing() throws {
        let directory = try TemporaryDirectory()
        let noTools = directory.file("no-tools")
        try FileManager.default.createDirectory(atPath: noTools, withIntermediateDirectories: true)
        let build = directory.file("build")
        // Not SKIP_TOOLS: the tools' rule is in the dry run too.
        let dry = try run("/usr/bin/make", ["--no-print-directory", "-n", "bundle", "BIN=\(noTools)", "BUILD=\(build)"], directory: repositoryRoot)
        #expect(dry.status == 0, "\(dry.stdout)\(dry.stderr)")
        #expect(dry.stdout.contains("# make -n: the tools are not built yet, so <name> stands for the name in pipelines/sample.json"))
        for stage in ["inat --pipeline pipelines/sample.json", "dedupe", "wiki", "bundle", "manifest", "verify"] {
            #expect(dry.stdout.contains("\(noTools)/fieldpack-\(stage) "), "the dry run does not show fieldpack-\(stage)")
        }
        #expect(dry.stdout.contains("\(spelled(build))/<name>/bundle"))
        #expect(!FileManager.default.fileExists(atPath: build), "the dry run wrote \(build)")

        // Your own data: the name is known without the tools.
        let own = try make(["-n", "bundle", "INAT=sample-data/inat", "WIKIPEDIA=sample-data/wiki", "BUILD=\(build)"], bin: noTools)
        #expect(own.status == 0, "\(own.stderr)")
        #expect(own.stdout.contains("\(noTools)/fieldpack-pipeline init --inat 'sample-data/inat' --wikipedia 'sample-data/wiki' --output \(spelled(build))/own/pipeline.json -- own"), "\(own.stdout)")
        #expect(own.stdout.contains("\(noTools)/fieldpack-inat --pipeline \(spelled(build))/own/pipeline.json "))
        #expect(!FileManager.default.fileExists(atPath: build))
    }

    /// Both checks write a timing (`timings/verify.json`), so with BAGIT=1 the run report comes
    /// after the bag's check too: in a dry run (make's order) and so under `make -j`.
    @Test func withBagitTheRunReportWaitsForTheBagsCheck() throws {
        let directory = try TemporaryDirectory()
        let build = directory.file("build")
        let dry = try make(["-n", "pipeline-bundle", "PIPELINE_NAME=sample", "BUILD=\(build)", "BAGIT=1"], bin: "/nonexistent")
        #expect(dry.status == 0, "\(dry.stdout)\(dry.stderr)")
        let commands = dry.stdout.split(separator: "\n").map(String.init)
        let bagCheck = try #require(commands.firstIndex { $0.hasPrefix("/nonexistent/fieldpack-verify \(spelled(build))/sample/bag") }, "\(dry.stdout)")
        let bundleCheck = try #require(commands.firstIndex { $0.hasPrefix("/nonexistent/fieldpack-verify \(spelled(build))/sample/bundle") })
        let runReport = try #require(commands.firstIndex { $0.contains("fieldpack-report --timings") })
        #expect(runReport > bagCheck && runReport > bundleCheck, "\(dry.stdout)")
        #expect(!FileManager.default.fileExists(atPath: build), "the dry run wrote \(build)")
    }

    @Test func checkRunsWhatTestRuns() throws {
        let check = try make(["-n", "check"], bin: "/nonexistent")
        let test = try make(["-n", "test"], bin: "/nonexistent")
        #expect(check.status == 0 && test.status == 0, "\(check.stderr)\(test.stderr)")
        #expect(check.stdout.contains("swift test") && check.stdout.contains("run-oracle.sh"))
        #expect(check.stdout == test.stdout)
    }

    @Test func aPipelineAndYourOwnDumpsTogetherAreRefusedBeforeAnythingRuns() throws {
        let both = try make(["-n", "bundle", "INAT=sample-data/inat", "PIPELINE=pipelines/sample.json"], bin: "/nonexistent")
        #expect(both.status != 0)
        #expect(both.stderr.contains("give PIPELINE=… or INAT=… (and WIKIPEDIA=…), not both"), "\(both.stderr)")
        let wikiOnly = try make(["-n", "bundle", "WIKIPEDIA=sample-data/wiki"], bin: "/nonexistent")
        #expect(wikiOnly.status != 0)
        #expect(wikiOnly.stderr.contains("WIKIPEDIA=… needs INAT=… too"), "\(wikiOnly.stderr)")
    }

    /// NAME becomes a folder under BUILD before any tool can read it: a name the pipeline rules
    /// refuse is refused by make first, and nothing is made (`../x` wrote beside BUILD).
    @Test(arguments: ["../../escape", "my guide", ".hidden", "a/b", "it's", ""])
    func aNameThatCannotNameAPipelineIsRefusedBeforeAnythingIsMade(name: String) throws {
        let directory = try TemporaryDirectory()
        let build = directory.file("deep/build")
        let refused = try make(["bundle", "INAT=sample-data/inat", "NAME=\(name)", "BUILD=\(build)"], bin: "/nonexistent")
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("NAME=\"\(name)\" cannot name a pipeline: it must be letters, digits"), "\(refused.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    /// A previous bundle inside the build's own folder changes with every build: refused, with
    /// what to do instead.
    @Test func aPreviousBundleInsideTheBuildFolderIsRefused() throws {
        let directory = try TemporaryDirectory()
        let build = directory.file("build")
        func dryRun(_ previous: String) throws -> ProcessResult {
            try make(["-n", "pipeline-bundle", "PIPELINE=pipelines/sample.json", "PIPELINE_NAME=sample", "BUILD=\(build)", "PREVIOUS=\(previous)"], bin: "/nonexistent")
        }
        for previous in ["\(build)/sample/bundle", "\(build)/sample/", "\(build)/sample/bundle/../bundle"] {
            let refused = try dryRun(previous)
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("PREVIOUS=\(previous) is inside this build's folder \(spelled(build))/sample/"), "\(refused.stderr)")
        }
        let elsewhere = try dryRun("\(build)/sample-previous")
        #expect(elsewhere.status == 0 && elsewhere.stdout.contains("--previous \(build)/sample-previous"), "\(elsewhere.stdout)\(elsewhere.stderr)")
        // A link to the build's bundle is the build's bundle (it passed, and the build was never
        // up to date, its delta taken against itself).
        try FileManager.default.createDirectory(atPath: "\(build)/sample/bundle", withIntermediateDirectories: true)
        let link = directory.file("link-to-bundle")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "\(build)/sample/bundle")
        let linked = try dryRun(link)
        #expect(linked.status != 0)
        #expect(linked.stderr.contains("PREVIOUS=\(link) is inside this build's folder"), "\(linked.stderr)")
    }

    /// A previous bundle given as its database file, replaced by another with an older time
    /// (`cp -p`): the delta is taken again, against it ("Nothing to be done" kept a delta from a
    /// bundle that was no longer PREVIOUS).
    @Test(.enabled(if: binaries != nil))
    func aPreviousDatabaseFileReplacedByAnOlderOneRebuildsTheDelta() throws {
        let directory = try TemporaryDirectory()
        let arguments = ["bundle", "INAT=sample-data/inat", "NAME=prev", "MAX_REJECT_RATE=0.2"]
        #expect(try make(arguments + ["BUILD=\(directory.file("one"))"]).status == 0)
        #expect(try make(["bundle", "INAT=sample-data/inat/observations-page-1.json", "NAME=prev", "MAX_REJECT_RATE=0.2", "BUILD=\(directory.file("two"))"]).status == 0)
        let previous = directory.file("previous.sqlite")
        try FileManager.default.copyItem(atPath: directory.file("one/prev/bundle/content.sqlite"), toPath: previous)
        let withDelta = arguments + ["BUILD=\(directory.file("three"))", "PREVIOUS=\(previous)"]
        let first = try make(withDelta)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        func deltaBase() throws -> String? {
            let delta = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("three/prev/bundle/delta.json")))) as? [String: Any]
            return (delta?["previous"] as? [String: Any])?["sha256"] as? String
        }
        #expect(try deltaBase() == SHA256.hex(ofFile: previous).0)
        // Another bundle put in its place, its time older than the build's.
        try FileManager.default.removeItem(atPath: previous)
        try FileManager.default.copyItem(atPath: directory.file("two/prev/bundle/content.sqlite"), toPath: previous)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000_000)], ofItemAtPath: previous)
        let second = try make(withDelta)
        #expect(second.status == 0 && second.stdout.contains("fieldpack-bundle"), "\(second.stdout)\(second.stderr)")
        #expect(try deltaBase() == SHA256.hex(ofFile: previous).0)
    }

    /// `make bundle INAT=… WIKIPEDIA=…`: no JSON to write; the pipeline file is made in the build
    /// folder, and a second run with the same arguments runs nothing.
    @Test(.enabled(if: binaries != nil))
    func bundleWithYourOwnDumpsBuildsAVerifiedBundleAndASecondRunDoesNothing() throws {
        let directory = try TemporaryDirectory()
        let arguments = ["bundle", "BUILD=\(directory.path)", "INAT=sample-data/inat", "WIKIPEDIA=sample-data/wiki",
                         "NAME=mine", "MAX_REJECT_RATE=0.2"]
        let first = try make(arguments)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let bundle = directory.file("mine/bundle")
        #expect(BundleVerifier(directory: bundle).verify() == [])
        let pipeline = try Pipeline.load(directory.file("mine/pipeline.json"))
        #expect(pipeline.name == "mine" && pipeline.inat == ["sample-data/inat"] && pipeline.wikipedia == ["sample-data/wiki"])
        #expect(pipeline.maxRejectRate == 0.2)
        let database = try Database(path: "\(bundle)/content.sqlite", mode: .readOnly)
        #expect(try database.scalar("SELECT value FROM bundle_info WHERE key = 'pipeline'") == "mine")
        #expect(try database.int("SELECT count(*) FROM articles") ?? 0 > 0, "the Wikipedia dumps were not read")
        #expect(try text("\(bundle)/manifest.json").contains("sample-data/inat/observations-page-1.json"))

        let second = try make(arguments)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(!second.stdout.contains("fieldpack-"), "a second run ran: \(second.stdout)")

        // Other dumps are another pipeline file, so the stages run again.
        let third = try make(arguments.filter { !$0.hasPrefix("WIKIPEDIA=") })
        #expect(third.status == 0, "\(third.stderr)")
        #expect(third.stdout.contains("fieldpack-wiki"))
        #expect(try Database(path: "\(bundle)/content.sqlite", mode: .readOnly).int("SELECT count(*) FROM articles") == 0)
    }

    /// The build folder spelled another way (a trailing slash, `./`) is the same build: a changed
    /// input is rebuilt, where the stages' depfiles, naming their targets by the first spelling,
    /// were not read and the stale bundle was called up to date.
    @Test(.enabled(if: binaries != nil))
    func theBuildFolderSpelledAnotherWayStillRebuildsAChangedInput() throws {
        let directory = try TemporaryDirectory()
        let dumps = directory.file("dumps")
        try FileManager.default.copyItem(atPath: "\(repositoryRoot)/sample-data/inat", toPath: dumps)
        let arguments = ["bundle", "INAT=\(dumps)", "NAME=mine", "MAX_REJECT_RATE=0.2"]
        let first = try make(arguments + ["BUILD=\(directory.file("out"))"])
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let database = directory.file("out/mine/bundle/content.sqlite")
        let before = try Database(path: database, mode: .readOnly).int("SELECT count(*) FROM observations") ?? 0
        try FileManager.default.removeItem(atPath: "\(dumps)/observations-page-3.json")
        let second = try make(arguments + ["BUILD=\(directory.file("out"))/./"])
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(second.stdout.contains("fieldpack-inat"), "the changed input was not read again: \(second.stdout)")
        let after = try Database(path: database, mode: .readOnly).int("SELECT count(*) FROM observations") ?? 0
        #expect(after < before, "\(after) observations against \(before)")
    }

    /// A build folder reached through a link (a shared path that is a link on one host and not
    /// on another, or a person's spelling beside CI's) is the same build: a changed input is
    /// rebuilt, where the depfiles of the build made through the other spelling were not read
    /// and the stale bundle was called up to date.
    @Test(.enabled(if: binaries != nil))
    func aBuildFolderReachedThroughALinkStillRebuildsAChangedInput() throws {
        let directory = try TemporaryDirectory()
        let dumps = directory.file("dumps")
        try FileManager.default.copyItem(atPath: "\(repositoryRoot)/sample-data/inat", toPath: dumps)
        let pipeline = try directory.write("linked.json", #"{"name": "linked", "inat": ["\#(dumps)"], "max_reject_rate": 0.2}"#)
        try FileManager.default.createDirectory(atPath: directory.file("real"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory.file("link"), withDestinationPath: directory.file("real"))
        let first = try make(["bundle", "PIPELINE=\(pipeline)", "BUILD=\(directory.file("real"))"])
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let database = directory.file("real/linked/bundle/content.sqlite")
        let before = try Database(path: database, mode: .readOnly).int("SELECT count(*) FROM observations") ?? 0
        try FileManager.default.removeItem(atPath: "\(dumps)/observations-page-3.json")
        let linked = try make(["bundle", "PIPELINE=\(pipeline)", "BUILD=\(directory.file("link"))"])
        #expect(linked.status == 0, "\(linked.stdout)\(linked.stderr)")
        #expect(linked.stdout.contains("fieldpack-inat"), "the changed input was not read again: \(linked.stdout)")
        let after = try Database(path: database, mode: .readOnly).int("SELECT count(*) FROM observations") ?? 0
        #expect(after < before, "\(after) observations against \(before)")
    }

    /// A new dump copied over an input with its old time kept (`cp -p`, `rsync -a --inplace`), and
    /// the dumps reached through a link turned to another month's folder of older files: each is
    /// read again, where make's times called the last bundle up to date and shipped it again;
    /// and the make after that does nothing.
    @Test(.enabled(if: binaries != nil))
    func aDumpCopiedInWithItsOldTimeOrThroughATurnedLinkIsReadAgain() throws {
        let directory = try TemporaryDirectory()
        let old = Date(timeIntervalSince1970: 1_000_000_000)
        for month in ["2024-11", "2024-12"] {
            try FileManager.default.copyItem(atPath: "\(repositoryRoot)/sample-data/inat", toPath: directory.file(month))
        }
        // December's second page has one observation fewer, under the same name.
        let page = directory.file("2024-12/observations-page-2.json")
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: page))) as? [String: Any])
        json["results"] = Array(try #require(json["results"] as? [Any]).dropFirst())
        let december = try JSONSerialization.data(withJSONObject: json)
        try december.write(to: URL(fileURLWithPath: page))
        for month in ["2024-11", "2024-12"] {
            usleep(50_000)  // each month's files changed in their own ticks of the clock, as two downloads are
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.file(month)) + [""] {
                try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: directory.file("\(month)/\(name)"))
            }
        }
        try FileManager.default.createSymbolicLink(atPath: directory.file("current"), withDestinationPath: "2024-11")
        let arguments = ["bundle", "BUILD=\(directory.file("out"))", "INAT=\(directory.file("current"))", "NAME=months", "MAX_REJECT_RATE=0.2"]
        let database = directory.file("out/months/bundle/content.sqlite")
        func observations() throws -> Int64 { try Database(path: database, mode: .readOnly).int("SELECT count(*) FROM observations") ?? 0 }
        let first = try make(arguments)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let november = try observations()

        // The link turned to December, whose files are as old as November's.
        usleep(50_000)  // past the clock's tick: a change within it moves no time (`FileIdentity`)
        try FileManager.default.removeItem(atPath: directory.file("current"))
        try FileManager.default.createSymbolicLink(atPath: directory.file("current"), withDestinationPath: "2024-12")
        let turned = try make(arguments)
        #expect(turned.status == 0 && turned.stdout.contains("fieldpack-inat"), "\(turned.stdout)\(turned.stderr)")
        #expect(try observations() == november - 1)
        let again = try make(arguments)
        #expect(again.status == 0 && !again.stdout.contains("fieldpack-"), "a make after it ran: \(again.stdout)")

        // November's page copied over December's in place, its old time kept.
        try copyInPlace(Data(contentsOf: URL(fileURLWithPath: directory.file("2024-11/observations-page-2.json"))), over: page, dated: old)
        let copied = try make(arguments)
        #expect(copied.status == 0 && copied.stdout.contains("fieldpack-inat"), "\(copied.stdout)\(copied.stderr)")
        #expect(try observations() == november)
        #expect(!(try make(arguments).stdout.contains("fieldpack-")))
    }

    /// A copy of the sample's iNaturalist dumps in `directory/dumps`, to change as a user would.
    private func sampleDumps(in directory: TemporaryDirectory) throws -> String {
        let dumps = directory.file("dumps")
        try FileManager.default.copyItem(atPath: "\(repositoryRoot)/sample-data/inat", toPath: dumps)
        return dumps
    }

    /// `data` written over the file at `path` in place, its modification time then set back to
    /// `dated`, as `cp -p` or `rsync -a --inplace` puts a new dump in an old one's place; after
    /// the clock's tick, so that the change moves the change time (`FileIdentity`).
    private func copyInPlace(_ data: Data, over path: String, dated: Date) throws {
        usleep(50_000)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: data)
        try handle.close()
        try FileManager.default.setAttributes([.modificationDate: dated], ofItemAtPath: path)
    }

    /// A note or a hidden file (an editor's, a sync's temporary one) added to the dumps' folder
    /// reruns nothing, where the folder's time reran every stage; a page added reruns ingest and
    /// what follows.
    @Test(.enabled(if: binaries != nil))
    func aNoteBesideTheDumpsRerunsNothingAndANewPageRerunsIngest() throws {
        let directory = try TemporaryDirectory()
        let dumps = try sampleDumps(in: directory)
        let extra = "\(dumps)/observations-page-2.json"
        try FileManager.default.moveItem(atPath: extra, toPath: directory.file("later.json"))
        let arguments = ["bundle", "BUILD=\(directory.file("out"))", "INAT=\(dumps)", "NAME=notes", "MAX_REJECT_RATE=0.2"]
        let first = try make(arguments)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        usleep(50_000)
        try "Downloaded 2024-12-01.\n".write(toFile: "\(dumps)/NOTES.md", atomically: true, encoding: .utf8)
        try "x".write(toFile: "\(dumps)/.observations-page-2.json.Xa81Qz", atomically: false, encoding: .utf8)
        let noted = try make(arguments)
        #expect(noted.status == 0 && !noted.stdout.contains("fieldpack-"), "a note reran: \(noted.stdout)")
        try FileManager.default.moveItem(atPath: directory.file("later.json"), toPath: extra)
        let added = try make(arguments)
        #expect(added.status == 0 && added.stdout.contains("fieldpack-inat"), "\(added.stdout)\(added.stderr)")
        #expect(!(try make(arguments).stdout.contains("fieldpack-")))
    }

    /// A new dump copied in with its old time kept that fails ingest fails every make until it is
    /// mended, where the second make called the last bundle up to date: the failed run had
    /// already recorded the dump as read. Then, mended the same way, it is read again.
    @Test(.enabled(if: binaries != nil))
    func aStageThatFailedOnADumpCopiedInWithItsOldTimeRunsAgain() throws {
        let directory = try TemporaryDirectory()
        let dumps = try sampleDumps(in: directory)
        let page = "\(dumps)/observations-page-1.json"
        let good = try Data(contentsOf: URL(fileURLWithPath: page))
        func copyIn(_ data: Data) throws { try copyInPlace(data, over: page, dated: Date(timeIntervalSince1970: 1_000_000_000)) }
        let arguments = ["bundle", "BUILD=\(directory.file("out"))", "INAT=\(dumps)", "NAME=failing", "MAX_REJECT_RATE=0.2"]
        let first = try make(arguments)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        try copyIn(Data(String(repeating: #"{"id": "obs-1", "uuid": "x", "observed_on": "2024-05-01"}"# + "\n", count: 40).utf8))
        let failed = try make(arguments)
        #expect(failed.status != 0 && failed.stdout.contains("fieldpack-inat"), "\(failed.stdout)\(failed.stderr)")
        let again = try make(arguments)
        #expect(again.status != 0 && again.stdout.contains("fieldpack-inat"), "the failed stage was taken as done: \(again.stdout)\(again.stderr)")
        try copyIn(good)
        let mended = try make(arguments)
        #expect(mended.status == 0 && mended.stdout.contains("fieldpack-inat"), "\(mended.stdout)\(mended.stderr)")
        #expect(!(try make(arguments).stdout.contains("fieldpack-")))
    }

    /// A second `make bundle` of a pipeline while another builds it stops at once, naming the
    /// folder, where the two ran every stage side by side and raced to publish; a dry run is
    /// not stopped, and once the first ends the build runs.
    @Test(.enabled(if: binaries != nil))
    func aSecondMakeOfAPipelineWhileAnotherBuildsItStopsNamingTheFolder() throws {
        let directory = try TemporaryDirectory()
        let arguments = ["bundle", "BUILD=\(directory.path)"]
        try FileSystem.makeDirectories(directory.file("sample"))
        // What the first make holds while it builds.
        let lock = open(directory.file("sample/.make.lock"), O_CREAT | O_WRONLY, 0o644)
        try #require(lock >= 0)
        defer { close(lock) }
        try #require(flock(lock, LOCK_EX) == 0)
        let second = try make(arguments)
        #expect(second.status != 0, "\(second.stdout)")
        #expect(second.stderr.contains("make: another make is building \(spelled(directory.path))/sample/ now"), "\(second.stderr)")
        #expect(!second.stdout.contains("fieldpack-inat") && !FileManager.default.fileExists(atPath: directory.file("sample/inat")))
        let dryRun = try make(["-n"] + arguments)
        #expect(dryRun.status == 0 && dryRun.stdout.contains("fieldpack-inat"), "\(dryRun.stdout)\(dryRun.stderr)")
        // A question answers "not up to date" (1), not "another make" (2).
        #expect(try make(["-q"] + arguments).status == 1)
        // A file system that takes no locks (flock fails otherwise than on a held lock): said,
        // and built without one.
        let noLocks = try TemporaryDirectory()
        try noLocks.write("flock", "#!/bin/sh\necho 'flock: 9: No locks available' >&2\nexit 71\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: noLocks.file("flock"))
        let unlocked = try make(arguments, environment: ["PATH": "\(noLocks.path):\(ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")"])
        #expect(unlocked.status == 0, "\(unlocked.stdout)\(unlocked.stderr)")
        #expect(unlocked.stderr.contains("make: warning: cannot lock \(spelled(directory.path))/sample/.make.lock (a file system without locks?): building without it"))
        flock(lock, LOCK_UN)
        try FileManager.default.removeItem(atPath: directory.file("sample/bundle"))
        let first = try make(arguments)
        #expect(first.status == 0 && BundleVerifier(directory: directory.file("sample/bundle")).verify() == [], "\(first.stdout)\(first.stderr)")
    }

    /// The published folder is a target file by file: one removed is published again, and one
    /// changed in place after its check is checked again and fails the build, where make said
    /// "Nothing to be done" over a folder the app would refuse.
    @Test(.enabled(if: binaries != nil))
    func aPublishedFileRemovedIsPublishedAgainAndOneChangedFailsTheCheck() throws {
        let directory = try TemporaryDirectory()
        let arguments = ["bundle", "BUILD=\(directory.path)"]
        let first = try make(arguments)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let bundle = directory.file("sample/bundle")
        try FileManager.default.removeItem(atPath: "\(bundle)/report.html")
        let removed = try make(arguments)
        #expect(removed.status == 0, "\(removed.stdout)\(removed.stderr)")
        #expect(removed.stdout.contains("fieldpack-manifest "), "\(removed.stdout)")
        #expect(BundleVerifier(directory: bundle).verify() == [])
        let handle = try #require(FileHandle(forWritingAtPath: "\(bundle)/costs-report.json"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("\n".utf8))
        try handle.close()
        let changed = try make(arguments)
        #expect(changed.status != 0, "\(changed.stdout)")
        #expect(changed.stderr.contains("costs-report.json"), "\(changed.stderr)")
    }

    /// Another release copied over the previous bundle's files (its folder's time unchanged, or
    /// the files' own older times kept) makes the delta again, where make kept the delta taken
    /// from the first release.
    @Test(.enabled(if: binaries != nil))
    func anotherPreviousBundleCopiedOverTheFirstMakesTheDeltaAgain() throws {
        let directory = try TemporaryDirectory()
        let inat = "\(repositoryRoot)/sample-data/inat"
        for (name, inputs) in [("small", "\(inat)/observations-page-1.json"), ("large", inat)] {
            let made = try make(["bundle", "BUILD=\(directory.file("releases"))", "INAT=\(inputs)", "NAME=\(name)", "MAX_REJECT_RATE=0.2"])
            #expect(made.status == 0, "\(made.stdout)\(made.stderr)")
        }
        let previous = directory.file("previous")
        try FileManager.default.copyItem(atPath: directory.file("releases/small/bundle"), toPath: previous)
        let arguments = ["bundle", "BUILD=\(directory.file("out"))", "INAT=\(inat)", "NAME=mine", "MAX_REJECT_RATE=0.2", "PREVIOUS=\(previous)"]
        func addedObservations() throws -> Int {
            let delta = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("out/mine/delta.json")))) as! [String: Any]
            return ((delta["observations"] as? [String: [Any]])?["added"] ?? []).count
        }
        let first = try make(arguments)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(try addedObservations() > 0)
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.file("releases/large/bundle")) {
            // Written over in place, as `cp` does: the folder's entries, and so its time, stay.
            let target = URL(fileURLWithPath: "\(previous)/\(file)")
            #expect(FileManager.default.fileExists(atPath: target.path), "\(file) is new")
            try Data(contentsOf: URL(fileURLWithPath: directory.file("releases/large/bundle/\(file)"))).write(to: target)
        }
        let second = try make(arguments)
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(second.stdout.contains("fieldpack-bundle "), "\(second.stdout)")
        #expect(try addedObservations() == 0)
        // The first release copied back with its files' own times kept (`cp -a`): older than
        // the build, told apart by its manifest's digest.
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.file("releases/small/bundle")) {
            let target = URL(fileURLWithPath: "\(previous)/\(file)")
            try Data(contentsOf: URL(fileURLWithPath: directory.file("releases/small/bundle/\(file)"))).write(to: target)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -86_400)], ofItemAtPath: target.path)
        }
        let third = try make(arguments)
        #expect(third.status == 0, "\(third.stdout)\(third.stderr)")
        #expect(try addedObservations() > 0, "\(third.stdout)")
    }

    /// SHARDS names the shard folders and the tools read it as a number: written otherwise
    /// (02, +2) it made folders no later step found; refused before anything runs.
    @Test(arguments: ["02", "+2", "0", "two"])
    func aShardCountNotWrittenPlainlyIsRefused(shards: String) throws {
        let result = try make(["-n", "pipeline-bundle", "PIPELINE_NAME=sample", "SHARDS=\(shards)", "BUILD=/tmp/fieldpack-unused"], bin: "/nonexistent")
        #expect(result.status != 0)
        #expect(result.stderr.contains("SHARDS must be a whole number of at least 1 written plainly"), "\(result.stderr)")
    }

    /// A pipeline name may start with '-' (a pipeline file named so builds): made from
    /// arguments, it reaches fieldpack-pipeline after `--`, not as an option.
    @Test(.enabled(if: binaries != nil))
    func aNameStartingWithADashBuildsFromArguments() throws {
        let directory = try TemporaryDirectory()
        let made = try make(["bundle", "BUILD=\(directory.path)", "INAT=sample-data/inat", "NAME=-guide", "MAX_REJECT_RATE=0.2"])
        #expect(made.status == 0, "\(made.stdout)\(made.stderr)")
        #expect(BundleVerifier(directory: directory.file("-guide/bundle")).verify() == [])
    }

    /// Ingest's rejects file is a target beside its records: gone missing, ingest runs again
    /// (the report reads it), where make called the build up to date and the next rebuild failed.
    @Test(.enabled(if: binaries != nil))
    func aMissingRejectsFileRunsIngestAgain() throws {
        let directory = try TemporaryDirectory()
        let arguments = ["bundle", "BUILD=\(directory.path)"]
        let first = try make(arguments)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let rejects = directory.file("sample/inat/rejects.jsonl")
        try FileManager.default.removeItem(atPath: rejects)
        let again = try make(arguments)
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        #expect(again.stdout.contains("fieldpack-inat "), "\(again.stdout)")
        #expect(FileManager.default.fileExists(atPath: rejects))
        // Sharded, the rejects file has the shards' rule alone: no recipe overridden.
        let sharded = try make(["-n", "bundle", "BUILD=\(directory.path)", "SHARDS=2"])
        #expect(!sharded.stderr.contains("overriding recipe"), "\(sharded.stderr)")
    }

    /// `make pipeline-bundle` (what an engine's job or a container runs) with a PIPELINE_NAME
    /// other than the pipeline's own name is refused before anything is written: it published
    /// the pipeline "sample" in `BUILD/other/`, its run report titled "other".
    @Test(.enabled(if: binaries != nil))
    func pipelineBundleWithAnotherPipelinesNameIsRefused() throws {
        let directory = try TemporaryDirectory()
        let refused = try make(["pipeline-bundle", "BUILD=\(directory.path)", "PIPELINE=pipelines/sample.json", "PIPELINE_NAME=other"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains(#"PIPELINE_NAME="other", but pipelines/sample.json names its pipeline "sample""#), "\(refused.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        let named = try make(["pipeline-bundle", "BUILD=\(directory.path)", "PIPELINE=pipelines/sample.json", "PIPELINE_NAME=sample"])
        #expect(named.status == 0, "\(named.stdout)\(named.stderr)")
        #expect(BundleVerifier(directory: directory.file("sample/bundle")).verify() == [])
    }

    /// Every file of a shard that a later step reads, besides the rule's own target, is checked
    /// for: an ingest shard's rejects, a dedupe shard's sidecar (what a shard killed between its
    /// last two writes left missing) and conflicts, a wiki shard's report. Each removed runs its
    /// shard again and the build ends with the same bundle, where make took the shard as done
    /// and every later run failed.
    @Test(.enabled(if: binaries != nil))
    func aShardFileGoneMissingRunsItsShardAgain() throws {
        let directory = try TemporaryDirectory()
        let arguments = ["bundle", "BUILD=\(directory.path)", "SHARDS=2"]
        let first = try make(arguments)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let database = directory.file("sample/bundle/content.sqlite")
        let built = try Data(contentsOf: URL(fileURLWithPath: database))
        for (file, stage) in [
            ("inat/shard-0-of-2/rejects.jsonl", "fieldpack-inat "), ("dedupe/shard-1-of-2/records.jsonl.made-from.json", "fieldpack-dedupe "),
            ("dedupe/shard-0-of-2/conflicts.json", "fieldpack-dedupe "),
            ("wiki/shard-1-of-2/wiki-report.json", "fieldpack-wiki "),
        ] {
            try FileManager.default.removeItem(atPath: directory.file("sample/\(file)"))
            let again = try make(arguments)
            #expect(again.status == 0, "\(file): \(again.stdout)\(again.stderr)")
            #expect(again.stdout.contains(stage), "\(file): \(again.stdout)")
            #expect(FileManager.default.fileExists(atPath: directory.file("sample/\(file)")), "\(file)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == built, "\(file)")
            let after = try make(arguments)
            #expect(after.status == 0 && !after.stdout.contains("fieldpack-"), "\(file): \(after.stdout)")
        }
        // One of an ingest shard's N parts, which make does not watch (their names would grow
        // its work with N²): the dedupe shard that reads it fails naming it and takes the ingest
        // shard's summary back, so the next make runs that shard again, where every run failed
        // on the same missing file (once the dedupe shard ran again: here its sidecar is gone).
        let part = directory.file("sample/inat/shard-1-of-2/part-0.jsonl")
        try FileManager.default.removeItem(atPath: part)
        try FileManager.default.removeItem(atPath: directory.file("sample/dedupe/shard-0-of-2/records.jsonl.made-from.json"))
        let failed = try make(arguments)
        #expect(failed.status != 0 && failed.stderr.contains("\(part): error: missing, though ingest shard 1 of 2 wrote it"), "\(failed.stderr)")
        let mended = try make(arguments)
        #expect(mended.status == 0 && mended.stdout.contains("fieldpack-inat ") && mended.stdout.contains("fieldpack-dedupe "), "\(mended.stdout)\(mended.stderr)")
        #expect(FileManager.default.fileExists(atPath: part))
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == built)
        #expect(try make(arguments).stdout.contains("fieldpack-") == false)
    }

    /// What the Slurm engine plans by: `make -n` of a stage's shard targets names the stage's
    /// command once an earlier stage will rebuild, after a newer dump and after an earlier
    /// shard's file gone missing (a group of targets, `&:`, is not taken as remade in make 4.3's
    /// dry run: the engine stopped on "its plan names none of their command lines" and never
    /// built again). And one make after an ingest shard's rejects went missing leaves the build
    /// up to date: it published from the old dedupe parts, then rebuilt them.
    @Test(.enabled(if: binaries != nil))
    func aDryRunOfAShardedStageNamesItsShardsWhenAnEarlierStageRebuilds() throws {
        let directory = try TemporaryDirectory()
        let data = directory.file("data")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        for folder in ["inat", "wiki", "costs"] {
            try FileManager.default.copyItem(atPath: "\(repositoryRoot)/sample-data/\(folder)", toPath: "\(data)/\(folder)")
        }
        let pipeline = try directory.write(
            "p.json", try text("\(repositoryRoot)/pipelines/sample.json").replacingOccurrences(of: "\"sample-data/", with: "\"\(data)/"))
        let common = ["BUILD=\(directory.file("build"))", "PIPELINE=\(pipeline)", "SHARDS=2"]
        let first = try make(["bundle"] + common)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        func planned(_ stage: String) throws -> String {
            let plan = try make(["-n", "PIPELINE_NAME=sample", "shard-\(stage)-0", "shard-\(stage)-1"] + common)
            #expect(plan.status == 0, "\(plan.stderr)")
            return plan.stdout
        }
        let settled = try planned("wiki")
        #expect(!settled.contains("fieldpack-"), "\(settled)")
        // Newer than every output (written before now), not in the future (make would rebuild until then).
        try FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: "\(data)/inat/observations-page-1.json")
        for stage in ["inat", "dedupe", "wiki"] {
            let plan = try planned(stage)
            for shard in ["0/2", "1/2"] {
                #expect(plan.contains("fieldpack-\(stage) ") && plan.contains("--shard \(shard)"), "\(stage) \(shard): \(plan)")
            }
        }
        let rebuilt = try make(["bundle"] + common)
        #expect(rebuilt.status == 0, "\(rebuilt.stdout)\(rebuilt.stderr)")
        try FileManager.default.removeItem(atPath: directory.file("build/sample/dedupe/shard-1-of-2/records.jsonl.made-from.json"))
        #expect(try planned("wiki").contains("fieldpack-wiki "))
        let repaired = try make(["bundle"] + common)
        #expect(repaired.status == 0, "\(repaired.stdout)\(repaired.stderr)")
        try FileManager.default.removeItem(atPath: directory.file("build/sample/inat/shard-1-of-2/rejects.jsonl"))
        let once = try make(["bundle"] + common)
        #expect(once.status == 0, "\(once.stdout)\(once.stderr)")
        let question = try make(["-q", "pipeline-bundle", "PIPELINE_NAME=sample"] + common)
        #expect(question.status == 0, "not up to date after one make: \(once.stdout)")
    }

    /// Two pipeline files of one name started together on a fresh build folder: one claims the
    /// folder, the other is refused, and what is published is the claimer's. A look then a write
    /// let both through now and then (3 races of 8), and the loser's next run was "up to date"
    /// with the other's bundle. Three races, each on its own folder.
    @Test(.enabled(if: binaries != nil))
    func twoPipelinesOfOneNameStartedTogetherAreOneBuildAndOneRefusal() throws {
        let bin = try #require(Self.binaries)
        let directory = try TemporaryDirectory()
        let sample = try text("\(repositoryRoot)/pipelines/sample.json")
        let a = try directory.write("a.json", sample)
        let b = try directory.write("b.json", sample.replacingOccurrences(of: "\"max_reject_rate\": 0.2", with: "\"max_reject_rate\": 0.25"))
        for race in 0..<3 {
            let build = directory.file("race-\(race)")
            let makes = [a, b].map { pipeline -> Process in
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/make")
                process.arguments = ["--no-print-directory", "-s", "SKIP_TOOLS=1", "BIN=\(bin)", "bundle", "PIPELINE=\(pipeline)", "BUILD=\(build)"]
                process.currentDirectoryURL = URL(fileURLWithPath: repositoryRoot)
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                return process
            }
            for process in makes { try process.run() }
            for process in makes { process.waitUntilExit() }
            let succeeded = makes.filter { $0.terminationStatus == 0 }.count
            #expect(succeeded == 1, "race \(race): \(succeeded) of the two builds succeeded")
            let recorded = try text("\(build)/sample/.pipeline").trimmingCharacters(in: .newlines)
            let winner = makes[0].terminationStatus == 0 ? a : b
            #expect(recorded == winner, "race \(race): \(recorded) recorded, \(winner) built")
        }
    }

    /// A copy of the built tools in `directory/tools`, to change as tools built elsewhere are.
    private func toolsCopy(in directory: TemporaryDirectory) throws -> String {
        let source = try #require(Self.binaries)
        let tools = directory.file("tools")
        try FileManager.default.createDirectory(atPath: tools, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: source) where name.hasPrefix("fieldpack-") && !name.contains(".") {
            try FileManager.default.copyItem(atPath: "\(source)/\(name)", toPath: "\(tools)/\(name)")
        }
        return tools
    }

    /// Tools built elsewhere (BIN=…, SKIP_TOOLS=1) are prerequisites too: a newer one rebuilds
    /// what the stages make, where the old tools' bundle stayed published.
    @Test(.enabled(if: binaries != nil))
    func aNewerToolInBinRebuildsTheStages() throws {
        let directory = try TemporaryDirectory()
        let tools = try toolsCopy(in: directory)
        let arguments = ["bundle", "BUILD=\(directory.file("out"))"]
        let first = try make(arguments, bin: tools)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let same = try make(arguments, bin: tools)
        #expect(same.status == 0 && !same.stdout.contains("fieldpack-"), "\(same.stdout)")
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: "\(tools)/fieldpack-inat")
        let newer = try make(arguments, bin: tools)
        #expect(newer.status == 0, "\(newer.stdout)\(newer.stderr)")
        #expect(newer.stdout.contains("\(tools)/fieldpack-inat "), "\(newer.stdout)")
    }

    /// A stage's depfile gone (a cleanup of `*.d` files) runs the stage again: it alone names the
    /// inputs and the pipeline's keys the outputs came from. And when `changed-inputs` fails
    /// (tools built elsewhere, older than the Makefile), make says so and makes every stage
    /// again, where a pipeline edit would have gone unseen.
    @Test(.enabled(if: binaries != nil))
    func aLostDepfileOrAFailingChangeCheckMakesTheStagesAgain() throws {
        let directory = try TemporaryDirectory()
        let tools = try toolsCopy(in: directory)
        let arguments = ["bundle", "BUILD=\(directory.file("out"))"]
        func stages(_ output: String) -> [String] {
            let lines = output.split(separator: "\n").filter { $0.contains(" --output ") }
            return ["inat", "dedupe", "wiki", "bundle"].filter { stage in lines.contains { $0.contains("\(tools)/fieldpack-\(stage) ") } }
        }
        let first = try make(arguments, bin: tools)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        try FileManager.default.removeItem(atPath: directory.file("out/sample/wiki/articles.d"))
        let lost = try make(arguments, bin: tools)
        #expect(lost.status == 0 && stages(lost.stdout) == ["wiki"], "\(lost.stdout)\(lost.stderr)")
        #expect(!(try make(arguments, bin: tools).stdout.contains("fieldpack-")))

        // A check that fails, with the tool's time kept (a newer tool reruns every stage anyway).
        let check = "\(tools)/fieldpack-pipeline"
        let time = try #require(try FileManager.default.attributesOfItem(atPath: check)[.modificationDate] as? Date)
        try FileManager.default.removeItem(atPath: check)
        try "#!/bin/sh\necho 'give a command: init' >&2\nexit 1\n".write(toFile: check, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755, .modificationDate: time], ofItemAtPath: check)
        let failing = try make(arguments, bin: tools)
        #expect(failing.status == 0, "\(failing.stdout)\(failing.stderr)")
        #expect(failing.stderr.contains("fieldpack-pipeline changed-inputs failed (tools older than this Makefile?): every stage of"), "\(failing.stderr)")
        #expect(stages(failing.stdout) == ["inat", "dedupe", "wiki", "bundle"], "\(failing.stdout)")
    }

    /// Ingest over its reject threshold says to look in its rejects file: make keeps it (it
    /// deleted it as a failed rule's target). A build folder starting with '-' reaches the stages
    /// as an absolute path, never as an option. An empty record of the pipeline (a write cut
    /// short) is claimed again.
    @Test(.enabled(if: binaries != nil))
    func aFailedIngestKeepsItsRejectsAndOddBuildFoldersStillBuild() throws {
        let directory = try TemporaryDirectory()
        let failed = try make(["bundle", "BUILD=\(directory.path)", "INAT=sample-data/inat", "NAME=strict", "MAX_REJECT_RATE=0"])
        #expect(failed.status != 0)
        #expect(failed.stderr.contains("over the pipeline's max_reject_rate"), "\(failed.stderr)")
        #expect(FileManager.default.fileExists(atPath: directory.file("strict/inat/rejects.jsonl")))
        let dashed = try make(["-n", "clean", "BUILD=-nightly"], bin: nil)
        #expect(dashed.stdout.contains("rm -rf -- \(repositoryRoot)/-nightly .build"), "\(dashed.stdout)")
        try directory.write("empty/sample/.pipeline", "")
        let reclaimed = try make(["bundle", "BUILD=\(directory.file("empty"))"])
        #expect(reclaimed.status == 0, "\(reclaimed.stdout)\(reclaimed.stderr)")
        #expect(try text(directory.file("empty/sample/.pipeline")) == "pipelines/sample.json\n")
    }

    /// A build folder make cannot name, or one that `make clean` would empty of this source
    /// folder, is refused before anything runs or is removed. So is one holding what make or
    /// the recipes' shell reads as syntax: with `%` the grouped targets became pattern rules
    /// (make deleted the records after every build), `'` broke the recipes, `$x` was expanded
    /// to nothing and the build went to another folder.
    @Test(arguments: ["/tmp/fieldpack data/build", ".", "..", "", "/tmp/fp%build", "/tmp/fp'build", "/tmp/fp:build", "/tmp/fp#build", "/tmp/fp*build", "/tmp/fp(1)", "/tmp/fp-{a,b}", "~"])
    func aBuildFolderWithSpacesOrSyntaxOrHoldingTheSourceIsRefused(build: String) throws {
        let result = try make(["-n", "clean", "BUILD=\(build)"], bin: nil)
        #expect(result.status != 0)
        #expect(result.stderr.contains("BUILD=\"\(build)\""), "\(result.stderr)")
        #expect(!result.stdout.contains("rm -rf"), "\(result.stdout)")
    }

    /// The pipeline file likewise, which every stage's rule and command line names: a space split
    /// it ("pipelines/my: cannot open"), a quote broke the recipe, `&` would have split the
    /// command, `$` was expanded.
    @Test(arguments: ["pipelines/my sample.json", "pipelines/o'brien.json", "pipelines/a&b.json", "pipelines/x:y.json", "pipelines/a$$b.json"])
    func aPipelinePathWithSpacesOrSyntaxIsRefusedBeforeAnythingRuns(pipeline: String) throws {
        let result = try make(["-n", "bundle", "PIPELINE=\(pipeline)"], bin: nil)
        #expect(result.status != 0)
        #expect(result.stderr.contains("PIPELINE=") && result.stderr.contains("make"), "\(result.stderr)")
        #expect(!result.stdout.contains("fieldpack-"), "\(result.stdout)")
    }

    @Test func aBuildFolderWithADollarIsRefusedNotExpanded() throws {
        let result = try make(["-n", "clean", "BUILD=/tmp/fp$xbuild"], bin: nil)
        #expect(result.status != 0)
        #expect(result.stderr.contains("BUILD=/tmp/fp$xbuild holds a '$', which make expands"), "\(result.stderr)")
        #expect(!result.stdout.contains("rm -rf"), "\(result.stdout)")
    }

    /// The settings make does not see as files rebuild what they change, and only that: a build
    /// date pinned by SOURCE_DATE_EPOCH the bundle, a signing key the publishing (a signature
    /// appears), a key rotated at the same path the publishing again; the same settings, nothing.
    @Test(.enabled(if: binaries != nil))
    func aChangedSettingRebuildsWhatItChanges() throws {
        let directory = try TemporaryDirectory()
        let arguments = ["bundle", "BUILD=\(directory.path)", "INAT=sample-data/inat", "NAME=settings", "MAX_REJECT_RATE=0.2"]
        let first = try make(arguments)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let epoch = ["SOURCE_DATE_EPOCH": "1700000000"]
        let dated = try make(arguments, environment: epoch)
        #expect(dated.status == 0 && dated.stdout.contains("fieldpack-bundle"), "\(dated.stdout)\(dated.stderr)")
        let bundle = directory.file("settings/bundle")
        #expect(try Database(path: "\(bundle)/content.sqlite", mode: .readOnly).scalar("SELECT value FROM bundle_info WHERE key = 'build_date'") == "2023-11-14T22:13:20Z")
        let key = directory.file("key.pem")
        #expect(try run("/usr/bin/openssl", ["genpkey", "-algorithm", "ed25519", "-out", key]).status == 0)
        let signed = try make(arguments + ["SIGNING_KEY=\(key)"], environment: epoch)
        #expect(signed.status == 0 && signed.stdout.contains("fieldpack-manifest") && !signed.stdout.contains("fieldpack-bundle "), "\(signed.stdout)\(signed.stderr)")
        #expect(FileManager.default.fileExists(atPath: "\(bundle)/manifest.json.sig"))
        let again = try make(arguments + ["SIGNING_KEY=\(key)"], environment: epoch)
        #expect(again.status == 0 && !again.stdout.contains("fieldpack-"), "\(again.stdout)")
        // A new key at the same path: signed again.
        try FileManager.default.removeItem(atPath: key)
        #expect(try run("/usr/bin/openssl", ["genpkey", "-algorithm", "ed25519", "-out", key]).status == 0)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: key)
        let rotated = try make(arguments + ["SIGNING_KEY=\(key)"], environment: epoch)
        #expect(rotated.status == 0 && rotated.stdout.contains("fieldpack-manifest"), "\(rotated.stdout)")
    }

    /// An edit of the pipeline file reruns the stages that read what changed: a display target
    /// or a licence the bundle alone, where every edit reran ingest of the whole dump; a
    /// `select` rule ingest and what follows; a wiki key the wiki stage. A dry run says the
    /// same, and the make after each does nothing.
    @Test(.enabled(if: binaries != nil))
    func aPipelineEditRerunsOnlyTheStagesThatReadWhatChanged() throws {
        let directory = try TemporaryDirectory()
        let sample = try String(contentsOfFile: "\(repositoryRoot)/pipelines/sample.json", encoding: .utf8)
        var text = sample.replacingOccurrences(of: "\"name\": \"sample\"", with: "\"name\": \"edits\"")
        let pipeline = try directory.write("edits.json", text)
        let arguments = ["bundle", "BUILD=\(directory.file("build"))", "PIPELINE=\(pipeline)"]
        let first = try make(arguments)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        func edit(_ old: String, _ new: String) throws -> (planned: String, ran: String) {
            #expect(text.contains(old), "\(old)")
            text = text.replacingOccurrences(of: old, with: new)
            try text.write(toFile: pipeline, atomically: true, encoding: .utf8)
            let planned = try make(["-n"] + arguments)
            let ran = try make(arguments)
            #expect(ran.status == 0, "\(ran.stdout)\(ran.stderr)")
            let again = try make(arguments)
            #expect(again.status == 0 && !again.stdout.contains("fieldpack-"), "a make after it ran: \(again.stdout)")
            return (planned.stdout, ran.stdout)
        }
        let stages = ["fieldpack-inat ", "fieldpack-dedupe ", "fieldpack-wiki ", "fieldpack-bundle "]
        // The stages' command lines (not the outer make's `fieldpack-inat --print-name`).
        func ran(_ output: String) -> [String] {
            let lines = output.split(separator: "\n").filter { $0.contains(" --output ") }
            return stages.filter { stage in lines.contains { $0.contains(stage) } }
        }

        let target = try edit(#""name": "detail", "width": 390"#, #""name": "detail", "width": 400"#)
        #expect(ran(target.ran) == ["fieldpack-bundle "], "\(target.ran)")
        #expect(ran(target.planned) == ["fieldpack-bundle "], "\(target.planned)")
        let licence = try edit(#""cc-by-sa"]"#, #""cc-by-sa", "cc-by-nc"]"#)
        #expect(ran(licence.ran) == ["fieldpack-bundle "], "\(licence.ran)")
        let selected = try edit(#""memory_budget_bytes""#, #""select": {"quality_grades": ["research", "needs_id"]}, "memory_budget_bytes""#)
        #expect(ran(selected.ran) == stages, "\(selected.ran)")
        // (GNU make 4.3's dry run goes no further than a grouped target's rule, dedupe's, which
        // runs only because what it reads changed too: the wiki stage is not shown.)
        #expect(ran(selected.planned).starts(with: ["fieldpack-inat ", "fieldpack-dedupe "]), "\(selected.planned)")
        let summary = try edit(#""max_reject_rate": 0.2,"#, #""max_reject_rate": 0.2, "wikipedia_summary_length": 120,"#)
        #expect(ran(summary.ran).starts(with: ["fieldpack-wiki "]) && !summary.ran.contains("fieldpack-inat "), "\(summary.ran)")
        // Copied in with an older time (`cp -p`), a target changed: the bundle is made again.
        text = text.replacingOccurrences(of: #""width": 400"#, with: #""width": 410"#)
        try copyInPlace(Data(text.utf8), over: pipeline, dated: Date(timeIntervalSince1970: 1_000_000_000))
        let copied = try make(arguments)
        #expect(copied.status == 0 && ran(copied.stdout) == ["fieldpack-bundle "], "\(copied.stdout)\(copied.stderr)")
        #expect(!(try make(arguments).stdout.contains("fieldpack-")))
    }

    /// Two pipeline files of one name would share a build folder, and a build from one would
    /// pass for the other's: the second is refused, naming both, and nothing runs.
    @Test(.enabled(if: binaries != nil))
    func aSecondPipelineOfTheSameNameIsRefusedNamingBoth() throws {
        let directory = try TemporaryDirectory()
        let first = try directory.write("first.json", #"{"name": "twin", "inat": ["sample-data/inat"], "max_reject_rate": 0.2}"#)
        let second = try directory.write("second.json", #"{"name": "twin", "inat": ["sample-data/inat/observations-page-1.json"], "max_reject_rate": 0.2}"#)
        let built = try make(["bundle", "BUILD=\(directory.file("build"))", "PIPELINE=\(first)"])
        #expect(built.status == 0, "\(built.stdout)\(built.stderr)")
        let refused = try make(["bundle", "BUILD=\(directory.file("build"))", "PIPELINE=\(second)"])
        #expect(refused.status != 0 && !refused.stdout.contains("fieldpack-"), "\(refused.stdout)")
        // make gives the paths as `abspath` makes them (one slash between folders).
        #expect(refused.stderr.contains("first.json, and ") && refused.stderr.contains("second.json has the same name \"twin\""), "\(refused.stderr)")
        let again = try make(["bundle", "BUILD=\(directory.file("build"))", "PIPELINE=\(first)"])
        #expect(again.status == 0 && !again.stdout.contains("fieldpack-"), "\(again.stdout)\(again.stderr)")
    }

    /// make's "restat" idiom for the wiki stage: a touched dump with the same articles reruns the
    /// wiki stage and nothing after it; a changed article rebuilds the bundle; a removed output
    /// of the stage runs the stage again.
    @Test(.enabled(if: binaries != nil))
    func aTouchedWikiDumpWithTheSameArticlesRerunsOnlyTheWikiStage() throws {
        let directory = try TemporaryDirectory()
        let wiki = directory.file("wiki")
        try FileManager.default.copyItem(atPath: "\(repositoryRoot)/sample-data/wiki", toPath: wiki)
        let arguments = ["bundle", "BUILD=\(directory.path)", "INAT=sample-data/inat", "WIKIPEDIA=\(wiki)", "NAME=restat", "MAX_REJECT_RATE=0.2"]
        let first = try make(arguments)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let articles = directory.file("restat/wiki/articles.jsonl")
        let database = directory.file("restat/content.sqlite")
        func modified(_ path: String) throws -> Date {
            try #require(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
        }
        let articlesBefore = try Data(contentsOf: URL(fileURLWithPath: articles))
        let (articlesTime, databaseTime) = (try modified(articles), try modified(database))

        let dump = "\(wiki)/updates.ndjson"
        try FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: dump)
        let touched = try make(arguments)
        #expect(touched.status == 0, "\(touched.stdout)\(touched.stderr)")
        #expect(touched.stdout.contains("fieldpack-wiki "), "the wiki stage did not rerun: \(touched.stdout)")
        #expect(!touched.stdout.contains("fieldpack-bundle ") && !touched.stdout.contains("fieldpack-manifest "), "\(touched.stdout)")
        #expect(touched.stderr.contains("\(spelled(articles)): the same bytes as before, left as it was"), "\(touched.stderr)")
        #expect(try modified(articles) == articlesTime && modified(database) == databaseTime)
        let again = try make(arguments)
        #expect(again.status == 0 && !again.stdout.contains("fieldpack-"), "a run after the touched one ran: \(again.stdout)")

        // One wanted article's lead (this dump holds the great tit's newest revision), changed:
        // the bundle is rebuilt with it.
        let text = try String(contentsOfFile: dump, encoding: .utf8)
        let lead = #"(<i id=\"mwCA\"><b id=\"mwCQ\">Parus major</b></i>) is a small"#
        #expect(text.contains(lead))
        try text.replacingOccurrences(of: lead, with: lead.replacingOccurrences(of: "is a small", with: "is a rather small"))
            .write(toFile: dump, atomically: true, encoding: .utf8)
        let changed = try make(arguments)
        #expect(changed.status == 0, "\(changed.stdout)\(changed.stderr)")
        #expect(changed.stdout.contains("fieldpack-wiki ") && changed.stdout.contains("fieldpack-bundle "), "\(changed.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: articles)) != articlesBefore)
        let blurb = try Database(path: directory.file("restat/bundle/content.sqlite"), mode: .readOnly)
            .scalar("SELECT count(*) FROM articles WHERE blurb_html LIKE '%is a rather small%'")
        #expect(blurb == "1", "the published bundle does not hold the changed article")

        // An output of the stage removed: the stage runs again and puts it back.
        try FileManager.default.removeItem(atPath: directory.file("restat/wiki/wiki-report.json"))
        let removed = try make(arguments)
        #expect(removed.status == 0, "\(removed.stdout)\(removed.stderr)")
        #expect(removed.stderr.contains("wiki-report.json is missing: running the wiki stage again"), "\(removed.stderr)")
        #expect(removed.stdout.contains("fieldpack-wiki "), "\(removed.stdout)")
        #expect(FileManager.default.fileExists(atPath: directory.file("restat/wiki/wiki-report.json")))
    }

    @Test(.enabled(if: binaries != nil))
    func bundleWithBagitAlsoPublishesAVerifiedBag() throws {
        let directory = try TemporaryDirectory()
        let made = try make(["bundle", "BUILD=\(directory.path)", "BAGIT=1"])
        #expect(made.status == 0, "\(made.stdout)\(made.stderr)")
        let bag = directory.file("sample/bag")
        #expect(made.stderr.contains("fieldpack-verify: \(spelled(bag)): ok"), "\(made.stderr)")
        #expect(BundleVerifier(directory: bag).verify() == [])
        #expect(BundleVerifier(directory: directory.file("sample/bundle")).verify() == [])
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(bag)/data/content.sqlite"))
                == Data(contentsOf: URL(fileURLWithPath: directory.file("sample/bundle/content.sqlite"))))
        // Each run of a stage keeps its figures: the bag's publishing and check wrote theirs
        // over the bundle's, and the run report showed one row of each, from two runs.
        let timings = try FileManager.default.contentsOfDirectory(atPath: directory.file("sample/timings"))
        #expect(["manifest.json", "manifest-bag.json", "verify.json", "verify-bag.json"].allSatisfy(timings.contains), "\(timings)")
        let runReport = try text(directory.file("sample/run-report.html"))
        #expect(runReport.contains("manifest-bag") && runReport.contains("verify-bag"))
        let python = ["PYTHONPATH": "\(repositoryRoot)/.build/python"]
        try #require(
            try run("/bin/sh", ["-c", "python3 -c 'import bagit'"], environment: python).status == 0,
            "bagit is missing from .build/python; make test installs it (make test-deps)")
        #expect(try run("/bin/sh", ["-c", "python3 -m bagit --validate '\(bag)'"], environment: python).status == 0)
        // BAGIT=1 left out: the bag is not of this build any more. It stayed, verified, beside
        // another bundle, and the run report listed its rows.
        let without = try make(["bundle", "BUILD=\(directory.path)"])
        #expect(without.status == 0, "\(without.stdout)\(without.stderr)")
        #expect(without.stdout.contains("removing \(spelled(bag))/, the BagIt bag of an earlier build"), "\(without.stdout)")
        #expect(!FileManager.default.fileExists(atPath: bag) && !FileManager.default.fileExists(atPath: directory.file("sample/bag.verified")))
        let report = try text(directory.file("sample/run-report.html"))
        #expect(!report.contains("manifest-bag") && !report.contains("verify-bag"))
        #expect(!(try make(["bundle", "BUILD=\(directory.path)"]).stdout.contains("fieldpack-")))
    }

    @Test(.enabled(if: binaries != nil))
    func installPutsTheExecutablesAndTheirManualPagesUnderDestdirAndPrefix() throws {
        let directory = try TemporaryDirectory()
        let stage = directory.file("stage")
        let arguments = ["DESTDIR=\(stage)", "PREFIX=/opt/fieldpack", "MAN_BUILD=\(directory.file("man"))"]
        let installed = try make(["install"] + arguments)
        #expect(installed.status == 0, "\(installed.stdout)\(installed.stderr)")
        for tool in ["inat", "dedupe", "wiki", "bundle", "manifest", "verify", "synth", "sanitize", "pipeline"] {
            let executable = "\(stage)/opt/fieldpack/bin/fieldpack-\(tool)"
            #expect(FileManager.default.isExecutableFile(atPath: executable), "\(executable)")
            let page = try text("\(stage)/opt/fieldpack/share/man/man1/fieldpack-\(tool).1")
            #expect(page.contains(".TH FIELDPACK-\(tool.uppercased()) \"1\""), "\(page.prefix(300))")
        }
        // The page is the tool's --help, its characters as the help writes them ("…" was "???"),
        // named by its first sentence up to a bracket ("report.html" keeps its dot: the name
        // was "Writes report").
        #expect(try text("\(stage)/opt/fieldpack/share/man/man1/fieldpack-verify.1").contains("BagIt"))
        let inat = try text("\(stage)/opt/fieldpack/share/man/man1/fieldpack-inat.1")
        #expect(inat.contains("fieldpack-inat \\- Ingests iNaturalist dumps\n") && !inat.contains("???") && inat.contains("…"), "\(inat.prefix(600))")
        let report = try text("\(stage)/opt/fieldpack/share/man/man1/fieldpack-report.1")
        #expect(report.contains("fieldpack-report \\- Writes report.html, one self-contained page\n"), "\(report.prefix(600))")
        // A tool newer than its page (tools built elsewhere, SKIP_TOOLS=1 as here): made again,
        // where the old page was installed as it was.
        let tools = directory.file("tools")
        try FileManager.default.createDirectory(atPath: tools, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(try #require(Self.binaries))/fieldpack-verify", toPath: "\(tools)/fieldpack-verify")
        try FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: "\(tools)/fieldpack-verify")
        let again = try make(["-n", "\(directory.file("man"))/fieldpack-verify.1", "MAN_BUILD=\(directory.file("man"))"], bin: tools)
        #expect(again.stdout.contains("help2man --locale=C.UTF-8"), "\(again.stdout)\(again.stderr)")
        let removed = try make(["uninstall"] + arguments)
        #expect(removed.status == 0)
        #expect(try FileManager.default.subpathsOfDirectory(atPath: stage).filter { $0.contains("fieldpack-") } == [])
    }

    /// `make test` ends with the oracle's run: without the corpus, CI fails and a newcomer is
    /// told what was not judged.
    @Test func withoutTheCorpusCIFailsAndANewcomerIsToldWhatWasNotJudged() throws {
        let directory = try TemporaryDirectory()
        let script = "\(repositoryRoot)/Tests/Sanitizer/run-oracle.sh"
        let ci = try run(script, ["/nonexistent", directory.path], environment: ["CI": "true"])
        #expect(ci.status == 1)
        #expect(ci.stderr.contains("run-oracle: error: no hostile-HTML corpus at \(directory.path)"), "\(ci.stderr)")
        let newcomer = try run(script, ["/nonexistent", directory.path], environment: ["CI": ""])
        #expect(newcomer.status == 0)
        #expect(newcomer.stderr.contains("run-oracle: WARNING: no hostile-HTML corpus at \(directory.path)"), "\(newcomer.stderr)")
        #expect(newcomer.stderr.contains("fieldpack-sanitize was NOT judged"))
        #expect(newcomer.stderr.contains("fieldpack's own 35 vectors (Tests/Sanitizer/extra-vectors.py)"))
        #expect(newcomer.stderr.contains("Set XSS_CORPUS=DIR"))
    }
}
