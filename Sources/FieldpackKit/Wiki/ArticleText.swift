/// The text of one paragraph or heading as formatted runs, built while walking its elements,
/// then normalized (whitespace runs collapsed to one space, none at the ends, citation
/// leftovers removed) and written through `SafeMarkup`.
struct ArticleText {
    struct Run {
        var bytes: [UInt8]
        var bold: Bool
        var italic: Bool
    }

    private(set) var runs: [Run] = []
    private var boldDepth = 0
    private var italicDepth = 0
    /// Whether the text so far ends in whitespace (or is empty): a next space is dropped.
    private var previousSpace = true
    private var mayHaveCitation = false

    mutating func begin(_ format: SafeMarkup.Format) {
        if format == .bold { boldDepth += 1 } else { italicDepth += 1 }
    }

    mutating func end(_ format: SafeMarkup.Format) {
        if format == .bold { boldDepth -= 1 } else { italicDepth -= 1 }
    }

    /// Appends text, collapsing whitespace (ASCII and the no-break space) to single spaces as it
    /// goes, with none at the start.
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        let bold = boldDepth > 0
        let italic = italicDepth > 0
        if runs.isEmpty || runs[runs.count - 1].bold != bold || runs[runs.count - 1].italic != italic {
            runs.append(Run(bytes: [], bold: bold, italic: italic))
        }
        let last = runs.count - 1
        runs[last].bytes.reserveCapacity(runs[last].bytes.count + bytes.count)
        var position = 0
        let count = bytes.count
        while position < count {
            let byte = bytes[position]
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
                || (byte == 0xC2 && position + 1 < count && bytes[position + 1] == 0xA0)
            {
                if !previousSpace { runs[last].bytes.append(0x20) }
                previousSpace = true
                position += byte == 0xC2 ? 2 : 1
                continue
            }
            // The bytes that mark removals never come from the page.
            if byte == Self.removalMark || byte == Self.citationMark {
                position += 1
                continue
            }
            // A run of ordinary bytes, copied at once.
            var end = position + 1
            while end < count {
                let next = bytes[end]
                if next == 0x20 || next == 0x09 || next == 0x0A || next == 0x0D || next == 0x0C || next == 0xC2
                    || next == Self.removalMark || next == Self.citationMark
                {
                    break
                }
                end += 1
            }
            let chunk = UnsafeBufferPointer(rebasing: bytes[position..<end])
            if !mayHaveCitation && chunk.contains(UInt8(ascii: "[")) { mayHaveCitation = true }
            runs[last].bytes.append(contentsOf: chunk)
            previousSpace = false
            position = end
        }
    }

    mutating func append(_ string: String) {
        var copy = string
        copy.withUTF8 { append($0) }
    }

    mutating func space() {
        var space: UInt8 = 0x20
        withUnsafePointer(to: &space) { append(UnsafeBufferPointer(start: $0, count: 1)) }
    }

    /// The byte that stands where an element with text was removed, until `normalize`.
    static let removalMark: UInt8 = 0x01

    /// The byte that stands where a citation leftover (`[12]`) was removed, until `normalize`:
    /// tidied around as a removal, but a paragraph ending at one is not cut by a removed element.
    static let citationMark: UInt8 = 0x02

    /// Notes that an element with text was removed here, for `normalize` to tidy around.
    mutating func markRemoval() {
        if runs.isEmpty { runs.append(Run(bytes: [], bold: boldDepth > 0, italic: italicDepth > 0)) }
        runs[runs.count - 1].bytes.append(Self.removalMark)
        hasRemovals = true
    }

    /// Notes that a reference or a maintenance marker was removed here, when a space comes
    /// before it (`India <sup>[1]</sup>.`): tidied around as a citation leftover (`[12]`) is,
    /// and a paragraph ending at one is not cut. Right after a word or a stop, where references
    /// stand, nothing is left to tidy, and the paragraph is not read twice (the wiki stage
    /// took 10–20% more CPU when every reference was marked).
    mutating func markCitation() {
        guard previousSpace, let last = runs.last?.bytes.last, last == 0x20 else { return }
        runs[runs.count - 1].bytes.append(Self.citationMark)
        hasRemovals = true
    }

    private var hasRemovals = false
    /// Whether the text ends where an element with text was removed (known after `normalize`).
    private(set) var endsAtRemoval = false

    /// Removes bracketed citation leftovers (`[12]`, `[a]`, `[note 2]`, `[lower-alpha 1]`,
    /// `[1.1]`, `[citation needed]`) that were not marked up as references, tidies what removed
    /// elements left behind (`FlatText.tidyRemovals`), and trims the end.
    mutating func normalize() {
        if mayHaveCitation || hasRemovals {
            var flat = FlatText(runs)
            if mayHaveCitation && flat.removeCitationLeftovers() { hasRemovals = true }
            if hasRemovals { endsAtRemoval = flat.tidyRemovals() }
            runs = flat.runs()
            mayHaveCitation = false
            hasRemovals = false
        }
        while let last = runs.last {
            var bytes = last.bytes
            while bytes.last == 0x20 { bytes.removeLast() }
            if bytes.isEmpty {
                runs.removeLast()
            } else {
                runs[runs.count - 1].bytes = bytes
                break
            }
        }
        runs.removeAll { $0.bytes.isEmpty }
    }

    /// The text's bytes (UTF-8).
    var bytes: [UInt8] { runs.flatMap(\.bytes) }

    /// Whether the text ends a sentence, in any script (`SentenceEnds`).
    var endsSentence: Bool {
        guard let last = runs.last?.bytes else { return false }
        // Enough of the end for a mark and its closers; the whole text when it is split there.
        return SentenceEnds.endsSentence(last.count >= 24 ? last : bytes)
    }

    /// Whether the text starts with a lower-case letter.
    var startsLowercase: Bool {
        guard let first = runs.first?.bytes, !first.isEmpty else { return false }
        return SentenceEnds.startsLowercase(first, at: 0)
    }

    /// Whether the text starts with a dash (`—`, `–`, `―`, `-`) or `~`: an attribution line.
    var startsWithDash: Bool {
        guard let first = runs.first?.bytes, let byte = first.first else { return false }
        if byte == UInt8(ascii: "-") || byte == UInt8(ascii: "~") { return true }
        return first.count >= 3 && first[0] == 0xE2 && first[1] == 0x80 && (0x93...0x95).contains(first[2])
    }

    /// Cuts the text after its last sentence end; false (and unchanged) if it has none.
    mutating func keepWholeSentences() -> Bool {
        var flat = FlatText(runs)
        guard let end = SentenceEnds.offsets(in: flat.bytes).last else { return false }
        flat.remove(end..<flat.bytes.count)
        runs = flat.runs()
        normalize()
        return !runs.isEmpty
    }

    /// Removes the text up to and including its first sentence end (the rest of a sentence cut
    /// before it); false if nothing is left.
    mutating func dropFirstSentence() -> Bool {
        var flat = FlatText(runs)
        guard let end = SentenceEnds.offsets(in: flat.bytes).first else { return false }
        var start = end
        while start < flat.bytes.count && flat.bytes[start] == 0x20 { start += 1 }
        flat.remove(0..<start)
        runs = flat.runs()
        normalize()
        return !runs.isEmpty
    }

    /// Whether the text ends with `suffix` (ASCII).
    func ends(with suffix: StaticString) -> Bool {
        guard let last = runs.last?.bytes else { return false }
        let count = suffix.utf8CodeUnitCount
        guard last.count >= count else { return false }
        for index in 0..<count where last[last.count - count + index] != suffix.utf8Start[index] { return false }
        return true
    }

    /// The number of Unicode scalars.
    var characterCount: Int {
        runs.reduce(0) { total, run in total + run.bytes.reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) } }
    }

    /// The width in columns, as text is set: East Asian wide characters (CJK ideographs, kana,
    /// Hangul, full-width forms) take two, others one. A heading "分布" is as wide as "Diet ".
    var displayWidth: Int {
        var width = 0
        for run in runs {
            var index = 0
            let bytes = run.bytes
            while index < bytes.count {
                let byte = bytes[index]
                if byte & 0xC0 == 0x80 {
                    index += 1
                    continue
                }
                if byte >= 0xE1, let scalar = SentenceEnds.scalar(in: bytes, at: index), Self.isWide(scalar.value) {
                    width += 2
                } else {
                    width += 1
                }
                index += 1
            }
        }
        return width
    }

    private static func isWide(_ value: UInt32) -> Bool {
        (0x1100...0x115F).contains(value) || (0x2E80...0xA4CF).contains(value) || (0xAC00...0xD7A3).contains(value)
            || (0xF900...0xFAFF).contains(value) || (0xFE30...0xFE4F).contains(value) || (0xFF00...0xFF60).contains(value)
            || (0xFFE0...0xFFE6).contains(value) || (0x20000...0x3FFFD).contains(value)
    }

    /// The plain text (UTF-8).
    var plain: String {
        String(decoding: runs.flatMap(\.bytes), as: UTF8.self)
    }

    var isEmpty: Bool { runs.isEmpty }

    /// Writes the runs with their formatting; with `uppercasedIn`, in capitals as that language
    /// writes them (`Capitals`).
    func write(into markup: inout SafeMarkup, uppercasedIn language: String? = nil) {
        for run in runs {
            if run.bold { markup.begin(.bold) }
            if run.italic { markup.begin(.italic) }
            if let language {
                markup.text(Capitals.of(String(decoding: run.bytes, as: UTF8.self), language: language))
            } else {
                run.bytes.withUnsafeBufferPointer { markup.text($0) }
            }
            if run.italic { markup.end() }
            if run.bold { markup.end() }
        }
    }
}
