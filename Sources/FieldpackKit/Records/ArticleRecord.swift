/// One article of the wiki stage's `articles.jsonl`, sorted by title: what the bundle loads into
/// `articles`, and which taxa and destinations it describes.
///
/// Unlike the records files, each line is a JSON object: there are thousands of articles, not
/// millions, and a person reads the file.
public struct ArticleRecord: Sendable, Equatable {
    /// The keys, in the order they are written; the one definition of the line's layout.
    public enum Key: Int, CaseIterable, Sendable {
        case title, pageID, revision, modified, url, language, wikidata, license, taxa, destinations, sections
        case summary, html

        /// The key's name in the line, and the `articles` column it loads into unchanged (nil for
        /// the requesters, which give `taxa.article_id` and `destinations.article_id`).
        public var spec: (name: StaticString, bundleColumn: String?) {
            switch self {
            case .title: ("title", "title")
            case .pageID: ("page_id", "page_id")
            case .revision: ("revision", "revision")
            case .modified: ("modified", "modified")
            case .url: ("url", "url")
            case .language: ("language", "language")
            case .wikidata: ("wikidata", "wikidata_id")
            case .license: ("license", "license")
            case .taxa: ("taxa", nil)
            case .destinations: ("destinations", nil)
            case .sections: ("sections", "sections")
            case .summary: ("summary", "summary")
            case .html: ("html", "blurb_html")
            }
        }

        public var name: StaticString { spec.name }
        public var bundleColumn: String? { spec.bundleColumn }
    }

    public static let defaultLanguage = "en"
    /// The licence of an article whose input states none and gives no date: Wikipedia text is
    /// always CC BY-SA, but the version (3.0 before the Terms of Use of June 2023, 4.0 after)
    /// cannot be told. See `ArticleLicense`.
    public static let defaultLicense = "CC-BY-SA"

    public var title: String
    public var pageID: Int64? = nil
    public var revision: Int64? = nil
    public var modified: String? = nil
    public var url: String
    public var language: String = ArticleRecord.defaultLanguage
    public var wikidata: String? = nil
    public var license: String = ArticleRecord.defaultLicense
    /// The taxa (ids) and destinations (pipeline ids) that asked for the article, ascending.
    public var taxa: [Int64] = []
    public var destinations: [String] = []
    public var sections: Int64 = 0
    public var summary: String
    public var html: String

    public init(title: String, url: String, summary: String, html: String) {
        self.title = title
        self.url = url
        self.summary = summary
        self.html = html
    }

    /// `INSERT INTO articles (id, <bundle columns in key order>) VALUES (…)`: bind the id, then
    /// `bind(to:)`'s values.
    public static let insertSQL = SQLText.insert(
        into: "articles", columns: ["id"] + Key.allCases.compactMap(\.bundleColumn))

    /// The values for `insertSQL` after the id: one per key with a bundle column, in key order.
    public var bundleValues: [SQLValue] {
        Key.allCases.filter { $0.bundleColumn != nil }.map { key -> SQLValue in
            switch key {
            case .title: .text(title)
            case .pageID: pageID.map { .integer($0) } ?? .null
            case .revision: revision.map { .integer($0) } ?? .null
            case .modified: modified.map { .text($0) } ?? .null
            case .url: .text(url)
            case .language: .text(language)
            case .wikidata: wikidata.map { .text($0) } ?? .null
            case .license: .text(license)
            case .sections: .integer(sections)
            case .summary: .text(summary)
            case .html: .text(html)
            case .taxa, .destinations: preconditionFailure("\(key) has no bundle column")
            }
        }
    }

    /// Writes the article as one JSON Lines object.
    public func encode(into out: inout JSONWriter) {
        out.beginObject()
        for key in Key.allCases {
            out.key(key.name)
            switch key {
            case .title: out.string(title)
            case .pageID: out.int(pageID)
            case .revision: out.int(revision)
            case .modified: out.string(modified)
            case .url: out.string(url)
            case .language: out.string(language)
            case .wikidata: out.string(wikidata)
            case .license: out.string(license)
            case .taxa:
                out.beginArray()
                for id in taxa { out.int(id) }
                out.endArray()
            case .destinations:
                out.beginArray()
                for id in destinations { out.string(id) }
                out.endArray()
            case .sections: out.int(sections)
            case .summary: out.string(summary)
            case .html: out.string(html)
            }
        }
        out.endObject()
        out.newline()
    }

    /// Reads one line of `articles.jsonl`.
    ///
    /// - Throws: `FieldpackError` naming the file and line if the title, URL, summary or HTML is
    ///   missing.
    public init(decoding record: JSONValue, path: String, line: Int) throws {
        try self.init(decoding: record, path: path, line: line, keepingHTML: true)
    }

    /// Reads one line of `articles.jsonl` but for its HTML, left empty: the bundle stage binds the
    /// HTML from the parser's bytes (`htmlText(of:)`, `bundleValuesButHTML`). A Swift `String` of
    /// it checked again the UTF-8 simdjson had checked, into a buffer of its own: on the
    /// benchmark's 16,065 articles (352 MB of blurbs), about a quarter of the articles' load.
    init(decodingAllButHTML record: JSONValue, path: String, line: Int) throws {
        try self.init(decoding: record, path: path, line: line, keepingHTML: false)
    }

    private init(decoding record: JSONValue, path: String, line: Int, keepingHTML: Bool) throws {
        guard let title = record[Key.title.name]?.string, let url = record[Key.url.name]?.string,
              let html = Self.htmlText(of: record), let summary = record[Key.summary.name]?.string
        else { throw FieldpackError(path: path, line: line, "an article needs a title, url, html and summary") }
        self.init(title: title, url: url, summary: summary, html: keepingHTML ? html.string : "")
        pageID = record[Key.pageID.name]?.int64
        revision = record[Key.revision.name]?.int64
        modified = record[Key.modified.name]?.string
        language = record[Key.language.name]?.string ?? Self.defaultLanguage
        wikidata = record[Key.wikidata.name]?.string
        license = record[Key.license.name]?.string ?? Self.defaultLicense
        taxa = record[Key.taxa.name]?.elements.compactMap(\.int64) ?? []
        destinations = record[Key.destinations.name]?.elements.compactMap(\.string) ?? []
        sections = record[Key.sections.name]?.int64 ?? 0
    }

    /// A line's HTML, in its parser's buffer: valid until the parser parses again.
    static func htmlText(of record: JSONValue) -> JSONText? { record[Key.html.name]?.text }

    /// `bundleValues` but the HTML's, the last: the HTML is bound at `htmlParameter`.
    var bundleValuesButHTML: [SQLValue] { Array(bundleValues.dropLast()) }

    /// The HTML's parameter of `insertSQL`: its last, after the id and the other bundle columns.
    static let htmlParameter: Int = {
        let columns = Key.allCases.filter { $0.bundleColumn != nil }
        precondition(columns.last == .html, "the HTML must be the last bundle column")
        return 1 + columns.count
    }()
}
