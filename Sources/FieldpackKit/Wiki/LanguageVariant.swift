import CLibXML2

/// The text of a Parsoid language-variant span (`-{…}-` on zh, sr, … wikis): Parsoid leaves the
/// span empty and keeps the text in `data-mw-variant` (`{"disabled":{"t":"…"}}`,
/// `{"twoway":[{"l":"zh-cn","t":"…"},…]}`), for the reader's converter to fill in. The blurb shows
/// the first text given, its tags removed. Parsoid writes a rule that shows nothing
/// (`-{H|…}-`, `-{T|…}-`) as a `meta`, which the blurb drops, and one that adds a conversion and
/// shows its text (`-{A|…}-`, often the article's own name) as a `span` whose `data-mw-variant`
/// has `"add":true` and no `"show"` (Parsoid drops the flag and says it by the element): shown.
enum LanguageVariant {
    /// The text to show for an empty `span[typeof~=mw:LanguageVariant]`, or nil if `node` is not one.
    static func text(of node: xmlNodePtr) -> [UInt8]? {
        guard node.pointee.children == nil, node.attribute("typeof", hasWord: "mw:LanguageVariant"),
              let variant = node.attribute("data-mw-variant")
        else { return nil }
        var json: [UInt8] = []
        var index = 0
        while variant[index] != 0 {
            json.append(variant[index])
            index += 1
        }
        if contains(json, "\"title\":") { return [] }
        guard let start = find(json, "\"t\":\"") else { return [] }
        return stripTags(jsonString(json, from: start + 5))
    }

    /// A JSON string's content from just after its opening quote, unescaped.
    private static func jsonString(_ json: [UInt8], from start: Int) -> [UInt8] {
        var out: [UInt8] = []
        var index = start
        while index < json.count {
            let byte = json[index]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\"), index + 1 < json.count {
                let escaped = json[index + 1]
                index += 2
                switch escaped {
                case UInt8(ascii: "n"), UInt8(ascii: "t"), UInt8(ascii: "r"): out.append(0x20)
                case UInt8(ascii: "u") where index + 4 <= json.count:
                    let hex = String(decoding: json[index..<(index + 4)], as: UTF8.self)
                    index += 4
                    if let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) {
                        out.append(contentsOf: Array(String(Character(scalar)).utf8))
                    }
                default: out.append(escaped)
                }
                continue
            }
            out.append(byte)
            index += 1
        }
        return out
    }

    /// The text of the variant's HTML: its tags and comments removed, its character references
    /// decoded (`R&amp;D` → `R&D`, `&lt;研究>` → `<研究>`; named ones by libxml2's HTML entity
    /// table). A `<` that starts no tag, a `>` outside one and an unknown reference are text.
    static func stripTags(_ html: [UInt8]) -> [UInt8] {
        func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
        var out: [UInt8] = []
        var index = 0
        while index < html.count {
            let byte = html[index]
            if byte == UInt8(ascii: "<"), index + 1 < html.count,
               isLetter(html[index + 1]) || html[index + 1] == UInt8(ascii: "/") || html[index + 1] == UInt8(ascii: "!") {
                // A tag or a comment, to its `>` (a comment to its `-->`).
                let isComment = html[index...].starts(with: Array("<!--".utf8))
                var end = index + 1
                while end < html.count {
                    if isComment ? html[end...].starts(with: Array("-->".utf8)) : html[end] == UInt8(ascii: ">") { break }
                    end += 1
                }
                index = min(html.count, end + (isComment ? 3 : 1))
                continue
            }
            if byte == UInt8(ascii: "&"), let (scalar, length) = reference(html, at: index) {
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
                index += length
                continue
            }
            out.append(byte)
            index += 1
        }
        return out
    }

    /// The character reference at `index` (`&amp;`, `&#233;`, `&#xE9;`) and its length with
    /// the `;`, or nil if there is none there.
    private static func reference(_ html: [UInt8], at index: Int) -> (Unicode.Scalar, Int)? {
        guard let semicolon = html[index...].prefix(34).firstIndex(of: UInt8(ascii: ";")), semicolon > index + 1 else { return nil }
        let name = Array(html[(index + 1)..<semicolon])
        let length = semicolon - index + 1
        if name[0] == UInt8(ascii: "#") {
            let hex = name.count > 1 && (name[1] | 0x20) == UInt8(ascii: "x")
            let digits = String(decoding: name.dropFirst(hex ? 2 : 1), as: UTF8.self)
            guard let value = UInt32(digits, radix: hex ? 16 : 10) else { return nil }
            // As HTML reads them: nothing, a surrogate or past Unicode is U+FFFD.
            return (value == 0 ? nil : Unicode.Scalar(value)).map { ($0, length) } ?? ("\u{FFFD}", length)
        }
        guard let entity = (name + [0]).withUnsafeBufferPointer({ htmlEntityLookup($0.baseAddress) }),
              let scalar = Unicode.Scalar(entity.pointee.value)
        else { return nil }
        return (scalar, length)
    }

    private static func find(_ bytes: [UInt8], _ needle: StaticString) -> Int? {
        let count = needle.utf8CodeUnitCount
        guard bytes.count >= count else { return nil }
        outer: for start in 0...(bytes.count - count) {
            for offset in 0..<count where bytes[start + offset] != needle.utf8Start[offset] { continue outer }
            return start
        }
        return nil
    }

    private static func contains(_ bytes: [UInt8], _ needle: StaticString) -> Bool { find(bytes, needle) != nil }
}
