/// A heading in capitals as its language writes them, where Unicode's default casing (which
/// knows no language) writes them wrong: Turkish and Azerbaijani capitalise `i` as the dotted
/// `İ` (`FİZİKSEL`, not `FIZIKSEL`, a misspelling), and Greek drops its accents in capitals
/// (`ΠΕΡΙΓΡΑΦΗ`, not `ΠΕΡΙΓΡΑΦΉ`), keeping a diaeresis.
enum Capitals {
    static func of(_ text: String, language: String) -> String {
        switch language {
        case "tr", "az":
            // `ı` becomes `I` by default; only `i` needs its dot kept.
            var dotted = String.UnicodeScalarView()
            for scalar in text.unicodeScalars { dotted.append(scalar == "i" ? "\u{130}" : scalar) }
            return String(dotted).uppercased()
        case "el":
            var plain = String.UnicodeScalarView()
            for scalar in text.uppercased().unicodeScalars {
                switch scalar.value {
                case 0x0301: continue  // a combining acute (tonos), as `ΐ` capitalises
                case 0x0344: plain.append("\u{308}")  // a combining dialytika tonos: the diaeresis stays
                default: plain.append(unaccentedGreekCapitals[scalar.value].map { Unicode.Scalar($0)! } ?? scalar)
                }
            }
            return String(plain)
        default:
            return text.uppercased()
        }
    }

    /// The Greek capitals with tonos, and without.
    private static let unaccentedGreekCapitals: [UInt32: UInt32] = [
        0x0386: 0x0391, 0x0388: 0x0395, 0x0389: 0x0397, 0x038A: 0x0399, 0x038C: 0x039F, 0x038E: 0x03A5, 0x038F: 0x03A9,
    ]
}
