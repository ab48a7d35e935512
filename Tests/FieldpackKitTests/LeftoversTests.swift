@testable import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// Issue 15 item 18 and issue 14's command-line items that need the built executables: a run
/// removes the stale temp files of dead runs (and only those), SIGTERM and SIGINT clean up, the
/// warnings are told before the threshold error, and the published database is its own file.
@Suite struct LeftoversTests {
    static let binaries = ProcessInfo.processInfo.environment["FIELDPACK_BIN"]

    /// The PID of a process that has ended.
    private func deadPID() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    /// `PID@HOST` of this host, as a temp name carries its writer.
    private func tag(_ pid: pid_t) -> String { Leftovers.ownerTag(pid: pid) }

    @Test func aRunRemovesTheStaleTempFilesOfDeadRunsOfItsOutputAndNothingElse() throws {
        let directory = try TemporaryDirectory()
        let dead = tag(try deadPID())
        let stale = [
            ".records.jsonl.tmp-\(dead)-abc", ".records.jsonl.tmp-\(dead)-abc.part-0", "..records.jsonl.tmp-\(dead)-abc.half.tmp-\(dead)-x",
            ".rejects.jsonl.tmp-\(dead)-q",
        ]
        // A live process's (PID 1), another output's, and a person's own files stay.
        let kept = [".records.jsonl.tmp-\(tag(1))-abc", ".other.jsonl.tmp-\(dead)-abc", "records.jsonl.tmp-notes", ".records.jsonl.tmp-\(dead)"]
        for name in stale + kept { try directory.write(name, "x") }
        try FileManager.default.createDirectory(atPath: directory.file(".bundle.staging-\(dead)-Ab12Cd"), withIntermediateDirectories: true)
        try directory.write(".bundle.staging-\(dead)-Ab12Cd/content.sqlite", "x")
        let input = try directory.write("in.jsonl", observationJSON(id: 1) + "\n")
        var options = INatIngest.Options(inputs: [input], output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        options.maxRejectRate = 0
        try INatIngest(options: options).run()
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
        #expect(left == Set(kept + ["in.jsonl", "records.jsonl", "rejects.jsonl", ".bundle.staging-\(dead)-Ab12Cd"]))
        // The publisher removes a dead run's staging folder of its destination.
        Leftovers.removeStale(of: directory.file("bundle"))
        #expect(!FileManager.default.fileExists(atPath: directory.file(".bundle.staging-\(dead)-Ab12Cd")))
    }

    /// Where a file system has no atomic swap, the publisher sets the published bundle aside,
    /// then renames the new one in. A run killed between the two left the old bundle aside and
    /// nothing in its place: the next run puts it back, never removes it, and removes it only
    /// when a bundle is in place again.
    @Test(arguments: [false, true])
    func aBundleSetAsideByAKilledSwapIsPutBackUnlessOneIsInPlace(published: Bool) throws {
        let directory = try TemporaryDirectory()
        let dead = tag(try deadPID())
        let staging = ".bundle.staging-\(dead)-Ab12Cd"
        // Killed between the two renames: the new bundle still staged, the old one set aside;
        // or after them, the new one in place.
        try directory.write(published ? "bundle/content.sqlite" : "\(staging)/content.sqlite", "new")
        try directory.write("\(staging).swapped-out/content.sqlite", "old")
        Leftovers.removeStale(of: directory.file("bundle"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["bundle"])
        #expect(try String(contentsOfFile: directory.file("bundle/content.sqlite"), encoding: .utf8) == (published ? "new" : "old"))
    }

    @Test func aMigrationKilledHardLeavesNothingTheNextRunKeeps() throws {
        let directory = try TemporaryDirectory()
        let dead = tag(try deadPID())
        // What `fieldpack-bundle migrate` makes beside its output, with SQLite's journal.
        let stale = ["out.sqlite.migrating-\(dead)-Ab12Cd", "out.sqlite.migrating-\(dead)-Ab12Cd-journal", ".out.sqlite.tmp-\(dead)-Ef34Gh"]
        for name in stale { try directory.write(name, "x") }
        try BundleMigration(options: .init(source: "\(repositoryRoot)/Tests/FieldpackKitTests/Fixtures/bundles/v8.sqlite", output: directory.file("out.sqlite"))).run()
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.sqlite"])
    }

    @Test func aTempNameSaysWhichHostAndProcessMadeIt() throws {
        let directory = try TemporaryDirectory()
        let output = try AtomicOutput(path: directory.file("records.jsonl"))
        let name = try #require(output.temporaryPath.split(separator: "/").last.map(String.init))
        #expect(name.hasPrefix(".records.jsonl.tmp-\(getpid())@\(Leftovers.host)-"), "\(name)")
        #expect(Leftovers.owner(name, output: "records.jsonl") == Leftovers.Owner(pid: getpid(), host: Substring(Leftovers.host)))
        let staging = try FileSystem.makeUniqueDirectory(in: directory.path, prefix: ".bundle.staging-")
        #expect(staging.hasPrefix(directory.file(".bundle.staging-\(getpid())@\(Leftovers.host)-")), "\(staging)")
        FileSystem.removeTree(staging)
        Leftovers.forget(staging)
    }

    /// On a cluster's shared build folder a PID says nothing of another node's processes: a
    /// temp file made on another host is never taken for a dead run's, even when a process of
    /// that number is gone here; nor is one whose name carries no host (an older version's).
    @Test func aTempFileMadeOnAnotherHostOrWithoutOneIsNeverRemoved() throws {
        let directory = try TemporaryDirectory()
        let dead = try deadPID()
        let elsewhere = [
            ".records.jsonl.tmp-\(dead)@node-17-abc", ".records.jsonl.tmp-\(dead)@\(Leftovers.host)x-abc",
            ".records.jsonl.tmp-\(dead)-abc", ".dedupe.json.tmp-\(dead)@node17.cluster-q", ".dedupe.json.tmp-\(dead)-q",
        ]
        let here = [".records.jsonl.tmp-\(tag(dead))-abc", ".dedupe.json.tmp-\(tag(dead))-q"]
        for name in elsewhere + here { try directory.write(name, "x") }
        Leftovers.removeStale(of: directory.file("records.jsonl"))
        try StageTiming(stage: "bundle", seconds: 1, records: nil, bytes: nil, peakResidentBytes: 1).write(into: directory.path)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
        #expect(left == Set(elsewhere + ["bundle.json"]))
    }

    /// Every output in a folder (a sharded ingest's N parts) reads one listing of it: a dead
    /// run's temp files of each output still go, and a later output there lists nothing new.
    @Test func theOutputsOfOneFolderShareOneListingOfItsDeadRunsTempFiles() throws {
        let directory = try TemporaryDirectory()
        let dead = tag(try deadPID())
        for part in 0..<3 { try directory.write(".part-\(part).jsonl.tmp-\(dead)-a", "x") }
        for part in 0..<3 {
            let output = try AtomicOutput(path: directory.file("part-\(part).jsonl"))
            try output.commit()
            // A temp file that appears after the folder was listed is not this run's to judge.
            try directory.write(".late-\(part).jsonl.tmp-\(dead)-a", "x")
            Leftovers.removeStale(of: directory.file("late-\(part).jsonl"))
        }
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
        #expect(left == Set((0..<3).flatMap { ["part-\($0).jsonl", ".late-\($0).jsonl.tmp-\(dead)-a"] }))
    }

    /// A run killed with `kill -9` whose parent died with it stays a zombie until someone reaps
    /// it (an init that does not reap never does): its PID still answers `kill(pid, 0)`, but it
    /// writes nothing, so its temp files are stale.
    @Test func theTempFilesOfAZombieRunAreStale() throws {
        let directory = try TemporaryDirectory()
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        defer { for arg in argv { free(arg) } }
        #expect(posix_spawn(&pid, "/bin/true", nil, nil, argv, environ) == 0)
        defer { var status: Int32 = 0; waitpid(pid, &status, 0) }
        // Not reaped yet: wait until it has ended (a zombie).
        for _ in 0..<200 {
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            if stat.split(separator: ")").last?.hasPrefix(" Z") == true { break }
            usleep(10_000)
        }
        #expect(kill(pid, 0) == 0)
        try directory.write(".records.jsonl.tmp-\(tag(pid))-abc", "x")
        Leftovers.removeStale(of: directory.file("records.jsonl"))
        #expect(!FileManager.default.fileExists(atPath: directory.file(".records.jsonl.tmp-\(tag(pid))-abc")))
    }

    @Test(.enabled(if: binaries != nil), arguments: [SIGTERM, SIGINT])
    func aSignalRemovesTheRunsTempFilesBeforeItEnds(signal: Int32) throws {
        let directory = try TemporaryDirectory()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "\(try #require(Self.binaries))/fieldpack-inat")
        process.arguments = ["-", "--output", directory.file("records.jsonl"), "--rejects", directory.file("rejects.jsonl")]
        let input = Pipe()
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The run has made its temp files once it reads standard input; it waits for more.
        input.fileHandleForWriting.write(Data((observationJSON(id: 1) + "\n").utf8))
        var temps: [String] = []
        for _ in 0..<500 where temps.count < 2 {
            temps = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".tmp-") }
            if temps.count < 2 { usleep(10_000) }
        }
        #expect(temps.count == 2, "\(temps)")
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == signal)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [])
    }

    @Test(.enabled(if: binaries != nil))
    func overTheThresholdTheWarningsAreToldBeforeTheError() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write("in.jsonl", observationJSON(id: 1) + "\n" + observationJSON(id: "x") + "\n")
        let result = try run(
            "\(try #require(Self.binaries))/fieldpack-inat", [input, "--output", "r.jsonl", "--rejects", "j.jsonl"],
            directory: directory.path)
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first == "\(input):2: warning: id is a string, expected an integer id", "\(result.stderr)")
        #expect(lines.last?.hasPrefix("j.jsonl: error: 1 of 2 records rejected") == true, "\(result.stderr)")
        #expect(!result.stderr.contains("error: error:"))
    }

    /// A stage killed while writing its timing has its outputs in place already, so its rerun
    /// may never come: any stage's timing clears a dead run's temp file there, whatever stage.
    @Test func aStageTimingClearsADeadRunsTempFileOfAnyStageInTheTimingsFolder() throws {
        let directory = try TemporaryDirectory()
        let dead = tag(try deadPID())
        try directory.write(".dedupe.json.tmp-\(dead)-1q8ynq3", "{")
        let kept = [".inat.json.tmp-\(tag(1))-ab", "dedupe.json.tmp-\(dead)-x", ".notes.tmp-\(dead)"]
        for name in kept { try directory.write(name, "x") }
        try StageTiming(stage: "bundle", seconds: 1, records: nil, bytes: nil, peakResidentBytes: 1).write(into: directory.path)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
        #expect(left == Set(kept + ["bundle.json"]))
    }

    @Test func thePublishedDatabaseIsItsOwnFileNotALinkToTheBuildFoldersCopy() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write("in.jsonl", observationJSON(id: 1) + "\n")
        let bundle = try buildBundle(inputs: [input], in: directory)
        var built = stat()
        var published = stat()
        #expect(stat(directory.file("content.sqlite"), &built) == 0)
        #expect(stat("\(bundle)/content.sqlite", &published) == 0)
        #expect(built.st_ino != published.st_ino)
        #expect(published.st_nlink == 1)
    }
}
