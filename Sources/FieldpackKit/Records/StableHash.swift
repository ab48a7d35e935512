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
