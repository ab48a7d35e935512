/// The licence of a Wikipedia article's text, as fieldpack records it in `articles.license`.
///
/// - The licence the input states wins: an Enterprise line's `license[0].identifier`, a page's
///   `link[rel~="dc:license"]` or `link[rel~="license"]`, or the licence link of a saved page's
///   footer. Creative Commons links become codes (`//creativecommons.org/licenses/by-sa/3.0/` →
///   `CC-BY-SA-3.0`); a link fieldpack does not recognise is kept as the link itself.
/// - Where the input states none, the licence in force on the revision's date: Wikipedia text
///   was published under CC BY-SA 3.0 until the Wikimedia Terms of Use of 7 June 2023, and
///   under CC BY-SA 4.0 from that day.
/// - Where neither a licence nor a date is known, `CC-BY-SA`: every Wikipedia text is under
///   Creative Commons Attribution-ShareAlike, but which version cannot be told, and claiming
///   one would be a guess.
public enum ArticleLicense {
    /// The day the Terms of Use that moved Wikipedia text to CC BY-SA 4.0 took effect.
    public static let termsOfUseChange = "2023-06-07"
    public static let before = "CC-BY-SA-3.0"
    public static let after = "CC-BY-SA-4.0"
    /// The licence family without a version, for text whose licence and date are both unknown.
    public static let versionUnknown = ArticleRecord.defaultLicense

    /// The licence of a text: the stated one, else the one in force at `modified`, else
    /// `versionUnknown`.
    public static func resolve(stated: String?, modified: String?) -> String {
        if let stated, !stated.isEmpty { return stated }
        if let day = modified.flatMap(calendarDay) { return day < termsOfUseChange ? before : after }
        return versionUnknown
    }

    /// The `YYYY-MM-DD` that starts an RFC 3339 time (`2018-06-12T04:32:17.000Z`), or nil if the
    /// text does not start with one.
    static func calendarDay(_ time: String) -> String? {
        let bytes = Array(time.utf8.prefix(10))
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        for index in [0, 1, 2, 3, 5, 6, 8, 9] where !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            return nil
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The licence code a link states: `CC-<KIND>-<VERSION>` for a Creative Commons licence
    /// URL, `CC0-1.0` for the CC0 dedication, the CC BY-SA versions of Wikipedia's own licence
    /// pages (`Wikipedia:Text_of_Creative_Commons_Attribution-ShareAlike_3.0_Unported_License`);
    /// any other link as written (with `https:` before a protocol-relative one). Nil if empty.
    public static func code(ofLink link: String) -> String? {
        let href = String(Substring(link).trimmingSpaces)
        guard !href.isEmpty else { return nil }
        let lower = href.lowercased()
        for marker in ["creativecommons.org/licenses/", "creativecommons.org/publicdomain/"] {
            guard let range = lower.firstRange(of: marker) else { continue }
            let parts = lower[range.upperBound...].split(separator: "/", omittingEmptySubsequences: true)
            guard parts.count >= 2, parts[1].first?.isNumber == true else { break }
            if marker.hasSuffix("publicdomain/") {
                if parts[0] == "zero" { return "CC0-\(parts[1])" }
                break
            }
            return "CC-\(parts[0].uppercased())-\(parts[1])"
        }
        for version in ["3.0", "4.0"] where lower.contains("attribution-sharealike_\(version)") || lower.contains("attribution-sharealike \(version)") {
            return "CC-BY-SA-\(version)"
        }
        return href.hasPrefix("//") ? "https:" + href : href
    }
}
