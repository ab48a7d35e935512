import FieldpackKit
import FieldpackSynth
import FieldpackTestSupport
import Foundation
import Testing

@Suite struct SyntheticDumpTests {
    @Test func sameSeedGivesTheSameBytesWhateverTheWorkerCount() throws {
        let directory = try TemporaryDirectory()
        var one = SyntheticDump.Options(observations: 900, seed: 7, output: directory.file("one"))
        one.workers = 1
        var two = SyntheticDump.Options(observations: 900, seed: 7, output: directory.file("two"))
        two.workers = 2
        _ = try SyntheticDump(options: one).run()
        _ = try SyntheticDump(options: two).run()
        let pages = try FileManager.default.contentsOfDirectory(atPath: directory.file("one")).filter { $0.hasSuffix(".json") }.sorted()
        #expect(pages.count == 5)
        for page in pages {
            #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("one/\(page)")))
                == Data(contentsOf: URL(fileURLWithPath: directory.file("two/\(page)"))))
        }
    }

    @Test func syntheticPagesIngestWithoutRejectsAndDedupeToTheirObservationCount() throws {
        let directory = try TemporaryDirectory()
        let summary = try SyntheticDump(options: .init(observations: 2000, seed: 3, output: directory.file("dump"))).run()
        #expect(summary.olderCopies > 0)
        let inputs = try Pipeline.resolve([directory.file("dump")], pipelinePath: "test").files
        var options = INatIngest.Options(inputs: inputs, output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        options.maxRejectRate = 0
        let ingested = try INatIngest(options: options).run()
        #expect(ingested.rejected == 0)
        #expect(ingested.counts.observations == summary.records)
        let deduped = try Dedupe(options: .init(input: directory.file("records.jsonl"), output: directory.file("deduped.jsonl"),
                                                conflicts: directory.file("conflicts.json"))).run()
        #expect(deduped.unique["obs"] == 2000)
    }
}
