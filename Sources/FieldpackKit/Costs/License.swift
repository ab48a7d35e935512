/// Photo licences as the API and the open-data export write them, and who may ship what.
public enum License: String, CaseIterable, Sendable {
    case cc0, pd
    case ccBy = "cc-by", ccBySa = "cc-by-sa", ccByNd = "cc-by-nd", ccByNc = "cc-by-nc"
    case ccByNcSa = "cc-by-nc-sa", ccByNcNd = "cc-by-nc-nd", gfdl
    /// `null` in the API: all rights reserved.
    case allRightsReserved = "all-rights-reserved"

    /// Reads a code in either case (`cc-by` from the API, `CC-BY` from the open-data export);
    /// nil (no code) is all rights reserved. Unknown codes give nil.
    public static func parse(_ code: String?) -> License? {
        guard let code, !code.isEmpty else { return .allRightsReserved }
        if let license = License(rawValue: code) { return license }
        return License(rawValue: code.lowercased())
    }

    /// `parse` on a code's bytes (a JSON string's, unescaped), without making a String of it.
    /// Letters compare in ASCII case only: no other character lower-cases to one of the codes'.
    static func parse(_ code: JSONText?) -> License? {
        guard let code, !code.isEmpty else { return .allRightsReserved }
        for (bytes, license) in codes where bytes.count == code.count {
            let own = code.start.assumingMemoryBound(to: UInt8.self)
            if bytes.indices.allSatisfy({ (own[$0] >= 0x41 && own[$0] <= 0x5A ? own[$0] | 0x20 : own[$0]) == bytes[$0] }) { return license }
        }
        return nil
    }

    /// Each licence's code as bytes, for `parse(_:)` on bytes.
    private static let codes: [(bytes: [UInt8], license: License)] = allCases.map { (Array($0.rawValue.utf8), $0) }

    /// The case's place in `allCases` (for counts kept per licence).
    var ordinal: Int { Self.allCases.firstIndex(of: self)! }

    /// Whether iNaturalist serves a photo of this licence from its open-data bucket (any CC
    /// licence, CC0, PD; INAT.md §1.4, §3), else from its static host (all rights reserved, GFDL).
    var isServedFromOpenData: Bool { self != .allRightsReserved && self != .gfdl }

    /// The app sells content: by default only licences that allow commercial use ship.
    public static let commercialDefault: Set<License> = [.cc0, .pd, .ccBy, .ccBySa]

    /// The short label in credits: "CC BY-NC", "CC0".
    public var shortName: String {
        switch self {
        case .cc0: return "CC0"
        case .pd: return "public domain"
        case .gfdl: return "GFDL"
        case .allRightsReserved: return "all rights reserved"
        default: return "CC " + rawValue.dropFirst(3).uppercased()
        }
    }

    /// The credit line, built from the licence and the photographer's name (never parsed from the
    /// API's attribution string, which is localised, may be a bare "no rights reserved" for CC0,
    /// and may hold stray newlines). nil if there is no name to credit.
    public func credit(name: String?) -> String? {
        let cleaned = name.map(Self.collapsingWhitespace) ?? ""
        guard !cleaned.isEmpty else { return nil }
        switch self {
        case .cc0: return "\(cleaned), no rights reserved (CC0)"
        case .pd: return "\(cleaned), no known copyright restrictions (public domain)"
        // iNaturalist's own string says "all rights reserved" for the GFDL too; the licence
        // asks for its notice, so the credit names it.
        case .allRightsReserved: return "(c) \(cleaned), all rights reserved"
        default: return "(c) \(cleaned), some rights reserved (\(shortName))"
        }
    }

    /// Runs of whitespace (stray newlines, double spaces) as one space, none at the ends, and
    /// no control character, direction override or isolate, zero-width space or byte order mark
    /// (a U+202E in a name turned the licence after it around; a BEL was shipped as it was).
    /// Most names are clean already (single inner spaces, no control characters, none of the
    /// UTF-8 lead bytes that can start a Unicode space or such a mark: C2, D8, E1, E2, E3, EF):
    /// those are returned as they are.
    static func collapsingWhitespace(_ name: String) -> String {
        var previousSpace = true
        for byte in name.utf8 {
            let space = byte == 0x20
            if byte < 0x20 || byte == 0x7F || byte == 0xC2 || byte == 0xD8 || (byte >= 0xE1 && byte <= 0xE3) || byte == 0xEF
                || (space && previousSpace)
            {
                return collapsed(name)
            }
            previousSpace = space
        }
        return previousSpace ? collapsed(name) : name
    }

    private static func collapsed(_ name: String) -> String {
        var kept = String.UnicodeScalarView()
        for scalar in name.unicodeScalars where !isInvisibleMark(scalar) { kept.append(scalar) }
        return String(kept).split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// A control character that is not whitespace (C0, DEL, C1), a bidirectional embedding,
    /// override or isolate (U+202A–U+202E, U+2066–U+2069) or mark (U+200E, U+200F, the Arabic
    /// letter mark U+061C: a leading one turned the credit line's direction), a zero-width space
    /// (U+200B), a word joiner or invisible operator (U+2060–U+2064), the Mongolian vowel
    /// separator (U+180E), a Hangul filler (U+115F, U+1160, U+3164, U+FFA0: letters that show
    /// nothing, a name of them alone a blank credit) or a byte order mark (U+FEFF). Joiners
    /// (U+200C, U+200D), which Persian and emoji need, stay.
    static func isInvisibleMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return !scalar.properties.isWhitespace
        case 0x061C, 0x115F, 0x1160, 0x180E, 0x200B, 0x200E, 0x200F, 0x202A...0x202E, 0x2060...0x2064, 0x2066...0x2069, 0x3164, 0xFEFF, 0xFFA0:
            return true
        default: return false
        }
    }
}
