import FieldpackKit
import FieldpackTestSupport
import Foundation

/// Small inputs for the wiki stage in the real markup's shape, and a run of the stage on them.
enum WikiHarness {
    static let fixtures = "\(repositoryRoot)/Tests/FieldpackKitTests/Fixtures/wiki"

    static let tit = "The great tit is a small passerine bird of the woods, parks and gardens of Europe."

    /// An Enterprise article object: `name`, `article_body.html` and any other fields.
    static func article(_ name: String, _ html: String, _ fields: [String: Any] = [:]) -> [String: Any] {
        var object: [String: Any] = ["name": name, "article_body": ["html": html]]
        for (key, value) in fields { object[key] = value }
        return object
    }

    /// One NDJSON line of `article(…)`.
    static func line(_ name: String, _ html: String, _ fields: [String: Any] = [:]) -> String {
        json(article(name, html, fields))
    }

    static func json(_ value: Any, pretty: Bool = false) -> String {
        let options: JSONSerialization.WritingOptions = pretty ? [.sortedKeys, .prettyPrinted] : [.sortedKeys]
        return String(decoding: try! JSONSerialization.data(withJSONObject: value, options: options), as: UTF8.self)
    }

    /// A Parsoid document (as REST and Enterprise serve it) whose blurb is `<p>sentence</p>`,
    /// with whichever of its head's metadata are given.
    static func parsoid(
        _ sentence: String = tit, title: String? = nil, pageID: Int? = nil, revision: Int? = nil, modified: String? = nil,
        license: String? = nil, isVersionOf: String? = nil
    ) -> String {
        var html = "<!DOCTYPE html>\n<html prefix=\"dc: http://purl.org/dc/terms/ mw: http://mediawiki.org/rdf/\""
        if let revision { html += " about=\"https://en.wikipedia.org/wiki/Special:Redirect/revision/\(revision)\"" }
        html += "><head prefix=\"mwr: https://en.wikipedia.org/wiki/Special:Redirect/\"><meta charset=\"utf-8\"/>"
        if let pageID { html += "<meta property=\"mw:pageId\" content=\"\(pageID)\"/>" }
        html += "<meta property=\"mw:pageNamespace\" content=\"0\"/>"
        if let modified { html += "<meta property=\"dc:modified\" content=\"\(modified)\"/>" }
        if let license { html += "<link rel=\"dc:license\" href=\"\(license)\"/>" }
        if let isVersionOf { html += "<link rel=\"dc:isVersionOf\" href=\"\(isVersionOf)\"/>" }
        if let title { html += "<title>\(title)</title>" }
        html += "<base href=\"//en.wikipedia.org/wiki/\"/></head>"
        html += "<body id=\"mwAA\" lang=\"en\" class=\"mw-content-ltr sitedir-ltr ltr mw-body-content parsoid-body mediawiki mw-parser-output\" dir=\"ltr\">"
        html += "<section data-mw-section-id=\"0\" id=\"mwAQ\"><p id=\"mwAg\">\(sentence)</p></section></body></html>"
        return html
    }

    static func wants(_ titles: [String], wikidata: [String] = [], language: String = "en") -> WikiWants {
        var wants = WikiWants(language: language)
        for title in titles { wants.want(title: title, by: .destination("d")) }
        for id in wikidata { wants.want(wikidata: id, by: .destination("q")) }
        return wants
    }

    struct Output {
        /// The articles by title.
        var articles: [String: [String: Any]]
        var titles: [String]
        var report: [String: Any]
        var rejects: [[String: Any]]
    }

    @discardableResult
    static func run(_ inputs: [String], wants: WikiWants, in directory: TemporaryDirectory, maxRejectRate: Double = 1) throws -> Output {
        var options = WikiStage.Options(
            inputs: inputs, wants: wants, output: directory.file("articles.jsonl"), report: directory.file("report.json"),
            rejects: directory.file("rejects.jsonl"))
        options.maxRejectRate = maxRejectRate
        try WikiStage(options: options).run()
        let lines = try jsonLines(directory.file("articles.jsonl"))
        var articles: [String: [String: Any]] = [:]
        for line in lines { articles[line["title"] as! String] = line }
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("report.json")))) as! [String: Any]
        return Output(
            articles: articles, titles: lines.map { $0["title"] as! String }, report: report,
            rejects: try jsonLines(directory.file("rejects.jsonl")))
    }

    /// Writes a `.tar.gz` of the files already written under `directory/folder`.
    static func tarGz(_ name: String, of folder: String, files: [String], in directory: TemporaryDirectory) throws -> String {
        let archive = directory.file(name)
        let list = files.map { "'\($0)'" }.joined(separator: " ")
        let result = try FieldpackTestSupport.run("/bin/sh", ["-c", "cd '\(directory.file(folder))' && tar -czf '\(archive)' \(list)"])
        precondition(result.status == 0, "tar failed")
        return archive
    }
}
