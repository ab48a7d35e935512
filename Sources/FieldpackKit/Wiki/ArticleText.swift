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

    mutating func begin(_ format: SafeMarkup.Format) {
        if format == .bold { boldDepth += 1 } else { italicDepth += 1 }
    }

    mutating func end(_ format: SafeMarkup.Format) {
        if format == .bold { boldDepth -= 1 } else { italicDepth -= 1 }
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        append(bytes, bold: boldDepth > 0, italic: italicDepth > 0)
    }

    mutating func append(_ string: String) {
        append(Array(string.utf8), bold: boldDepth > 0, italic: italicDepth > 0)
    }

    mutating func append<S: Sequence>(_ bytes: S, bold: Bool, italic: Bool) where S.Element == UInt8 {
        if let last = runs.last, last.bold == bold, last.italic == italic {
            runs[runs.count - 1].bytes.append(contentsOf: bytes)
        } else {
            runs.append(Run(bytes: Array(bytes), bold: bold, italic: italic))
        }
    }

    mutating func space() {
        append(CollectionOfOne(UInt8(ascii: " ")), bold: boldDepth > 0, italic: italicDepth > 0)
    }

    /// Collapses whitespace (ASCII and the no-break space) across runs and trims the ends, then
    /// removes bracketed citation leftovers (`[12]`, `[a]`, `[note 2]`, `[lower-alpha 1]`,
    /// `[1.1]`, `[citation needed]`) that were not marked up as references.
    mutating func normalize() {
        var previousSpace = true
        for index in runs.indices {
            var out: [UInt8] = []
            out.reserveCapacity(runs[index].bytes.count)
            let bytes = runs[index].bytes
            var position = 0
            while position < bytes.count {
                let byte = bytes[position]
                var isSpace = byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
                var width = 1
                if byte == 0xC2 && position + 1 < bytes.count && bytes[position + 1] == 0xA0 {
                    isSpace = true
                    width = 2
                }
                if isSpace {
                    if !previousSpace { out.append(0x20) }
                    previousSpace = true
                } else {
                    out.append(contentsOf: bytes[position..<(position + width)])
                    previousSpace = false
                }
                position += width
            }
            runs[index].bytes = Self.removingCitationLeftovers(out)
        }
        // Trim the end.
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
