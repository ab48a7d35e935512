/// What a bracketed citation marker left as plain text holds: a note number (`12`, `1.1`, never
/// starting with 0), a note letter (`a`), a reference group's name and number (`note 3`,
/// `lower-alpha 1`, `group 1.2`), or `citation needed`. Ordinary bracketed text (`[in 1758]`,
/// `[sic]`, `[0]`) is not one.
enum CitationLabel {
    /// Reference group names as Cite renders them in markers (`{{efn}}`, `{{NoteTag}}`, `<ref group=…>`).
    static let groupNames: Set<String> = [
        "note", "notes", "nb", "n", "fn", "group", "lower-alpha", "upper-alpha", "lower-roman", "upper-roman",
        "lower-greek", "upper-greek", "lower-latin", "upper-latin", "decimal", "alpha", "roman", "greek", "lower", "upper",
    ]

    static func matches(_ label: ArraySlice<UInt8>) -> Bool {
        guard !label.isEmpty else { return false }
        let text = String(decoding: label, as: UTF8.self)
        if text == "citation needed" || text == "clarification needed" { return true }
        if text.unicodeScalars.count == 1, let scalar = text.unicodeScalars.first, scalar.properties.isLowercase { return true }
        if isNoteNumber(Substring(text)) { return true }
        let words = text.split(separator: " ")
        return words.count == 2 && groupNames.contains(words[0].lowercased())
            && (isNoteNumber(words[1]) || (words[1].count == 1 && words[1].allSatisfy(\.isLetter)))
    }

    /// Digits with dots (`12`, `1.1`), not starting with 0.
    private static func isNoteNumber(_ part: Substring) -> Bool {
        guard let first = part.utf8.first, first != UInt8(ascii: "0") else { return false }
        return part.split(separator: ".", omittingEmptySubsequences: false).allSatisfy {
            !$0.isEmpty && $0.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        }
    }
}
