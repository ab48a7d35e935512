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
    /// The parts dropped (or read from a string), each a salvaged finding once the line is wanted.
    var dropped: [RecordError] = []

    /// Reads a parsed line.
    ///
    /// - Throws: the reason the line is unusable (no `name`, no `article_body.html`).
    init(_ value: JSONValue) throws {
        guard value.isObject else { throw Problem("the line is not a JSON object") }
        guard let given = value["name"], !given.isNull else { throw Problem("no \"name\"") }
        guard let name = given.string else { throw Problem("\"name\" is \(RecordError.describe(given.kind)), expected the page's title") }
        guard !name.isEmpty else { throw Problem("\"name\" is empty, expected the page's title") }
        self.name = name
        var dropped: [RecordError] = []
        // A part of the wrong type is dropped with a finding (the line keeps the rest); an id
        // given as a string of digits is read as its number, with a finding.
        func number(_ value: JSONValue?, _ field: String) -> Int64? {
            guard let value, !value.isNull else { return nil }
            if let number = value.int64 { return number }
            if let text = value.string, let number = Int64(text), number > 0, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                dropped.append(RecordError(at: field, "\(field) is the string \"\(text)\", read as the number"))
                return number
            }
            dropped.append(Self.dropping(RecordError.wrongType(field, value, expected: "a whole number")))
            return nil
        }
        func text(_ value: JSONValue?, _ field: String) -> String? {
            guard let value, !value.isNull else { return nil }
            if let text = value.string { return text }
            dropped.append(Self.dropping(RecordError.wrongType(field, value, expected: "a string")))
            return nil
        }
        pageID = number(value["identifier"], "identifier")
        url = text(value["url"], "url")
        modified = text(value["date_modified"], "date_modified")
        if let given = modified, Timestamp.parse(given) == nil {
            dropped.append(RecordError(at: "date_modified", "date_modified \"\(given.prefix(40))\" is not a date and time (RFC 3339): dropped"))
            modified = nil
        }
        revision = number(value["version"]?["identifier"], "version.identifier")
        wikidata = text(value["main_entity"]?["identifier"], "main_entity.identifier")
        language = text(value["in_language"]?["identifier"], "in_language.identifier")
        project = text(value["is_part_of"]?["identifier"], "is_part_of.identifier")
        self.dropped = dropped
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

    /// A part's error as the finding of the part dropped.
    private static func dropping(_ error: RecordError) -> RecordError {
        RecordError(at: error.field, error.reason + ": dropped")
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
