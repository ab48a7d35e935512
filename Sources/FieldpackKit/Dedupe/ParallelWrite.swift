import Dispatch

/// Writes the winners of sorted occurrences with two threads: the groups are cut into segments
/// of about `segmentOccurrences` occurrences at key boundaries, each thread takes the next
/// segment and makes its winners' bytes in memory, and whoever hands in the next segment in order
/// writes it (and any that follow, ready), so the output keeps id order. At most `window`
/// segments are made ahead of the one being written.
///
/// Until this was done by halves, the second half went to a scratch file appended after the
/// first: a second write of half the output (on the benchmark's 1M observations, 343 MB).
enum ParallelWrite {
    /// What one segment found.
    struct Tally {
        var unique = 0
        var filledDimensions = 0
        var report: ConflictReport
        /// What the selection's dedupe rules removed (nil: no such rules).
        var removed: DedupedSelectionRecord? = nil
        /// The photos the written records refer to, when dedupe collects them.
        var referenced: [Int64] = []
    }

    /// About 0.8 MB of winners a segment (a record is about 200 bytes): with the window, at most
    /// about 5 MB of winners wait to be written. (16,384 a segment: 10 MB more at the
    /// peak of the benchmark's 1M API pages, for no speed.)
    static let segmentOccurrences = 4_096
    static let window = 4

    /// - Returns: each segment's tally, in segment order (so reports merged in order keep the
    ///   first examples by id).
    static func run<T: HasID>(
        _ occurrences: OccurrenceArray<T>, path: String, output: AtomicOutput, sourceNames: [Int: String],
        exportGivesPhotos: Bool = false, selection: DedupeSelection? = nil,
        _ body: @escaping @Sendable (inout Winners, inout Tally, UnsafeBufferPointer<T>) throws -> Void,
        makeReport: @escaping @Sendable () -> ConflictReport
    ) throws -> [Tally] {
        let segments = Self.segments(UnsafeBufferPointer(occurrences.buffer))
        try output.flush()
        let writer = OrderedSegments(output: output, count: segments.count, window: window)
        let results = Results<[(segment: Int, tally: Tally)]>(count: 2)
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            results.record(worker) {
                do {
                    var winners = Winners(
                        source: try ReadableFile(path: path), sourceNames: sourceNames, exportGivesPhotos: exportGivesPhotos, selection: selection)
                    var tallies: [(segment: Int, tally: Tally)] = []
                    let array = UnsafeBufferPointer(occurrences.buffer)
                    while let index = writer.claim() {
                        var tally = Tally(report: makeReport(), removed: selection?.emptyCounts())
                        var start = segments[index].lowerBound
                        let end = segments[index].upperBound
                        while start < end {
                            var next = start + 1
                            while next < end && array[next].sameKey(as: array[start]) { next += 1 }
                            try body(&winners, &tally, UnsafeBufferPointer(rebasing: array[start..<next]))
                            tally.unique += 1
                            start = next
                        }
                        try writer.submit(index, winners.takePending())
                        tallies.append((index, tally))
                    }
                    return tallies
                } catch {
                    writer.fail()
                    throw error
                }
            }
        }
        let tallies = try results.values().flatMap { $0 }.sorted { $0.segment < $1.segment }
        if let failure = writer.failure { throw failure }
        guard tallies.count == segments.count else { throw FieldpackError("internal error: a segment of winners was not written") }
        return tallies.map(\.tally)
    }

    /// Runs of about `segmentOccurrences` occurrences, each ending where a key does.
    static func segments<T: HasID>(_ sorted: UnsafeBufferPointer<T>) -> [Range<Int>] {
        var segments: [Range<Int>] = []
        var start = 0
        while start < sorted.count {
            var end = min(start + segmentOccurrences, sorted.count)
            while end < sorted.count && sorted[end].sameKey(as: sorted[end - 1]) { end += 1 }
            segments.append(start..<end)
            start = end
        }
        return segments
    }
}

/// The segments' bytes, written to the output in segment order as each next one is handed in;
/// lock-protected. A thread claims segments at most `window` ahead of the one to write next, so
/// memory holds a few segments whatever the input.
private final class OrderedSegments: @unchecked Sendable {
    private let output: AtomicOutput
    private let count: Int
    private let window: Int
    private var nextClaim = 0
    private var nextWrite = 0
    private var ready: [Int: [UInt8]] = [:]
    private var writing = false
    private(set) var failure: Error? = nil
    private var failed = false
    /// Guards everything above; broadcast when a segment is written or a thread fails.
    private let lock = ConditionLock()

    init(output: AtomicOutput, count: Int, window: Int) {
        self.output = output
        self.count = count
        self.window = window
    }

    /// The next segment to make, or nil when all are taken (or a thread failed).
    func claim() -> Int? {
        lock.withLock {
            while nextClaim < count && !failed && nextClaim >= nextWrite + window { lock.wait() }
            guard nextClaim < count, !failed else { return nil }
            nextClaim += 1
            return nextClaim - 1
        }
    }

    /// Hands in segment `index`'s bytes; the thread that finds the next segments in order writes
    /// them, outside the lock, one writer at a time.
    func submit(_ index: Int, _ bytes: [UInt8]) throws {
        let writes = lock.withLock { () -> Bool in
            ready[index] = bytes
            if writing { return false }
            writing = true
            return true
        }
        guard writes else { return }
        while true {
            let (batch, position) = lock.withLock { () -> ([[UInt8]], Int) in
                var batch: [[UInt8]] = []
                var position = nextWrite
                while !failed, let next = ready.removeValue(forKey: position) {
                    batch.append(next)
                    position += 1
                }
                if batch.isEmpty { writing = false }
                return (batch, position)
            }
            if batch.isEmpty { return }
            do {
                for bytes in batch { try output.write(bytes) }
            } catch {
                lock.withLock {
                    if failure == nil { failure = error }
                    failed = true
                    writing = false
                    lock.broadcast()
                }
                throw error
            }
            lock.withLock {
                nextWrite = position
                lock.broadcast()
            }
        }
    }

    /// Stops every thread's claims (one failed).
    func fail() {
        lock.withLock {
            failed = true
            lock.broadcast()
        }
    }
}
