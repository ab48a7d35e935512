@testable import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// Issue 12: every shard of a sharded stage keeps its own timing, and the run report shows the
/// stage as a whole (work summed, the longest shard, the largest peak) and shard by shard.
@Suite struct StageTimingTests {
    private func timing(_ stage: String, _ shard: Shard?, seconds: Double, records: Int? = 100, peak: Int = 10 << 20) -> StageTiming {
        StageTiming(stage: stage, shard: shard, seconds: seconds, records: records, bytes: 1_000_000, peakResidentBytes: peak)
    }

    private func names(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    @Test func everyShardOfAStageWritesItsOwnTimingAndAWholeRunKeepsStageJSON() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.file("timings")
        // Shards finish in any order; none overwrites another's figures.
        for index in [2, 0, 3, 1] {
            try timing("inat", try Shard(index: index, count: 4), seconds: Double(index + 1)).write(into: folder)
        }
        try timing("bundle", nil, seconds: 1).write(into: folder)
        try timing("report", .whole, seconds: 1).write(into: folder)
        #expect(try names(folder) == [
            "bundle.json", "inat.shard-0-of-4.json", "inat.shard-1-of-4.json", "inat.shard-2-of-4.json",
            "inat.shard-3-of-4.json", "report.json",
        ])
        let read = try StageTiming.read(folder: folder)
        #expect(read.map(\.stage) == ["inat", "inat", "inat", "inat", "bundle", "report"])
        #expect(read.prefix(4).map { $0.shard?.description } == ["0/4", "1/4", "2/4", "3/4"])
        #expect(read.prefix(4).map(\.seconds) == [1, 2, 3, 4])
        #expect(read.suffix(2).allSatisfy { $0.shard == nil })
    }

    /// A stage rerun with another shard count, or unsharded, replaces the stage's earlier
    /// figures, so the report never adds up two runs; other stages' stay.
    @Test func aRunWithAnotherShardCountReplacesTheStagesEarlierTimings() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.file("timings")
        for index in 0..<4 { try timing("dedupe", try Shard(index: index, count: 4), seconds: 1).write(into: folder) }
        try timing("inat", nil, seconds: 1).write(into: folder)
        try timing("dedupe", try Shard(index: 1, count: 2), seconds: 1).write(into: folder)
        #expect(try names(folder) == ["dedupe.shard-1-of-2.json", "inat.json"])
        try timing("dedupe", nil, seconds: 1).write(into: folder)
        #expect(try names(folder) == ["dedupe.json", "inat.json"])
        try timing("inat", try Shard(index: 0, count: 14), seconds: 1).write(into: folder)
        try timing("inat", try Shard(index: 3, count: 14), seconds: 1).write(into: folder)
        #expect(try names(folder) == ["dedupe.json", "inat.shard-0-of-14.json", "inat.shard-3-of-14.json"])
    }

    @Test func aShardedStageTotalsItsWorkAndTakesItsLongestShardAndLargestPeak() throws {
        let shards = try (0..<3).map { index in
            timing("wiki", try Shard(index: index, count: 3), seconds: [1.5, 4.0, 2.5][index],
                   records: index == 1 ? nil : 10, peak: [30, 50, 40][index] << 20)
        }
        let totals = StageTotal.group([timing("inat", nil, seconds: 2)] + shards + [timing("bundle", nil, seconds: 3)])
        #expect(totals.map(\.stage) == ["inat", "wiki", "bundle"])
        let wiki = totals[1]
        #expect(wiki.shardCount == 3)
        #expect(wiki.shards == shards)
        #expect(wiki.seconds == 8.0)
        #expect(wiki.longest == 4.0)
        #expect(wiki.records == 20)
        #expect(wiki.bytes == 3_000_000)
        #expect(wiki.peakResidentBytes == 50 << 20)
        #expect(totals[0].shards.isEmpty && totals[0].shardCount == 1 && totals[0].longest == 2)
    }

    @Test func theRunReportShowsAShardedStageAsOneRowAndThenShardByShard() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.file("timings")
        for index in 0..<2 {
            try timing("dedupe", try Shard(index: index, count: 2), seconds: [1.25, 2.5][index]).write(into: folder)
        }
        try timing("bundle", nil, seconds: 0.5).write(into: folder)
        try RunReport(timings: folder, output: directory.file("run.html"), pipeline: "sample").run()
        let html = try text(directory.file("run.html"))
        // The stage's row: 2 shards, 3.75 s of work, the longest shard 2.50 s, 200 records.
        #expect(html.contains("<td class=\"wrap\">fieldpack-dedupe</td><td class=\"num\">2</td><td class=\"num\">3.75</td><td class=\"num\">2.50</td><td class=\"num\">200</td>"), "\(html)")
        #expect(html.contains("<td class=\"wrap\">fieldpack-bundle</td><td class=\"num\">1</td><td class=\"num\">0.50</td><td class=\"num\">0.50</td>"))
        // Its row, its two shards' and its row of when it finished.
        #expect(html.components(separatedBy: "<td class=\"wrap\">fieldpack-dedupe</td>").count == 5)
        #expect(html.contains("<td class=\"wrap\">fieldpack-dedupe</td><td class=\"num\">1/2</td><td class=\"num\">2.50</td>"))
        #expect(html.contains("4.25 s added up"))
    }

    @Test func anUnshardedRunsReportHasNoShardSection() throws {
        let html = String(decoding: RunReport.render([timing("inat", nil, seconds: 1)], pipeline: "p"), as: UTF8.self)
        #expect(!html.contains("Seconds per shard"))
    }
}
