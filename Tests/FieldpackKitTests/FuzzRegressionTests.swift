import FieldpackKit
import FieldpackTestSupport
import Foundation
import Synchronization
import Testing

/// Every crash input the fuzzers ever found (`Tests/Fuzz/crashes/<target>/`, see `make fuzz`) is
/// replayed through its target's entry point in the normal build (release in `make test`), where
/// AddressSanitizer is absent: it must neither crash nor break the target's invariant. The same
/// inputs are replayed under ASan by `Tests/Fuzz/run.sh` before each fuzz run.
@Suite struct FuzzRegressionTests {
    static func savedInputs(_ target: FuzzTarget) throws -> [String] {
        let folder = "\(repositoryRoot)/Tests/Fuzz/crashes/\(target.rawValue)"
        guard FileManager.default.fileExists(atPath: folder) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { !$0.hasSuffix(".md") && !$0.hasPrefix(".") }.sorted().map { "\(folder)/\($0)" }
    }

    /// The sample export's four tables as the export-pruning target takes them: apart by `%%` lines.
    static func sampleExport() throws -> [UInt8] {
        var input: [UInt8] = []
        for (index, name) in ["observations.csv", "photos.csv", "taxa.csv", "observers.tsv"].enumerated() {
            if index > 0 { input += Array("%%\n".utf8) }
            input += try ReadableFile.contents(of: "\(repositoryRoot)/sample-data/open-data/\(name)")
        }
        return input
    }

    @Test(arguments: FuzzTarget.allCases)
    func everySavedCrashInputNowPasses(target: FuzzTarget) throws {
        for path in try Self.savedInputs(target) {
            let bytes = try ReadableFile.contents(of: path)
            let violation = target.run(bytes)
            #expect(violation == nil, "\(path): \(violation ?? "")")
        }
    }

    /// The heap over-read of issue 15 ("Memory safety"): an element named just `h` made the
    /// heading check read past the name's terminator. The input is a saved crash (replayed under
    /// ASan by the fuzz smoke); here it also gives a blurb through the normal build.
    @Test func anElementNamedJustHIsNoHeadingAndGivesABlurb() throws {
        let path = "\(repositoryRoot)/Tests/Fuzz/crashes/article/heap-overread-element-named-h"
        let bytes = try ReadableFile.contents(of: path)
        #expect(bytes == Array("<h\0\0\0\0\0\0\u{04}\u{07}2>>".utf8))
        #expect(FuzzTarget.article.run(bytes) == nil)
        #expect(FuzzTarget.sanitizer.run(bytes) == nil)
    }

    /// The export-pruning target on the sample export (its four tables apart by `%%` lines): the
    /// pruned run says the same of every row, and the two observations the selection keeps (in
    /// the Zwin, birds) are written with all their photo links. (With the plan's filter of kept
    /// observations made to hold nothing, this fails: their links were pruned.)
    @Test func theSampleExportPrunedKeepsItsFindingsAndItsKeptObservationsLinks() throws {
        #expect(FuzzTarget.exportPruning.run(try Self.sampleExport()) == nil)
        // Not an export table: nothing to compare.
        #expect(FuzzTarget.exportPruning.run(Array("{\"results\": []}".utf8)) == nil)
    }

    /// Two export-pruning checks at once in one process (the test runner ran the saved crash
    /// input beside the sample's check) each read their own tables: they shared one folder, and
    /// one read the other's half-written tables ("pruning changed the findings").
    @Test func exportPruningChecksAtOnceReadTheirOwnTables() throws {
        let inputs = [try Self.sampleExport()] + (try Self.savedInputs(.exportPruning).map { try ReadableFile.contents(of: $0) })
        let violations = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 40) { round in
            if let violation = FuzzTarget.exportPruning.run(inputs[round % inputs.count]) {
                violations.withLock { $0.append(violation) }
            }
        }
        #expect(violations.withLock { $0 } == [])
    }

    /// The entry points check their invariant: a blurb that fails verify's markup check is named.
    @Test func aRecordsLineOfNoKnownKindBreaksTheIngestInvariant() {
        #expect(FuzzEntry.recordsProblem(Array("[\"obs\",1]\n".utf8)) == nil)
        #expect(FuzzEntry.recordsProblem(Array("[\"nope\",1]\n".utf8))?.contains("not headed by an ingest record kind") == true)
        #expect(FuzzEntry.recordsProblem(Array("{\"a\":1}\n".utf8))?.contains("not headed by an ingest record kind") == true)
        // Only dedupe writes "select" lines.
        #expect(FuzzEntry.recordsProblem(Array("[\"select\",\"abc\",{},null]\n".utf8))?.contains("not headed by an ingest record kind") == true)
        #expect(FuzzEntry.recordsProblem(Array("[\"obs\"\n".utf8))?.contains("not JSON") == true)
    }
}
