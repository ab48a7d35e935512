@testable import FieldpackKit
import FieldpackTestSupport
import Dispatch
import Synchronization
import Testing

/// Rows of two words written by several threads at once into one spill (`WordSpill`, each thread
/// its own batches) read back whole: every pair once and unsplit, over several batches per
/// thread, a partial last batch, and reads of more than one batch's worth.
@Suite struct WordSpillTests {
    @Test func pairsWrittenBySeveralThreadsReadBackEveryPairOnce() throws {
        let directory = try TemporaryDirectory()
        let spill = try WordSpill(in: directory.path, rowWords: 2)
        let (threads, perThread) = (3, (1 << 16) + 12_345)
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            do {
                var batch = WordSpill.Batch(spill)
                for row in 0..<perThread {
                    try batch.add(UInt64(thread * perThread + row))
                    try batch.add(UInt64(row % 97))
                }
                try batch.flush()
            } catch {
                failures.withLock { $0 += 1 }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        var seen = [Int64](repeating: -1, count: threads * perThread)
        var pairs = 0
        try spill.forEachPair { first, second in
            pairs += 1
            if first < UInt64(seen.count) && seen[Int(first)] == -1 { seen[Int(first)] = Int64(second) }
        }
        #expect(pairs == threads * perThread)
        let wrong = seen.indices.filter { seen[$0] != Int64($0 % perThread % 97) }
        #expect(wrong.count == 0, "rows missing or split, the first \(wrong.first ?? -1)")
    }
}
