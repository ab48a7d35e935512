import Dispatch
import Synchronization

/// 64-bit words that a stage sets aside until a later step reads them back once: one scratch
/// file of the build folder (`SpillFile`: unnamed, gone with this object), appended by any
/// number of threads, each through a `Batch` of its own (512 KiB), the file written under a
/// lock; read back in the order the batches were written, a batch's worth at a time. Words come
/// in rows of `rowWords`: a batch, and each chunk read back, holds whole rows.
final class WordSpill: Sendable {
    private let spill: Mutex<SpillFile>
    /// The words a `Batch` holds before it writes them, and a chunk read back: about 512 KiB,
    /// whole rows.
    let batchWords: Int

    /// - Parameter rowWords: how many words a row is; its callers add whole rows.
    init(in folder: String, rowWords: Int = 1) throws {
        precondition(rowWords > 0)
        batchWords = (1 << 16) / rowWords * rowWords
        // A batch is written whole, past the file's buffer.
        spill = Mutex(try SpillFile(in: folder, bufferSize: 1 << 16))
    }

    /// One thread's words, written to the file a batch at a time. Not thread-safe: one per
    /// thread; `flush` it when the thread is done.
    struct Batch {
        let spill: WordSpill
        private var words: [UInt64] = []

        init(_ spill: WordSpill) { self.spill = spill }

        @inline(__always)
        mutating func add(_ word: UInt64) throws {
            if words.isEmpty { words.reserveCapacity(spill.batchWords) }
            words.append(word)
            if words.count >= spill.batchWords { try flush() }
        }

        /// Writes out the words held.
        mutating func flush() throws {
            guard !words.isEmpty else { return }
            try spill.append(&words)
        }
    }

    /// Appends a thread's batch of words, and empties it (its buffer kept for the next batch).
    fileprivate func append(_ words: inout [UInt64]) throws {
        try spill.withLock { file in _ = try words.withUnsafeBytes { try file.append($0) } }
        words.removeAll(keepingCapacity: true)
    }

    /// Calls `body` with the words written (every `Batch` flushed), in order, a batch's worth at
    /// a time: each read under the lock, `body` called outside it.
    func forEachChunk(_ body: ([UInt64]) throws -> Void) throws {
        let reader = ChunkReader(self)
        while let words = try reader.next() { try body(words) }
    }

    /// Calls `body` with each row of two words (a spill of `rowWords: 2`), in order.
    func forEachPair(_ body: (UInt64, UInt64) throws -> Void) throws {
        precondition(batchWords % 2 == 0, "a spill of pairs holds rows of two words")
        try forEachChunk { chunk in
            for index in stride(from: 0, to: chunk.count - 1, by: 2) { try body(chunk[index], chunk[index + 1]) }
        }
    }

    /// Calls `body` with the words written (every `Batch` flushed), a batch's worth at a time, on
    /// `workers` threads at once (each chunk once, in no set order), given the worker's index.
    /// The first error thrown stops the workers and is thrown.
    func forEachChunk(workers: Int, _ body: @Sendable (_ worker: Int, _ chunk: [UInt64]) throws -> Void) throws {
        let reader = ChunkReader(self)
        let failure = Mutex<(any Error)?>(nil)
        DispatchQueue.concurrentPerform(iterations: max(1, workers)) { worker in
            do {
                while failure.withLock({ $0 == nil }), let chunk = try reader.next() { try body(worker, chunk) }
            } catch {
                failure.withLock { $0 = $0 ?? error }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// The chunks of a spill (every `Batch` flushed), handed out one at a time, in order, to any
    /// number of threads: each chunk once, read under the spill's lock.
    final class ChunkReader: Sendable {
        private let spill: WordSpill
        private let offset = Mutex<Int64>(0)

        init(_ spill: WordSpill) { self.spill = spill }

        /// The next chunk of whole rows, nil at the end.
        func next() throws -> [UInt64]? {
            let word = MemoryLayout<UInt64>.size
            let batchWords = spill.batchWords
            let words: [UInt64] = try spill.spill.withLock { file in
                try offset.withLock { offset in
                    let from = offset
                    let count = Int(min(Int64(batchWords * word), file.count - from))
                    guard count > 0 else { return [] }
                    var words: [UInt64] = []
                    words.reserveCapacity(count / word)
                    try file.withBytes(at: SpillFile.Location(offset: from, count: count)) { bytes in
                        for start in stride(from: 0, to: bytes.count, by: word) {
                            words.append(bytes.loadUnaligned(fromByteOffset: start, as: UInt64.self))
                        }
                    }
                    offset += Int64(count)
                    return words
                }
            }
            return words.isEmpty ? nil : words
        }
    }
}
