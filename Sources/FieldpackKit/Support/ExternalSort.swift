/// Sorts more fixed-size records than a stage should hold in memory: records gather in a buffer
/// of at most `runBytes`; each full buffer is sorted in place and written as a run to a nameless
/// spill file in the build folder (`SpillFile`), and `sorted()` merges the runs (k-way, through a
/// heap), reading each run a chunk at a time. Memory is one buffer while records come in, and a
/// chunk per run while they go out, whatever their number; below one buffer nothing touches the
/// disk.
///
/// `less` must be a total order (the in-memory sort is not stable): give it a tie-breaker.
/// Not thread-safe.
package final class ExternalSort<Element: BitwiseCopyable> {
    /// The largest run kept in memory when no other size is given (see `SortSpace`).
    package static var defaultRunBytes: Int { 16 << 20 }
    /// Records read back from a run at a time.
    package static var chunkBytes: Int { 64 << 10 }

    private let space: SortSpace
    private let less: (Element, Element) -> Bool
    private let runCapacity: Int
    // Appended to, and read, for every record: unchecked at run time, like `RecordBatch`'s
    // storage (a class's stored array is otherwise checked for exclusive access at each use).
    // The one long access, the in-place sort of `buffer` (and, in `Cursor`, the heap's while it
    // orders `heads`), calls `less`, which touches neither.
    @exclusivity(unchecked) private var buffer: [Element] = []
    private var spill: SpillFile? = nil
    private var runs: [SpillFile.Location] = []
    private var ended = false
    /// Records appended.
    package private(set) var count = 0

    /// - Parameter space: where runs spill and how large a run may grow (a nil folder: never
    ///   spilled, for inputs known to be small).
    package init(space: SortSpace, by less: @escaping (Element, Element) -> Bool) {
        self.space = space
        self.less = less
        runCapacity = space.folder == nil ? Int.max : max(1, space.runBytes / MemoryLayout<Element>.stride)
    }

    /// Whether any run went to disk.
    package var spilled: Bool { !runs.isEmpty }

    package func append(_ element: Element) throws {
        precondition(!ended, "a record appended after the sort ended")
        if buffer.count >= runCapacity { try spillRun() }
        buffer.append(element)
        count += 1
    }

    private func spillRun() throws {
        buffer.withUnsafeMutableBufferPointer { sortInPlace($0, by: less) }
        if spill == nil { spill = try SpillFile(in: space.folder!) }
        let location = try buffer.withUnsafeBytes { try spill!.append($0) }
        runs.append(location)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Ends the input, if no run spilled: the records in order, in memory.
    package func sortedInMemory() -> [Element]? {
        guard runs.isEmpty else { return nil }
        precondition(!ended, "a sort read twice")
        ended = true
        var records = buffer
        buffer = []
        records.withUnsafeMutableBufferPointer { sortInPlace($0, by: less) }
        return records
    }

    /// Ends the input; the records in order, once.
    package func sorted() throws -> Cursor {
        if let records = sortedInMemory() { return Cursor(memory: records, less: less) }
        precondition(!ended, "a sort read twice")
        ended = true
        if !buffer.isEmpty { try spillRun() }
        buffer = []
        let perChunk = max(1, Self.chunkBytes / MemoryLayout<Element>.stride)
        let readers = runs.map { RunReader(spill: spill!, run: $0, perChunk: perChunk) }
        return try Cursor(runs: readers, less: less)
    }

    /// The records of one spilled run, read a chunk at a time.
    package final class RunReader {
        let spill: SpillFile
        let run: SpillFile.Location
        let perChunk: Int
        @exclusivity(unchecked) private var chunk: [Element] = []
        @exclusivity(unchecked) private var index = 0
        private var nextOffset: Int64

        init(spill: SpillFile, run: SpillFile.Location, perChunk: Int) {
            self.spill = spill
            self.run = run
            self.perChunk = perChunk
            nextOffset = run.offset
        }

        /// The next record, nil at the run's end.
        func next() throws -> Element? {
            if index == chunk.count {
                let stride = MemoryLayout<Element>.stride
                let end = run.offset + Int64(run.count)
                let left = Int((end - nextOffset) / Int64(stride))
                guard left > 0 else { return nil }
                let take = min(left, perChunk)
                chunk = try spill.withBytes(at: SpillFile.Location(offset: nextOffset, count: take * stride)) { raw in
                    [Element](unsafeUninitializedCapacity: take) { target, initialized in
                        UnsafeMutableRawBufferPointer(target).copyMemory(from: raw)
                        initialized = take
                    }
                }
                nextOffset += Int64(take * stride)
                index = 0
            }
            defer { index += 1 }
            return chunk[index]
        }
    }

    /// The sorted records: `peek` is the next one, `advance()` moves past it.
    package final class Cursor {
        private let less: (Element, Element) -> Bool
        @exclusivity(unchecked) private var memory: [Element] = []
        @exclusivity(unchecked) private var position = 0
        private var runs: [RunReader] = []
        /// Each run's next record, and the runs in a heap by it (ties: the lower run).
        @exclusivity(unchecked) private var heads: [Element?] = []
        @exclusivity(unchecked) private var heap = MergeHeap()
        @exclusivity(unchecked) package private(set) var peek: Element? = nil

        init(memory: [Element], less: @escaping (Element, Element) -> Bool) {
            self.memory = memory
            self.less = less
            peek = memory.first
        }

        init(runs: [RunReader], less: @escaping (Element, Element) -> Bool) throws {
            self.runs = runs
            self.less = less
            heads = try runs.map { try $0.next() }
            for run in runs.indices where heads[run] != nil { heap.push(run, before: before) }
            peek = heap.top.flatMap { heads[$0] }
        }

        /// Moves past `peek`.
        package func advance() throws {
            if runs.isEmpty {
                position += 1
                peek = position < memory.count ? memory[position] : nil
                return
            }
            guard let top = heap.top else { return }
            heads[top] = try runs[top].next()
            heap.topAdvanced(ended: heads[top] == nil, before: before)
            peek = heap.top.flatMap { heads[$0] }
        }

        private func before(_ a: Int, _ b: Int) -> Bool {
            let (x, y) = (heads[a]!, heads[b]!)
            if less(x, y) { return true }
            if less(y, x) { return false }
            return a < b
        }
    }
}

/// Where a stage's external sorts spill (its build folder), and how much of each they hold in
/// memory.
package struct SortSpace: Sendable {
    /// The folder for the nameless spill files (nil: nothing spills).
    package var folder: String?
    package var runBytes: Int

    package init(folder: String?, runBytes: Int = ExternalSort<UInt8>.defaultRunBytes) {
        self.folder = folder
        self.runBytes = runBytes
    }

    /// Everything in memory.
    package static let memory = SortSpace(folder: nil)

    /// The run size for sorts of at most the records of an input of `bytes` bytes: a 256th of
    /// it, from 4 MiB to 64 MiB. Each run read back holds a chunk (64 KiB) while the runs are
    /// merged, so runs that small for a large input would cost more memory than they save: up
    /// to 1 GiB of input, runs of 4 MiB (at most 256 of them); up to 16 GiB, 256 runs of a 256th
    /// (16 MiB of chunks); past it, runs of 64 MiB. (With an 8 MiB page cache, the bundle of the
    /// benchmark's 1M API pages and their articles peaked at 86–89 MB with a fixed 16 MiB and
    /// at 55.5 MB with 4 MiB runs, in the same time.)
    package static func runBytes(forInputBytes bytes: Int) -> Int {
        min(max(bytes / 256, 4 << 20), 64 << 20)
    }
}
