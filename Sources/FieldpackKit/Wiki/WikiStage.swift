/// The wiki stage (`fieldpack-wiki`): reads Wikipedia dumps by content (`WikiInputs`) —
/// Wikimedia Enterprise `.tar.gz` archives of NDJSON (every member), bare or gzip-compressed
/// NDJSON, On-demand / Structured Contents article JSON, HTML pages — keeps the articles the
/// bundle wants, follows redirects, skips disambiguation pages, keeps the newest revision of a
/// page seen twice, and turns each into a blurb. An article's metadata is the input's, else what
/// its HTML says about itself (`PageMetadata`); its licence follows `ArticleLicense`.
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
        /// Articles and raw dump bytes read (every pass), for the progress line.
        public var progress = StageProgress.silent("wiki")

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
        /// The licence the input states, if it states one.
        public var statedLicense: String?
        public var source: String
        public var line: Int?
        /// Where the article sits in a JSON document (`[3]` of an array), if it is in one.
        public var record: String?
        /// The blurb; once the article is kept, its HTML and summary move to the run's spill
        /// file (`stored`) and are read back only when the articles are written.
        public var blurb: Blurb
        public var stored: StoredBlurb?
        public var requesters: Set<WikiWants.Requester> = []

        /// The licence recorded for the article (see `ArticleLicense`).
        public var license: String { ArticleLicense.resolve(stated: statedLicense, modified: modified) }

        /// Whether `self` is a newer copy of the page than `other`: the higher revision; a copy
        /// with a revision is newer than one without; else the later modification time; else the
        /// first input (in byte order of its name, then line), so that the order of the inputs
        /// does not matter.
        func isNewer(than other: Article) -> Bool {
            switch (revision, other.revision) {
            case let (a?, b?) where a != b: return a > b
            case (.some, nil): return true
            case (nil, .some): return false
            default: break
            }
            if let a = modified, let b = other.modified, a != b { return a > b }
            if (modified == nil) != (other.modified == nil) { return modified != nil }
            return (source, line ?? 0, record ?? "") < (other.source, other.line ?? 0, other.record ?? "")
        }

        /// Fills what the input did not say from what the page's HTML says about itself.
        mutating func complete(with page: PageMetadata) {
            pageID = pageID ?? page.pageID
            revision = revision ?? page.revision
            modified = modified ?? page.modified
            wikidata = wikidata ?? page.wikidata
            statedLicense = statedLicense ?? page.license
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
        /// Files (or archive members) that hold no articles: skipped with a finding.
        public var filesSkipped = 0
        public var missing: [String] = []
    }

    public let options: Options

    public init(options: Options) {
        self.options = options
    }

    /// Where a kept article's blurb HTML and summary are in the run's spill file.
    public struct StoredBlurb: Sendable {
        var html: SpillFile.Location
        var summary: SpillFile.Location
    }

    /// The state of a run: what was found, followed and refused.
    struct Run {
        /// The kept articles' metadata; their blurbs' text is in `spill`, so memory holds a few
        /// hundred bytes per article whatever the blurbs' size.
        var articles: [String: Article] = [:]
        /// The kept blurbs' HTML and summaries, in a nameless scratch file in the output's folder
        /// (nil: they stay in memory, as for the fuzz targets' one input).
        var spill: SpillFile? = nil
        /// The first failure to write the spill file (reported when the articles are written).
        var spillError: Error?
        /// Wanted title → the title its redirect stub points to.
        var redirects: [String: String] = [:]
        var disambiguations: Set<String> = []
        /// The Wikidata items of the disambiguation pages skipped.
        var disambiguationItems: Set<String> = []
        var duplicates = 0
        /// See `rejectLimit`; where reading stopped because of it.
        var rejectLimit: Int? = nil
        var stoppedAt: String? = nil
        /// Lines refused (bad JSON, no HTML, damaged streams, unparsable articles).
        var findings: [Finding] = []
        /// Pages read but deliberately not kept (disambiguation pages).
        var skips: [Finding] = []
        var summary = Summary()
    }

    @discardableResult
    public func run() throws -> Summary {
        let clock = PhaseTrace(stage: "wiki")
        for output in [options.output, options.report, options.rejects] { Leftovers.removeStale(of: output) }
        var run = Run(spill: try SpillFile(in: directory(of: options.output)))
        run.rejectLimit = Self.rejectLimit(inputs: options.inputs, maxRejectRate: options.maxRejectRate)
        var wanted = options.wants
        options.progress.start()
        defer { options.progress.finish() }
        do {
            try pass(wanted: wanted, into: &run)
        } catch is StopReading {
            try write(run, wanted: wanted)  // rejects, then the threshold error
        }
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

    /// Keeps a finished article, or records why its HTML was refused.
    func finish(_ article: Article, _ result: Result<Blurb, Error>, into run: inout Run) {
        switch result {
        case .success(let blurb):
            var kept = article
            kept.blurb = blurb
            kept.complete(with: blurb.page)
            keep(&kept, into: &run)
        case .failure(let error):
            run.findings.append(Finding(
                path: article.source, line: article.line, record: article.record, reason: "article \"\(article.title)\": \(error)"))
            run.summary.rejected += 1
        }
    }

    /// Keeps an article unless a newer copy of it is kept; notes redirects and disambiguations.
    func keep(_ article: inout Article, into run: inout Run) {
        switch article.blurb.kind {
        case .redirect(let target):
            run.redirects[article.title] = WikiTitle.normalize(target)
            return
        case .disambiguation:
            run.disambiguations.insert(article.title)
            if let id = article.wikidata { run.disambiguationItems.insert(id.uppercased()) }
            run.skips.append(Finding(path: article.source, line: article.line, record: article.record, reason: "\"\(article.title)\" is a disambiguation page: skipped"))
            return
        case .article:
            break
        }
        if let existing = run.articles[article.title] {
            run.duplicates += 1
            if !article.isNewer(than: existing) { return }
        }
        // What the page said about itself is in the article's own fields by now (`complete`),
        // and the document title was only for finding the article: neither is kept per article.
        article.blurb.page = PageMetadata()
        article.blurb.title = nil
        if let spill = run.spill {
            do {
                article.stored = StoredBlurb(html: try spill.append(article.blurb.html), summary: try spill.append(article.blurb.summary))
                article.blurb.html = ""
                article.blurb.summary = ""
            } catch {
                if run.spillError == nil { run.spillError = error }
            }
        }
        run.articles[article.title] = article
    }

    /// Gives each article the requesters of its title, its QID and the redirects to it.
    private func attachRequesters(_ wanted: WikiWants, _ run: inout Run) throws {
        var byWikidata: [String: String] = [:]
        // In title order, the first title keeps a QID two articles share: never the hash order.
        for title in run.articles.keys.sorted() {
            if let id = run.articles[title]?.wikidata?.uppercased(), byWikidata[id] == nil { byWikidata[id] = title }
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
            findings.sorted { ($0.path, $0.line ?? 0, $0.record ?? "", $0.reason) < ($1.path, $1.line ?? 0, $1.record ?? "", $1.reason) }
        }
        var told = 0
        for (kind, finding) in ordered(run.findings).map({ ("rejected", $0) }) + ordered(run.skips).map({ ("skipped", $0) }) {
            rejects.beginObject()
            rejects.key("kind"); rejects.string(kind)
            rejects.key("file"); rejects.string(finding.path)
            rejects.key("line"); rejects.int(finding.line.map(Int64.init))
            if let record = finding.record { rejects.key("record"); rejects.string(record) }
            rejects.key("reason"); rejects.string(finding.reason)
            rejects.endObject()
            rejects.newline()
            // The first 20 on stderr, as ingest does; all of them in the rejects file.
            if told < 20 { StandardError.write(finding.diagnostic) }
            told += 1
        }
        if told > 20 { StandardError.write("fieldpack-wiki: … \(told - 20) more in \(options.rejects)") }
        try AtomicOutput.write(String(decoding: rejects.bytes, as: UTF8.self), to: options.rejects)
        let rate = run.summary.lines == 0 ? 0 : Double(run.summary.rejected) / Double(run.summary.lines)
        if rate > options.maxRejectRate || run.stoppedAt != nil {
            let stopped = run.stoppedAt.map { "; stopped reading early at \($0), where the limit could no longer be met" } ?? ""
            throw FieldpackError(
                path: mostRejected(run.findings) ?? options.output,
                "\(run.summary.rejected) of \(run.summary.lines) dump lines rejected (\(percent(rate))), over the "
                    + "\(percent(options.maxRejectRate)) limit\(stopped); see \(options.rejects)")
        }
        if let error = run.spillError { throw error }
        let output = try AtomicOutput(path: options.output)
        var writer = JSONWriter(capacity: 1 << 16)
        for title in run.articles.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
            let article = run.articles[title]!
            guard !article.requesters.isEmpty else { continue }
            var summary = article.blurb.summary
            var html = article.blurb.html
            if let stored = article.stored, let spill = run.spill {
                summary = try spill.string(at: stored.summary)
                html = try spill.string(at: stored.html)
            }
            var record = ArticleRecord(title: article.title, url: article.url, summary: summary, html: html)
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

    /// The input most findings are about (the first of them in input order), or nil if none is.
    private func mostRejected(_ findings: [Finding]) -> String? {
        var best: (input: String, count: Int)? = nil
        for input in options.inputs {
            let count = findings.count { $0.path == input || $0.path.hasPrefix(input + "#") }
            if count > (best?.count ?? 0) { best = (input, count) }
        }
        return best?.input
    }

    private func report(_ run: Run, wanted: WikiWants) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("wanted"); writer.int(wanted.count)
        // Counted in place: a filtered copy of every article was the stage's peak (94 MB at 100k).
        writer.key("found"); writer.int(run.articles.values.count { !$0.requesters.isEmpty })
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
        writer.key("files_skipped"); writer.int(run.summary.filesSkipped)
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
