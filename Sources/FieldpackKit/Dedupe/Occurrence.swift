/// One occurrence of a record in the records file, reduced to what picking a winner needs.
/// The record's bytes stay in the file (`offset`, `length`) and are read back only for winners.
struct Occurrence {
    var id: Int64
    /// `updated_at` of the record (or of the observation it came in), Unix ms; `Int64.min` if unknown.
    var seen: Int64
    /// Tie-breaks after `seen`, higher wins: for photos the observation id.
    var tie1: Int64
    /// For photos: observation photos over taxon photos, then lower position; for taxa: a
    /// taxa-endpoint copy over one embedded in an observation.
    var tie2: Int64
    /// Hash of the record's content (without its source), the last deterministic tie-break.
    var content: UInt64
    var offset: Int64
    var length: Int32
    var width: Int32 = -1
    var height: Int32 = -1
    var license: UInt32 = 0
    var attribution: UInt32 = 0
    var url: UInt32 = 0
    /// Taxa: whether the occurrence lists its taxon photos.
    var hasList: Bool = false

    /// True if `self` should win over `other` for the same id.
    @inline(__always)
    func outranks(_ other: Occurrence) -> Bool {
        if seen != other.seen { return seen > other.seen }
        if tie1 != other.tie1 { return tie1 > other.tie1 }
        if tie2 != other.tie2 { return tie2 > other.tie2 }
        return content > other.content
    }
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

func stableHash32(_ text: JSONText?) -> UInt32 {
    guard let text else { return 0 }
    let hash = stableHash(text.bytes)
    return UInt32(truncatingIfNeeded: hash ^ (hash >> 32)) | 1
}
