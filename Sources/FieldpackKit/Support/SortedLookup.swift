/// Integer keys to integer values, looked up one at a time after they were all added, without
/// holding them all: the pairs go through an `ExternalSort`; if it spilled, the sorted pairs are
/// written to a spill file in blocks of `blockPairs`, with only each block's first key in memory
/// (1/256 of the pairs' size), and a lookup reads one block (the last one read is kept, so keys
/// looked up in rising order read each block once). Otherwise they stay in memory.
///
/// A key added twice gives one of its values. Not thread-safe.
package final class SortedLookup {
    struct Pair {
        var key: Int64
        var value: Int64
    }

    package static let blockPairs = 256

    private let space: SortSpace
    private let sort: ExternalSort<Pair>
    private var built = false
    /// In memory: every pair, by key. Spilled: nothing (see `blocks`).
    private var memory: [Pair] = []
    private var spill: SpillFile? = nil
    /// Each block's first key, its location, and the last block read.
    private var firstKeys: [Int64] = []
    private var blocks: [SpillFile.Location] = []
    private var cached: (block: Int, pairs: [Pair])? = nil

    package init(space: SortSpace) {
        sort = ExternalSort<Pair>(space: space) { a, b in a.key != b.key ? a.key < b.key : a.value < b.value }
        self.space = space
    }

    /// Adds a pair; only before the first lookup.
    package func add(_ key: Int64, _ value: Int64) throws {
        try sort.append(Pair(key: key, value: value))
    }

    /// The value of `key`, nil if it was never added.
    package func value(of key: Int64) throws -> Int64? {
        try build()
        if spill == nil { return Self.find(key, in: memory) }
        let block = firstKeys.partitionPoint { $0 <= key } - 1
        guard block >= 0 else { return nil }
        if cached?.block != block {
            let location = blocks[block]
            let count = location.count / MemoryLayout<Pair>.stride
            let pairs = try spill!.withBytes(at: location) { raw in
                [Pair](unsafeUninitializedCapacity: count) { target, initialized in
                    UnsafeMutableRawBufferPointer(target).copyMemory(from: raw)
                    initialized = count
                }
            }
            cached = (block, pairs)
        }
        return Self.find(key, in: cached!.pairs)
    }

    private static func find(_ key: Int64, in pairs: [Pair]) -> Int64? {
        let low = pairs.partitionPoint { $0.key < key }
        return low < pairs.count && pairs[low].key == key ? pairs[low].value : nil
    }

    private func build() throws {
        guard !built else { return }
        built = true
        if let pairs = sort.sortedInMemory() {
            memory = pairs
            return
        }
        let cursor = try sort.sorted()
        let file = try SpillFile(in: space.folder!)
        var block: [Pair] = []
        block.reserveCapacity(Self.blockPairs)
        func flush() throws {
            guard let first = block.first else { return }
            firstKeys.append(first.key)
            blocks.append(try block.withUnsafeBytes { try file.append($0) })
            block.removeAll(keepingCapacity: true)
        }
        while let pair = cursor.peek {
            block.append(pair)
            if block.count == Self.blockPairs { try flush() }
            try cursor.advance()
        }
        try flush()
        spill = file
    }
}
