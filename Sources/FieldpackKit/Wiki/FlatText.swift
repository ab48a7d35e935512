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

    /// Replaces `[…]` groups whose content is a citation label (`CitationLabel`) with a
    /// citation mark (`ArticleText.citationMark`), for `tidyRemovals` to tidy around (a label
    /// removed bare left `north . It` and double spaces), unless the bracket indexes a
    /// one-letter name (`a[0]`, `x[1]`).
    ///
    /// - Returns: whether any was removed.
    mutating func removeCitationLeftovers() -> Bool {
        var removed = false
        var index = bytes.count - 1
        while index >= 0 {
            defer { index -= 1 }
            guard bytes[index] == UInt8(ascii: "[") else { continue }
            guard let close = bytes[(index + 1)...].prefix(40).firstIndex(of: UInt8(ascii: "]")),
                  CitationLabel.matches(bytes[(index + 1)..<close]), !followsOneLetterName(index), !isEditorsBracket(index, close)
            else { continue }
            remove((index + 1)..<(close + 1))
            bytes[index] = ArticleText.citationMark
            removed = true
        }
        return removed
    }

    /// Whether `[` at `open` and `]` at `close` are an editor's bracket starting a word: one
    /// letter, a letter after it and none before it (`"[t]he health"`, `[i]n Africa`). A note
    /// label stands after a word and before a space or punctuation, or, in text without spaces,
    /// between two letters (`首都[1]也是`).
    private func isEditorsBracket(_ open: Int, _ close: Int) -> Bool {
        guard close == open + 2, close + 1 < bytes.count else { return false }
        func isLetter(_ index: Int) -> Bool {
            SentenceEnds.scalar(in: bytes, at: SentenceEnds.scalarStart(in: bytes, containing: index))?.properties.isAlphabetic ?? false
        }
        return isLetter(close + 1) && (open == 0 || !isLetter(open - 1))
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
    /// without what it introduced (`(pronounced ; often` → `(often`; `(IPA: )` → nothing). Full-width
    /// brackets and the Arabic and CJK separators (`（）`, `，；、`, `،؛`) count as their ASCII kin.
    ///
    /// - Returns: whether the text ended at a removed element (not a citation leftover).
    mutating func tidyRemovals() -> Bool {
        var out = FlatText()
        out.bytes.reserveCapacity(bytes.count)
        out.formats.reserveCapacity(bytes.count)
        // Each hole's offset, and whether an element (not only a citation) was removed there.
        var holes: [(offset: Int, element: Bool)] = []
        var lastElementHole: Int? = nil
        for index in bytes.indices {
            let byte = bytes[index]
            if byte == ArticleText.removalMark || byte == ArticleText.citationMark {
                let element = byte == ArticleText.removalMark
                if holes.last?.offset != out.bytes.count {
                    holes.append((out.bytes.count, element))
                } else if element {
                    holes[holes.count - 1].element = true
                }
                if byte == ArticleText.removalMark { lastElementHole = out.bytes.count }
                continue
            }
            if byte == 0x20 && (out.bytes.isEmpty || out.bytes.last == 0x20) { continue }
            out.bytes.append(byte)
            out.formats.append(formats[index])
        }
        var endsAtRemoval = false
        if let last = lastElementHole { endsAtRemoval = !out.bytes[last...].contains(where: { $0 != 0x20 }) }
        // Last first; an edit reaching back past an earlier hole moves that hole to the edit.
        var edited = Int.max
        for hole in holes.reversed() { edited = min(edited, out.tidy(at: min(hole.offset, edited), element: hole.element)) }
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

    /// The length of the direction mark (U+200E, U+200F, U+061C) whose encoding starts at
    /// `index`, if one does.
    private func directionMark(at index: Int) -> Int? {
        if index + 2 < bytes.count, bytes[index] == 0xE2, bytes[index + 1] == 0x80, bytes[index + 2] == 0x8E || bytes[index + 2] == 0x8F { return 3 }
        if index + 1 < bytes.count, bytes[index] == 0xD8, bytes[index + 1] == 0x9C { return 2 }
        return nil
    }

    /// Where the direction mark whose encoding ends at `index` starts, if one does.
    private func directionMark(endingAt index: Int) -> Int? {
        if index >= 2, directionMark(at: index - 2) == 3 { return index - 2 }
        if index >= 1, directionMark(at: index - 1) == 2 { return index - 1 }
        return nil
    }

    /// What a punctuation mark is to the tidying rules.
    private enum Mark {
        case opener, closer, separator, stop, other
    }

    /// The mark whose UTF-8 encoding starts at `index`, and its length: `(` `[` `（`, `)` `]` `）`,
    /// the separators `,` `;` `，` `；` `、` `،` `؛`, and `.`.
    private func mark(startingAt index: Int) -> (Mark, Int) {
        let byte = bytes[index]
        switch byte {
        case UInt8(ascii: "("), UInt8(ascii: "["): return (.opener, 1)
        case UInt8(ascii: ")"), UInt8(ascii: "]"): return (.closer, 1)
        case UInt8(ascii: ","), UInt8(ascii: ";"): return (.separator, 1)
        case UInt8(ascii: "."): return (.stop, 1)
        case 0xD8 where index + 1 < bytes.count && (bytes[index + 1] == 0x8C || bytes[index + 1] == 0x9B): return (.separator, 2)
        case 0xE3 where index + 2 < bytes.count && bytes[index + 1] == 0x80 && bytes[index + 2] == 0x81: return (.separator, 3)
        case 0xEF where index + 2 < bytes.count && bytes[index + 1] == 0xBC:
            switch bytes[index + 2] {
            case 0x88: return (.opener, 3)
            case 0x89: return (.closer, 3)
            case 0x8C, 0x9B: return (.separator, 3)
            default: return (.other, 1)
            }
        default: return (.other, 1)
        }
    }

    /// The mark whose encoding ends at `index` (its last byte), and where it starts.
    private func mark(endingAt index: Int) -> (Mark, Int) {
        var start = index
        while start > 0 && bytes[start] & 0xC0 == 0x80 && index - start < 3 { start -= 1 }
        let (kind, length) = mark(startingAt: start)
        return start + length - 1 == index ? (kind, start) : (.other, index)
    }

    /// Applies the tidying rules at one hole until none changes anything; `element`: an element
    /// with content was removed there (not only a citation), which a label of several words may
    /// have introduced.
    ///
    /// - Returns: the lowest offset edited (or the hole's).
    private mutating func tidy(at start: Int, element: Bool) -> Int {
        var hole = start
        var lowest = start
        /// Removes `range`, keeping `hole` at the same place in the text.
        func cut(_ range: Range<Int>) {
            lowest = min(lowest, range.lowerBound)
            remove(range)
            if range.upperBound <= hole { hole -= range.count } else if range.lowerBound < hole { hole = range.lowerBound }
        }
        /// Past spaces and direction marks (`&rlm;`, which right-to-left wikis write after Latin
        /// text, stood between a hole and the bracket or separator to tidy).
        func skipSpaces(from index: Int) -> Int {
            var end = index
            while end < bytes.count {
                if bytes[end] == 0x20 { end += 1 } else if let length = directionMark(at: end) { end += length } else { break }
            }
            return end
        }
        for _ in 0..<16 {
            var left = hole - 1
            while left >= 0 {
                if bytes[left] == 0x20 { left -= 1 } else if let start = directionMark(endingAt: left) { left = start - 1 } else { break }
            }
            let right = skipSpaces(from: hole)
            guard left >= 0 || right < bytes.count else { return lowest }
            let (before, beforeStart) = left >= 0 ? mark(endingAt: left) : (.other, 0)
            let (after, afterLength) = right < bytes.count ? mark(startingAt: right) : (.other, 0)
            let spaced = left + 1 < right
            // A closing bracket, a separator or a full stop after the hole: no space before it.
            if left >= 0, right < bytes.count, before != .opener, after == .closer || after == .separator || after == .stop, spaced {
                cut((left + 1)..<right)
                continue
            }
            // Two separators meet (`that is, , then`): one is enough.
            if left >= 0, right < bytes.count, before == .separator, after == .separator || after == .stop {
                cut(beforeStart..<right)
                continue
            }
            // An opening bracket before the hole: no space after it.
            if left >= 0, before == .opener, spaced, right < bytes.count {
                cut((left + 1)..<right)
                continue
            }
            // Empty brackets, with the space before them.
            if left >= 0, before == .opener, after == .closer {
                var from = beforeStart
                let next = right + afterLength
                if from > 0 && bytes[from - 1] == 0x20
                    && (next == bytes.count || bytes[next] == 0x20 || mark(startingAt: next).0 == .separator || mark(startingAt: next).0 == .stop)
                {
                    from -= 1
                }
                cut(from..<next)
                continue
            }
            // A separator left at a bracket.
            if left >= 0, before == .opener, after == .separator {
                cut(right..<skipSpaces(from: right + afterLength))
                continue
            }
            if left >= 0, before == .separator, after == .closer {
                var from = beforeStart
                while from > 0 && bytes[from - 1] == 0x20 { from -= 1 }
                cut(from..<right)
                continue
            }
            // A cue left alone in its part of a bracket: `(pronounced ; often`, `(IPA: )`.
            if left >= 0, right < bytes.count, after == .separator || after == .closer {
                var wordStart = left
                while wordStart > 0 && bytes[wordStart - 1] != 0x20 {
                    let (kind, _) = mark(endingAt: wordStart - 1)
                    if kind == .opener || kind == .separator { break }
                    wordStart -= 1
                }
                // A label of several words introduced what an element held (a transcription), not
                // a reference: `according to Smith and Jones: [1]` stays.
                if element, Self.isLabel(bytes[wordStart...left]) { wordStart = labelStart(endingWordAt: wordStart) }
                var markEnd = wordStart - 1
                while markEnd >= 0 && bytes[markEnd] == 0x20 { markEnd -= 1 }
                let opening = markEnd >= 0 ? mark(endingAt: markEnd).0 : Mark.other
                if opening == .opener || opening == .separator, Self.isCue(bytes[wordStart...left]) {
                    // After an opener, what follows the separator starts the bracket (`(often`);
                    // after a separator, the space after the cut one stays (`; often`, `, is`).
                    let end = after == .closer ? right : opening == .opener ? skipSpaces(from: right + afterLength) : right + afterLength
                    cut((markEnd + 1)..<end)
                    continue
                }
            }
            return lowest
        }
        return lowest
    }

    /// Words that only introduce what was removed: a label ending in ":" or "：" (of up to
    /// `labelWords` words, `pronúncia em português europeu:`), or one of `cues`.
    private static func isCue(_ words: ArraySlice<UInt8>) -> Bool {
        if isLabel(words) { return true }
        return cues.contains(String(decoding: words, as: UTF8.self).lowercased())
    }

    /// Whether `word` ends in ":" or "：".
    private static func isLabel(_ word: ArraySlice<UInt8>) -> Bool {
        word.last == UInt8(ascii: ":") || (word.count >= 3 && word.suffix(3).elementsEqual([0xEF, 0xBC, 0x9A]))
    }

    /// The most words a label may have (`pronúncia em português europeu:`, `in Irish:`).
    private static let labelWords = 5

    /// Where a label whose last word starts at `wordStart` starts: the first word after an
    /// opener or a separator, up to `labelWords` words back; `wordStart` itself when no opener
    /// or separator is that near (a label in running text stays, as does the text before it).
    private func labelStart(endingWordAt wordStart: Int) -> Int {
        var start = wordStart
        for _ in 1..<Self.labelWords {
            var end = start - 1
            while end >= 0 && bytes[end] == 0x20 { end -= 1 }
            guard end >= 0 else { return wordStart }
            switch mark(endingAt: end).0 {
            case .opener, .separator: return start
            case .closer, .stop: return wordStart
            case .other: break
            }
            while end > 0 && bytes[end - 1] != 0x20 {
                let (kind, _) = mark(endingAt: end - 1)
                if kind != .other { break }
                end -= 1
            }
            start = end
        }
        var end = start - 1
        while end >= 0 && bytes[end] == 0x20 { end -= 1 }
        if end >= 0, case let kind = mark(endingAt: end).0, kind == .opener || kind == .separator { return start }
        return wordStart
    }

    /// "pronounced", "pronunciation", "listen", and the words that leads in French, Spanish,
    /// Italian, Portuguese, German, Dutch, Polish, Czech, Swedish and Russian write before a
    /// transcription or a recording (Polish `wym.` with its dot).
    private static let cues: Set<String> = [
        "pronounced", "pronunciation", "listen", "prononcé", "prononciation", "écouter", "pronunciado", "pronunciación", "escuchar",
        "pronuncia", "pronúncia", "aussprache", "uitspraak", "wymowa", "wym.", "výslovnost", "uttal", "произношение", "слушать",
    ]
}
