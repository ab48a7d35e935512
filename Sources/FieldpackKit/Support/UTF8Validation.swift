/// Whether `bytes` is well-formed UTF-8 (no overlong forms, surrogates or scalars past
/// U+10FFFF); the ASCII runs are checked a word at a time. The wiki stage checks pages with it,
/// ingest the text fields of the open-data export.
func isWellFormedUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var index = 0
    let count = bytes.count
    while index < count {
        // Fast path: 8 ASCII bytes at once.
        if index + 8 <= count {
            let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if word & 0x8080_8080_8080_8080 == 0 {
                index += 8
                continue
            }
        }
        let lead = bytes[index]
        if lead < 0x80 {
            index += 1
            continue
        }
        let length: Int
        var minimum: UInt32
        var scalar: UInt32
        switch lead {
        case 0xC2...0xDF: length = 2; minimum = 0x80; scalar = UInt32(lead & 0x1F)
        case 0xE0...0xEF: length = 3; minimum = 0x800; scalar = UInt32(lead & 0x0F)
        case 0xF0...0xF4: length = 4; minimum = 0x10000; scalar = UInt32(lead & 0x07)
        default: return false
        }
        guard index + length <= count else { return false }
        for offset in 1..<length {
            let byte = bytes[index + offset]
            guard byte & 0xC0 == 0x80 else { return false }
            scalar = scalar << 6 | UInt32(byte & 0x3F)
        }
        if scalar < minimum || scalar > 0x10FFFF || (0xD800...0xDFFF).contains(scalar) { return false }
        index += length
    }
    return true
}
