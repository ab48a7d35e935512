/// Writes blurb HTML that is safe by construction: only text and the elements `p`, `b`, `i` and
/// `br`, no attributes, every text escaped, every element closed in order, `p` only at the top
/// level (never inside `p`, `b` or `i`), `b` never inside `b` nor `i` inside `i`. Nesting is at
/// most `p > b > i`, so an HTML5 parser (the renderer's) builds exactly the tree written.
///
/// Callers describe structure (paragraphs, formatting, breaks, text); the writer decides what to
/// emit. Paragraphs and formatting open lazily, at the first text inside them, so nothing empty
/// is written; formatting interrupted by a paragraph boundary is reopened in the next paragraph.
struct SafeMarkup {
    enum Format: UInt8 {
        case bold, italic

        var open: StaticString { self == .bold ? "<b>" : "<i>" }
        var close: StaticString { self == .bold ? "</b>" : "</i>" }
    }

    private(set) var bytes: [UInt8] = []
    /// Inside a paragraph whose `<p>` is written at its first text.
    private var paragraphWanted = false
    private var paragraphOpen = false
    /// The formatting in effect, outermost first (each kind at most once).
    private var wanted: [Format] = []
    /// What is open in the output: always a prefix of `wanted`.
    private var written: [Format] = []
    /// Formatting requests that were already in effect (nested `b` in `b`), per depth.
    private var redundant: [Bool] = []

    init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    var isEmpty: Bool { bytes.isEmpty }

    /// Starts formatting (nested requests of a kind already in effect are ignored).
    mutating func begin(_ format: Format) {
        let already = wanted.contains(format)
        redundant.append(already)
        if !already { wanted.append(format) }
    }

    /// Ends the formatting the matching `begin` started.
    mutating func end() {
        guard let wasRedundant = redundant.popLast() else { return }
        if wasRedundant { return }
        wanted.removeLast()
        if written.count > wanted.count {
            append(written.removeLast().close)
        }
    }

    /// Starts a paragraph (ending any open one).
    mutating func beginParagraph() {
        boundary()
        paragraphWanted = true
    }

    /// Ends the paragraph.
    mutating func endParagraph() {
        boundary()
        paragraphWanted = false
    }

    /// A block boundary: closes open formatting and the paragraph, if any, in the output.
    mutating func boundary() {
        while let format = written.popLast() { append(format.close) }
        if paragraphOpen {
            append("</p>")
            paragraphOpen = false
        }
    }

    /// A line break.
    mutating func lineBreak() {
        synchronize()
        append("<br>")
    }

    /// Text (UTF-8), escaped; C0 control characters other than whitespace are dropped.
    mutating func text(_ text: UnsafeBufferPointer<UInt8>) {
        guard !text.isEmpty else { return }
        synchronize()
        var start = 0
        for (index, byte) in text.enumerated() {
            let replacement: StaticString?
            switch byte {
            case UInt8(ascii: "&"): replacement = "&amp;"
            case UInt8(ascii: "<"): replacement = "&lt;"
            case UInt8(ascii: ">"): replacement = "&gt;"
            case 0x09, 0x0A, 0x0D: continue
            case 0x0C: replacement = " "
            case 0..<0x20, 0x7F: replacement = ""
            default: continue
            }
            if index > start { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[start..<index])) }
            append(replacement!)
            start = index + 1
        }
        if start < text.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[start...])) }
    }

    mutating func text(_ string: String) {
        var copy = string
        copy.withUTF8 { text($0) }
    }

    /// Ends everything: the output is complete.
    mutating func finish() -> [UInt8] {
        boundary()
        paragraphWanted = false
        return bytes
    }

    /// Opens the paragraph and formatting that text needs.
    private mutating func synchronize() {
        if paragraphWanted && !paragraphOpen {
            append("<p>")
            paragraphOpen = true
        }
        while written.count < wanted.count {
            let format = wanted[written.count]
            append(format.open)
            written.append(format)
        }
    }

    private mutating func append(_ literal: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }
}
