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
    /// What the page's HTML says about itself (page id, revision, date, licence, address).
    public var page = PageMetadata()
}
