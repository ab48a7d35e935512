import Dispatch
import Synchronization

/// Which keys of a stream occur more than once: exactly, in memory that does not grow with the
/// stream. Ingest asks it which export rows are the only row of their uuid or photo id
/// (`ExportLinkPruning.Singles`).
///
/// Keys are 64-bit and well mixed (`BloomWord`). While they come in (`Collector`, from any
/// number of threads), each goes by its top bits to one of `partitions` partitions: the thread
/// that adds it holds a batch per partition, appended whole to one nameless spill file in the
/// build folder (`SpillFile`), followed by where that partition's previous batch is, so that
/// memory holds only where each partition's last batch is, however many batches the stream
/// fills (`Chain`). Then each partition is read back alone (about 4 MiB of entries:
/// the partition count follows from the keys expected), sorted, and the keys met more
/// than once are kept, sorted. The export repeats few keys (one photo row in a thousand on the
/// benchmark's), so that list is small. A collector with values keeps a value beside each key
/// (16 bytes an entry, and twice the partitions for the same memory): the photos rows' observers,
/// so that the observers of the repeated photos come from the same sort
/// (`ExportLinkPruning.plan`), not from a second spill and a pass over it.
///
/// Memory: each thread's batches (about 1 MiB, at most 2 MiB with the most partitions) while
/// keys come in, and each partition's last batch and its count of words (24 bytes a
/// partition; until 2026-12-05 the place of every batch, 16 bytes per batch of 64 to 131,072
/// words: 1 MB on the benchmark's export at 10M, and about 17 MB at iNaturalist's size); then,
/// per sorting worker, one partition's keys and their sorted copy (8 MiB at
/// the expected size, at most 32 MiB: a partition of over four times the expected keys is not
/// read); then the repeated keys, at most `maximumRepeatedBytes` in all, and a filter of at
/// most 1 MiB in front of them; with values, the values asked for, as a set of ids per sorting
/// worker (a bit per id), however many rows give them. A partition with more repeated keys than
/// its share of that (two exports of different dates as inputs repeat every uuid), or with too
/// many keys (its tables held far more rows than their sizes promised), keeps none and answers
/// "may repeat" for every key (`counts.wholePartitions`): those rows are written, as without
/// pruning, and the output is the same. The partitions are read back one at a time (the spill
/// file is shared) and sorted side by side.
final class RepeatedKeys: Sendable {
    /// Each partition's repeated keys, sorted; nil: any key of the partition may repeat.
    private let repeated: [[UInt64]?]
    /// How far a key shifts right to give its partition (64 with one partition).
    private let shift: UInt64

    /// The keys one partition is meant to hold: 4 MiB of them (half as many with their values).
    static let partitionKeys = 1 << 19
    /// A partition of more words than this (its keys, with their values in a collector with
    /// values) is not read back (any of its keys may repeat).
    static let partitionLimit = 4 * partitionKeys

    /// A bit per value of a key's low bits (`filterMask`), set for each repeated key's: most keys
    /// repeat not, and most of those are told so by one bit instead of a binary search of their
    /// partition's repeated keys (which was 5% of ingest's CPU on the benchmark's export). Every
    /// row asks it, so it is sized to the repeated keys (`filterBitsPerKey` bits each, one key in
    /// about that many then searched for nothing), from 512 bytes to 1 MiB: at 1 MiB whatever
    /// the keys, its lookups were cache misses, 4–5% of ingest's samples.
    private let filter: [UInt64]
    private let filterMask: Int
    static let filterBitsPerKey = 64
    private static let maximumFilterBits = 23, minimumFilterBits = 12
    /// Whether some partition answers "may repeat" for every key (the filter cannot say no).
    private let anyWhole: Bool

    fileprivate init(repeated: [[UInt64]?], shift: UInt64) {
        self.repeated = repeated
        self.shift = shift
        let count = repeated.reduce(0) { $0 + ($1?.count ?? 0) }
        var bits = Self.minimumFilterBits
        while bits < Self.maximumFilterBits && 1 << bits < count * Self.filterBitsPerKey { bits += 1 }
        filterMask = 1 << bits - 1
        var filter = [UInt64](repeating: 0, count: 1 << (bits - 6))
        for keys in repeated {
            for key in keys ?? [] {
                let bit = Int(truncatingIfNeeded: key) & filterMask
                filter[bit >> 6] |= 1 << UInt64(bit & 63)
            }
        }
        self.filter = filter
        anyWhole = repeated.contains { $0 == nil }
    }

    /// False only for a key added at most once.
    @inline(__always)
    func mayRepeat(_ key: UInt64) -> Bool {
        let bit = Int(truncatingIfNeeded: key) & filterMask
        let set = filter.withUnsafeBufferPointer { $0[bit >> 6] } & (1 << UInt64(bit & 63)) != 0
        if !set && !anyWhole { return false }
        guard let keys = repeated[Int(key >> shift)] else { return true }
        return set && keys.withUnsafeBufferPointer { $0.sortedIndex(of: key) } != nil
    }

    /// The filter's size in bytes.
    var filterBytes: Int { filter.count * 8 }

    /// How many keys are known to repeat, and how many partitions answer "may repeat" for all.
    var counts: (repeated: Int, wholePartitions: Int) {
        (repeated.reduce(0) { $0 + ($1?.count ?? 0) }, repeated.count { $0 == nil })
    }

    /// Gathers the keys: `adding` from any number of threads, then `finish` once. A collector
    /// made `withValues` keeps a value beside each key (a photos row's observer), and `finish`
    /// gives back the values of the keys that may repeat and that it is asked for.
    final class Collector: Sendable {
        let partitions: Int
        fileprivate let shift: UInt64
        /// The words each key takes in its batches and spill: 1, or 2 with its value.
        fileprivate let entryWords: Int
        /// Words a thread holds per partition before appending them.
        let batchWords: Int
        private let spill: Mutex<Spill>

        /// The spill file, and each partition's chain of batches in it.
        private struct Spill: ~Copyable {
            let file: SpillFile
            var chains: [Chain]
        }

        /// A partition's batches in the spill file, newest first: where the last one is (offset
        /// -1: none yet), each batch ending in two words that say where the one before it is
        /// (offset, then byte count; -1 and 0 in the first batch's), and how many words of entries
        /// they hold in all. 24 bytes.
        fileprivate struct Chain {
            var last = Self.none
            var words = 0

            /// Where no batch is: before a partition's first batch.
            static let none = SpillFile.Location(offset: -1, count: 0)

            /// The words a batch ends with, after its entries.
            static let trailerWords = 2
        }

        /// A collector for about `expectedKeys` keys (an over-count costs only more partitions),
        /// spilling into `folder`; `withValues`, a value beside each key (twice the bytes, so
        /// twice the partitions).
        init(expectedKeys: Int, folder: String, withValues: Bool = false) throws {
            entryWords = withValues ? 2 : 1
            var partitions = 1
            while partitions * (RepeatedKeys.partitionKeys / entryWords) < expectedKeys && partitions < 1 << 12 { partitions <<= 1 }
            self.partitions = partitions
            shift = UInt64(64 - partitions.trailingZeroBitCount)
            batchWords = max(64, (1 << 17) / partitions)
            spill = Mutex(Spill(file: try SpillFile(in: folder, bufferSize: 1 << 20), chains: Array(repeating: Chain(), count: partitions)))
        }

        @inline(__always)
        fileprivate func partition(_ key: UInt64) -> Int { Int(key >> shift) }

        /// Appends a thread's batch of one partition's entries, with where the partition's
        /// previous batch is, and empties it.
        fileprivate func append(_ keys: inout [UInt64], to partition: Int) throws {
            try spill.withLock { spill in
                let chain = spill.chains[partition]
                // Two appends, one after the other under the lock: one batch in the file. (The
                // trailer appended to `keys` would grow its buffer, kept at a batch's size.)
                var location = try keys.withUnsafeBytes { try spill.file.append($0) }
                let trailer = [UInt64(bitPattern: chain.last.offset), UInt64(chain.last.count)]
                location.count += try trailer.withUnsafeBytes { try spill.file.append($0) }.count
                spill.chains[partition] = Chain(last: location, words: chain.words + keys.count)
            }
            keys.removeAll(keepingCapacity: true)
        }

        /// Calls `body` with the entries of each of a partition's batches, newest first (the
        /// spill file's lock held).
        ///
        /// - Throws: when a batch is not where its successor says or is not whole entries, or
        ///   the batches do not hold the words the chain counted: a damaged scratch file is an
        ///   error, never a partition read short (a repeated key then told single).
        private func forEachBatch(
            of chain: Chain, in file: SpillFile, _ body: (UnsafeRawBufferPointer) throws -> Void
        ) throws {
            let word = MemoryLayout<UInt64>.stride
            let trailer = Chain.trailerWords * word
            func damaged(_ reason: String) -> FieldpackError {
                FieldpackError(path: file.folder, "a scratch file of keys is damaged: \(reason)")
            }
            var remaining = chain.words
            var next = chain.last
            while next != Chain.none {
                let location = next
                next = try file.withBytes(at: location) { bytes in
                    let entries = bytes.count - trailer
                    guard entries >= 0, entries % (entryWords * word) == 0, entries / word <= remaining else {
                        throw damaged("a batch of \(bytes.count) bytes at \(location.offset), with \(remaining) words left to read")
                    }
                    remaining -= entries / word
                    try body(UnsafeRawBufferPointer(rebasing: bytes[0..<entries]))
                    let previous = SpillFile.Location(
                        offset: Int64(bitPattern: bytes.loadUnaligned(fromByteOffset: entries, as: UInt64.self)),
                        count: Int(truncatingIfNeeded: bytes.loadUnaligned(fromByteOffset: entries + word, as: UInt64.self)))
                    // A batch's predecessor ends before it begins: the walk always ends. (Compared
                    // without adding the two, which a damaged count could overflow.)
                    guard previous == Chain.none
                        || (previous.offset >= 0 && previous.offset < location.offset && previous.count >= trailer
                            && Int64(previous.count) <= location.offset - previous.offset)
                    else { throw damaged("the batch at \(location.offset) names one at \(previous.offset) of \(previous.count) bytes") }
                    return previous
                }
            }
            guard remaining == 0 else { throw damaged("its batches hold \(remaining) words fewer than were appended") }
        }

        /// One thread's keys, held a batch per partition.
        struct Batch {
            private let collector: Collector
            private var keys: [[UInt64]]

            fileprivate init(_ collector: Collector) {
                self.collector = collector
                keys = Array(repeating: [], count: collector.partitions)
            }

            /// Adds `key`, and `value` beside it in a collector with values (0: none).
            @inline(__always)
            mutating func add(_ key: UInt64, value: UInt64 = 0) throws {
                let partition = collector.partition(key)
                keys[partition].append(key)
                if collector.entryWords == 2 { keys[partition].append(value) }
                if keys[partition].count >= collector.batchWords { try collector.append(&keys[partition], to: partition) }
            }

            fileprivate mutating func flush() throws {
                for partition in keys.indices where !keys[partition].isEmpty { try collector.append(&keys[partition], to: partition) }
            }
        }

        /// Runs `body` with a batch of this thread's keys, and appends what it holds when `body`
        /// returns (when it throws, the keys are not needed: the collector is not finished).
        func adding<R>(_ body: (inout Batch) throws -> R) throws -> R {
            var batch = Batch(self)
            let result = try body(&batch)
            try batch.flush()
            return result
        }

        /// The keys added more than once, once every `adding` has returned (call it once):
        /// `workers` threads take the partitions in turn. `maximumRepeatedBytes` bounds what is
        /// kept (see the type).
        ///
        /// - Throws: when the spill file cannot be read back (the first partition's error).
        func finish(maximumRepeatedBytes: Int, workers: Int) throws -> RepeatedKeys {
            try finish(maximumRepeatedBytes: maximumRepeatedBytes, workers: workers, valuesOf: nil).keys
        }

        /// The keys added more than once, as `finish(maximumRepeatedBytes:workers:)` finds them,
        /// and the values added beside each key that may repeat (a repeated key, or any key of a
        /// partition that may repeat them all) and that `wanted` asks for. The values are positive
        /// ids (0: none), gathered as a set (`IDSet`, a bit per id), so that however many rows a
        /// partition that may repeat all its keys holds, they take no more than their ids.
        func finish(
            maximumRepeatedBytes: Int, workers: Int, valuesOf wanted: (@Sendable (UInt64) -> Bool)?
        ) throws -> (keys: RepeatedKeys, values: IDSet) {
            precondition(wanted == nil || entryWords == 2, "values asked of a collector without them")
            let keep = max(1, maximumRepeatedBytes / MemoryLayout<UInt64>.stride / partitions)
            let next = Atomic<Int>(0)
            let found = Mutex<(repeated: [[UInt64]?], values: IDSet, failure: (partition: Int, error: any Error)?)>(
                (Array(repeating: nil, count: partitions), IDSet(), nil))
            DispatchQueue.concurrentPerform(iterations: max(1, min(workers, partitions))) { _ in
                var values = IDSet()
                while true {
                    let partition = next.add(1, ordering: .relaxed).oldValue
                    guard partition < partitions else { break }
                    do {
                        let repeated = try repeatedKeys(partition, keep: keep, valuesOf: wanted, into: &values)
                        found.withLock { $0.repeated[partition] = repeated }
                    } catch {
                        found.withLock { if $0.failure.map({ partition < $0.partition }) ?? true { $0.failure = (partition, error) } }
                    }
                }
                found.withLock { $0.values.formUnion(values) }
            }
            let (repeated, values, failure) = found.withLock { ($0.repeated, $0.values, $0.failure) }
            if let failure { throw failure.error }
            return (RepeatedKeys(repeated: repeated, shift: shift), values)
        }

        /// A key and the value beside it, as a collector with values spills them.
        private struct Valued: BitwiseCopyable {
            var key: UInt64
            var value: UInt64
        }

        /// A partition's keys met more than once, sorted (nil when any of its keys may repeat:
        /// more than `keep` of them repeat, or it holds too many to read); the values `wanted` asks
        /// for of the keys that may repeat go into `values`.
        private func repeatedKeys(
            _ partition: Int, keep: Int, valuesOf wanted: (@Sendable (UInt64) -> Bool)?, into values: inout IDSet
        ) throws -> [UInt64]? {
            guard let words = try read(partition) else {
                if let wanted { try self.values(partition, wanted: wanted, into: &values) }
                return nil
            }
            var repeated: [UInt64] = []
            if entryWords == 1 {
                let keys = words.withUnsafeBufferPointer { Self.sorted($0, shift: shift) { $0 } }
                let kept = keys.withUnsafeBufferPointer { keys in
                    Self.forEachRepeat(in: keys, key: { $0 }) { run in
                        guard repeated.count < keep else { return false }
                        repeated.append(keys[run.lowerBound])
                        return true
                    }
                }
                return kept ? repeated : nil
            }
            let entries = words.withUnsafeBufferPointer { words in
                words.withMemoryRebound(to: Valued.self) { Self.sorted($0, shift: shift) { $0.key } }
            }
            return entries.withUnsafeBufferPointer { entries in
                // The values of this partition's repeated keys, bounded as they are (at most
                // `keep` keys), added once the partition is known not to repeat them all.
                var mine: [UInt64] = []
                let kept = Self.forEachRepeat(in: entries, key: \.key) { run in
                    guard repeated.count < keep else { return false }
                    let key = entries[run.lowerBound].key
                    repeated.append(key)
                    if let wanted, wanted(key) {
                        for entry in entries[run] where entry.value != 0 { mine.append(entry.value) }
                    }
                    return true
                }
                guard kept else {
                    // Any key may repeat: every value asked for.
                    if let wanted {
                        for entry in entries where entry.value != 0 && wanted(entry.key) { values.insert(Int64(bitPattern: entry.value)) }
                    }
                    return nil
                }
                for value in mine { values.insert(Int64(bitPattern: value)) }
                return repeated
            }
        }

        /// Calls `body` with each run of two or more entries of one key, in order, of `entries`
        /// sorted by `key`; false when `body` returned false (it stops there).
        private static func forEachRepeat<Entry>(
            in entries: UnsafeBufferPointer<Entry>, key: (Entry) -> UInt64, _ body: (Range<Int>) -> Bool
        ) -> Bool {
            var index = 0
            while index < entries.count {
                var next = index + 1
                while next < entries.count && key(entries[next]) == key(entries[index]) { next += 1 }
                if next - index > 1, !body(index..<next) { return false }
                index = next
            }
            return true
        }

        /// A partition's entries sorted by their keys, spread evenly over the bits below the
        /// partition's own (`shift`): one counting pass into 2^11 buckets by the next 11 bits,
        /// then each bucket (a few hundred entries, in cache) sorted alone. The standard library's
        /// merge sort of the whole partition was 7% of ingest's cycles on the benchmark's export
        /// at 10M.
        private static func sorted<Entry>(_ entries: UnsafeBufferPointer<Entry>, shift: UInt64, key: (Entry) -> UInt64) -> [Entry] {
            let bits = 11
            let bucketShift = shift == 64 ? UInt64(64 - bits) : shift - UInt64(bits)
            let mask = UInt64(1 << bits - 1)
            @inline(__always) func bucket(_ entry: Entry) -> Int { Int((key(entry) >> bucketShift) & mask) }
            // Each bucket's start, and past the last one the count.
            var starts = [Int](repeating: 0, count: (1 << bits) + 1)
            for entry in entries { starts[bucket(entry) + 1] += 1 }
            for index in 1..<starts.count { starts[index] += starts[index - 1] }
            var sorted = [Entry](unsafeUninitializedCapacity: entries.count) { target, initialized in
                var next = starts
                for entry in entries {
                    let index = bucket(entry)
                    (target.baseAddress! + next[index]).initialize(to: entry)
                    next[index] += 1
                }
                initialized = entries.count
            }
            sorted.withUnsafeMutableBufferPointer { all in
                for index in 0..<(1 << bits) where starts[index + 1] - starts[index] > 1 {
                    sortInPlace(UnsafeMutableBufferPointer(rebasing: all[starts[index]..<starts[index + 1]])) { key($0) < key($1) }
                }
            }
            return sorted
        }

        /// A partition's words (its keys, with their values in a collector with values), nil
        /// when over `partitionLimit` (then any of its keys may repeat).
        private func read(_ partition: Int) throws -> [UInt64]? {
            try spill.withLock { spill in
                let chain = spill.chains[partition]
                guard chain.words <= RepeatedKeys.partitionLimit else { return nil }
                // Each batch copied whole into place (`forEachBatch` checks that the batches hold
                // no more than `chain.words`), the last batch first: the order is sorted away.
                return try [UInt64](unsafeUninitializedCapacity: chain.words) { words, filled in
                    try forEachBatch(of: chain, in: spill.file) { bytes in
                        let count = bytes.count / MemoryLayout<UInt64>.stride
                        UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: words[filled..<(filled + count)]))
                            .copyMemory(from: bytes)
                        filled += count
                    }
                }
            }
        }

        /// The values (not 0) `wanted` asks for among a partition's entries, its batches read one
        /// at a time (for a partition too large to read whole), into `values`.
        private func values(_ partition: Int, wanted: @Sendable (UInt64) -> Bool, into values: inout IDSet) throws {
            let found = try spill.withLock { spill in
                var found = IDSet()
                try forEachBatch(of: spill.chains[partition], in: spill.file) { bytes in
                    for offset in stride(from: 0, to: bytes.count, by: MemoryLayout<Valued>.stride) {
                        let entry = bytes.loadUnaligned(fromByteOffset: offset, as: Valued.self)
                        if entry.value != 0 && wanted(entry.key) { found.insert(Int64(bitPattern: entry.value)) }
                    }
                }
                return found
            }
            values.formUnion(found)
        }
    }
}
