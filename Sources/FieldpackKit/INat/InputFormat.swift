#if canImport(Glibc)
import Glibc
#endif

/// What an input holds, decided from its content (never its name).
public enum InputFormat: String, Sendable {
    /// One JSON document: an API page envelope (`results`), or a single observation or taxon.
    case document
    /// JSON Lines: one record per line.
    case jsonLines = "json-lines"

    /// Looks at the first lines: if the first non-blank line is a complete JSON object or array and more
    /// content follows it, or the first line is broken but the second is complete, it is JSON Lines.
    ///
    /// The lines are looked for in the first MiB, and past it while the first non-blank line goes
    /// on (API pages saved one per line, `jq -c`, are several MiB each), up to half the reader's
    /// longest line: a minified page that is the whole file is read to its end here (up to that
    /// half), as reading it as a document does anyway.
    package static func detect(_ reader: LineReader, parser: JSONParser) throws -> InputFormat {
        var window = 1 << 20
        var head = try reader.peek(atLeast: window)
        var lines = firstLines(head, lineEnd: reader.lineEnd)
        while lines.count < 2, head.count == window, lines.first.map({ $0.upperBound == head.count }) ?? false,
              window <= reader.maxLineBytes / 4 {
            window *= 2
            head = try reader.peek(atLeast: window)
            lines = firstLines(head, lineEnd: reader.lineEnd)
        }
        guard lines.count >= 2 else { return .document }
        // A complete object (a record) or array (a line of some other JSON Lines file, such as
        // fieldpack's own records, which ingest then names as not iNaturalist data).
        func completeObject(_ range: Range<Int>) -> Bool {
            let bytes = UnsafeRawBufferPointer(rebasing: head[range])
            guard let value = try? parser.parseQuotingNonFinite(bytes) else { return false }
            // An array line is JSON Lines only as a tagged record (`["obs", …]`); a one-line
            // bare-array page (`[{…}, …]`) is a document.
            return value.isObject || (value.isArray && value.elements.first(where: { _ in true })?.string != nil)
        }
        if completeObject(lines[0]) { return .jsonLines }
        // A first line that opens brackets it does not close starts a multi-line document; one that
        // is balanced but invalid is a malformed first record of JSON Lines.
        if openDepth(UnsafeRawBufferPointer(rebasing: head[lines[0]])) > 0 { return .document }
        if completeObject(lines[1]) { return .jsonLines }
        return .document
    }

    /// The first three non-blank lines of `head` (the last one cut where `head` ends).
    private static func firstLines(_ head: UnsafeRawBufferPointer, lineEnd: UInt8) -> [Range<Int>] {
        var lines: [Range<Int>] = []
        var lineStart = 0
        while lineStart < head.count && lines.count < 3 {
            let rest = head.count - lineStart
            let found = memchr(head.baseAddress! + lineStart, Int32(lineEnd), rest)
            let end = found.map { UnsafeRawPointer($0) - head.baseAddress! } ?? head.count
            if !isBlank(head, lineStart..<end) { lines.append(lineStart..<end) }
            lineStart = end + 1
        }
        return lines
    }

    /// Brackets opened and not closed in `bytes`, outside strings.
    private static func openDepth(_ bytes: UnsafeRawBufferPointer) -> Int {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default: break
            }
        }
        return depth
    }

    private static func isBlank(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Bool {
        bytes[range].allSatisfy(isJSONBlank)
    }
}
