import CLibXML2

#if canImport(Glibc)
import Glibc
#endif

/// What a page's HTML says about itself: its page id, revision, modification time, licence,
/// address and Wikidata item, where it says them.
///
/// Parsoid (REST and Enterprise `article_body.html`):
/// `<html about="https://en.wikipedia.org/wiki/Special:Redirect/revision/845493773">`,
/// `<meta property="mw:pageId" content="4269567"/>`, `<meta property="dc:modified" content="…Z"/>`,
/// `<link rel="dc:license" href="//creativecommons.org/licenses/by-sa/3.0/"/>` and
/// `<link rel="dc:isVersionOf" href="//en.wikipedia.org/wiki/Dog"/>` in the head.
/// Saved page views (legacy skins): `link[rel=license]` and `link[rel=canonical]` in the head,
/// `"wgArticleId"`, `"wgRevisionId"`, `"wgWikibaseItemId"` and `"wgRedirectedFrom"` in the head's
/// `RLCONF` script, and the licence link of the footer (`li#footer-info-copyright`).
public struct PageMetadata: Sendable, Equatable {
    public var pageID: Int64?
    public var revision: Int64?
    /// As written (RFC 3339).
    public var modified: String?
    /// As a code (see `ArticleLicense.code(ofLink:)`).
    public var license: String?
    /// The page's own address, with `https:` before a protocol-relative one.
    public var url: String?
    public var wikidata: String?
    /// The title a saved page view was reached through, as the page says it (`Parus_major` for
    /// `Great tit` opened at `/wiki/Parus_major`, which MediaWiki shows "Redirected from").
    public var redirectedFrom: String?

    public init() {}

    /// Reads the root element and the head of `document`, and the script and footer of `html`,
    /// the bytes it was parsed from (a footer is past the part of a page that is parsed).
    init(document: HTMLDocument, html: UnsafeRawBufferPointer) {
        var isParsoid = false
        var node = document.topLevel
        while let current = node, !(current.isElement && current.named("html")) { node = current.pointee.next }
        if let root = node {
            if let about = root.attribute("about") { revision = Self.number(after: "/revision/", in: about) }
            var child = root.pointee.children
            while let current = child, !(current.isElement && current.named("head")) { child = current.pointee.next }
            if let head = child { read(head: head) }
            isParsoid = revision != nil || pageID != nil
        }
        // Parsoid HTML has no skin: no RLCONF, no footer.
        if !isParsoid { readPageView(html) }
    }

    private mutating func read(head: xmlNodePtr) {
        var node = head.pointee.children
        while let current = node {
            node = current.pointee.next
            guard current.isElement else { continue }
            if current.named("meta"), let property = current.attribute("property"), let content = current.attribute("content") {
                if cString(property, equals: "mw:pageId") {
                    pageID = pageID ?? Self.number(after: "", in: content)
                } else if cString(property, equals: "dc:modified"), modified == nil {
                    let text = String(cString: content)
                    if !text.isEmpty { modified = text }
                }
            } else if current.named("link"), let href = current.attribute("href") {
                if license == nil, current.attribute("rel", hasWord: "dc:license") || current.attribute("rel", hasWord: "license") {
                    license = ArticleLicense.code(ofLink: String(cString: href))
                } else if url == nil, current.attribute("rel", hasWord: "dc:isVersionOf") || current.attribute("rel", hasWord: "canonical") {
                    let text = String(Substring(String(cString: href)).trimmingSpaces)
                    if !text.isEmpty { url = text.hasPrefix("//") ? "https:" + text : text }
                }
            }
        }
    }

    /// A saved page view's `RLCONF` values (before `</head>`, looked for in the first 256 KiB)
    /// and footer licence link.
    private mutating func readPageView(_ html: UnsafeRawBufferPointer) {
        guard let base = html.baseAddress, html.count > 0 else { return }
        let start = UnsafeRawBufferPointer(rebasing: html[0..<min(html.count, 1 << 18)])
        let headEnd = Self.find("</head>", in: start) ?? min(html.count, 1 << 16)
        let head = UnsafeRawBufferPointer(start: base, count: headEnd)
        if pageID == nil { pageID = Self.scriptNumber("\"wgArticleId\":", in: head) }
        if revision == nil { revision = Self.scriptNumber("\"wgRevisionId\":", in: head) }
        if wikidata == nil, let start = Self.find("\"wgWikibaseItemId\":\"", in: head) {
            var end = start + 20
            while end < head.count, head[end] != UInt8(ascii: "\"") { end += 1 }
            let item = String(decoding: UnsafeRawBufferPointer(rebasing: head[(start + 20)..<end]), as: UTF8.self)
            if item.count > 1, item.hasPrefix("Q"), item.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }) { wikidata = item }
        }
        if redirectedFrom == nil, let key = Self.find("\"wgRedirectedFrom\":", in: head) {
            redirectedFrom = Self.scriptString(UnsafeRawBufferPointer(rebasing: head[(key + 19)...]))
        }
        if license == nil, let footer = Self.find("footer-info-copyright", in: html) {
            let window = UnsafeRawBufferPointer(rebasing: html[footer..<min(html.count, footer + 4096)])
            let end = Self.find("</li>", in: window) ?? window.count
            let item = UnsafeRawBufferPointer(rebasing: window[0..<end])
            if let link = Self.find("creativecommons.org/", in: item) ?? Self.find("Attribution-ShareAlike_", in: item) {
                var start = link
                while start > 0, item[start - 1] != UInt8(ascii: "\""), item[start - 1] != UInt8(ascii: "'") { start -= 1 }
                var stop = link
                while stop < item.count, item[stop] != UInt8(ascii: "\""), item[stop] != UInt8(ascii: "'") { stop += 1 }
                license = ArticleLicense.code(ofLink: String(decoding: UnsafeRawBufferPointer(rebasing: item[start..<stop]), as: UTF8.self))
            }
        }
    }

    private static func find(_ needle: StaticString, in haystack: UnsafeRawBufferPointer) -> Int? {
        firstOffset(of: needle, in: haystack)
    }

    /// The JSON string `bytes` start with (`"Parus_major"`, escapes decoded), if it is a
    /// non-empty one.
    private static func scriptString(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard bytes.first == UInt8(ascii: "\"") else { return nil }
        var end = 1
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") { end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1 }
        guard end < bytes.count, end > 1 else { return nil }
        let parser = JSONParser()
        let quoted = PaddedBuffer(copying: Array(bytes[0...end]))
        // The value lives in the parser's and the buffer's memory until its text is copied out.
        return withExtendedLifetime((parser, quoted)) {
            (try? parser.parse(quoted))?.string.flatMap { $0.isEmpty ? nil : $0 }
        }
    }

    /// The positive integer right after `key` in `bytes` (`"wgRevisionId":1281338288`).
    private static func scriptNumber(_ key: StaticString, in bytes: UnsafeRawBufferPointer) -> Int64? {
        guard let start = find(key, in: bytes) else { return nil }
        return digits(UnsafeRawBufferPointer(rebasing: bytes[(start + key.utf8CodeUnitCount)...]))
    }

    /// The positive integer after the last `marker` of a NUL-terminated value (the whole value
    /// for an empty marker); nil if it is not one.
    private static func number(after marker: StaticString, in text: UnsafePointer<UInt8>) -> Int64? {
        let bytes = UnsafeRawBufferPointer(start: text, count: strlen(UnsafeRawPointer(text).assumingMemoryBound(to: CChar.self)))
        var start = 0
        if marker.utf8CodeUnitCount > 0 {
            guard let found = find(marker, in: bytes) else { return nil }
            start = found + marker.utf8CodeUnitCount
        }
        let rest = UnsafeRawBufferPointer(rebasing: bytes[start...])
        guard let value = digits(rest), rest.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return value
    }

    /// The number the leading digits of `bytes` spell, if there are any, it is positive and it
    /// has at most 18 digits (a longer one is no id: nil, never a truncated value).
    private static func digits(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        var value: Int64 = 0
        var count = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { break }
            if count == 18 { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            count += 1
        }
        return count > 0 && value > 0 ? value : nil
    }
}
