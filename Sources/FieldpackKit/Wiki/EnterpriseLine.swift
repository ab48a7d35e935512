/// The fields fieldpack reads from one Wikimedia Enterprise NDJSON line (unknown keys are
/// ignored, optional ones may be absent). The HTML stays in the JSON parser's buffer until the
/// line is known to be wanted.
struct EnterpriseLine {
    var name: String
    var pageID: Int64?
    var url: String?
    var modified: String?
    var revision: Int64?
    var wikidata: String?
    var language: String?
    /// The wiki the line is of (`is_part_of.identifier`: `enwiki`, `enwiktionary`, …).
    var project: String?
    var license: String?
    var redirects: [String]
    var html: JSONText?

    /// Reads a parsed line.
    ///
    /// - Throws: the reason the line is unusable (no `name`, no `article_body.html`).
    init(_ value: JSONValue) throws {
        guard value.isObject else { throw Problem("the line is not a JSON object") }
        guard let given = value["name"], !given.isNull else { throw Problem("no \"name\"") }
        guard let name = given.string else { throw Problem("\"name\" is \(RecordError.describe(given.kind)), expected the page's title") }
        guard !name.isEmpty else { throw Problem("\"name\" is empty, expected the page's title") }
        self.name = name
        pageID = value["identifier"]?.int64
        url = value["url"]?.string
        modified = value["date_modified"]?.string
        revision = value["version"]?["identifier"]?.int64
        wikidata = value["main_entity"]?["identifier"]?.string
        language = value["in_language"]?["identifier"]?.string
        project = value["is_part_of"]?["identifier"]?.string
        license = value["license"]?.elements.first(where: { _ in true })?["identifier"]?.string
        redirects = value["redirects"]?.elements.compactMap { $0["name"]?.string } ?? []
        guard let body = value["article_body"]?["html"], !body.isNull else { throw Problem("no \"article_body.html\"") }
        guard let html = body.text else { throw Problem("\"article_body.html\" is \(RecordError.describe(body.kind)), expected the page's HTML") }
        self.html = html
    }

    /// Whether a JSON value is an article object: it has an `article_body`, or a `name` with an
    /// `identifier` or a `url`. What tells a file of articles from other JSON (a dump's metadata).
    /// An object of Enterprise's Structured Contents (`sections`, `infoboxes` and no
    /// `article_body`) is not one: it carries no HTML to make a blurb from.
    static func isArticle(_ value: JSONValue) -> Bool {
        guard value.isObject else { return false }
        if value["article_body"] != nil { return true }
        if isStructuredContents(value) { return false }
        return value["name"]?.string != nil && (value["identifier"] != nil || value["url"] != nil)
    }

    /// Whether a JSON object is a Structured Contents article (Enterprise's beta endpoint and its
    /// dataset): parsed sections and infoboxes, no `article_body`.
    static func isStructuredContents(_ value: JSONValue) -> Bool {
        guard value.isObject, value["article_body"] == nil else { return false }
        return ["sections", "article_sections", "infobox", "infoboxes"].contains { value[$0] != nil }
    }

    /// Why a file whose first article-like value is `value` holds no articles, in words.
    static func notArticles(_ value: JSONValue, _ otherwise: String) -> String {
        isStructuredContents(value)
            ? "Enterprise Structured Contents (parsed sections, no \"article_body\" HTML to make a blurb from: take the articles from the On-demand or Snapshot article endpoints)"
            : otherwise
    }

    /// Whether the line is of another wiki than `language`'s Wikipedia: its `is_part_of` names
    /// another (`enwiktionary`, `simplewiki`), or its address is on another site
    /// (`en.wiktionary.org`). Such a line carries the language of the Wikipedia wanted, so the
    /// language alone let a Wiktionary entry replace the article of the same title.
    func isOfAnotherWiki(than language: String) -> Bool {
        if let project {
            // A wiki's database name is its language code with `_` for `-` (`zh_yuewiki`); the
            // Belarusian (Taraškievica) Wikipedia keeps its older name.
            let own = language.lowercased() == "be-tarask" ? "be_x_oldwiki" : language.lowercased().replacingOccurrences(of: "-", with: "_") + "wiki"
            return project.lowercased() != own
        }
        if let host = url.flatMap(WikiTitle.host) { return !host.hasSuffix(".wikipedia.org") }
        return false
    }

    struct Problem: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }
}
