/// Makes blurbs from article HTML (see `ArticleCleaner`).
public struct BlurbMaker: Sendable {
    public struct Refusal: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    public var rules: BlurbRules
    /// Build the tree of the trailing boilerplate too (`TreeTail`): only to test that leaving
    /// it unbuilt changes nothing.
    public var buildsWholeTree = false

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
        let document: HTMLDocument
        var blurb: Blurb
        if let made = try blurbLeavingTail(html) {
            (document, blurb) = made
        } else {
            // The tree left unbuilt was not inert: parse it whole (the partial tree is freed by now).
            document = try parse(html, leavingTail: false)
            blurb = ArticleCleaner(rules: rules).clean(document)
        }
        // Page properties can sit anywhere, also in a tail left unbuilt.
        if BoilerplateTail.contains("mw:PageProp/disambiguation", in: html) && blurb.kind == .article {
            blurb = Blurb(kind: .disambiguation, html: "", summary: "", title: blurb.title, sections: 0)
        }
        blurb.page = PageMetadata(document: document, html: html)
        return blurb
    }

    /// The document, and its blurb, from a tree that leaves the trailing boilerplate unbuilt
    /// where that gives the whole document's blurb; nil when the whole tree must be built.
    private func blurbLeavingTail(_ html: UnsafeRawBufferPointer) throws -> (HTMLDocument, Blurb)? {
        let document = try parse(html, leavingTail: true)
        guard let watch = document.tail, watch.phase != .building else {
            return (document, ArticleCleaner(rules: rules).clean(document))
        }
        // The tree stops after the proposed heading: its blurb is the whole document's only if
        // the tail held nothing the rules read and they read that heading as a skipped section.
        let cleaned = ArticleCleaner(rules: rules).clean(document, tailHeading: watch.heading)
        return watch.stopped && cleaned.skipsAfterTail ? (document, cleaned.blurb) : nil
    }

    /// The document's tree, its trailing boilerplate left unbuilt (`TreeTail`) if `leavingTail`
    /// and the bytes propose where it starts.
    private func parse(_ html: UnsafeRawBufferPointer, leavingTail: Bool) throws -> HTMLDocument {
        let rules = self.rules
        let tail: ((UnsafeBufferPointer<UInt8>) -> TreeTail?)? = buildsWholeTree || !leavingTail ? nil : { bytes in
            BoilerplateTail.headingTagEnd(in: bytes, skipped: rules.skippedSections).map { TreeTail(stopAt: $0, rules: rules, bytes: bytes) }
        }
        do {
            return try HTMLDocument.parse(html, limit: rules.maximumArticleBytes, tail: tail)
        } catch {
            throw Refusal(description: error.description)
        }
    }

    public func blurb(html: String) throws -> Blurb {
        var copy = html
        return try copy.withUTF8 { try blurb(html: UnsafeRawBufferPointer($0)) }
    }
}
