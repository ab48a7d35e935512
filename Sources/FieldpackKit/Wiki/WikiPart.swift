/// One shard's output of the wiki stage (`fieldpack-wiki --shard K/N --output-folder DIR`), which
/// `WikiMerge` merges: DIR holds `articles.jsonl` (every article the shard kept, sorted by
/// title, without requesters: who asked for an article is decided across all shards),
/// `wiki-report.json` (a part report: what the shard was made from, and what the merge decides
/// with) and `rejects.jsonl` (the shard's findings, as a whole run writes them).
public enum WikiPart {
    public static let articlesFile = "articles.jsonl"
    public static let reportFile = "wiki-report.json"
    public static let rejectsFile = "rejects.jsonl"
    /// The part report's `format`; a merge refuses any other.
    static let format = "fieldpack-wiki-part-3"

    /// Which shard a part is and what it was made from: the merge refuses parts of another
    /// origin (`ShardOrigin`, as for ingest and dedupe parts) or shard count.
    public struct Identity: Sendable, Equatable {
        public var shard: Shard
        public var origin: ShardOrigin

        public init(shard: Shard, origin: ShardOrigin) {
            self.shard = shard
            self.origin = origin
        }
    }

    /// What the merge's refusal says a wiki part's fingerprint covers.
    static let covered = "the dumps, wanted articles, language, blurb rules or reject limit"

    /// What a wiki run reads and decides with, as a `ShardOrigin`: each dump's path and size
    /// (and modification time), the wanted titles and items with their requesters, the language,
    /// the blurb rules, the reject limit and the shard count; and the tool's version.
    public static func origin(inputs: [String], wants: WikiWants, rules: BlurbRules, maxRejectRate: Double, shards: Int) -> ShardOrigin {
        var settings: [(String, String)] = [
            ("shards", String(shards)), ("language", wants.language), ("max_reject_rate", String(maxRejectRate)),
        ]
        for input in inputs { settings.append(("modified \(input)", String(FileSystem.modificationTime(input) ?? -1))) }
        settings.append(("skipped_sections", "\(rules.skippedSections.sorted())"))
        for child in Mirror(reflecting: rules).children where child.label != "skippedSections" {
            settings.append(("rule \(child.label ?? "?")", "\(child.value)"))
        }
        for (title, requesters) in wants.titles.sorted(by: { WikiTitle.byteOrder($0.key, $1.key) }) {
            settings.append(("title \(title)", "\(requesters.sorted())"))
        }
        for (id, requesters) in wants.wikidata.sorted(by: { $0.key < $1.key }) {
            settings.append(("wikidata \(id)", "\(requesters.sorted())"))
        }
        return ShardOrigin(inputs: ShardOrigin.fingerprint(inputs: inputs, settings: settings))
    }

    /// One article of a part, in `articles.jsonl` order.
    struct Entry: Sendable {
        var title: String
        var wikidata: String?
        var copy: WikiStage.Copy
        /// Found by a later pass (reading every dump for redirect stubs' targets).
        var late: Bool
        /// Whether the copy has text left by the blurb rules (`WikiStage.Article.hasText`).
        var hasText: Bool
        var matched: [String]
        var htmlBytes: Int
    }

    /// A part report, read back.
    struct Report: Sendable {
        var folder: String
        var identity: Identity
        var language: String
        var maxRejectRate: Double
        /// How many inputs the run read (`WikiStage.followsFound`).
        var inputCount = 1
        var wants: WikiWants
        var lines = 0, skipped = 0, rejected = 0, bytes = 0, filesSkipped = 0, duplicates = 0, htmlBytes = 0
        var linesOfTheWiki = 0
        var otherWikis: [String: Int] = [:]
        var rejectedByInput: [(input: String, count: Int)] = []
        var articles: [Entry] = []
        var redirects: [String: String] = [:]
        /// The newest redirect-stub or disambiguation copy of each title the first pass read.
        var pageCopies: [(title: String, copy: WikiStage.Copy)] = []
        var disambiguations: Set<String> = []
        var disambiguationItems: Set<String> = []
        var lateRedirects: [WikiStage.LateFinds.Redirect] = []
        var lateDisambiguations: [WikiStage.LateFinds.Disambiguation] = []

        var path: String { folder + "/" + WikiPart.reportFile }
        var articlesPath: String { folder + "/" + WikiPart.articlesFile }
    }

    /// Whether `folder` holds a part (its report says so).
    public static func isPart(_ folder: String) -> Bool {
        FileSystem.isDirectory(folder) && FileSystem.exists(folder + "/" + reportFile)
    }

    /// The part folders `paths` name: each path a part, or a folder of parts (its subfolders
    /// that are parts, by name).
    public static func folders(_ paths: [String]) throws -> [String] {
        var folders: [String] = []
        for path in paths {
            if isPart(path) {
                folders.append(path)
            } else if FileSystem.isDirectory(path) {
                let inside = try FileSystem.list(path).sorted().map { path + "/" + $0 }.filter(isPart)
                guard !inside.isEmpty else { throw FieldpackError(path: path, "not a wiki part, nor a folder of wiki parts (no \(reportFile))") }
                folders += inside
            } else {
                throw FieldpackError(path: path, "not a wiki part folder (fieldpack-wiki --output-folder)")
            }
        }
        return folders
    }
}

extension WikiPart {
    /// A copy's fields, what the newest-copy rule compares (`WikiStage.Copy`), as members of the
    /// object being written: an article's, or a page's `"copy"`.
    static func writeFields(of copy: WikiStage.Copy, into report: inout JSONWriter) {
        report.key("revision"); report.int(copy.revision)
        report.key("modified"); report.string(copy.modified)
        report.key("source"); report.string(copy.source)
        report.key("line"); report.int(copy.line.map(Int64.init))
        report.key("record"); report.string(copy.record)
    }

    /// The copy `writeFields` wrote into `object`; nil without its source.
    static func copy(fieldsOf object: JSONValue) -> WikiStage.Copy? {
        guard let source = object["source"]?.string else { return nil }
        return WikiStage.Copy(
            revision: object["revision"]?.int64, modified: object["modified"]?.string, source: source,
            line: object["line"]?.int64.map(Int.init), record: object["record"]?.string)
    }

    /// A redirect stub's or disambiguation page's copy, as `"copy"` (null for none).
    static func write(_ copy: WikiStage.Copy?, into report: inout JSONWriter) {
        report.key("copy")
        guard let copy else { return report.null() }
        report.beginObject()
        writeFields(of: copy, into: &report)
        report.endObject()
    }

    /// The order copies are listed in: by source, line and record (as `Copy.isNewer` breaks ties).
    static func placeKey(_ copy: WikiStage.Copy?) -> String {
        guard let copy else { return "" }
        return "\(copy.source)\n\(copy.line ?? 0)\n\(copy.record ?? "")\n\(copy.revision ?? -1)\n\(copy.modified ?? "")"
    }
}

extension WikiPart.Report {
    /// Reads the part report in `folder`.
    init(folder: String, parser: JSONParser) throws {
        let path = folder + "/" + WikiPart.reportFile
        let buffer = PaddedBuffer(copying: try ReadableFile.contents(of: path))
        let root: JSONValue
        do {
            root = try parser.parse(buffer)
        } catch let error as JSONSyntaxError {
            throw FieldpackError(path: path, "not a wiki part report: \(error.message)")
        }
        func elements(_ value: JSONValue?) -> [JSONValue] { value.map { Array($0.elements) } ?? [] }
        func bad(_ what: String) -> FieldpackError { FieldpackError(path: path, "not a wiki part report: \(what)") }
        guard root.isObject, root["format"]?.string == WikiPart.format else {
            throw bad("its \"format\" is not \"\(WikiPart.format)\" (a whole run's report is not a part)")
        }
        guard let origin = ShardOrigin(root["made_from"]),
              let shard = root["shard"], let index = shard["index"]?.int64, let count = shard["count"]?.int64,
              let language = root["language"]?.string, let rate = root["max_reject_rate"]?.double
        else { throw bad("no made_from, shard, language or max_reject_rate") }
        let identity = WikiPart.Identity(shard: try Shard(index: Int(index), count: Int(count)), origin: origin)
        var wants = WikiWants(language: language)
        func requesters(_ value: JSONValue) -> [WikiWants.Requester] {
            (value["taxa"]?.elements.compactMap(\.int64).map { .taxon($0) } ?? [])
                + (value["destinations"]?.elements.compactMap(\.string).map { .destination($0) } ?? [])
        }
        for want in elements(root["wants"]) {
            guard let title = want["title"]?.string else { throw bad("a want without a title") }
            for requester in requesters(want) { wants.want(title: title, by: requester) }
        }
        for want in elements(root["wants_wikidata"]) {
            guard let id = want["id"]?.string else { throw bad("a wanted item without an id") }
            for requester in requesters(want) { wants.want(wikidata: id, by: requester) }
        }
        self.init(folder: folder, identity: identity, language: language, maxRejectRate: rate, wants: wants)
        guard let inputs = root["input_count"]?.int64, inputs >= 0 else { throw bad("no input_count") }
        inputCount = Int(inputs)
        guard let summary = root["summary"] else { throw bad("no summary") }
        func number(_ key: StaticString) throws -> Int {
            guard let value = summary[key]?.int64 else { throw bad("no summary.\(key)") }
            return Int(value)
        }
        lines = try number("lines")
        skipped = try number("lines_skipped")
        linesOfTheWiki = try number("lines_of_the_wiki")
        guard let others = summary["lines_of_other_wikis"], others.isObject else { throw bad("no summary.lines_of_other_wikis") }
        for (wiki, count) in others.members {
            guard let count = count.int64 else { throw bad("summary.lines_of_other_wikis.\(wiki.string) is not a count") }
            otherWikis[wiki.string] = Int(count)
        }
        rejected = try number("lines_rejected")
        bytes = try number("bytes_read")
        filesSkipped = try number("files_skipped")
        duplicates = try number("duplicate_pages")
        htmlBytes = try number("html_bytes_cleaned")
        for entry in elements(root["rejected_by_input"]) {
            rejectedByInput.append((entry["input"]?.string ?? "", Int(entry["count"]?.int64 ?? 0)))
        }
        func matched(_ value: JSONValue) -> [String] { value["matched"]?.elements.compactMap(\.string) ?? [] }
        for article in elements(root["articles"]) {
            guard let title = article["title"]?.string, let copy = WikiPart.copy(fieldsOf: article) else { throw bad("an article without a title or source") }
            guard let hasText = article["has_text"]?.bool else { throw bad("an article without has_text") }
            articles.append(WikiPart.Entry(
                title: title, wikidata: article["wikidata"]?.string, copy: copy, late: article["late"]?.bool ?? false,
                hasText: hasText, matched: matched(article), htmlBytes: Int(article["html_bytes"]?.int64 ?? 0)))
        }
        for redirect in elements(root["redirects"]) {
            guard let alias = redirect["alias"]?.string, let target = redirect["target"]?.string else { throw bad("a redirect without alias or target") }
            redirects[alias] = target
        }
        /// A redirect stub's or disambiguation page's copy, written by `WikiPart.write(_:into:)`.
        func copy(_ value: JSONValue) throws -> WikiStage.Copy? {
            guard let copy = value["copy"], !copy.isNull else { return nil }
            guard let found = WikiPart.copy(fieldsOf: copy) else { throw bad("a page copy without a source") }
            return found
        }
        for page in elements(root["page_copies"]) {
            guard let title = page["title"]?.string, let found = try copy(page) else { throw bad("a page copy without a title or copy") }
            pageCopies.append((title, found))
        }
        disambiguations = Set(elements(root["disambiguations"]).compactMap(\.string))
        disambiguationItems = Set(elements(root["disambiguation_items"]).compactMap(\.string))
        for redirect in elements(root["late_redirects"]) {
            guard let alias = redirect["alias"]?.string, let target = redirect["target"]?.string else { throw bad("a redirect without alias or target") }
            lateRedirects.append(.init(
                alias: alias, target: target, matched: matched(redirect), htmlBytes: Int(redirect["html_bytes"]?.int64 ?? 0), copy: try copy(redirect)))
        }
        for page in elements(root["late_disambiguations"]) {
            guard let title = page["title"]?.string else { throw bad("a disambiguation page without a title") }
            lateDisambiguations.append(.init(
                title: title, wikidata: page["wikidata"]?.string, matched: matched(page), htmlBytes: Int(page["html_bytes"]?.int64 ?? 0),
                copy: try copy(page)))
        }
    }
}

extension WikiStage {
    /// Writes a part (see `WikiPart`): the rejects, every article kept on the first pass and
    /// every one a later pass found, and the part report. The reject limit is the merge's to
    /// check (a shard sees only its share of the lines). The three are written out before any
    /// is put in place (`AtomicOutput.commitAll`): a part that fails leaves all three as they
    /// were. Returns the outputs left as they were (`Options.keepsUnchangedOutputs`).
    func writePart(_ run: Run, identity: WikiPart.Identity) throws -> [String] {
        if let error = run.spillError { throw error }
        let rejects = try rejectsOutput(run)
        guard let first = run.firstPass else { preconditionFailure("a part is written after its first pass") }
        /// Where a later pass's copy is, and why it was read: what orders the copies of a title.
        typealias Place = (source: String, line: Int, record: String, matched: String)
        var listed: [(title: String, kept: KeptArticle, late: Bool, place: Place?)] =
            first.articles.map { (title: $0.key, kept: $0.value, late: false, place: nil) }
        for (title, copies) in run.late.articles {
            for kept in copies {
                let article = try self.article(kept, in: run.spill)
                let place = (article.source, article.line ?? 0, article.record ?? "", article.matched.sorted().joined(separator: "\n"))
                listed.append((title, kept, true, place))
            }
        }
        // By title, the first pass's copy first, then the later passes' by their place: blurbs
        // come back from the workers in any order.
        listed.sort { a, b in
            if a.title != b.title { return WikiTitle.byteOrder(a.title, b.title) }
            if a.late != b.late { return !a.late }
            guard let x = a.place, let y = b.place else { return false }
            return (x.source, x.line, x.record, x.matched) < (y.source, y.line, y.record, y.matched)
        }
        let output = try AtomicOutput(path: options.output, keepsIdenticalFile: options.keepsUnchangedOutputs)
        var writer = JSONWriter(capacity: 1 << 16)
        // Each article is read back from the spill file here, and its metadata again below.
        for entry in listed {
            let article = try self.article(entry.kept, in: run.spill)
            try record(of: article, spill: run.spill, language: options.wants.language).encode(into: &writer)
            if writer.count > 1 << 20 {
                try output.write(writer.bytes)
                writer.reset()
            }
        }
        try output.write(writer.bytes)

        var report = JSONWriter()
        report.beginObject()
        report.key("format"); report.string(WikiPart.format)
        report.key("made_from"); identity.origin.encode(into: &report)
        report.key("shard")
        report.beginObject()
        report.key("index"); report.int(identity.shard.index)
        report.key("count"); report.int(identity.shard.count)
        report.endObject()
        report.key("language"); report.string(options.wants.language)
        report.key("max_reject_rate"); report.double(options.maxRejectRate)
        report.key("input_count"); report.int(Int64(options.inputs.count))
        func requesters(_ set: WikiWants.RequesterSet) {
            var record = ArticleRecord(title: "", url: "", summary: "", html: "")
            record.setRequesters(set)
            report.key("taxa")
            report.beginArray()
            for id in record.taxa { report.int(id) }
            report.endArray()
            report.key("destinations")
            report.beginArray()
            for id in record.destinations { report.string(id) }
            report.endArray()
        }
        report.key("wants")
        report.beginArray()
        for (title, set) in options.wants.titles.sorted(by: { WikiTitle.byteOrder($0.key, $1.key) }) {
            report.beginObject()
            report.key("title"); report.string(title)
            requesters(set)
            report.endObject()
        }
        report.endArray()
        report.key("wants_wikidata")
        report.beginArray()
        for (id, set) in options.wants.wikidata.sorted(by: { $0.key < $1.key }) {
            report.beginObject()
            report.key("id"); report.string(id)
            requesters(set)
            report.endObject()
        }
        report.endArray()
        report.key("summary")
        report.beginObject()
        report.key("lines"); report.int(run.summary.lines)
        report.key("lines_skipped"); report.int(run.summary.skipped)
        report.key("lines_of_the_wiki"); report.int(run.summary.linesOfTheWiki)
        report.key("lines_of_other_wikis")
        report.beginObject()
        for (wiki, count) in run.summary.otherWikis.sorted(by: { $0.key < $1.key }) {
            report.key(dynamic: wiki); report.int(count)
        }
        report.endObject()
        report.key("lines_rejected"); report.int(run.summary.rejected)
        report.key("bytes_read"); report.int(run.summary.bytes)
        report.key("files_skipped"); report.int(run.summary.filesSkipped)
        report.key("duplicate_pages"); report.int(first.duplicates)
        report.key("html_bytes_cleaned"); report.int(first.htmlBytes)
        report.endObject()
        report.key("rejected_by_input")
        report.beginArray()
        for (input, count) in rejectedByInput(run) {
            report.beginObject()
            report.key("input"); report.string(input)
            report.key("count"); report.int(count)
            report.endObject()
        }
        report.endArray()
        func matched(_ titles: [String]) {
            report.key("matched")
            report.beginArray()
            for title in Set(titles).sorted() { report.string(title) }
            report.endArray()
        }
        report.key("articles")
        report.beginArray()
        for entry in listed {
            let article = try self.article(entry.kept, in: run.spill)
            report.beginObject()
            report.key("title"); report.string(article.title)
            report.key("wikidata"); report.string(article.wikidata)
            WikiPart.writeFields(of: article.copy, into: &report)
            report.key("late"); report.bool(entry.late)
            report.key("has_text"); report.bool(article.hasText)
            matched(article.matched)
            report.key("html_bytes"); report.int(article.htmlBytes)
            report.endObject()
        }
        report.endArray()
        report.key("redirects")
        report.beginArray()
        for (alias, target) in first.redirects.sorted(by: { WikiTitle.byteOrder($0.key, $1.key) }) {
            report.beginObject()
            report.key("alias"); report.string(alias)
            report.key("target"); report.string(target)
            report.endObject()
        }
        report.endArray()
        report.key("page_copies")
        report.beginArray()
        for (title, copy) in first.pageCopies.sorted(by: { WikiTitle.byteOrder($0.key, $1.key) }) {
            report.beginObject()
            report.key("title"); report.string(title)
            WikiPart.write(copy, into: &report)
            report.endObject()
        }
        report.endArray()
        report.key("disambiguations")
        report.beginArray()
        for title in first.disambiguations.sorted(by: WikiTitle.byteOrder) { report.string(title) }
        report.endArray()
        report.key("disambiguation_items")
        report.beginArray()
        for id in first.disambiguationItems.sorted() { report.string(id) }
        report.endArray()
        report.key("late_redirects")
        report.beginArray()
        let redirects = run.late.redirects.sorted {
            ($0.alias, $0.target, $0.matched.joined(separator: "\n"), $0.htmlBytes, WikiPart.placeKey($0.copy))
                < ($1.alias, $1.target, $1.matched.joined(separator: "\n"), $1.htmlBytes, WikiPart.placeKey($1.copy))
        }
        for (index, redirect) in redirects.enumerated() where index == 0 || redirects[index - 1] != redirect {
            report.beginObject()
            report.key("alias"); report.string(redirect.alias)
            report.key("target"); report.string(redirect.target)
            matched(redirect.matched)
            report.key("html_bytes"); report.int(redirect.htmlBytes)
            WikiPart.write(redirect.copy, into: &report)
            report.endObject()
        }
        report.endArray()
        report.key("late_disambiguations")
        report.beginArray()
        let pages = run.late.disambiguations.sorted {
            ($0.title, $0.wikidata ?? "", $0.matched.joined(separator: "\n"), $0.htmlBytes, WikiPart.placeKey($0.copy))
                < ($1.title, $1.wikidata ?? "", $1.matched.joined(separator: "\n"), $1.htmlBytes, WikiPart.placeKey($1.copy))
        }
        for (index, page) in pages.enumerated() where index == 0 || pages[index - 1] != page {
            report.beginObject()
            report.key("title"); report.string(page.title)
            report.key("wikidata"); report.string(page.wikidata)
            matched(page.matched)
            report.key("html_bytes"); report.int(page.htmlBytes)
            WikiPart.write(page.copy, into: &report)
            report.endObject()
        }
        report.endArray()
        report.endObject()
        let reportOutput = try AtomicOutput(path: options.report, keepsIdenticalFile: options.keepsUnchangedOutputs)
        try reportOutput.write(PrettyJSON.format(report.bytes))
        try AtomicOutput.commitAll([rejects, reportOutput, output])
        return Self.unchanged([
            (options.rejects, !rejects.keptIdenticalFile), (options.report, !reportOutput.keptIdenticalFile),
            (options.output, !output.keptIdenticalFile),
        ])
    }
}
