import CLibXML2

#if canImport(Glibc)
import Glibc
#endif

/// Proves, from its bytes alone, that the rest of an article holds nothing the blurb rules read,
/// so that libxml2 can stop reading there (`TreeTail`).
///
/// It is asked at one place only: just after libxml2 has read the `</h2>` of the heading that
/// starts the trailing boilerplate, inside `body`, so libxml2 is reading content there, with
/// `open` elements on its tree builder's stack. From there it accepts only markup every HTML
/// tokenizer reads the same way, and answers false (libxml2 reads on, `TreeTail` watching) at
/// the first doubt:
///
/// - text without `<`; start tags `<name` (letters and digits) with attributes `name`,
///   `name="…"`, `name='…'` or `name=value`, separated by spaces, tabs or line breaks, ending in
///   `>` or `/>`; end tags `</name>`. Anything else (comments, `<!`, `<?`, a form feed, a stray
///   `<`, an unterminated tag) is a doubt;
/// - elements whose content some HTML parser reads as raw text (`script`, `style`, `textarea`,
///   `title`, `xmp`, `plaintext`, `iframe`, `noembed`, `noframes`, `noscript`) and the document's
///   own (`html`, `head`, `body`, `frameset`, `frame`), which could end `body`; `</body>` and
///   `</html>` only as the last words, with nothing but blanks after them;
/// - what the rules read anywhere: a `link` or `meta` whose attributes mention a redirect or a
///   disambiguation page, a `class` naming the content root, either written with a character
///   reference; and every level-2 heading, which must hold only text, read as a skipped section
///   (`ArticleCleaner.State.isSkipped`, on the same bytes);
/// - libxml2's depth limit: every start tag is counted as an element pushed, except those
///   libxml2 keeps empty (`htmlTagLookup`, or written `/>`), and only an end tag matching the
///   innermost one counted pops it, so the count never falls below libxml2's own; with `open`
///   it must stay within `xmlParserMaxDepth`.
///
/// Complexity: one pass over the bytes, `memchr` between tags.
enum InertTail {
    /// How many tag names' libxml2 answers (`empties`) one walk keeps.
    static let rememberedTagNames = 64

    static func holdsNothingRead(_ bytes: UnsafeBufferPointer<UInt8>, open: Int, rules: BlurbRules) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        let limit = Int(fp_xml_max_depth())
        var stack: [TagName] = []
        // libxml2's answer for each tag name met, in a short list searched by comparing words:
        // a dictionary hashed each name with SipHash, which with the two sets' lookups was most
        // of this walk (perf: 4 of its 5.5% of the wiki stage's samples).
        var empties: [(name: TagName, empty: Bool)] = []
        var index = 0
        while index < count {
            guard let found = memchr(base + index, Int32(UInt8(ascii: "<")), count - index) else { break }
            index = UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - base
            guard index + 1 < count else { return false }
            if bytes[index + 1] == UInt8(ascii: "/") {
                // An end tag: `</name>`, blanks allowed before the `>`.
                guard let (name, after) = TagName.read(bytes, at: index + 2) else { return false }
                var end = after
                while end < count && isBlank(bytes[end]) { end += 1 }
                guard end < count, bytes[end] == UInt8(ascii: ">") else { return false }
                // `</body>` and `</html>` only as the document's last words.
                if name.isDocumentElement { return name.isBodyOrHTML && endsDocument(bytes, from: end + 1) }
                if stack.last == name {
                    stack.removeLast()
                } else if name.isParagraphOrBreak {
                    return false  // libxml2 treats a stray `</p>` or `</br>` specially
                }
                index = end + 1
                continue
            }
            guard let (name, after) = TagName.read(bytes, at: index + 1), !name.isDocumentElement, !name.isRawText else { return false }
            guard let (end, selfClosing) = attributes(bytes, from: after, of: name) else { return false }
            index = end
            // `<h2/>` is an empty heading, which the rules read (and which ends a skipped section).
            if selfClosing && name == TagName.h2 { return false }
            if selfClosing { continue }
            let empty: Bool
            if let known = empties.first(where: { $0.name == name }) {
                empty = known.empty
            } else {
                empty = name.withCString { htmlTagLookup($0)?.pointee.empty ?? 0 } != 0
                // A page of made-up names is not remembered past a few dozen: libxml2 is asked.
                if empties.count < Self.rememberedTagNames { empties.append((name, empty)) }
            }
            if empty { continue }
            stack.append(name)
            guard open + stack.count <= limit else { return false }
            if name == TagName.h2 {
                guard let closed = skippedHeading(bytes, from: index, rules: rules) else { return false }
                stack.removeLast()
                index = closed
            }
        }
        return true
    }

    /// The attributes of a start tag from `start` (just after its name): where the tag ends
    /// (after its `>`) and whether it ends in `/>`; nil at a doubt.
    private static func attributes(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, of tag: TagName) -> (end: Int, selfClosing: Bool)? {
        let count = bytes.count
        let watched = tag == TagName.link || tag == TagName.meta
        var index = start
        while true {
            guard index < count else { return nil }
            let separated = isBlank(bytes[index])
            while index < count && isBlank(bytes[index]) { index += 1 }
            guard index < count else { return nil }
            if bytes[index] == UInt8(ascii: ">") { return (index + 1, false) }
            if bytes[index] == UInt8(ascii: "/") {
                guard index + 1 < count, bytes[index + 1] == UInt8(ascii: ">") else { return nil }
                return (index + 2, true)
            }
            guard separated, isLetter(bytes[index]) else { return nil }
            let nameStart = index
            while index < count && (isLetter(bytes[index]) || isDigit(bytes[index]) || bytes[index] == UInt8(ascii: "-")
                || bytes[index] == UInt8(ascii: "_") || bytes[index] == UInt8(ascii: ":") || bytes[index] == UInt8(ascii: "."))
            {
                index += 1
            }
            guard index - nameStart <= 64, index < count else { return nil }
            let isClass = index - nameStart == 5 && lowercaseEquals(bytes, nameStart, "class")
            guard bytes[index] == UInt8(ascii: "=") else { continue }  // no value
            index += 1
            guard index < count else { return nil }
            let valueStart: Int
            let valueEnd: Int
            let quote = bytes[index]
            if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
                guard let closing = memchr(bytes.baseAddress! + index + 1, Int32(quote), count - index - 1) else { return nil }
                valueStart = index + 1
                valueEnd = UnsafeRawPointer(closing).assumingMemoryBound(to: UInt8.self) - bytes.baseAddress!
                index = valueEnd + 1
            } else {
                valueStart = index
                while index < count && !isBlank(bytes[index]) && bytes[index] != UInt8(ascii: ">") {
                    let byte = bytes[index]
                    guard byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "'") && byte != UInt8(ascii: "<") && byte != UInt8(ascii: "=")
                        && byte != UInt8(ascii: "`") && byte != 0x0C
                    else { return nil }
                    index += 1
                }
                valueEnd = index
                guard valueEnd > valueStart else { return nil }
            }
            let value = UnsafeBufferPointer(rebasing: bytes[valueStart..<valueEnd])
            if watched && (contains(value, "redirect") || contains(value, "disambiguation") || value.contains(UInt8(ascii: "&"))) { return nil }
            if isClass && (contains(value, "mw-parser-output") || value.contains(UInt8(ascii: "&"))) { return nil }
        }
    }

    /// A level-2 heading's content from `start` (after its start tag): only text, then `</h2>`;
    /// where the heading ends if the rules read that text as a skipped section, else nil.
    private static func skippedHeading(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, rules: BlurbRules) -> Int? {
        let count = bytes.count
        guard start < count, let found = memchr(bytes.baseAddress! + start, Int32(UInt8(ascii: "<")), count - start) else { return nil }
        let close = UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - bytes.baseAddress!
        let text = UnsafeBufferPointer(rebasing: bytes[start..<close])
        guard !text.contains(UInt8(ascii: "&")), close + 1 < count, bytes[close + 1] == UInt8(ascii: "/"),
              let (name, after) = TagName.read(bytes, at: close + 2), name == TagName.h2
        else { return nil }
        var end = after
        while end < count && isBlank(bytes[end]) { end += 1 }
        guard end < count, bytes[end] == UInt8(ascii: ">") else { return nil }
        var heading = ArticleText()
        heading.append(text)
        heading.normalize()
        return ArticleCleaner.State.isSkipped(heading, rules: rules) ? end + 1 : nil
    }

    /// Whether only blanks and `</body>` or `</html>` come from `start` to the end.
    private static func endsDocument(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Bool {
        var index = start
        while index < bytes.count {
            if isBlank(bytes[index]) {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "<"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "/"),
                  let (name, after) = TagName.read(bytes, at: index + 2), name.isBodyOrHTML, after < bytes.count, bytes[after] == UInt8(ascii: ">")
            else { return false }
            index = after + 1
        }
        return true
    }

    /// libxml2's blanks (`IS_BLANK_CH`): not the form feed.
    @inline(__always) static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
    @inline(__always) static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
    @inline(__always) static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func lowercaseEquals(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ word: StaticString) -> Bool {
        for offset in 0..<word.utf8CodeUnitCount where bytes[start + offset] | 0x20 != word.utf8Start[offset] { return false }
        return true
    }

    /// Whether `value` contains `word` in any case (ASCII).
    private static func contains(_ value: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
        let length = word.utf8CodeUnitCount
        guard value.count >= length else { return false }
        for start in 0...(value.count - length) where lowercaseEquals(value, start, word) { return true }
        return false
    }

    /// A tag's name, lower case, as libxml2 reads it when it is only ASCII letters and digits
    /// (at most 16 of them, in two words).
    struct TagName: Equatable {
        var low: UInt64 = 0
        var high: UInt64 = 0
        var length = 0

        static let h2 = TagName("h2")
        static let link = TagName("link")
        static let meta = TagName("meta")
        // Lists, compared word by word: a `Set` hashes every name met (SipHash).
        private static let document = ["html", "head", "body", "frameset", "frame"].map(TagName.init)
        private static let rawText =
            ["script", "style", "textarea", "title", "xmp", "plaintext", "iframe", "noembed", "noframes", "noscript"].map(TagName.init)

        init(_ text: String) {
            for byte in text.utf8 { append(byte) }
        }

        private init() {}

        private mutating func append(_ byte: UInt8) {
            if length < 8 { low |= UInt64(byte) << (8 * UInt64(length)) } else { high |= UInt64(byte) << (8 * UInt64(length - 8)) }
            length += 1
        }

        var isDocumentElement: Bool { Self.document.contains(self) }
        var isRawText: Bool { Self.rawText.contains(self) }
        var isParagraphOrBreak: Bool { self == TagName("p") || self == TagName("br") }
        var isBodyOrHTML: Bool { self == TagName("body") || self == TagName("html") }

        /// The name at `start`: a letter, then letters and digits, followed by a blank, `>` or
        /// `/`; nil otherwise (or longer than 16), and where it ends.
        static func read(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> (TagName, Int)? {
            guard start < bytes.count, InertTail.isLetter(bytes[start]) else { return nil }
            var name = TagName()
            var index = start
            while index < bytes.count && (InertTail.isLetter(bytes[index]) || InertTail.isDigit(bytes[index])) {
                guard name.length < 16 else { return nil }
                name.append(bytes[index] | (InertTail.isLetter(bytes[index]) ? 0x20 : 0))
                index += 1
            }
            guard index < bytes.count else { return nil }
            let next = bytes[index]
            guard InertTail.isBlank(next) || next == UInt8(ascii: ">") || next == UInt8(ascii: "/") else { return nil }
            return (name, index)
        }

        /// Calls `body` with the name as a C string.
        func withCString<T>(_ body: (UnsafePointer<UInt8>) -> T) -> T {
            var bytes = [UInt8](repeating: 0, count: length + 1)
            for offset in 0..<length { bytes[offset] = UInt8(truncatingIfNeeded: (offset < 8 ? low >> (8 * UInt64(offset)) : high >> (8 * UInt64(offset - 8)))) }
            return bytes.withUnsafeBufferPointer { body($0.baseAddress!) }
        }
    }
}
