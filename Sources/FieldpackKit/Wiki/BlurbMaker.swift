/// Makes blurbs from article HTML (see `ArticleCleaner`).
public struct BlurbMaker: Sendable {
    public struct Refusal: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    public var rules: BlurbRules
    /// Build the tree of the trailing boilerplate too (`TreeTail`): only to test that leaving
    /// it unbuilt changes nothing.
    public var buildsWholeTree = false
    /// Read the article while its tree is built, freeing what was read (`TreeStream`); false
    /// only to test that this changes nothing.
    public var readsWhileBuilding = true

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
        // The tree of the trailing boilerplate left unbuilt, unless what was left unbuilt was not
        // inert; then the whole tree; without reading early only if that read another root than
        // the whole document has. Each failed attempt's tree is freed before the next parse.
        var attempt = try blurb(html, leavingTail: true, readingEarly: readsWhileBuilding)
        if attempt == nil { attempt = try blurb(html, leavingTail: false, readingEarly: readsWhileBuilding) }
        if attempt == nil { attempt = try blurb(html, leavingTail: false, readingEarly: false) }
        guard let (document, made) = attempt else {
            preconditionFailure("a whole tree read after its parse always gives a blurb")
        }
        var blurb = made
        // Page properties can sit anywhere, also in a tail left unbuilt.
        if BoilerplateTail.contains("mw:PageProp/disambiguation", in: html) && blurb.kind == .article {
            blurb = Blurb(kind: .disambiguation, html: "", summary: "", title: blurb.title, sections: 0)
        }
        blurb.page = PageMetadata(document: document, html: html)
        return blurb
    }

    /// The document, and its blurb, from one parse; nil when that parse cannot give the whole
    /// document's blurb: it left a tail unbuilt that was not inert, or read early another
    /// content root than the whole document has.
    private func blurb(_ html: UnsafeRawBufferPointer, leavingTail: Bool, readingEarly: Bool) throws -> (HTMLDocument, Blurb)? {
        let stream = readingEarly ? TreeStream(rules: rules) : nil
        let document = try parse(html, leavingTail: leavingTail, stream: stream)
        // A tree that stopped after the proposed heading gives the whole document's blurb only
        // if the tail held nothing the rules read and they read that heading as a skipped section.
        let watch = document.tail.flatMap { $0.phase == .building ? nil : $0 }
        guard let cleaned = ArticleCleaner(rules: rules).clean(document, tailHeading: watch?.heading, readSoFar: stream) else { return nil }
        if let watch, !(watch.stopped && cleaned.skipsAfterTail) { return nil }
        return (document, cleaned.blurb)
    }

    /// The document's tree, its trailing boilerplate left unbuilt (`TreeTail`) if `leavingTail`
    /// and the bytes propose where it starts.
    private func parse(_ html: UnsafeRawBufferPointer, leavingTail: Bool, stream: TreeStream?) throws -> HTMLDocument {
        let rules = self.rules
        let tail: ((UnsafeBufferPointer<UInt8>) -> TreeTail?)? = buildsWholeTree || !leavingTail ? nil : { bytes in
            BoilerplateTail.headingTagEnd(in: bytes, skipped: rules.skippedSections).map { TreeTail(stopAt: $0, rules: rules, bytes: bytes) }
        }
        do {
            return try HTMLDocument.parse(html, limit: rules.maximumArticleBytes, tail: tail, stream: stream)
        } catch {
            throw Refusal(description: error.description)
        }
    }

    public func blurb(html: String) throws -> Blurb {
        var copy = html
        return try copy.withUTF8 { try blurb(html: UnsafeRawBufferPointer($0)) }
    }
}
