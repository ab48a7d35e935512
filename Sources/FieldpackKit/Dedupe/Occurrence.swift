/// One occurrence of a photo in the records file, reduced to what picking a winner needs
/// (64 bytes). The record's bytes stay in the file (`offset`, `length`) and are read back only
/// for winners and conflict examples.
struct PhotoOccurrence {
    var id: Int64
    /// `updated_at` of the observation it came in (or of its taxon), Unix ms; `Int64.min` if unknown.
    var seen: Int64
    /// The observation it came in (0 if none): on a tie the higher id wins.
    var observation: Int64
    /// Hash of the record's content (without its source), the last deterministic tie-break.
    var content: UInt64
    var offset: Int64
    /// Observation photos beat taxon photos, then the lower position wins: higher is better.
    var rank: Int32
    var length: Int32
    var width: Int32
    var height: Int32
    /// Hashes of licence, attribution and URL (query string dropped), 21 bits each.
    var fields: UInt64

    @inline(__always)
    func outranks(_ other: PhotoOccurrence) -> Bool {
        if seen != other.seen { return seen > other.seen }
        if observation != other.observation { return observation > other.observation }
        if rank != other.rank { return rank > other.rank }
        return content > other.content
    }

    var license: UInt64 { fields & 0x1F_FFFF }
    var attribution: UInt64 { (fields >> 21) & 0x1F_FFFF }
    var url: UInt64 { fields >> 42 }
}

/// One occurrence of an observation, taxon or user (40 bytes).
struct RecordOccurrence {
    var id: Int64
    var seen: Int64
    var content: UInt64
    var offset: Int64
    var length: Int32
    /// Taxa: 2 for a copy from the taxa endpoint, plus 1 if it lists taxon photos.
    var rank: Int32

    @inline(__always)
    func outranks(_ other: RecordOccurrence) -> Bool {
        if seen != other.seen { return seen > other.seen }
        if rank >> 1 != other.rank >> 1 { return rank > other.rank }
        return content > other.content
    }

    var fromTaxa: Bool { rank & 2 != 0 }
    var hasList: Bool { rank & 1 != 0 }
}

/// A fast, seedless 64-bit hash: the same bytes give the same value in every process.
func stableHash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
    var index = 0
    let count = bytes.count
    while index + 8 <= count {
        let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
        hash = (hash ^ word) &* 0xFF51_AFD7_ED55_8CCD
        hash ^= hash >> 29
        index += 8
    }
    var tail: UInt64 = 0
    var shift: UInt64 = 0
    while index < count {
        tail |= UInt64(bytes[index]) << shift
        shift += 8
        index += 1
    }
    hash = (hash ^ tail) &* 0xC4CE_B9FE_1A85_EC53
    hash ^= hash >> 32
    return hash
}

/// A 21-bit hash of a field (0 only for null), for conflict detection.
func fieldHash(_ text: JSONText?) -> UInt64 {
    guard let text else { return 0 }
    return (stableHash(text.bytes) & 0x1F_FFFF) | 1
}

/// Sorts in place without allocating (Swift's `sort` may allocate a buffer of half the array,
/// which at millions of records is the stage's peak memory). Introsort-style quicksort with a
/// median-of-three pivot and insertion sort for short runs; not stable.
func sortInPlace<T>(_ buffer: UnsafeMutableBufferPointer<T>, by less: (T, T) -> Bool) {
    func insertion(_ low: Int, _ high: Int) {
        var i = low + 1
        while i <= high {
            let value = buffer[i]
            var j = i - 1
            while j >= low && less(value, buffer[j]) {
                buffer[j + 1] = buffer[j]
                j -= 1
            }
            buffer[j + 1] = value
            i += 1
        }
    }
    var low = 0
    var high = buffer.count - 1
    var stack: [(Int, Int)] = []
    while true {
        while high - low > 16 {
            let middle = low + (high - low) / 2
            if less(buffer[middle], buffer[low]) { buffer.swapAt(middle, low) }
            if less(buffer[high], buffer[low]) { buffer.swapAt(high, low) }
            if less(buffer[high], buffer[middle]) { buffer.swapAt(high, middle) }
            let pivot = buffer[middle]
            var i = low
            var j = high
            while i <= j {
                while less(buffer[i], pivot) { i += 1 }
                while less(pivot, buffer[j]) { j -= 1 }
                if i <= j {
                    buffer.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            // Recurse (via the stack) into the larger side later; loop on the smaller one.
            if j - low < high - i {
                if i < high { stack.append((i, high)) }
                high = j
            } else {
                if low < j { stack.append((low, j)) }
                low = i
            }
        }
        if high > low { insertion(low, high) }
        guard let next = stack.popLast() else { return }
        (low, high) = next
    }
}
