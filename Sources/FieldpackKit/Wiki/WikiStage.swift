/// The wiki stage (`fieldpack-wiki`): reads Wikipedia dumps — Wikimedia Enterprise `.tar.gz`
/// archives of NDJSON (every member), bare or gzip-compressed NDJSON, and folders of `.html`
/// pages — keeps the articles the bundle wants, follows redirects, skips disambiguation pages,
/// keeps the newest revision of a page seen twice, and turns each into a blurb.
///
/// Lines nobody wants cost a JSON parse (simdjson, GB/s), never an HTML parse. A wanted redirect
/// stub whose target was not itself wanted sends the stage over the dumps once more for the
/// targets only.
public struct WikiStage {
    public struct Options: Sendable {
        public var inputs: [String]
        public var wants: WikiWants
        public var output: String
        public var report: String
        public var rejects: String
        public var rules = BlurbRules()
        /// The share of dump lines that may be rejected before the stage fails.
        public var maxRejectRate = 0.01
        /// Threads making blurbs (the reader is one more).
        public var workers = 2

        public init(inputs: [String], wants: WikiWants, output: String, report: String, rejects: String) {
            self.inputs = inputs
            self.wants = wants
            self.output = output
            self.report = report
            self.rejects = rejects
        }
    }

    /// One article kept for the bundle.
    public struct Article: Sendable {
        public var title: String
        public var pageID: Int64?
        public var revision: Int64?
        public var modified: String?
        public var url: String
        public var wikidata: String?
        public var license: String
        public var source: String
        public var line: Int?
        public var blurb: Blurb
        public var requesters: Set<WikiWants.Requester> = []

        /// Whether `self` is a newer copy of the page than `other`.
        func isNewer(than other: Article) -> Bool {
            if let a = revision, let b = other.revision, a != b { return a > b }
            if let a = modified, let b = other.modified, a != b { return a > b }
            return (source, line ?? 0) < (other.source, other.line ?? 0)
        }
    }

    public struct Summary: Sendable {
        public var lines = 0
        public var skipped = 0
        public var rejected = 0
        public var bytes = 0
        public var htmlBytes = 0
        public var articles = 0
        public var passes = 0
        public var missing: [String] = []
    }

    public let options: Options

    public init(options: Options) {
        self.options = options
    }

    /// The state of a run: what was found, followed and refused.
    struct Run {
        var articles: [String: Article] = [:]
        /// Wanted title → the title its redirect stub points to.
        var redirects: [String: String] = [:]
        var disambiguations: Set<String> = []
        /// The Wikidata items of the disambiguation pages skipped.
        var disambiguationItems: Set<String> = []
        var duplicates = 0
        /// Lines refused (bad JSON, no HTML, damaged streams, unparsable articles).
        var findings: [Finding] = []
        /// Pages read but deliberately not kept (disambiguation pages).
        var skips: [Finding] = []
        var summary = Summary()
    }

    @discardableResult
    public func run() throws -> Summary {
        let clock = PhaseTrace(stage: "wiki")
        var run = Run()
        var wanted = options.wants
        try pass(wanted: wanted, into: &run)
        clock.mark("pass 1")
        // Redirect stubs whose target nobody else wanted: read the dumps again for the targets.
        var followed = Set<String>()
        while run.summary.passes < 3 {
            var late = WikiWants(language: wanted.language)
            for (alias, target) in run.redirects.sorted(by: { $0.key < $1.key })
            where run.articles[target] == nil && !followed.contains(target) {
                followed.insert(target)
                for requester in wanted.titles[alias] ?? [] { late.want(title: target, by: requester) }
            }
            if late.isEmpty { break }
            try pass(wanted: late, into: &run)
            for (title, requesters) in late.titles {
                for requester in requesters { wanted.want(title: title, by: requester) }
            }
            clock.mark("pass \(run.summary.passes)")
        }
        try attachRequesters(wanted, &run)
        try write(run, wanted: wanted)
        return run.summary
    }

    /// Reads every input once, keeping the wanted articles.
    private func pass(wanted: WikiWants, into run: inout Run) throws {
        run.summary.passes += 1
        let first = run.summary.passes == 1
        let maker = BlurbMaker(rules: options.rules)
        let pool = BlurbPool(maker: maker, inFlight: options.workers * 2)
        defer { for (article, result) in pool.drain() { finish(article, result, into: &run) } }
        let parser = JSONParser()
        for input in options.inputs {
            if input.hasSuffix(".html") || input.hasSuffix(".htm") {
                try page(at: input, wanted: wanted, maker: maker, into: &run, counting: first)
                continue
            }
            // A file libarchive cannot read, or whose archive breaks between members, is a
            // finding: the lines already read count, the rest of the file is lost.
            let archive: ArchiveReader
            do {
                archive = try ArchiveReader(path: input)
            } catch let error as FieldpackError {
                run.findings.append(Finding(path: input, reason: error.message))
                if first { run.summary.rejected += 1; run.summary.lines += 1 }
                continue
            }
            while true {
                let next: String?
                do {
                    next = try archive.nextMember()
                } catch let error as FieldpackError {
                    run.findings.append(Finding(path: input, reason: error.message))
                    if first { run.summary.rejected += 1; run.summary.lines += 1 }
                    break
                }
                guard let member = next else { break }
                let name = archive.isTar ? "\(input)#\(member)" : input
                let reader = LineReader(source: archive.memberSource())
                while true {
                    let line: LineReader.Line?
                    do {
                        line = try reader.next()
                    } catch let error as FieldpackError {
                        // A damaged stream: every complete line before it was read.
                        run.findings.append(Finding(path: name, line: reader.linesRead + 1, reason: error.message))
                        if first { run.summary.rejected += 1; run.summary.lines += 1 }
                        break
                    }
                    guard let line else { break }
                    if line.bytes.isEmpty { continue }
                    if first {
                        run.summary.lines += 1
                        run.summary.bytes += line.bytes.count + 1
                    }
                    if line.unterminated, let damage = reader.damage {
                        run.findings.append(Finding(path: name, line: line.number, reason: "truncated: \(damage.message)"))
                        if first { run.summary.rejected += 1 }
                        break
                    }
                    try self.line(line, source: name, wanted: wanted, parser: parser, pool: pool, into: &run, counting: first)
                    for (article, result) in pool.collect() { finish(article, result, into: &run) }
                }
            }
        }
    }

    private func line(
        _ line: LineReader.Line, source: String, wanted: WikiWants, parser: JSONParser, pool: BlurbPool,
        into run: inout Run, counting: Bool
    ) throws {
        func reject(_ reason: String) {
            run.findings.append(Finding(path: source, line: line.number, reason: reason))
            if counting { run.summary.rejected += 1 }
        }
        let fields: EnterpriseLine
        do {
            fields = try EnterpriseLine(try parser.parse(line.bytes))
        } catch let error as JSONSyntaxError {
            return reject("not JSON: \(error.message)")
        } catch let problem as EnterpriseLine.Problem {
            return reject(problem.reason)
        }
        if let language = fields.language, language != wanted.language {
            if counting { run.summary.skipped += 1 }
            return
        }
        let title = WikiTitle.normalize(fields.name)
        let isWanted = wanted.titles[title] != nil || fields.wikidata.map { wanted.wikidata[$0.uppercased()] != nil } ?? false
            || fields.redirects.contains { wanted.titles[WikiTitle.normalize($0)] != nil }
        guard isWanted, let html = fields.html else {
            if counting { run.summary.skipped += 1 }
            return
        }
        run.summary.htmlBytes += html.count
        let article = Article(
            title: title, pageID: fields.pageID, revision: fields.revision, modified: fields.modified,
            url: fields.url ?? Self.url(of: title, language: wanted.language), wikidata: fields.wikidata,
            license: fields.license ?? ArticleRecord.defaultLicense, source: source, line: line.number,
            blurb: Blurb(kind: .article, html: "", summary: "", title: nil, sections: 0))
        for alias in fields.redirects {
            let normalized = WikiTitle.normalize(alias)
            if wanted.titles[normalized] != nil { run.redirects[normalized] = title }
        }
        pool.submit(BlurbPool.Job(article: article, html: Array(html.bytes)))
    }

    /// Keeps a finished article, or records why its HTML was refused.
    private func finish(_ article: Article, _ result: Result<Blurb, Error>, into run: inout Run) {
        switch result {
        case .success(let blurb):
            var kept = article
            kept.blurb = blurb
            keep(&kept, into: &run)
        case .failure(let error):
            run.findings.append(Finding(path: article.source, line: article.line, reason: "article \"\(article.title)\": \(error)"))
            run.summary.rejected += 1
        }
    }

    /// A page from a folder of HTML files: its title is the document's (without " - Wikipedia"),
    /// else the file name's.
    private func page(at path: String, wanted: WikiWants, maker: BlurbMaker, into run: inout Run, counting: Bool) throws {
        let bytes = try ReadableFile.contents(of: path)
        if counting {
            run.summary.lines += 1
            run.summary.bytes += bytes.count
        }
        let blurb: Blurb
        do {
            blurb = try bytes.withUnsafeBytes { try maker.blurb(html: $0) }
        } catch {
            run.findings.append(Finding(path: path, reason: "\(error)"))
            if counting { run.summary.rejected += 1 }
            return
        }
        var name = String(path.split(separator: "/").last ?? "")
        if let dot = name.lastIndex(of: ".") { name = String(name[..<dot]) }
        if var title = blurb.title {
            for suffix in [" - Wikipedia", " — Wikipedia"] where title.hasSuffix(suffix) { title = String(title.dropLast(suffix.count)) }
            name = title
        }
        let title = WikiTitle.normalize(name)
        guard wanted.titles[title] != nil else {
            if counting { run.summary.skipped += 1 }
            return
        }
        run.summary.htmlBytes += bytes.count
        var article = Article(
            title: title, pageID: nil, revision: nil, modified: nil, url: Self.url(of: title, language: wanted.language),
            wikidata: nil, license: ArticleRecord.defaultLicense, source: path, line: nil, blurb: blurb)
        keep(&article, into: &run)
    }

    /// Keeps an article unless a newer copy of it is kept; notes redirects and disambiguations.
    private func keep(_ article: inout Article, into run: inout Run) {
        switch article.blurb.kind {
        case .redirect(let target):
            run.redirects[article.title] = WikiTitle.normalize(target)
            return
        case .disambiguation:
            run.disambiguations.insert(article.title)
            if let id = article.wikidata { run.disambiguationItems.insert(id.uppercased()) }
            run.skips.append(Finding(path: article.source, line: article.line, reason: "\"\(article.title)\" is a disambiguation page: skipped"))
            return
        case .article:
            break
        }
        if let existing = run.articles[article.title] {
            run.duplicates += 1
            if !article.isNewer(than: existing) { return }
        }
        run.articles[article.title] = article
    }

    /// Gives each article the requesters of its title, its QID and the redirects to it.
    private func attachRequesters(_ wanted: WikiWants, _ run: inout Run) throws {
        var byWikidata: [String: String] = [:]
        for (title, article) in run.articles {
            if let id = article.wikidata { byWikidata[id.uppercased()] = title }
        }
        var missing: [String] = []
        for (title, requesters) in wanted.titles {
            var target = title
            var hops = 0
            while run.articles[target] == nil, let next = run.redirects[target], hops < 5 {
                target = next
                hops += 1
            }
            if run.articles[target] != nil {
                run.articles[target]!.requesters.formUnion(requesters)
            } else if !run.disambiguations.contains(title) {
                missing.append(title)
            }
        }
        for (id, requesters) in wanted.wikidata {
            if let title = byWikidata[id] {
                run.articles[title]!.requesters.formUnion(requesters)
            } else if !run.disambiguationItems.contains(id) {
                missing.append(id)
            }
        }
        run.summary.missing = missing.sorted()
        run.summary.articles = run.articles.count
    }

    static func url(of title: String, language: String) -> String {
        "https://\(language).wikipedia.org/wiki/" + title.replacingOccurrences(of: " ", with: "_")
    }

    private func write(_ run: Run, wanted: WikiWants) throws {
        // Rejects first: they are written even when the threshold stops the stage.
        var rejects = JSONWriter()
        func ordered(_ findings: [Finding]) -> [Finding] {
            findings.sorted { ($0.path, $0.line ?? 0, $0.reason) < ($1.path, $1.line ?? 0, $1.reason) }
        }
        for (kind, finding) in ordered(run.findings).map({ ("rejected", $0) }) + ordered(run.skips).map({ ("skipped", $0) }) {
            rejects.beginObject()
            rejects.key("kind"); rejects.string(kind)
            rejects.key("file"); rejects.string(finding.path)
            rejects.key("line"); rejects.int(finding.line.map(Int64.init))
            rejects.key("reason"); rejects.string(finding.reason)
            rejects.endObject()
            rejects.newline()
            StandardError.write(finding.diagnostic)
        }
        try AtomicOutput.write(String(decoding: rejects.bytes, as: UTF8.self), to: options.rejects)
        let rate = run.summary.lines == 0 ? 0 : Double(run.summary.rejected) / Double(run.summary.lines)
        if rate > options.maxRejectRate {
            throw FieldpackError(
                path: options.inputs.first ?? options.output,
                "\(run.summary.rejected) of \(run.summary.lines) dump lines rejected (\(percent(rate))), over the "
                    + "\(percent(options.maxRejectRate)) limit; see \(options.rejects)")
        }
        let output = try AtomicOutput(path: options.output)
        var writer = JSONWriter(capacity: 1 << 16)
        for title in run.articles.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
            let article = run.articles[title]!
            guard !article.requesters.isEmpty else { continue }
            var record = ArticleRecord(
                title: article.title, url: article.url, summary: article.blurb.summary, html: article.blurb.html)
            record.pageID = article.pageID
            record.revision = article.revision
            record.modified = article.modified
            record.language = wanted.language
            record.wikidata = article.wikidata
            record.license = article.license
            let requesters = article.requesters.sorted()
            record.taxa = requesters.compactMap { if case .taxon(let id) = $0 { id } else { nil } }
            record.destinations = requesters.compactMap { if case .destination(let id) = $0 { id } else { nil } }
            record.sections = Int64(article.blurb.sections)
            record.encode(into: &writer)
            if writer.count > 1 << 20 {
                try output.write(writer.bytes)
                writer.reset()
            }
        }
        try output.write(writer.bytes)
        try AtomicOutput.write(report(run, wanted: wanted), to: options.report)
        try output.commit()
    }

    private func report(_ run: Run, wanted: WikiWants) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("wanted"); writer.int(wanted.count)
        writer.key("found"); writer.int(run.articles.values.filter { !$0.requesters.isEmpty }.count)
        writer.key("missing")
        writer.beginArray()
        for title in run.summary.missing { writer.string(title) }
        writer.endArray()
        writer.key("redirects_followed")
        writer.beginObject()
        for (alias, target) in run.redirects.sorted(by: { $0.key < $1.key }) where wanted.titles[alias] != nil {
            writer.key(dynamic: alias); writer.string(target)
        }
        writer.endObject()
        writer.key("disambiguation_pages_skipped")
        writer.beginArray()
        for title in run.disambiguations.sorted() { writer.string(title) }
        writer.endArray()
        writer.key("duplicate_pages"); writer.int(run.duplicates)
        writer.key("lines"); writer.int(run.summary.lines)
        writer.key("lines_skipped"); writer.int(run.summary.skipped)
        writer.key("lines_rejected"); writer.int(run.summary.rejected)
        writer.key("passes"); writer.int(run.summary.passes)
        writer.key("bytes_read"); writer.int(run.summary.bytes)
        writer.key("html_bytes_cleaned"); writer.int(run.summary.htmlBytes)
        writer.endObject()
        return PrettyJSON.format(writer.bytes)
    }
}
