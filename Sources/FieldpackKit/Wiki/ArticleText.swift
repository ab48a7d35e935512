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
            // A run of ordinary bytes, copied at once.
            var end = position + 1
            while end < count {
                let next = bytes[end]
                if next == 0x20 || next == 0x09 || next == 0x0A || next == 0x0D || next == 0x0C || next == 0xC2 { break }
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

    /// Trims the end and removes bracketed citation leftovers (`[12]`, `[a]`, `[note 2]`,
    /// `[lower-alpha 1]`, `[1.1]`, `[citation needed]`) that were not marked up as references.
    mutating func normalize() {
        if mayHaveCitation {
            for index in runs.indices { runs[index].bytes = Self.removingCitationLeftovers(runs[index].bytes) }
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

    /// The plain text (UTF-8).
    var plain: String {
        String(decoding: runs.flatMap(\.bytes), as: UTF8.self)
    }

    var isEmpty: Bool { runs.isEmpty }

    /// Writes the runs with their formatting.
    func write(into markup: inout SafeMarkup, uppercased: Bool = false) {
        for run in runs {
            if run.bold { markup.begin(.bold) }
            if run.italic { markup.begin(.italic) }
            if uppercased {
                markup.text(String(decoding: run.bytes, as: UTF8.self).uppercased())
            } else {
                run.bytes.withUnsafeBufferPointer { markup.text($0) }
            }
            if run.italic { markup.end() }
            if run.bold { markup.end() }
        }
    }

    /// Removes `[…]` groups whose content is a citation label: digits with dots (`12`, `1.1`),
    /// a single letter (`a`), a group name and number (`note 2`, `lower-alpha 1`, `nb 3`), or
    /// `citation needed`.
    static func removingCitationLeftovers(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(UInt8(ascii: "[")) else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "["), let close = bytes[(index + 1)...].prefix(40).firstIndex(of: UInt8(ascii: "]")),
               isCitationLabel(bytes[(index + 1)..<close])
            {
                index = close + 1
                continue
            }
            out.append(bytes[index])
            index += 1
        }
        return out
    }

    private static func isCitationLabel(_ label: ArraySlice<UInt8>) -> Bool {
        guard !label.isEmpty else { return false }
        let text = String(decoding: label, as: UTF8.self)
        if text == "citation needed" || text == "clarification needed" { return true }
        if text.count == 1, let scalar = text.unicodeScalars.first, scalar.properties.isLowercase { return true }
        func isNumber(_ part: Substring) -> Bool {
            !part.isEmpty && part.split(separator: ".", omittingEmptySubsequences: false).allSatisfy {
                !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber)
            }
        }
        if isNumber(Substring(text)) { return true }
        // "note 2", "lower-alpha 1", "nb 3", "group 1.2"
        let words = text.split(separator: " ")
        if words.count == 2, isNumber(words[1]) || (words[1].count == 1 && words[1].allSatisfy(\.isLetter)),
           words[0].allSatisfy({ $0.isLetter || $0 == "-" })
        {
            return true
        }
        return false
    }
}
