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

/// The UTF-8 sequence that starts at `index` with a byte of 0x80 or more (Unicode's table 3-7):
/// its length by its lead byte (0 for a byte no sequence starts with), and how many of its bytes
/// are well formed (its maximal subpart; all of them when `valid == length`).
@inline(__always)
func utf8Sequence(in bytes: UnsafeRawBufferPointer, at index: Int) -> (length: Int, valid: Int) {
    let length: Int
    var low: UInt8 = 0x80
    var high: UInt8 = 0xBF
    switch bytes[index] {
    case 0xC2...0xDF: length = 2
    case 0xE0: length = 3; low = 0xA0
    case 0xED: length = 3; high = 0x9F
    case 0xE1...0xEF: length = 3
    case 0xF0: length = 4; low = 0x90
    case 0xF4: length = 4; high = 0x8F
    case 0xF1...0xF3: length = 4
    default: return (0, 0)
    }
    var valid = 1
    while valid < length, index + valid < bytes.count {
        let byte = bytes[index + valid]
        guard byte >= low && byte <= high else { break }
        low = 0x80
        high = 0xBF
        valid += 1
    }
    return (length, valid)
}

/// `bytes` made well-formed UTF-8 without NUL, in one pass into one buffer: each NUL byte and
/// each maximal ill-formed subpart (Unicode's "substitution of maximal subparts", what
/// `String(decoding:as:)` does) becomes U+FFFD. Runs of ASCII without NUL are copied a word at
/// a time.
///
/// Complexity: O(n); the buffer holds at most 3 bytes per input byte.
package func repairedUTF8WithoutNUL(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
    let count = bytes.count
    guard count > 0 else { return [] }
    return [UInt8](unsafeUninitializedCapacity: count * 3) { out, written in
        let output = UnsafeMutableRawBufferPointer(out)
        var index = 0
        var end = 0
        @inline(__always) func replacement() {
            output[end] = 0xEF; output[end + 1] = 0xBF; output[end + 2] = 0xBD
            end += 3
        }
        while index < count {
            // Fast path: 8 ASCII bytes, none of them NUL.
            if index + 8 <= count {
                let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if word & 0x8080_8080_8080_8080 == 0 && (word &- 0x0101_0101_0101_0101) & 0x8080_8080_8080_8080 == 0 {
                    output.storeBytes(of: word, toByteOffset: end, as: UInt64.self)
                    index += 8
                    end += 8
                    continue
                }
            }
            let lead = bytes[index]
            if lead == 0 {
                replacement()
                index += 1
                continue
            }
            if lead < 0x80 {
                output[end] = lead
                index += 1
                end += 1
                continue
            }
            let (length, valid) = utf8Sequence(in: bytes, at: index)
            if length == 0 {
                replacement()
                index += 1
                continue
            }
            if valid == length {
                for offset in 0..<length { output[end + offset] = bytes[index + offset] }
                end += length
            } else {
                replacement()
            }
            index += valid
        }
        written = end
    }
}
