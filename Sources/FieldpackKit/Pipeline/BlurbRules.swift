/// What the blurb keeps: the sections skipped as boilerplate, and the limits of the stub,
/// heading and summary rules. The defaults are the app's old rules, fixed; a pipeline may add
/// section titles (other languages) under `wikipedia_skip_sections`.
public struct BlurbRules: Sendable, Equatable {
    /// Section titles (compared case-insensitively) skipped with everything under them.
    public var skippedSections: Set<String> = BlurbRules.englishBoilerplate
    /// Headings narrower than this (in columns: CJK characters count two) are not shown.
    public var minimumHeadingLength = 4
    /// A paragraph this long or shorter (in Unicode scalars) that does not end a sentence, in any
    /// script, is a stub (caption, coordinates).
    public var stubLength = 62
    /// The plain-text summary is cut at a sentence boundary near this many characters.
    public var summaryLength = 300
    /// Articles larger than this are refused (a finding), never parsed.
    public var maximumArticleBytes = 16 << 20
    /// The wiki's language (`wikipedia_language`): how its headings are written in capitals
    /// (`Capitals`: Turkish `İ`, Greek without accents).
    public var language = "en"

    public init() {}

    public static let englishBoilerplate: Set<String> = [
        "references", "external links", "see also", "bibliography", "footnotes", "further reading", "gallery",
        "species", "subspecies", "selected species", "formerly placed here", "notes", "sources", "citations",
        "notes and references", "works cited",
    ]
}
