/// Makes blurbs from article HTML (see `ArticleCleaner`).
public struct BlurbMaker: Sendable {
    public struct Refusal: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    public var rules: BlurbRules
    /// Parse only up to the trailing boilerplate (`BoilerplateCut`); off only to test that the
    /// cut changes nothing.
    public var cutsBoilerplate = true

    public init(rules: BlurbRules = BlurbRules()) {
        self.rules = rules
    }

    /// The blurb of one article's HTML (a whole document or a fragment), with what the page
    /// says about itself (`Blurb.page`).
    ///
    /// - Throws: `Refusal` if the HTML is over `rules.maximumArticleBytes` or nests past
    ///   libxml2's depth limit.
    public func blurb(html: UnsafeRawBufferPointer) throws -> Blurb {
        guard html.count <= rules.maximumArticleBytes else {
            throw Refusal(description: "\(html.count) bytes of HTML, over the \(rules.maximumArticleBytes)-byte limit")
        }
        // Page properties can sit anywhere: look for them before cutting.
        let disambiguation = BoilerplateCut.contains("mw:PageProp/disambiguation", in: html)
        var parsed = html
        if cutsBoilerplate, let cut = BoilerplateCut.offset(in: html, skipped: rules.skippedSections) {
            parsed = UnsafeRawBufferPointer(rebasing: html[0..<cut])
        }
        let document: HTMLDocument
        do {
            document = try HTMLDocument.parse(parsed, limit: rules.maximumArticleBytes)
        } catch {
            throw Refusal(description: error.description)
        }
        var blurb = ArticleCleaner(rules: rules).clean(document)
        if disambiguation && blurb.kind == .article {
            blurb = Blurb(kind: .disambiguation, html: "", summary: "", title: blurb.title, sections: 0)
        }
        blurb.page = PageMetadata(document: document, html: html)
        return blurb
    }

    public func blurb(html: String) throws -> Blurb {
        var copy = html
        return try copy.withUTF8 { try blurb(html: UnsafeRawBufferPointer($0)) }
    }
}
