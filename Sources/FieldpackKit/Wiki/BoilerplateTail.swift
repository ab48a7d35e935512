#if canImport(Glibc)
import Glibc
#endif

/// Proposes where an article's trailing boilerplate starts, from its bytes alone: when every
/// `<h2>` from some point on reads as a skipped section (See also, References, External links, …,
/// as articles end), the first of them. Reference lists and navboxes are a large share of an
/// article's bytes, and their tree need not be built (`TreeTail`).
///
/// Only a proposal: a byte scan cannot tell a heading from the same bytes in a comment, a script
/// or an attribute value, nor see a heading written `<H2>` or hidden in a navbox. `TreeTail` acts
/// on it only where libxml2 itself starts that `h2`, and the blurb rules confirm it.
enum BoilerplateTail {
    /// The offset of the `>` that ends the start tag of the first heading of the trailing
    /// boilerplate run, or nil.
    static func headingTagEnd(in html: UnsafeBufferPointer<UInt8>, skipped: Set<String>) -> Int? {
        guard html.baseAddress != nil, html.count > 0 else { return nil }
        let bytes = html
        var headings: [(tagEnd: Int, boilerplate: Bool)] = []
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
            headings.append((open, text.map { skipped.contains($0.lowercased()) } ?? false))
            position = close + 5
        }
        // The first heading of the trailing run of boilerplate headings.
        guard var first = headings.indices.last, headings[first].boilerplate else { return nil }
        while first > 0 && headings[first - 1].boilerplate { first -= 1 }
        return headings[first].tagEnd
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

    /// Whether `html` contains `marker` anywhere (page properties, which can sit anywhere).
    static func contains(_ marker: StaticString, in html: UnsafeRawBufferPointer) -> Bool {
        firstOffset(of: marker, in: html) != nil
    }
}
