/// What the blurb keeps: the sections skipped as boilerplate, and the limits of the stub,
/// heading and summary rules. The defaults are the app's old rules, fixed; a pipeline may add
/// section titles (other languages) under `wikipedia_skip_sections`.
public struct BlurbRules: Sendable, Equatable {
    /// Section titles (compared case-insensitively) skipped with everything under them.
    public var skippedSections: Set<String> = BlurbRules.englishBoilerplate
    /// Headings shorter than this (in characters) are not shown.
    public var minimumHeadingLength = 4
    /// A paragraph this long or shorter that does not end in "." is a stub (caption, coordinates).
    public var stubLength = 62
    /// The plain-text summary is cut at a sentence boundary near this many characters.
    public var summaryLength = 300
    /// Articles larger than this are refused (a finding), never parsed.
    public var maximumArticleBytes = 16 << 20

    public init() {}

    public static let englishBoilerplate: Set<String> = [
        "references", "external links", "see also", "bibliography", "footnotes", "further reading", "gallery",
        "species", "subspecies", "selected species", "formerly placed here", "notes", "sources", "citations",
        "notes and references", "works cited",
    ]
}

/// One article's cleaned body: the blurb HTML the app shows, a short plain-text summary of the
/// lead, and what the page is.
public struct Blurb: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case article
        /// A redirect stub: the title it points to.
        case redirect(String)
        case disambiguation
    }

    public var kind: Kind
    /// Safe markup: `p`, `b`, `i`, `br` and text (see `SafeMarkup`).
    public var html: String
    public var summary: String
    /// The document's `<title>`, if any.
    public var title: String?
    /// Sections shown (after the lead).
    public var sections: Int
}
