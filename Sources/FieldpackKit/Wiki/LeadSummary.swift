/// The plain-text summary of an article: its lead paragraphs cut at a sentence end near a
/// target length (in Unicode scalars).
///
/// Paragraphs are joined with a space (none after CJK text), but never past one that does not end a sentence (its text
/// would run into the next paragraph's mid-sentence). Within the target, the cut is the last
/// sentence end (`SentenceEnds`) at or before it if that keeps at least half of it, else the first
/// end after it if that is within twice the target, else the last end before it; only text with no
/// sentence end within twice the target is cut at a word (at a character in text without spaces,
/// or whose last space would keep less than half the target)
/// with "…".
enum LeadSummary {
    static func make(_ lead: [String], length: Int) -> String {
        var bytes: [UInt8] = []
        var paragraphEnds: [Int] = []
        for paragraph in lead {
            // CJK text runs on without spaces.
            if !bytes.isEmpty && !endsWide(bytes) { bytes.append(0x20) }
            bytes.append(contentsOf: paragraph.utf8)
            paragraphEnds.append(bytes.count)
            if !SentenceEnds.endsSentence(Array(paragraph.utf8)) { break }
        }
        // Scalar counts at each byte offset that matters, by one pass.
        let total = bytes.reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
        guard total > length else { return String(decoding: bytes, as: UTF8.self) }
        var ends = SentenceEnds.offsets(in: bytes)
        for end in paragraphEnds where !ends.contains(end) && SentenceEnds.endsSentence(Array(bytes[0..<end])) {
            ends.append(end)
        }
        ends.sort()
        // Never a cut that leaves a bracket open (`… рода синиц (лат.`).
        let depths = SentenceEnds.bracketDepths(in: bytes, at: ends)
        ends = zip(ends, depths).filter { $0.1 <= 0 }.map(\.0)
        var scalarsAt: [Int] = []
        scalarsAt.reserveCapacity(ends.count)
        var scalars = 0
        var position = 0
        for end in ends {
            while position < end {
                if bytes[position] & 0xC0 != 0x80 { scalars += 1 }
                position += 1
            }
            scalarsAt.append(scalars)
        }
        func cut(_ index: Int) -> String {
            var end = ends[index]
            while end > 0 && bytes[end - 1] == 0x20 { end -= 1 }
            return String(decoding: bytes[0..<end], as: UTF8.self)
        }
        if let best = scalarsAt.indices.last(where: { scalarsAt[$0] <= length && scalarsAt[$0] >= length / 2 }) {
            return cut(best)
        }
        if let next = scalarsAt.indices.first(where: { scalarsAt[$0] > length }), scalarsAt[next] <= length * 2 {
            return cut(next)
        }
        if let earlier = scalarsAt.indices.last(where: { scalarsAt[$0] <= length && scalarsAt[$0] > 0 }) {
            return cut(earlier)
        }
        // No sentence end near: the byte offset of scalar `length`, back to a space if any.
        var offset = 0
        var seen = 0
        while offset < bytes.count {
            if bytes[offset] & 0xC0 != 0x80 {
                if seen == length { break }
                seen += 1
            }
            offset += 1
        }
        var space = offset
        while space > 0 && bytes[space] != 0x20 { space -= 1 }
        // Back to a space only when that keeps at least half the target: text written without
        // spaces (Chinese, Japanese, Thai) with a Latin name early in it was cut back to the name.
        let scalarsBefore = bytes[0..<space].reduce(0) { $1 & 0xC0 != 0x80 ? $0 + 1 : $0 }
        if space > 0 && scalarsBefore * 2 >= length {
            offset = space
        } else if offset < bytes.count {
            // At a character, never inside one: a Thai syllable's vowel and tone marks, a letter's
            // combining accents, an emoji's joined parts are scalars of their own (Thai is cut
            // this way, having no sentence ends); the cut moves on to the end of the character.
            offset = Self.characterEnd(in: bytes, atOrAfter: offset)
        }
        while offset > 0 && bytes[offset - 1] == 0x20 { offset -= 1 }
        return String(decoding: bytes[0..<offset], as: UTF8.self) + "…"
    }

    /// The byte offset of the end of the character (extended grapheme cluster) that holds the
    /// byte at `offset`, or `offset` when a character starts there.
    static func characterEnd(in bytes: [UInt8], atOrAfter offset: Int) -> Int {
        var end = 0
        for character in String(decoding: bytes, as: UTF8.self) {
            guard end < offset else { break }
            end += character.utf8.count
        }
        return end
    }

    /// Whether the text ends with a CJK character or mark (U+2E80 and up, 3 bytes or more).
    private static func endsWide(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty, let scalar = SentenceEnds.scalar(in: bytes, at: SentenceEnds.scalarStart(in: bytes, containing: bytes.count - 1))
        else { return false }
        return scalar.value >= 0x2E80 && scalar.value < 0xFFF0
    }
}
