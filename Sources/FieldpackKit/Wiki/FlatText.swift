/// An `ArticleText`'s runs as one byte array with each byte's formatting beside it, for edits
/// that cross runs: removing citation leftovers, tidying where elements were removed, cutting
/// at sentence ends. Used on one paragraph at a time.
struct FlatText {
    private(set) var bytes: [UInt8] = []
    /// Bit 0: bold; bit 1: italic.
    private var formats: [UInt8] = []

    init(_ runs: [ArticleText.Run]) {
        for run in runs {
            bytes.append(contentsOf: run.bytes)
            formats.append(contentsOf: repeatElement((run.bold ? 1 : 0) | (run.italic ? 2 : 0), count: run.bytes.count))
        }
    }

    private init() {}

    func runs() -> [ArticleText.Run] {
        var runs: [ArticleText.Run] = []
        var start = 0
        while start < bytes.count {
            var end = start + 1
            while end < bytes.count && formats[end] == formats[start] { end += 1 }
            runs.append(ArticleText.Run(bytes: Array(bytes[start..<end]), bold: formats[start] & 1 != 0, italic: formats[start] & 2 != 0))
            start = end
        }
        return runs
    }

    mutating func remove(_ range: Range<Int>) {
        bytes.removeSubrange(range)
        formats.removeSubrange(range)
    }

    // MARK: Citation leftovers

    /// Removes `[…]` groups whose content is a citation label (`CitationLabel`), unless the
    /// bracket indexes a one-letter name (`a[0]`, `x[1]`).
    mutating func removeCitationLeftovers() {
        var index = bytes.count - 1
        while index >= 0 {
            defer { index -= 1 }
            guard bytes[index] == UInt8(ascii: "[") else { continue }
            guard let close = bytes[(index + 1)...].prefix(40).firstIndex(of: UInt8(ascii: "]")),
                  CitationLabel.matches(bytes[(index + 1)..<close]), !followsOneLetterName(index)
            else { continue }
            remove(index..<(close + 1))
        }
    }

    /// Whether the byte before `index` ends a name of one letter (`a[0]`): a letter with a space,
    /// an opening bracket or nothing before it.
    private func followsOneLetterName(_ index: Int) -> Bool {
        guard index > 0 else { return false }
        let letter = bytes[index - 1]
        guard (letter | 0x20) >= UInt8(ascii: "a") && (letter | 0x20) <= UInt8(ascii: "z") else { return false }
        return index == 1 || bytes[index - 2] == 0x20 || bytes[index - 2] == UInt8(ascii: "(")
    }

    // MARK: What removed elements leave behind

    /// Drops the removal marks (`ArticleText.removalMark`) and tidies around each what the
    /// removed element leaves: no space before a closing bracket or a separator
    /// (`(Māori: Aotearoa )` → `(Māori: Aotearoa)`) nor after an opening one, no empty brackets
    /// (`cat ( ) is` → `cat is`), no separator at a bracket (`(; often` → `(often`), no cue left
    /// without what it introduced (`(pronounced ; often` → `(often`; `(IPA: )` → nothing).
    ///
    /// - Returns: whether the text ended at a removal.
    mutating func tidyRemovals() -> Bool {
        var out = FlatText()
        out.bytes.reserveCapacity(bytes.count)
        out.formats.reserveCapacity(bytes.count)
        var holes: [Int] = []
        for index in bytes.indices {
            let byte = bytes[index]
            if byte == ArticleText.removalMark {
                if holes.last != out.bytes.count { holes.append(out.bytes.count) }
                continue
            }
            if byte == 0x20 && (out.bytes.isEmpty || out.bytes.last == 0x20) { continue }
            out.bytes.append(byte)
            out.formats.append(formats[index])
        }
        var endsAtRemoval = false
        if let last = holes.last { endsAtRemoval = !out.bytes[last...].contains(where: { $0 != 0x20 }) }
        // Last first; an edit reaching back past an earlier hole moves that hole to the edit.
        var edited = Int.max
        for hole in holes.reversed() { edited = min(edited, out.tidy(at: min(hole, edited))) }
        // Collapse what the edits left: no double spaces, none at the ends.
        var index = out.bytes.count - 1
        while index >= 0 {
            if out.bytes[index] == 0x20 && (index == 0 || index == out.bytes.count - 1 || out.bytes[index - 1] == 0x20) {
                out.remove(index..<(index + 1))
            }
            index -= 1
        }
        self = out
        return endsAtRemoval
    }

    private static func isOpener(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "(") || byte == UInt8(ascii: "[") }
    private static func isCloser(_ byte: UInt8) -> Bool { byte == UInt8(ascii: ")") || byte == UInt8(ascii: "]") }
    private static func isSeparator(_ byte: UInt8) -> Bool { byte == UInt8(ascii: ",") || byte == UInt8(ascii: ";") }

    /// Applies the tidying rules at one hole until none changes anything.
    ///
    /// - Returns: the lowest offset edited (or the hole's).
    private mutating func tidy(at start: Int) -> Int {
        var hole = start
        var lowest = start
        /// Removes `range`, keeping `hole` at the same place in the text.
        func cut(_ range: Range<Int>) {
            lowest = min(lowest, range.lowerBound)
            remove(range)
            if range.upperBound <= hole { hole -= range.count } else if range.lowerBound < hole { hole = range.lowerBound }
        }
        for _ in 0..<16 {
            var left = hole - 1
            while left >= 0 && bytes[left] == 0x20 { left -= 1 }
            var right = hole
            while right < bytes.count && bytes[right] == 0x20 { right += 1 }
            let before: UInt8? = left >= 0 ? bytes[left] : nil
            let after: UInt8? = right < bytes.count ? bytes[right] : nil
            // A closing bracket or a separator after the hole: no space before it.
            if let after, let before, !Self.isOpener(before), Self.isCloser(after) || Self.isSeparator(after) || after == UInt8(ascii: "."),
               left + 1 < right
            {
                cut((left + 1)..<right)
                continue
            }
            // Two separators meet (`that is, , then`): one is enough.
            if let before, let after, Self.isSeparator(before), Self.isSeparator(after) || after == UInt8(ascii: ".") {
                cut(left..<right)
                continue
            }
            // An opening bracket before the hole: no space after it.
            if let before, Self.isOpener(before), left + 1 < right, after != nil {
                cut((left + 1)..<right)
                continue
            }
            // Empty brackets, with the space before them.
            if let before, let after, Self.isOpener(before), Self.isCloser(after) {
                var from = left
                if from > 0 && bytes[from - 1] == 0x20 && (right + 1 == bytes.count || bytes[right + 1] == 0x20
                    || Self.isSeparator(bytes[right + 1]) || bytes[right + 1] == UInt8(ascii: "."))
                {
                    from -= 1
                }
                cut(from..<(right + 1))
                continue
            }
            // A separator left at a bracket.
            if let before, let after, Self.isOpener(before), Self.isSeparator(after) {
                var end = right + 1
                while end < bytes.count && bytes[end] == 0x20 { end += 1 }
                cut(right..<end)
                continue
            }
            if let before, let after, Self.isSeparator(before), Self.isCloser(after) {
                var from = left
                while from > 0 && bytes[from - 1] == 0x20 { from -= 1 }
                cut(from..<right)
                continue
            }
            // A cue left alone in its part of a bracket: `(pronounced ; often`, `(IPA: )`.
            if let after, left >= 0, Self.isSeparator(after) || Self.isCloser(after) {
                var wordStart = left
                while wordStart > 0 && bytes[wordStart - 1] != 0x20 && !Self.isOpener(bytes[wordStart - 1])
                    && !Self.isSeparator(bytes[wordStart - 1])
                {
                    wordStart -= 1
                }
                var mark = wordStart - 1
                while mark >= 0 && bytes[mark] == 0x20 { mark -= 1 }
                if mark >= 0, Self.isOpener(bytes[mark]) || Self.isSeparator(bytes[mark]),
                   Self.isCue(bytes[wordStart...left])
                {
                    var end = right
                    if Self.isSeparator(after) {
                        end += 1
                        while end < bytes.count && bytes[end] == 0x20 { end += 1 }
                    }
                    cut((mark + 1)..<end)
                    continue
                }
            }
            return lowest
        }
        return lowest
    }

    /// A word that only introduces what was removed: a label ending in ":", or "pronounced",
    /// "pronunciation", "listen".
    private static func isCue(_ word: ArraySlice<UInt8>) -> Bool {
        if word.last == UInt8(ascii: ":") { return true }
        let lower = String(decoding: word, as: UTF8.self).lowercased()
        return lower == "pronounced" || lower == "pronunciation" || lower == "listen" || lower == "pronounced:"
    }
}
