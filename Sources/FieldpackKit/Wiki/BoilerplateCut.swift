#if canImport(Glibc)
import Glibc
#endif

/// Finds where an article's trailing boilerplate starts in its raw HTML, so that libxml2 parses
/// only what the blurb can use: when every `<h2>` from some point on is a skipped section
/// (See also, References, External links, …, as articles end), the bytes from that section's
/// opening tag on are never parsed. Reference lists and navboxes are a large share of an
/// article's bytes. When the headings cannot be read with certainty, nothing is cut.
enum BoilerplateCut {
    /// The byte offset to cut at, or nil.
    static func offset(in html: UnsafeRawBufferPointer, skipped: Set<String>) -> Int? {
        guard let base = html.baseAddress?.assumingMemoryBound(to: UInt8.self), html.count > 0 else { return nil }
        let bytes = UnsafeBufferPointer(start: base, count: html.count)
        var headings: [(start: Int, boilerplate: Bool)] = []
        var position = 0
        while let found = find("<h2", in: bytes, from: position) {
            let after = found + 3
            guard after < bytes.count, bytes[after] == UInt8(ascii: ">") || bytes[after] == UInt8(ascii: " ") else {
                position = after
                continue
            }
            guard let open = firstIndex(of: UInt8(ascii: ">"), in: bytes, from: after),
                  let close = find("</h2>", in: bytes, from: open)
            else { return nil }
            let text = headingText(UnsafeBufferPointer(rebasing: bytes[(open + 1)..<close]))
            headings.append((found, text.map { skipped.contains($0.lowercased()) } ?? false))
            position = close + 5
        }
        // The first heading of the trailing run of boilerplate headings.
        guard var first = headings.indices.last, headings[first].boilerplate else { return nil }
        while first > 0 && headings[first - 1].boilerplate { first -= 1 }
        return wrapperStart(before: headings[first].start, in: bytes)
    }

    /// The start of the element that wraps the heading when nothing but its opening tag comes
    /// between (Parsoid's `<section …>`, MediaWiki 1.43's `<div class="mw-heading …">`); else the
    /// heading's own start.
    private static func wrapperStart(before heading: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var index = heading - 1
        while index >= 0 && (bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x09) { index -= 1 }
        guard index >= 0, bytes[index] == UInt8(ascii: ">") else { return heading }
        var open = index
        while open >= 0 && bytes[open] != UInt8(ascii: "<") {
            if bytes[open] == UInt8(ascii: ">") && open != index { return heading }
            open -= 1
        }
        guard open >= 0 else { return heading }
        let tag = UnsafeBufferPointer(rebasing: bytes[open...index])
        if startsWith(tag, "<section") || (startsWith(tag, "<div") && find("mw-heading", in: tag, from: 0) != nil) {
            return open
        }
        return heading
    }

    /// The heading's text: tags removed, `&amp;` decoded, whitespace collapsed, a trailing
    /// "[edit]" (legacy edit links) removed. Nil if it holds other character references.
    private static func headingText(_ inner: UnsafeBufferPointer<UInt8>) -> String? {
        var out: [UInt8] = []
        var inTag = false
        for byte in inner {
            if byte == UInt8(ascii: "<") { inTag = true; continue }
            if byte == UInt8(ascii: ">") { inTag = false; continue }
            if !inTag { out.append(byte) }
        }
        var text = String(decoding: out, as: UTF8.self).replacingOccurrences(of: "&amp;", with: "&")
        if text.contains("&") { return nil }
        text = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).joined(separator: " ")
        for suffix in ["[edit]", "[ edit ]"] where text.hasSuffix(suffix) { text = String(text.dropLast(suffix.count)) }
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }

    private static func find(_ needle: StaticString, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress else { return nil }
        return firstOffset(of: needle, in: UnsafeRawBufferPointer(start: base + start, count: bytes.count - start)).map { $0 + start }
    }

    private static func firstIndex(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress else { return nil }
        guard let hit = memchr(base + start, Int32(byte), bytes.count - start) else { return nil }
        return UnsafeRawPointer(hit).assumingMemoryBound(to: UInt8.self) - base
    }

    private static func startsWith(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        bytes.count >= prefix.utf8CodeUnitCount && memcmp(bytes.baseAddress!, prefix.utf8Start, prefix.utf8CodeUnitCount) == 0
    }

    /// Whether `html` contains `marker` anywhere (page properties checked before cutting).
    static func contains(_ marker: StaticString, in html: UnsafeRawBufferPointer) -> Bool {
        firstOffset(of: marker, in: html) != nil
    }
}
