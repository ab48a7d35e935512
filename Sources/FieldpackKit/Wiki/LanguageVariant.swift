import CLibXML2

/// The text of a Parsoid language-variant span (`-{…}-` on zh, sr, … wikis): Parsoid leaves the
/// span empty and keeps the text in `data-mw-variant` (`{"disabled":{"t":"…"}}`,
/// `{"twoway":[{"l":"zh-cn","t":"…"},…]}`), for the reader's converter to fill in. The blurb shows
/// the first text given, its tags removed; rules that add conversions without showing anything
/// (`-{H|…}-`, `-{T|…}-`) show nothing.
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
        if contains(json, "\"add\":true") && !contains(json, "\"show\":true") { return [] }
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

    /// The text without `<…>` tags and `<!-- -->` comments.
    private static func stripTags(_ html: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var inTag = false
        for byte in html {
            if byte == UInt8(ascii: "<") { inTag = true } else if byte == UInt8(ascii: ">") { inTag = false } else if !inTag { out.append(byte) }
        }
        return out
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
