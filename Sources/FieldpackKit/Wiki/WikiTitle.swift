/// Wikipedia titles compared the way Wikipedia does: percent-encoding decoded, underscores and
/// the other spaces MediaWiki folds (no-break, ideographic, the U+2000 block, …) as spaces,
/// direction marks dropped, runs of spaces collapsed and trimmed, the first letter upper case
/// (the rest is case-sensitive).
public enum WikiTitle {
    /// The order of titles in `articles.jsonl`: by their UTF-8 bytes.
    static func byteOrder(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    public static func normalize(_ title: String) -> String { normalize(title, dottedCapitalI: false) }

    /// `normalize` as the wiki of `language` capitalizes: Turkish and Azerbaijani Wikipedia make
    /// a leading `i` the dotted `İ` (MediaWiki's `LanguageTr`, which `LanguageAz` extends), so a
    /// destination typed `istanbul` is `İstanbul` there, as the dumps title it, not `Istanbul`.
    public static func normalize(_ title: String, language: String) -> String {
        normalize(title, dottedCapitalI: language == "tr" || language == "az")
    }

    private static func normalize(_ title: String, dottedCapitalI: Bool) -> String {
        var decoded = percentDecoded(title)
        if holdsFoldedScalar(decoded.utf8) { decoded = foldingSpacesAndMarks(decoded) }
        var words: [Substring] = []
        for word in decoded.replacingOccurrences(of: "_", with: " ").split(separator: " ") { words.append(word) }
        var text = words.joined(separator: " ")
        if let first = text.first {
            text = (dottedCapitalI && first == "i" ? "\u{130}" : firstLetterUppercased(first)) + text.dropFirst()
        }
        return text
    }

    /// Whether the UTF-8 holds one of the scalars `foldingSpacesAndMarks` changes, told from its
    /// lead bytes (every line of a dump has its title normalized; few titles hold one).
    private static func holdsFoldedScalar(_ bytes: String.UTF8View) -> Bool {
        var previous: (UInt8, UInt8) = (0, 0)
        for byte in bytes {
            defer { previous = (previous.1, byte) }
            guard byte >= 0x80 else { continue }
            switch (previous.0, previous.1, byte) {
            case (_, 0xC2, 0xA0), (0xE1, 0x9A, 0x80), (0xE1, 0xA0, 0x8E), (0xE2, 0x81, 0x9F), (0xE3, 0x80, 0x80): return true
            case (0xE2, 0x80, let last) where last <= 0x8A || last == 0x8E || last == 0x8F || (0xA8...0xAF).contains(last): return true
            default: continue
            }
        }
        return false
    }

    /// The spaces MediaWiki's title codec folds into one (`Große\u{A0}Seen` is `Große Seen`) as
    /// ` `, and the direction marks and overrides it strips, dropped.
    private static func foldingSpacesAndMarks(_ title: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in title.unicodeScalars {
            switch scalar.value {
            case 0xA0, 0x1680, 0x180E, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: scalars.append(" ")
            case 0x200E, 0x200F, 0x202A...0x202E: continue
            default: scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    /// The first letter as MediaWiki capitalizes it: Georgian keeps its letter (MediaWiki keeps
    /// `დ`, where Unicode's upper case is the Mtavruli `Დ`), and a letter whose upper case is
    /// more than one (`ß` → `SS`, `ŉ`) keeps itself, as MediaWiki's overrides keep them.
    private static func firstLetterUppercased(_ first: Character) -> String {
        let scalars = first.unicodeScalars
        if let lead = scalars.first, (0x10D0...0x10FF).contains(lead.value) { return String(first) }
        let upper = String(first).uppercased()
        return upper.unicodeScalars.count > scalars.count ? String(first) : upper
    }

    /// The host of an absolute (or scheme-relative) address, lower-cased; nil for another address.
    static func host(_ url: String) -> String? {
        var rest = Substring(url)
        guard let scheme = ["https://", "http://", "//"].first(where: { rest.hasPrefix($0) }) else { return nil }
        rest = rest.dropFirst(scheme.count)
        let host = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return host.isEmpty ? nil : host.lowercased()
    }

    /// A stated article address as the bundle ships it, the credit link the app opens: an
    /// absolute `https://` URL (`http://` and a protocol-relative `//` taken as https, as
    /// Wikipedia serves every page) on the wiki's own host (`<language>.wikipedia.org`, or its
    /// mobile `<language>.m.wikipedia.org`); nil for anything else, which the stage replaces
    /// with the address built from the title (another site, a relative `/wiki/…`, a
    /// `javascript:` or `data:` URL, a space or control character inside it).
    static func shippedURL(_ stated: String, language: String) -> String? {
        guard let scheme = ["https://", "http://", "//"].first(where: { stated.hasPrefix($0) }) else { return nil }
        let rest = stated.utf8.dropFirst(scheme.utf8.count)
        let host = rest.prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
        let hostName = String(decoding: host, as: UTF8.self).lowercased()
        guard hostName == "\(language.lowercased()).wikipedia.org" || hostName == "\(language.lowercased()).m.wikipedia.org",
              !rest.contains(where: { $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") || $0 == UInt8(ascii: "\\") })
        else { return nil }
        return "https://" + String(decoding: rest, as: UTF8.self)
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
        guard host.hasSuffix(".wikipedia.org") else { return nil }
        if path.hasPrefix("/wiki/") {
            path = path.dropFirst("/wiki/".count)
        } else if host.hasPrefix("zh.") || host.hasPrefix("zh-"), let variant = Self.chineseVariantPath(path) {
            // Chinese Wikipedia's variant links (`/zh-hans/大山雀`, `/zh-tw/…`): the same article.
            path = variant
        } else if path.hasPrefix("/w/index.php?"), let title = Self.queryTitle(path.dropFirst("/w/index.php?".count)) {
            // The script's own address (`/w/index.php?title=Great_tit&oldid=…`): the same article
            // (a query writes a space as `+`, a `+` as `%2B`).
            path = Substring(String(title).replacingOccurrences(of: "+", with: " "))
        } else {
            return nil
        }
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
        let language = host.dropLast(".wikipedia.org".count).split(separator: ".").first.map(String.init) ?? ""
        let title = normalize(String(path), language: language)
        guard !title.isEmpty, !language.isEmpty, language != "www" else { return nil }
        return (language, title)
    }

    /// A saved page's title, as the wiki stage names it: from the page's own link (canonical,
    /// or Parsoid's `dc:isVersionOf`), which names its wiki's language too; else its `<title>`,
    /// less the wiki's name; else the file's name, less its extension.
    public static func ofPage(url: String?, title: String?, fileName: String) -> (title: String, language: String?) {
        if let fromURL = url.flatMap(fromURL) { return (fromURL.title, fromURL.language) }
        if let title { return (normalize(withoutSiteName(title)), nil) }
        var name = String(fileName.split(separator: "/").last ?? "")
        if let dot = name.lastIndex(of: ".") { name = String(name[..<dot]) }
        return (normalize(name), nil)
    }

    /// The `title` parameter of a query (`title=Great_tit&oldid=12`), up to the next `&` or `#`.
    private static func queryTitle(_ query: Substring) -> Substring? {
        for parameter in query.split(separator: "&") where parameter.hasPrefix("title=") {
            let value = parameter.dropFirst("title=".count)
            return value.firstIndex(of: "#").map { value[..<$0] } ?? value
        }
        return nil
    }

    /// The title part of a Chinese variant path (`/zh-hans/大山雀` → `大山雀`), or nil.
    private static func chineseVariantPath(_ path: Substring) -> Substring? {
        let parts = path.dropFirst().split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard path.hasPrefix("/"), parts.count == 2, parts[0].hasPrefix("zh-"), parts[0].count <= 7,
              parts[0].dropFirst(3).allSatisfy({ $0.isASCII && $0.isLetter })
        else { return nil }
        return parts[1]
    }

    /// A saved page's `<title>` without the wiki's name after it: `Kohlmeise – Wikipedia`,
    /// `Mésange charbonnière — Wikipédia`, `Большая синица — Википедия`, `大山雀 - 维基百科，自由的百科全书`.
    /// The part after the last spaced dash (of any kind) goes when it names Wikipedia in one of
    /// its spellings.
    public static func withoutSiteName(_ title: String) -> String {
        // Each wiki's own name for itself, as its pages' titles end (lower-cased stems).
        let names: [StaticString] = [
            "wiki", "vikip", "вики", "вікі", "уикипедия", "ויקיפדיה", "ويكيبيديا", "ویکی", "ويکي", "维基", "維基", "ウィキペディア",
            "위키백과", "βικιπαίδεια", "विकिपीडिया", "বিকিপিডিয়া", "উইকিপিডিয়া", "ਵਿਕੀਪੀਡੀਆ", "વિકિપીડિયા", "விக்கிப்பீடியா",
            "వికీపీడియా", "ವಿಕಿಪೀಡಿಯ", "വിക്കിപീഡിയ", "විකිපීඩියා", "วิกิพีเดีย", "ວິກິພີເດຍ", "ဝီကီပီးဒီးယား", "វិគីភីឌា",
            "ვიკიპედია", "վիքիպեդիա", "ውክፔዲያ",
        ]
        // The last spaced dash of any of the three kinds ("Rock - Paper – Wikipedia").
        let last = [" - ", " – ", " — "].compactMap { title.ranges(of: $0).last }.max { $0.lowerBound < $1.lowerBound }
        guard let range = last else { return title }
        // Compared as UTF-8, not as characters: a zero-width non-joiner ("ویکی‌پدیا") joins
        // the letter before it into one character, which the stem's own letter is not.
        let site = Array(title[range.upperBound...].lowercased().utf8)
        let named = site.withUnsafeBytes { bytes in names.contains { firstOffset(of: $0, in: bytes) != nil } }
        return named ? String(title[..<range.lowerBound]) : title
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
