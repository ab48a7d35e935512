/// Tests on eight bytes at a time, read as one little-endian word (byte 0 lowest): each sets the
/// high bit of every byte it matches. A test may also flag bytes above its first true match (a
/// borrow carries upward), never below it, so the lowest flag, and the lowest of several tests
/// ORed, is the first matching byte exactly (`firstFlagged`). The exact tests flag every match
/// and nothing else: `exactlyEqual` in any word, `inRange` in a word whose bytes are all below
/// 0x80. The number readers (`eightDigits`, `eightHexDigits`) read a word's digits at once.
enum WordBytes {
    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The eight bytes at `offset` (at most `bytes.count - 8`).
    @inline(__always)
    static func load(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// The bytes below 0x20: the control characters.
    @inline(__always)
    static func controls(_ word: UInt64) -> UInt64 {
        (word &- ones &* 0x20) & ~word & highs
    }

    /// The bytes equal to `byte`.
    @inline(__always)
    static func equal(to byte: UInt8, _ word: UInt64) -> UInt64 {
        let difference = word ^ (ones &* UInt64(byte))
        return (difference &- ones) & ~difference & highs
    }

    /// The bytes equal to `byte`, exactly: no borrow crosses from one byte to the next, so every
    /// flag is a match (for visiting each match of a word, where `equal` may flag false ones
    /// above the first).
    @inline(__always)
    static func exactlyEqual(to byte: UInt8, _ word: UInt64) -> UInt64 {
        let difference = word ^ (ones &* UInt64(byte))
        // A byte's low seven bits plus 0x7F set its high bit unless they are all 0, and never
        // carry out of the byte; ORed with the byte's own high bit, only a zero byte stays clear.
        return ~(((difference & ~highs) &+ ~highs) | difference) & highs
    }

    /// The bytes of `bytes` from `start` (fewer than eight left) as one word, the bytes past the
    /// end as 0: the word loops' last, short word, read without reading past `bytes`.
    @inline(__always)
    static func tail(_ bytes: UnsafeRawBufferPointer, from start: Int) -> UInt64 {
        let left = bytes.count - start
        if bytes.count >= 8 { return load(bytes, at: bytes.count - 8) >> UInt64(8 * (8 - left)) }
        var word: UInt64 = 0
        for offset in 0..<left { word |= UInt64(bytes[start + offset]) << UInt64(8 * offset) }
        return word
    }

    /// Gives `body` the offset of each byte of `bytes` equal to `byte`, in order, eight bytes at a
    /// time, until `body` returns false. `byte` is not 0 (the short last word is padded with 0).
    @inline(__always)
    static func forEach(_ byte: UInt8, in bytes: UnsafeRawBufferPointer, _ body: (Int) -> Bool) {
        var seen: UInt64 = 0
        forEach(byte, in: bytes, highBits: &seen, body)
    }

    /// `forEach`, also OR-ing into `highBits` the high bit of every byte of the words read: 0
    /// when they are all ASCII (every word, if `body` never stopped it).
    @inline(__always)
    static func forEach(_ byte: UInt8, in bytes: UnsafeRawBufferPointer, highBits: inout UInt64, _ body: (Int) -> Bool) {
        assert(byte != 0, "the last word's padding would match")
        var index = 0
        var seen: UInt64 = 0
        defer { highBits |= seen & highs }
        while index < bytes.count {
            let word = index + 8 <= bytes.count ? load(bytes, at: index) : tail(bytes, from: index)
            seen |= word
            var flags = exactlyEqual(to: byte, word)
            while flags != 0 {
                guard body(index + firstFlagged(flags)) else { return }
                flags &= flags &- 1
            }
            index += 8
        }
    }

    /// The offset of the first byte of `bytes` from `start` that is `first` or `second`: a word
    /// at a time (`skipUnflagged`), then the last few bytes one at a time; nil when there is none.
    @inline(__always)
    static func firstIndex(of first: UInt8, or second: UInt8, in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        // The lowest flag of either test is its first match exactly.
        var index = skipUnflagged(in: bytes, from: start) { equal(to: first, $0) | equal(to: second, $0) }
        while index < bytes.count {
            if bytes[index] == first || bytes[index] == second { return index }
            index += 1
        }
        return nil
    }

    /// The number that eight ASCII decimal digits spell (byte 0 the most significant), nil when
    /// a byte is not a digit: the digits paired, the pairs paired and the fours joined, each
    /// step one multiply over the whole word, where a digit at a time is a chain of multiplies.
    @inline(__always)
    static func eightDigits(_ word: UInt64) -> UInt64? {
        let zeros = ones &* 0x30
        // 0x30…0x3F, and not 0x3A…0x3F (which 6 more lifts to 0x40): no byte carries into the next.
        guard word & 0xF0F0_F0F0_F0F0_F0F0 == zeros, (word &+ ones &* 6) & 0xF0F0_F0F0_F0F0_F0F0 == zeros else { return nil }
        var value = word &- zeros
        value = (value &* 10 &+ (value >> 8)) & 0x00FF_00FF_00FF_00FF
        value = (value &* 100 &+ (value >> 16)) & 0x0000_FFFF_0000_FFFF
        return (value &* 10000 &+ (value >> 32)) & 0xFFFF_FFFF
    }

    /// The bytes from `low` through `high` (at most 0x7F) of a word whose bytes are all below 0x80:
    /// no sum below carries out of its byte.
    @inline(__always)
    static func inRange(_ word: UInt64, _ low: UInt8, _ high: UInt8) -> UInt64 {
        (word &+ ones &* UInt64(0x80 - low)) & ~(word &+ ones &* UInt64(0x7F - high)) & highs
    }

    /// The number that eight ASCII hex digits spell, either case (byte 0 the most significant),
    /// nil when a byte is not one: each byte's value found at once, then the nibbles packed.
    @inline(__always)
    static func eightHexDigits(_ word: UInt64) -> UInt32? {
        guard word & highs == 0 else { return nil }
        let lower = word | ones &* 0x20  // A–F as a–f; a digit already has the bit
        let letters = inRange(lower, 0x61, 0x66)
        guard inRange(word, 0x30, 0x39) | letters == highs else { return nil }
        var value = (lower & (ones &* 0x0F)) &+ (letters >> 7) &* 9
        value = (value << 4 | value >> 8) & 0x00FF_00FF_00FF_00FF
        value = (value | value >> 8) & 0x0000_FFFF_0000_FFFF
        return UInt32(truncatingIfNeeded: value | value >> 16).byteSwapped
    }

    /// The offset in the word of the lowest flagged byte (`flags` not 0).
    @inline(__always)
    static func firstFlagged(_ flags: UInt64) -> Int {
        flags.trailingZeroBitCount / 8
    }

    /// Reads `bytes` from `start` eight at a time while `test` flags none of them: the offset
    /// of the first flagged byte exactly, or where fewer than eight bytes are left (the caller's
    /// byte loop reads on from there). The word loop of the searches for a first byte (`forEach`
    /// visits every match).
    @inline(__always)
    static func skipUnflagged(in bytes: UnsafeRawBufferPointer, from start: Int, by test: (UInt64) -> UInt64) -> Int {
        var index = start
        while index + 8 <= bytes.count {
            let flags = test(load(bytes, at: index))
            if flags != 0 { return index + firstFlagged(flags) }
            index += 8
        }
        return index
    }
}
