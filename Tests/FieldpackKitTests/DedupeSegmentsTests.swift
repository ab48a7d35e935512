@testable import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// Dedupe writes its winners in segments made on two threads and written in key order
/// (`ParallelWrite`): on an input of many segments, the output holds every key once, in order.
@Suite struct DedupeSegmentsTests {
    @Test func winnersOfManySegmentsAreWrittenOnceEachInKeyOrder() throws {
        let directory = try TemporaryDirectory()
        var random = SortInPlaceTests.SplitMix64(state: 41)
        let count = ParallelWrite.segmentOccurrences * 3 + 517
        var ids = Array(1...count)
        ids.shuffle(using: &random)
        var lines: [String] = []
        for id in ids {
            lines.append(observationJSON(id: id, updatedAt: "2024-05-01T10:00:00+00:00", photos: [(id: 1_000_000 + id, license: "cc-by", width: 640)]))
            // An older copy of every seventh, whose photo is relicensed: the newer copy wins.
            if id % 7 == 0 {
                lines.append(observationJSON(id: id, updatedAt: "2024-04-01T10:00:00+00:00", photos: [(id: 1_000_000 + id, license: "cc0", width: 640)]))
            }
        }
        let input = try directory.write("observations.jsonl", lines.joined(separator: "\n") + "\n")
        let summary = try ingestAndDedupe([input], in: directory)
        #expect(summary.unique["obs"] == count && summary.unique["photo"] == count)
        let records = try recordLines(directory.file("deduped.jsonl"), deduped: true)
        let observations = records.filter { $0["k"] as? String == "obs" }
        #expect(observations.compactMap { $0["id"] as? Int } == Array(1...count))
        #expect(observations.allSatisfy { $0["seen"] as? Int == 1_714_557_600_000 })
        let photos = records.filter { $0["k"] as? String == "photo" }
        #expect(photos.compactMap { $0["id"] as? Int } == Array(1...count).map { 1_000_000 + $0 })
        #expect(photos.allSatisfy { $0["license"] as? String == "cc-by" })
    }
}
