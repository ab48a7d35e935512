/// Makes blurbs from article HTML (see `ArticleCleaner`).
public struct BlurbMaker: Sendable {
    public struct Refusal: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    public var rules: BlurbRules

    public init(rules: BlurbRules = BlurbRules()) {
        self.rules = rules
    }

    /// The blurb of one article's HTML (a whole document or a fragment).
    ///
    /// - Throws: `Refusal` if the HTML is over `rules.maximumArticleBytes` or nests past
    ///   libxml2's depth limit.
    public func blurb(html: UnsafeRawBufferPointer) throws -> Blurb {
        let document: HTMLDocument
        do {
            document = try HTMLDocument.parse(html, limit: rules.maximumArticleBytes)
        } catch {
            throw Refusal(description: (error as? HTMLDocument.Refusal)?.description ?? "\(error)")
        }
        return ArticleCleaner(rules: rules).clean(document)
    }

    public func blurb(html: String) throws -> Blurb {
        var copy = html
        return try copy.withUTF8 { try blurb(html: UnsafeRawBufferPointer($0)) }
    }
}
