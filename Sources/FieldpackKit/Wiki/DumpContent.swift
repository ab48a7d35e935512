#if canImport(Glibc)
import Glibc
#endif

/// What one input of the wiki stage holds (a file, or one member of an archive), told from its
/// first bytes, not its name.
enum DumpContent: Equatable {
    /// JSON Lines: an Enterprise dump's NDJSON, or one article object on one line.
    case jsonLines
    /// One JSON document over several lines or in brackets: a pretty-printed article object, or
    /// an array of them (Enterprise On-demand and Structured Contents responses).
    case jsonDocument
    /// An HTML page.
    case html
    /// Anything else, with what it looks like ("plain text", "binary data", …).
    case other(String)

    /// The content of an input that starts with `head` (its first 64 KiB, or all of it).
    ///
    /// JSON whose first line is a whole line of JSON is JSON Lines: a dump line ends with `}`
    /// on its own line, however long. A first line that is only `{`, ends in `,`, `{`, `[` or
    /// `:`, or a document that starts with `[`, is one document. Text that is not JSON or
    /// markup is read as JSON Lines only when `name` says it is a dump (`.ndjson`, `.jsonl`,
    /// `.json`, compressed or not), so that a damaged dump's lines are findings, and a `LICENSE`
    /// or `README` is not.
    static func detect(_ head: UnsafeRawBufferPointer, name: String) -> DumpContent {
        let start = contentStart(head)
        guard start < head.count else { return .other(head.isEmpty ? "an empty file" : "blank text") }
        switch head[start] {
        case UInt8(ascii: "["):
            return .jsonDocument
        case UInt8(ascii: "{"):
            let rest = UnsafeRawBufferPointer(rebasing: head[start...])
            guard let newline = memchr(rest.baseAddress!, 0x0A, rest.count) else { return .jsonLines }
            var end = UnsafeRawPointer(newline) - rest.baseAddress!
            while end > 0, isJSONBlank(rest[end - 1]) { end -= 1 }
            switch rest[end - 1] {
            case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: ","), UInt8(ascii: ":"): return .jsonDocument
            default: return .jsonLines
            }
        case UInt8(ascii: "<"):
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: head[start..<min(head.count, start + 4096)]), as: UTF8.self).lowercased()
            for marker in ["<!doctype html", "<html", "<head", "<body", "<meta", "<title", "<section", "<div", "<p>", "<p ", "<table"]
            where text.contains(marker) {
                return .html
            }
            return .other(text.hasPrefix("<?xml") ? "XML, not an HTML page" : "markup that is not an HTML page")
        default:
            // A page saved as "Unicode" (Windows' name for UTF-16, byte order mark first): named
            // for what it is, not "binary data".
            if start == 0, head.count >= 2, (head[0] == 0xFF && head[1] == 0xFE) || (head[0] == 0xFE && head[1] == 0xFF) {
                return .other("UTF-16 text (saved as \"Unicode\": save it as UTF-8)")
            }
            // libarchive reads only tar here: a zip of pages was "binary data".
            if start == 0, head.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return .other("a zip archive (unzip it and give the files inside)") }
            if namedLikeADump(name) { return .jsonLines }
            let sample = UnsafeRawBufferPointer(rebasing: head[start..<min(head.count, start + 4096)])
            let binary = sample.contains(0) || !HTMLDocument.isValidUTF8(wholeSequencesOf: sample)
            return .other(binary ? "binary data" : "plain text")
        }
    }

    /// Whether a file name ends like a JSON dump's (`.ndjson`, `.jsonl`, `.json`), before any
    /// compression suffix.
    static func namedLikeADump(_ name: String) -> Bool {
        var base = Substring(name.lowercased())
        for suffix in [".gz", ".bz2", ".xz", ".zst"] where base.hasSuffix(suffix) { base = base.dropLast(suffix.count) }
        return base.hasSuffix(".ndjson") || base.hasSuffix(".jsonl") || base.hasSuffix(".json")
    }

    /// Whether a file name ends like a dump's or an archive's (`.json.tar.gz`, `.tgz`, `.tar`,
    /// `.zip`, a bare compressed stream): an empty one is a damaged download, not a marker file.
    static func namedLikeADumpOrArchive(_ name: String) -> Bool {
        if namedLikeADump(name) { return true }
        let lowered = name.lowercased()
        return [".gz", ".bz2", ".xz", ".zst", ".lz4", ".tar", ".tgz", ".zip"].contains { lowered.hasSuffix($0) }
    }
}

extension HTMLDocument {
    /// Whether `bytes` is well-formed UTF-8, allowing its last sequence to be cut short (a
    /// sample's end falls anywhere).
    static func isValidUTF8(wholeSequencesOf bytes: UnsafeRawBufferPointer) -> Bool {
        var end = bytes.count
        // Drop a trailing incomplete sequence: at most 3 continuation bytes after a lead byte.
        var back = 0
        while back < 3, end - back - 1 >= 0, bytes[end - back - 1] & 0xC0 == 0x80 { back += 1 }
        if end - back - 1 >= 0, bytes[end - back - 1] >= 0xC0 { end -= back + 1 }
        return isValidUTF8(UnsafeRawBufferPointer(rebasing: bytes[0..<end]).assumingMemoryBound(to: UInt8.self))
    }
}
