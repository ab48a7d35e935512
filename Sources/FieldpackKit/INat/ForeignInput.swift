#if canImport(Glibc)
import Glibc
#endif

/// What an input that is not iNaturalist JSON looks like, told from its first bytes, so that a
/// user who points ingest at the wrong file hears what that file is (one error naming it), not a
/// syntax error from deep inside it.
enum ForeignInput {
    /// How many bytes `describe` looks at.
    static let headBytes = 1 << 16

    /// What `head` (the first bytes of a decompressed input) looks like when it cannot be JSON;
    /// nil when it may be JSON (its first byte after a UTF-8 byte-order mark and blanks is `{` or
    /// `[`) or holds only blanks.
    static func describe(_ head: UnsafeRawBufferPointer) -> String? {
        let bytes = UnsafeRawBufferPointer(rebasing: head[..<min(head.count, headBytes)])
        let start = contentStart(bytes)
        let first = start < bytes.count ? bytes[start] : 0
        let jsonLike = first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
        // UTF-16 without a byte order mark: `{` or `[` then NUL, and NUL every other byte after.
        if jsonLike, start + 4 <= bytes.count, bytes[start + 1] == 0, bytes[start + 3] == 0 {
            return "UTF-16 text (without a byte order mark); fieldpack reads UTF-8 (convert it with iconv -f UTF-16LE -t UTF-8)"
        }
        if let binary = binaryKind(bytes, jsonLike: jsonLike) { return binary }
        guard start < bytes.count else { return nil }
        if jsonLike { return nil }
        let text = UnsafeRawBufferPointer(rebasing: bytes[start...])
        if first == UInt8(ascii: "<") { return markupKind(text) }
        return textKind(text)
    }

    /// Archives, databases, images, other compressions, and bytes that are not text.
    ///
    /// - Parameter jsonLike: the content starts with `{` or `[`: NUL and control bytes in it are
    ///   damage inside JSON (a crash leaves runs of NUL in a file), which the lines they fall in
    ///   are rejected for, unless they are half of it. One NUL refused the whole file, unnamed.
    private static func binaryKind(_ bytes: UnsafeRawBufferPointer, jsonLike: Bool) -> String? {
        if bytes.starts(with: Array("PK\u{3}\u{4}".utf8)) {
            return contains(bytes, "meta.xml")
                ? "a Darwin Core Archive (a zip holding meta.xml), which fieldpack does not read"
                : "a zip archive; unzip it and give the JSON files inside"
        }
        if bytes.count >= 262, bytes[257...].starts(with: Array("ustar".utf8)) {
            return "a tar archive; unpack it and give the JSON files inside"
        }
        if bytes.starts(with: Array("SQLite format 3\u{0}".utf8)) { return "an SQLite database" }
        if bytes.starts(with: Array("%PDF".utf8)) { return "a PDF document" }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) || bytes.starts(with: [0xFF, 0xD8, 0xFF])
            || bytes.starts(with: Array("GIF8".utf8))
        {
            return "an image"
        }
        for (magic, name) in [([0x42, 0x5A, 0x68], "bzip2"), ([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00], "xz"),
                              ([0x28, 0xB5, 0x2F, 0xFD], "zstd")] as [([UInt8], String)]
            where bytes.starts(with: magic)
        {
            return "\(name)-compressed data; fieldpack reads plain or gzip-compressed files"
        }
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            return "UTF-16 text; fieldpack reads UTF-8 (convert it with iconv -f UTF-16 -t UTF-8)"
        }
        // Text has no NUL bytes and few control bytes besides tab, line feed and carriage return.
        // Eight bytes at a time up to the next byte below 0x20 (the byte loop over each input's
        // first 64 KiB was about 1% of ingest's CPU).
        var controls = 0
        var index = 0
        while true {
            index = WordBytes.skipUnflagged(in: bytes, from: index, by: WordBytes.controls)
            guard index < bytes.count else { break }
            let byte = bytes[index]
            if byte == 0 && !jsonLike { return "binary data" }
            if byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D && byte != 0x0C { controls += 1 }
            index += 1
        }
        return controls * (jsonLike ? 2 : 20) > bytes.count ? "binary data" : nil
    }

    private static func markupKind(_ text: UnsafeRawBufferPointer) -> String {
        let lower = text.prefix(4096).map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        return lower.withUnsafeBytes { markup in
            if contains(markup, "<html") || contains(markup, "<!doctype html") { return "an HTML page" }
            if contains(markup, "rs.tdwg.org/dwc/text") || contains(markup, "<archive") {
                return "a Darwin Core Archive descriptor (meta.xml), which fieldpack does not read"
            }
            if contains(markup, "rs.tdwg.org/dwc") { return "Darwin Core XML, which fieldpack does not read" }
            return "an XML document"
        }
    }

    /// Delimited text (by its first line) or plain text.
    private static func textKind(_ text: UnsafeRawBufferPointer) -> String {
        var end = 0
        while end < text.count && text[end] != 0x0A { end += 1 }
        var line = Array(text[..<end])
        if line.last == 0x0D { line.removeLast() }
        for (separator, name) in [(UInt8(ascii: "\t"), "tab-separated text"), (UInt8(ascii: ","), "comma-separated text")] {
            let fields = line.split(separator: separator, omittingEmptySubsequences: false).map(headerName)
            guard fields.count >= (separator == 0x09 ? 2 : 3) else { continue }
            let shown = fields.prefix(4).map { $0.count > 40 ? String($0.prefix(40)) + "…" : $0 }.joined(separator: ", ")
                + (fields.count > 4 ? ", …" : "")
            return "\(name)\(origin(Set(fields), separator: separator)) (header: \(shown))"
        }
        let shown = String(decoding: line.prefix(60), as: UTF8.self)
        return "plain text (first line: \"\(shown)\(line.count > 60 ? "…" : "")\")"
    }

    /// Which known export a header row names.
    private static func origin(_ header: Set<String>, separator: UInt8) -> String {
        if !header.isDisjoint(with: ["observation_uuid", "photo_uuid", "observer_id"])
            || header.isSuperset(of: ["taxon_id", "ancestry", "rank_level"])
        {
            return separator == 0x09
                ? ", columns of the iNaturalist open-data export, but not all of one of its tables"
                : ", columns of the iNaturalist open-data export, but not tab-separated as its tables are"
        }
        if !header.isDisjoint(with: ["occurrenceID", "gbifID", "scientificName", "decimalLatitude"]) {
            return ", a Darwin Core occurrence table, which fieldpack does not read"
        }
        if !header.isDisjoint(with: ["observed_on_string", "image_url", "quality_grade", "scientific_name"]) {
            return ", an iNaturalist CSV export, which fieldpack does not read; download API JSON instead"
        }
        return ""
    }

    /// A header field without surrounding spaces and quotes.
    private static func headerName(_ field: ArraySlice<UInt8>) -> String {
        func isPadding(_ byte: UInt8) -> Bool { byte == 0x20 || byte == UInt8(ascii: "\"") }
        var field = field
        while let first = field.first, isPadding(first) { field.removeFirst() }
        while let last = field.last, isPadding(last) { field.removeLast() }
        return String(decoding: field, as: UTF8.self)
    }

    private static func contains(_ bytes: UnsafeRawBufferPointer, _ needle: StaticString) -> Bool {
        firstOffset(of: needle, in: bytes) != nil
    }
}
