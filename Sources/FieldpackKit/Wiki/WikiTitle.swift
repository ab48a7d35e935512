/// Wikipedia titles compared the way Wikipedia does: percent-encoding decoded, underscores as
/// spaces, runs of spaces collapsed and trimmed, the first letter upper case (the rest is
/// case-sensitive).
public enum WikiTitle {
    /// The order of titles in `articles.jsonl`: by their UTF-8 bytes.
    static func byteOrder(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    public static func normalize(_ title: String) -> String {
        let decoded = percentDecoded(title)
        var words: [Substring] = []
        for word in decoded.replacingOccurrences(of: "_", with: " ").split(separator: " ") { words.append(word) }
        var text = words.joined(separator: " ")
        if let first = text.first {
            text = String(first).uppercased() + text.dropFirst()
        }
        return text
    }

    /// The title of a Wikipedia article URL (`http://en.wikipedia.org/wiki/Great_tit` → `Great tit`),
    /// with its language (`en`); nil if it is not one.
    public static func fromURL(_ url: String) -> (language: String, title: String)? {
        var rest = Substring(url)
        for scheme in ["https://", "http://", "//"] where rest.hasPrefix(scheme) {
            rest = rest.dropFirst(scheme.count)
            break
        }
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        let host = rest[..<slash].lowercased()
        var path = rest[slash...]
        guard host.hasSuffix(".wikipedia.org"), path.hasPrefix("/wiki/") else { return nil }
        path = path.dropFirst("/wiki/".count)
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
        let language = host.dropLast(".wikipedia.org".count).split(separator: ".").first.map(String.init) ?? ""
        let title = normalize(String(path))
        guard !title.isEmpty, !language.isEmpty, language != "www" else { return nil }
        return (language, title)
    }

    static func percentDecoded(_ text: String) -> String {
        guard text.contains("%") else { return text }
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var index = 0
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: return byte - 0x30
            case 0x41...0x46: return byte - 0x41 + 10
            case 0x61...0x66: return byte - 0x61 + 10
            default: return nil
            }
        }
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count, let high = hex(utf8[index + 1]), let low = hex(utf8[index + 2]) {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
