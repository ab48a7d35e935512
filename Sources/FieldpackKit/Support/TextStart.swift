/// Where an input's text starts, for the readers that tell a file's kind from its first bytes.

/// `bytes` without a leading UTF-8 byte-order mark (Windows tools write one; JSON parsers refuse
/// it). Offsets into the result count from after the mark.
func withoutByteOrderMark(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
    bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? UnsafeRawBufferPointer(rebasing: bytes[3...]) : bytes
}

/// JSON's whitespace: space, tab, line feed, carriage return.
@inline(__always) func isJSONBlank(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
}

/// The offset in `bytes` of the first byte after a UTF-8 byte-order mark and JSON whitespace;
/// `bytes.count` when there is nothing else.
func contentStart(_ bytes: UnsafeRawBufferPointer) -> Int {
    var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    while start < bytes.count && isJSONBlank(bytes[start]) { start += 1 }
    return start
}
