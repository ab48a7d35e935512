import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

@Suite struct ExternalSortTests {
    struct Entry: Equatable {
        var key: Int64
        var order: Int64
    }

    /// Keys in a scrambled order with repeats, each tagged with its place (the tie-breaker).
    func scrambled(_ count: Int) -> [Entry] {
        (0..<count).map { Entry(key: Int64(($0 * 7919) % 1013), order: Int64($0)) }
    }

    func drain(_ cursor: ExternalSort<Entry>.Cursor) throws -> [Entry] {
        var out: [Entry] = []
        while let entry = cursor.peek {
            out.append(entry)
            try cursor.advance()
        }
        return out
    }

    @Test(arguments: [1, 5 * 16, 1 << 20])
    func recordsComeOutInOrderWhetherTheyFitInMemoryOrSpillInRuns(runBytes: Int) throws {
        let directory = try TemporaryDirectory()
        let sort = ExternalSort<Entry>(space: SortSpace(folder: directory.path, runBytes: runBytes)) { a, b in
            a.key != b.key ? a.key < b.key : a.order < b.order
        }
        let entries = scrambled(5000)
        for entry in entries { try sort.append(entry) }
        #expect(sort.spilled == (runBytes < 5000 * 16))
        #expect(try drain(sort.sorted()) == entries.sorted { ($0.key, $0.order) < ($1.key, $1.order) })
        // The runs' file has no name: nothing is left in the build folder, even before it is freed.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    /// A bundle's sorts run at a 256th of their input, from 4 MiB to 64 MiB: small runs for the
    /// inputs of a guide, and no more than 256 chunks of them to merge up to 16 GB of input.
    @Test func runsAreA256thOfTheInputBetweenFourAndSixtyFourMiB() {
        let mib = 1 << 20
        #expect(SortSpace.runBytes(forInputBytes: 0) == 4 * mib)
        #expect(SortSpace.runBytes(forInputBytes: 1 << 30) == 4 * mib)
        #expect(SortSpace.runBytes(forInputBytes: 4 << 30) == 16 * mib)
        #expect(SortSpace.runBytes(forInputBytes: 16 << 30) == 64 * mib)
        #expect(SortSpace.runBytes(forInputBytes: 1 << 40) == 64 * mib)
        for bytes in [2 << 30, 8 << 30, 16 << 30] {
            #expect(bytes / SortSpace.runBytes(forInputBytes: bytes) <= 256)
        }
    }

    @Test func aRunReadBackInChunksLosesNoRecordAtAChunkBoundary() throws {
        let directory = try TemporaryDirectory()
        // One run of more records than a chunk holds, and a short one.
        let perChunk = ExternalSort<Entry>.chunkBytes / MemoryLayout<Entry>.stride
        let count = perChunk * 2 + 3
        let sort = ExternalSort<Entry>(space: SortSpace(folder: directory.path, runBytes: (count - 1) * 16)) { a, b in
            a.order < b.order
        }
        for order in (0..<count).reversed() { try sort.append(Entry(key: 0, order: Int64(order))) }
        #expect(sort.spilled)
        #expect(try drain(sort.sorted()).map(\.order) == (0..<Int64(count)).map { $0 })
    }
}
