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
        /// The files the stage writes, in the order it writes them.
        public var outputs: [String] { [rejects, report, output] }
        public var rules = BlurbRules()
        /// The share of dump lines that may be rejected before the stage fails.
        public var maxRejectRate = 0.01
        /// Threads making blurbs (the reader is one more).
        public var workers = 2
        /// The bytes of article HTML that may wait or be made into blurbs at once (`BlurbPool`):
        /// an article larger than this is made alone.
        public var inFlightBytes = 8 << 20
        /// Gives a large article's freed memory back at once (`FreedMemoryRelease`); nil leaves
        /// it to the allocator.
        public var freedMemoryRelease: FreedMemoryRelease? = nil
        /// Articles and raw dump bytes read (every pass), for the progress line.
        public var progress = StageProgress.silent("wiki")
        /// The share of the dumps this run reads on its first pass (`WikiShare`).
        public var shard = Shard.whole
        /// Set: the run writes a part for `WikiMerge` (all it kept, and what the merge decides
        /// with) instead of the finished articles and report.
        public var part: WikiPart.Identity? = nil
        /// An output whose bytes come out the same as the file already there is left as it was,
        /// its time included (`AtomicOutput.keepsIdenticalFile`), so make does not rebuild what
        /// depends on it; the outputs left so are in `Summary.unchanged`.
        public var keepsUnchangedOutputs = false
        /// Findings held in memory past which they are spilled to a scratch file
        /// (`FindingRuns`); smaller in tests, to spill a few.
        public var findingsHeld = FindingRuns.defaultLimit

        public init(inputs: [String], wants: WikiWants, output: String, report: String, rejects: String) {
            self.inputs = inputs
            self.wants = wants
            self.output = output
            self.report = report
            self.rejects = rejects
        }
    }

    /// One article kept for the bundle, while its blurb is made and kept (a run's table holds
    /// only a `KeptArticle` of it; the rest is in the spill file, `StoredArticle`).
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
        /// The blurb; once the article is kept, its HTML and summary are in the run's spill
        /// file (`stored`) and are read back only when the articles are written.
        public var blurb: Blurb
        public var stored: StoredBlurb?
        /// The wanted titles that made it wanted (on a later pass: a part tells them to the
        /// merge) and the bytes of its HTML.
        var matched: [String] = []
        var htmlBytes = 0

        /// What tells this copy of the page from another.
        var copy: Copy { Copy(revision: revision, modified: modified, source: source, line: line, record: record) }

        /// The licence recorded for the article (see `ArticleLicense`).
        public var license: String { ArticleLicense.resolve(stated: statedLicense, modified: modified) }

        func isNewer(than other: Article) -> Bool { copy.isNewer(than: other.copy) }

        /// Whether the blurb rules left this copy any text: a copy with none is kept (it is the
        /// page's newest copy and counts as found) and never written.
        var hasText: Bool { stored.map { $0.html.count > 0 } ?? !blurb.html.isEmpty }

        /// Fills what the input did not say from what the page's HTML says about itself.
        mutating func complete(with page: PageMetadata) {
            pageID = pageID ?? page.pageID
            revision = revision ?? page.revision
            modified = modified ?? page.modified
            wikidata = wikidata ?? page.wikidata
            statedLicense = statedLicense ?? page.license
        }
    }

    /// One copy of a page, as the newest-copy rule compares them.
    struct Copy: Sendable, Equatable {
        var revision: Int64?
        var modified: String?
        var source: String
        var line: Int?
        var record: String?

        /// Whether `self` is a newer copy of the page than `other`: the higher revision; a copy
        /// with a revision is newer than one without; else the later modification instant; else the
        /// first input (in byte order of its name, then line), so that the order of the inputs
        /// does not matter.
        func isNewer(than other: Copy) -> Bool {
            switch (revision, other.revision) {
            case let (a?, b?) where a != b: return a > b
            case (.some, nil): return true
            case (nil, .some): return false
            default: break
            }
            // Instants, not text: `…12:00:00+02:00` is before `…11:00:00Z`, `…11:00:00.500Z`
            // after `…11:00:00Z`; a date that is not one counts as none.
            let (a, b) = (modified.flatMap(Timestamp.parse), other.modified.flatMap(Timestamp.parse))
            if let a, let b, a != b { return a > b }
            if (a == nil) != (b == nil) { return a != nil }
            return (source, line ?? 0, record ?? "") < (other.source, other.line ?? 0, other.record ?? "")
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
        /// Of the lines, those of the pipeline's wiki (wanted or not), and those skipped as
        /// another wiki's, by its language or name (`de`, `enwiktionary`).
        public var linesOfTheWiki = 0
        public var otherWikis: [String: Int] = [:]
        public var missing: [String] = []
        /// The outputs left as they were because their bytes came out the same
        /// (`Options.keepsUnchangedOutputs`).
        public var unchanged: [String] = []
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
        /// The kept articles by title: each one's Wikidata item and where the rest of it is in
        /// `spill` (`KeptArticle`), so memory holds a few dozen bytes per article whatever its
        /// metadata and blurb.
        var articles: [String: KeptArticle] = [:]
        /// The kept articles' metadata and blurbs, in a nameless scratch file in the output's
        /// folder (by default in memory, as for the fuzz targets' one input).
        var spill = SpillFile()
        /// The first failure to write or read back the spill file (reported when the articles
        /// are written).
        var spillError: Error?
        /// The title each wanted Wikidata item was followed to (`lateWants`).
        var itemTitles: [String: String] = [:]
        /// Wanted title → the title its redirect stub points to.
        var redirects: [String: String] = [:]
        /// The newest copy of each title read as a redirect stub or a disambiguation page: an
        /// article copy older than it is stale (the page was turned into one since), never kept.
        var pageCopies: [String: Copy] = [:]
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
        /// Lines kept with their text repaired (`WikiStage.repairedText`).
        var salvaged: [Finding] = []
        /// The findings spilled past what memory holds (`FindingRuns`).
        var findingRuns = FindingRuns()
        var summary = Summary()
        /// What the first pass found, and what later passes found, kept apart for a part.
        var firstPass: FirstPass? = nil
        var late = LateFinds()
        var recordsLate = false
    }

    /// The state after the first pass: what a shard found in its share of the dumps.
    struct FirstPass {
        var articles: [String: KeptArticle]
        var redirects: [String: String]
        var pageCopies: [String: Copy]
        var disambiguations: Set<String>
        var disambiguationItems: Set<String>
        var duplicates: Int
        var htmlBytes: Int
    }

    /// What a shard's later passes (over every dump, for the targets of its redirect stubs)
    /// found, each with the wanted titles that made it wanted: the merge keeps those of them a
    /// whole run would have looked for.
    struct LateFinds {
        /// Every copy of each page a later pass found (listed in `writePart` by their place, not
        /// the order the workers finished them in): the merge counts the
        /// copies beyond the newest as `duplicate_pages` and all their HTML, as a whole run does
        /// (with only the newest kept here, a sharded build's report.html, and so its manifest,
        /// differed from a whole build's when a stub's target had two copies).
        var articles: [String: [KeptArticle]] = [:]
        var redirects: [Redirect] = []
        var disambiguations: [Disambiguation] = []

        struct Redirect: Sendable, Equatable {
            var alias: String
            var target: String
            var matched: [String]
            var htmlBytes: Int
            /// The stub's copy (nil for an alias from an article's `redirects` field).
            var copy: Copy? = nil
        }

        struct Disambiguation: Sendable, Equatable {
            var title: String
            var wikidata: String?
            var matched: [String]
            var htmlBytes: Int
            var copy: Copy? = nil
        }
    }

    @discardableResult
    public func run() throws -> Summary {
        try FileSystem.refuseOutputs(options.outputs, overwriting: options.inputs)
        let clock = PhaseTrace(stage: "wiki")
        var run = Run(spill: try SpillFile(in: directory(of: options.output)))
        run.findingRuns.limit = options.findingsHeld
        run.rejectLimit = Self.rejectLimit(inputs: options.inputs, maxRejectRate: options.maxRejectRate)
        run.recordsLate = options.part != nil
        var wanted = options.wants
        options.progress.start()
        defer { options.progress.finish() }
        do {
            try pass(wanted: wanted, into: &run)
        } catch is StopReading {
            try writeRejectsAndCheckLimit(run)
            preconditionFailure("a run that stopped reading is over its reject limit")
        }
        clock.mark("pass 1")
        if run.recordsLate {
            run.firstPass = FirstPass(
                articles: run.articles, redirects: run.redirects, pageCopies: run.pageCopies, disambiguations: run.disambiguations,
                disambiguationItems: run.disambiguationItems, duplicates: run.duplicates, htmlBytes: run.summary.htmlBytes)
        }
        // Redirect stubs whose target nobody else wanted: read the dumps again for the targets
        // (a shard reads every dump for its own stubs' targets: they may be in any share).
        var followed = Set<String>()
        while run.summary.passes < Self.maximumPasses {
            let late = Self.lateWants(
                redirects: run.redirects, found: { run.articles[$0] != nil }, items: Self.items(of: run.articles, wikidata: \.wikidata),
                followed: &followed, itemTitles: &run.itemTitles, wanted: wanted, wholeState: options.part == nil,
                followsFound: Self.followsFound(inputs: options.inputs.count))
            if late.isEmpty { break }
            // What the earlier passes read is not read again as another copy. A shard's later
            // passes want more than the merge's (it follows every stub): it skips only what the
            // first pass, which every shard and the merge share, wanted, and the merge's
            // dedupe of the later finds does the rest.
            try pass(wanted: late, earlier: options.part == nil ? wanted : options.wants, into: &run)
            wanted.add(late)
            clock.mark("pass \(run.summary.passes)")
        }
        if let part = options.part {
            run.summary.unchanged = try writePart(run, identity: part)
            return run.summary
        }
        do {
            try Self.checkSomeLineIsOfTheWiki(
                run.summary, wanted: options.wants, inputCount: options.inputs.count, path: options.inputs.count == 1 ? options.inputs[0] : nil,
                rejects: options.rejects)
        } catch {
            try writeRejects(run)
            throw error
        }
        let requesters = resolveRequesters(wanted, &run)
        (run.summary.unchanged, run.summary.articles) = try write(run, wanted: wanted, requesters: requesters)
        return run.summary
    }

    /// Keeps a finished article, or records why its HTML was refused.
    func finish(_ article: Article, _ result: Result<Blurb, Error>, into run: inout Run) {
        switch result {
        case .success(let blurb):
            var kept = article
            kept.blurb = blurb
            kept.complete(with: blurb.page)
            keep(kept, into: &run)
        case .failure(let error):
            run.findings.append(Finding(
                path: article.source, line: article.line, record: article.record, reason: "article \"\(article.title)\": \(error)"))
            run.summary.rejected += 1
        }
    }

    /// The most passes over the dumps a run makes: the first, and two for redirect stubs' targets.
    static let maximumPasses = 3

    /// The titles a run reads the dumps again for, each not followed before and not wanted by
    /// its own title so far: the target of a redirect (a redirect stub, or with `followsFound`
    /// an alias a page lists in its `redirects`), in alias order, wanted by the alias's
    /// requesters; and with `followsFound` the title of an article found by its Wikidata item
    /// (`items`: each kept title and its item), in item order, for no requester of its own. An article found through an alias or its item was read only in the copies
    /// that named the alias or the item: read again by its title, every copy of it is seen, and
    /// the newest wins (an older copy listing the alias shipped; the newer copies were never
    /// read). `itemTitles` notes the title followed for each item, so that the item's requesters
    /// keep the article when its newest copy does not name the item (`requesters`). The whole
    /// run and the merge of a sharded run decide them here.
    ///
    /// `wholeState` says whether `found` knows every copy read (a whole run, the merge): only
    /// then is a stub of an alias that has an article stale. A shard follows every stub (its
    /// article of the alias may lose in the merge to another shard's newer copy), and the merge
    /// takes the later finds it wants.
    static func lateWants(
        redirects: [String: String], found: (String) -> Bool, items: [(id: String, title: String)], followed: inout Set<String>,
        itemTitles: inout [String: String], wanted: WikiWants, wholeState: Bool, followsFound: Bool
    ) -> WikiWants {
        var late = WikiWants(language: wanted.language)
        // Not a target someone wanted already (every dump was read for it: an article of it
        // dropped as older than its disambiguation copy was read again, and counted twice), nor
        // the redirect of an alias that has an article (a stub older than it is stale); a found
        // one only when `followsFound`.
        for (alias, target) in redirects.sorted(by: { $0.key < $1.key })
        where (followsFound || !found(target)) && !followed.contains(target) && wanted.titles[target] == nil
            && !(wholeState && found(alias))
        {
            followed.insert(target)
            for requester in wanted.titles[alias] ?? [] { late.want(title: target, by: requester) }
        }
        for (id, title) in items.sorted(by: { ($0.id, $0.title) < ($1.id, $1.title) }) {
            guard wanted.wikidata[id] != nil, wanted.titles[title] == nil else { continue }
            if itemTitles[id] == nil { itemTitles[id] = title }
            guard followsFound, !followed.contains(title) else { continue }
            followed.insert(title)
            // Read, for no requester of its own: the item's requesters go to one of its pages,
            // the first with text by title (`requesters`), not to every page that names it.
            late.want(title: title)
        }
        return late
    }

    /// Whether a run reads the dumps again for the other copies of a page it found through an
    /// alias or its item (`lateWants`): only when there are several inputs, where another copy
    /// may be. One snapshot holds one copy of each page, and a second reading of a dump of
    /// millions of pages for nothing would double the stage's time.
    static func followsFound(inputs: Int) -> Bool { inputs > 1 }

    /// Each kept article's title with its Wikidata item (upper-cased), for `lateWants`.
    static func items<Kept>(of articles: [String: Kept], wikidata: (Kept) -> String?) -> [(id: String, title: String)] {
        articles.compactMap { title, kept in wikidata(kept).map { ($0.uppercased(), title) } }
    }

    /// Notes that `alias` redirects to `target`. Two pages may claim one alias (a redirect
    /// retargeted between two dumps, two pages listing the same alias): the alias goes to the
    /// target first in byte order, whatever the order of the inputs, the passes or the shards
    /// (`WikiMerge` merges the parts' claims by the same rule), so the outputs never depend on
    /// which was read last.
    static func claim(_ redirects: inout [String: String], alias: String, target: String) {
        if let existing = redirects[alias], !WikiTitle.byteOrder(target, existing) { return }
        redirects[alias] = target
    }

    /// Keeps an article unless a newer copy of it is kept; notes redirects and disambiguations.
    func keep(_ article: Article, into run: inout Run) {
        let late = run.recordsLate && run.summary.passes > 1
        switch article.blurb.kind {
        case .redirect(let target):
            Self.claim(&run.redirects, alias: article.title, target: WikiTitle.normalize(target))
            if late {
                run.late.redirects.append(LateFinds.Redirect(
                    alias: article.title, target: WikiTitle.normalize(target), matched: article.matched, htmlBytes: article.htmlBytes,
                    copy: article.copy))
            }
            notePageCopy(article, into: &run)
            return
        case .disambiguation:
            run.disambiguations.insert(article.title)
            if let id = article.wikidata { run.disambiguationItems.insert(id.uppercased()) }
            if late {
                run.late.disambiguations.append(LateFinds.Disambiguation(
                    title: article.title, wikidata: article.wikidata?.uppercased(), matched: article.matched, htmlBytes: article.htmlBytes,
                    copy: article.copy))
            }
            notePageCopy(article, into: &run)
            run.skips.append(Finding(path: article.source, line: article.line, record: article.record, reason: "\"\(article.title)\" is a disambiguation page: skipped"))
            return
        case .article:
            // Nothing the app could show. Kept like any copy (the newest copy decides, it counts
            // as found, so no pass looks for it again), and never written (its empty `html` is
            // skipped by `write` and by `WikiMerge.forEachArticle`).
            if !article.hasText {
                run.skips.append(Finding(
                    path: article.source, line: article.line, record: article.record, reason: Self.textless(article.title)))
            }
        }
        // Stored once, in the spill file, for either table that keeps it.
        var kept: KeptArticle? = nil
        func stored() -> KeptArticle? {
            if kept == nil {
                do {
                    kept = try store(article, in: run.spill)
                } catch {
                    if run.spillError == nil { run.spillError = error }
                }
            }
            return kept
        }
        if late, let entry = stored() { run.late.articles[article.title, default: []].append(entry) }
        // Older than the page's redirect or disambiguation copy: the page is no longer this.
        if let page = run.pageCopies[article.title], page.isNewer(than: article.copy) {
            run.duplicates += 1
            return
        }
        if let existing = run.articles[article.title] {
            run.duplicates += 1
            if !isNewer(article, than: existing, in: &run) { return }
        }
        if let entry = stored() { run.articles[article.title] = entry }
    }

    /// Notes a redirect stub's or disambiguation page's copy of its title: the newest is kept,
    /// and an article copy of the title older than it is dropped (a page turned into a redirect
    /// or a disambiguation page since: the stale article shipped). Whatever order the copies
    /// come in, an article is kept only when no such copy is newer (`WikiMerge` decides alike).
    private func notePageCopy(_ page: Article, into run: inout Run) {
        let copy = page.copy
        if let newest = run.pageCopies[page.title], !copy.isNewer(than: newest) { return }
        run.pageCopies[page.title] = copy
        guard let kept = run.articles[page.title] else { return }
        do {
            guard copy.isNewer(than: try article(kept, in: run.spill).copy) else { return }
        } catch {
            if run.spillError == nil { run.spillError = error }
            return
        }
        run.articles.removeValue(forKey: page.title)
        run.duplicates += 1
    }

    /// The finding of a copy of a page the blurb rules leave no text of.
    static func textless(_ title: String) -> String {
        "this copy of \"\(title)\" has no text left by the blurb rules (only lists, tables, stubs or skipped sections): it is not shipped"
    }

    /// Whether `article` is a newer copy of its page than the one kept (read back from the spill
    /// file), or no copy is kept. A copy that cannot be read back loses (the run then fails).
    private func isNewer(_ article: Article, than kept: KeptArticle?, in run: inout Run) -> Bool {
        guard let kept else { return true }
        do {
            return article.isNewer(than: try self.article(kept, in: run.spill))
        } catch {
            if run.spillError == nil { run.spillError = error }
            return true
        }
    }

    /// Who asked for the run's articles, and what was wanted and not found (`summary.missing`).
    private func resolveRequesters(_ wanted: WikiWants, _ run: inout Run) -> Requesters {
        // Read back from the spill file only for a Wikidata item two kept pages share.
        var readError: Error? = nil
        let resolved = Self.requesters(
            of: run.articles, wikidata: \.wikidata,
            hasText: { [spill = run.spill] kept in
                do { return try self.article(kept, in: spill).hasText } catch {
                    if readError == nil { readError = error }
                    return true
                }
            },
            redirects: run.redirects, itemTitles: run.itemTitles, disambiguations: run.disambiguations,
            disambiguationItems: run.disambiguationItems, wanted: wanted, asked: options.wants)
        if run.spillError == nil { run.spillError = readError }
        run.summary.missing = resolved.missing
        // Those someone asks for (a losing claimant of an alias or of a Wikidata item is not
        // written, as the report's `found` does not count it); a whole run counts again what it
        // writes (`write`), leaving out too a page whose newest copy has no text.
        run.summary.articles = run.articles.keys.count { resolved.isWanted($0) }
        return resolved
    }

    /// Who asked for each article: the requesters of its own title (in `wanted`), and those that
    /// reach it another way (`indirect`): by a redirect to it or by its Wikidata item. Kept apart
    /// so that memory holds a set only for an article reached another way.
    struct Requesters: Sendable {
        let wanted: WikiWants
        var indirect: [String: WikiWants.RequesterSet] = [:]
        /// What was wanted and not found (nor skipped as a disambiguation page), sorted.
        var missing: [String] = []

        /// The requesters of the article kept under `title`.
        func of(_ title: String) -> WikiWants.RequesterSet {
            let own = wanted.titles[title] ?? []
            guard let more = indirect[title] else { return own }
            return own.union(more)
        }

        /// Whether anyone asked for the article kept under `title`.
        func isWanted(_ title: String) -> Bool {
            !(wanted.titles[title]?.isEmpty ?? true) || !(indirect[title]?.isEmpty ?? true)
        }
    }

    /// Who asked for each article (`articles` by title, `wikidata` giving each one's Wikidata
    /// item, `hasText` whether the rules left it any text): the requesters of its title, of its
    /// QID and of the redirects to it; and what was wanted and not found (nor skipped as a
    /// disambiguation page). The whole run and the merge decide it here.
    ///
    /// `asked` is what the run was asked for, before the later passes added the targets of
    /// redirect stubs to `wanted`: only it is listed as missing (a stub's target in no dump is
    /// its alias's, listed once), and a title that resolves to a disambiguation page, itself or
    /// through a redirect, is skipped, not missing.
    static func requesters<Kept>(
        of articles: [String: Kept], wikidata: (Kept) -> String?, hasText: (Kept) -> Bool, redirects: [String: String],
        itemTitles: [String: String] = [:], disambiguations: Set<String>, disambiguationItems: Set<String>, wanted: WikiWants, asked: WikiWants
    ) -> Requesters {
        var byWikidata: [String: String] = [:]
        // A QID two articles share goes to the first title with text, in title order (never the
        // hash order); to the first title when none has any (it is found, and ships nothing).
        if !wanted.wikidata.isEmpty {
            for title in articles.keys.sorted() {
                guard let id = wikidata(articles[title]!)?.uppercased() else { continue }
                if let first = byWikidata[id] {
                    if !hasText(articles[first]!), hasText(articles[title]!) { byWikidata[id] = title }
                } else {
                    byWikidata[id] = title
                }
            }
        }
        var indirect: [String: WikiWants.RequesterSet] = [:]
        var missing: [String] = []
        for (title, requesters) in wanted.titles {
            var target = title
            var hops = 0
            while articles[target] == nil, let next = redirects[target], hops < 5 {
                target = next
                hops += 1
            }
            if articles[target] != nil {
                // An article's own title's requesters are `wanted`'s: not copied.
                if target != title { indirect[target, default: []].formUnion(requesters) }
            } else if asked.titles[title] != nil, !disambiguations.contains(title), !disambiguations.contains(target) {
                missing.append(title)
            }
        }
        for (id, requesters) in wanted.wikidata {
            // The title followed for the item (`lateWants`) when no kept copy names it: the
            // page's newest copy need not (a REST page carries no item).
            if let title = byWikidata[id] ?? itemTitles[id].flatMap({ articles[$0] == nil ? nil : $0 }) {
                indirect[title, default: []].formUnion(requesters)
            } else if !disambiguationItems.contains(id) {
                missing.append(id)
            }
        }
        return Requesters(wanted: wanted, indirect: indirect, missing: missing.sorted())
    }

    /// Fails when articles are wanted and no line of the inputs is of the pipeline's wiki: they
    /// are another language's dump (`wikipedia_language` left at `en` for a `de` dump), or no
    /// dump at all (the iNaturalist inputs given as the Wikipedia ones), and the guide would be
    /// published without articles, each line or file skipped with a word in the rejects alone.
    /// Rejected lines are the reject limit's to judge (a test of findings allows them all); a
    /// pipeline with no Wikipedia inputs wants no dump read.
    /// - Parameter path: the one input (nil when there are several: the error names none).
    static func checkSomeLineIsOfTheWiki(
        _ summary: Summary, wanted: WikiWants, inputCount: Int, path: String?, rejects: String
    ) throws {
        guard summary.linesOfTheWiki == 0, summary.rejected == 0, !wanted.isEmpty, inputCount > 0 else { return }
        var held: [String] = []
        if !summary.otherWikis.isEmpty {
            let count = summary.otherWikis.values.reduce(0, +)
            let wikis = summary.otherWikis.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            held.append("\(count) line\(count == 1 ? " is" : "s are") of other wikis (" + wikis.prefix(5).map { "\($0.key): \($0.value)" }.joined(separator: ", ")
                + (wikis.count > 5 ? ", …" : "") + ")")
        }
        if summary.filesSkipped > 0 {
            held.append("\(summary.filesSkipped) file\(summary.filesSkipped == 1 ? " holds" : "s hold") no Wikipedia dump (see \(rejects))")
        }
        if held.isEmpty { held.append("they hold no line") }
        throw FieldpackError(
            path: path,
            "no line of the Wikipedia inputs\(inputCount == 1 ? "" : " (\(inputCount) of them)") is of \(wanted.language) Wikipedia, "
                + "the pipeline's wikipedia_language, and \(wanted.count) article\(wanted.count == 1 ? " is" : "s are") wanted: "
                + held.joined(separator: "; ")
                + "; give the dump of that language's Wikipedia, or set wikipedia_language to the dump's")
    }

    static func url(of title: String, language: String) -> String {
        "https://\(language).wikipedia.org/wiki/" + title.replacingOccurrences(of: " ", with: "_")
    }

    /// Writes the rejects (even when the threshold stops the stage), then fails if the rejected
    /// lines are over the limit or reading stopped early.
    @discardableResult
    private func writeRejectsAndCheckLimit(_ run: Run) throws -> Bool {
        try checkLimit(run)
        return try writeRejects(run)
    }

    /// Fails, with the rejects written, when the rejected lines are over the limit or reading
    /// stopped early.
    private func checkLimit(_ run: Run) throws {
        let rate = run.summary.lines == 0 ? 0 : Double(run.summary.rejected) / Double(run.summary.lines)
        if rate > options.maxRejectRate || run.stoppedAt != nil {
            try writeRejects(run)
            throw Self.overLimit(
                rejected: run.summary.rejected, lines: run.summary.lines, maxRejectRate: options.maxRejectRate, stoppedAt: run.stoppedAt,
                path: mostRejected(run) ?? options.output, rejects: options.rejects)
        }
    }

    /// Writes the rejects, the articles someone asked for (read back from the spill file one at
    /// a time, in title order) and the report; returns the outputs left as they were.
    /// The three are written out before any is put in place (`AtomicOutput.commitAll`): a run
    /// that fails (a full disk, a scratch file that cannot be read back) leaves all three as they
    /// were, where it had replaced the rejects and the report beside the previous articles.
    /// Returns the outputs left as they were, and how many articles were written.
    private func write(_ run: Run, wanted: WikiWants, requesters: Requesters) throws -> (unchanged: [String], articles: Int) {
        if let error = run.spillError { throw error }
        try checkLimit(run)
        let rejects = try rejectsOutput(run)
        let output = try AtomicOutput(path: options.output, keepsIdenticalFile: options.keepsUnchangedOutputs)
        var writer = JSONWriter(capacity: 1 << 16)
        var written = 0
        for title in run.articles.keys.sorted(by: WikiTitle.byteOrder) {
            let asked = requesters.of(title)
            guard !asked.isEmpty else { continue }
            let article = try self.article(run.articles[title]!, in: run.spill)
            var record = try self.record(of: article, spill: run.spill, language: wanted.language)
            // The newest copy has no text: the page ships none (its finding says so).
            if record.html.isEmpty { continue }
            written += 1
            record.setRequesters(asked)
            record.encode(into: &writer)
            if writer.count > 1 << 20 {
                try output.write(writer.bytes)
                writer.reset()
            }
        }
        try output.write(writer.bytes)
        let report = try AtomicOutput(path: options.report, keepsIdenticalFile: options.keepsUnchangedOutputs)
        try report.write(self.report(run, wanted: wanted, requesters: requesters).json())
        try AtomicOutput.commitAll([rejects, report, output])
        let unchanged = Self.unchanged([
            (options.rejects, !rejects.keptIdenticalFile), (options.report, !report.keptIdenticalFile), (options.output, !output.keptIdenticalFile),
        ])
        return (unchanged, written)
    }

    /// The paths of the outputs that were not replaced, in the order given.
    static func unchanged(_ outputs: [(path: String, replaced: Bool)]) -> [String] {
        outputs.filter { !$0.replaced }.map(\.path)
    }

    /// The error of a run whose rejected lines are over the limit.
    static func overLimit(
        rejected: Int, lines: Int, maxRejectRate: Double, stoppedAt: String?, path: String, rejects: String
    ) -> FieldpackError {
        let rate = lines == 0 ? 0 : Double(rejected) / Double(lines)
        let stopped = stoppedAt.map { "; stopped reading early at \($0), where the limit could no longer be met" } ?? ""
        return FieldpackError(
            path: path,
            "\(rejected) of \(lines) dump lines rejected (\(percent(rate))), over the "
                + "\(percent(maxRejectRate)) limit\(stopped); see \(rejects)")
    }

    /// A kept article as a line of `articles.jsonl`, without its requesters; its blurb's text is
    /// read back from the spill file.
    func record(of article: Article, spill: SpillFile, language: String) throws -> ArticleRecord {
        var summary = article.blurb.summary
        var html = article.blurb.html
        if let stored = article.stored {
            summary = try spill.string(at: stored.summary)
            html = try spill.string(at: stored.html)
        }
        var record = ArticleRecord(title: article.title, url: article.url, summary: summary, html: html)
        record.pageID = article.pageID
        record.revision = article.revision
        record.modified = article.modified
        record.language = language
        record.wikidata = article.wikidata
        record.license = article.license
        record.sections = Int64(article.blurb.sections)
        return record
    }

    /// Writes the run's findings, rejected then skipped, each in input order; the first 20 on
    /// stderr too. Returns false when the file was left as it was (`keepsUnchangedOutputs`).
    @discardableResult
    func writeRejects(_ run: Run) throws -> Bool {
        let output = try rejectsOutput(run)
        try output.commit()
        return !output.keptIdenticalFile
    }

    /// The rejects file written out but not yet in place (see `writeRejects`).
    func rejectsOutput(_ run: Run) throws -> AtomicOutput {
        let output = try AtomicOutput(path: options.rejects, keepsIdenticalFile: options.keepsUnchangedOutputs)
        var told = 0
        var pending: [UInt8] = []
        try run.findingRuns.forEachLine(held: [run.findings, run.skips, run.salvaged]) { line, finding in
            pending += line
            pending.append(0x0A)
            if pending.count >= 1 << 20 {
                try output.write(pending)
                pending.removeAll(keepingCapacity: true)
            }
            // The first 20 on stderr, as ingest does; all of them in the rejects file.
            if told < 20 { StandardError.write(finding.diagnostic) }
            told += 1
        }
        try output.write(pending)
        if told > 20 { StandardError.write("fieldpack-wiki: … \(told - 20) more in \(options.rejects)") }
        return output
    }

    /// The input most findings are about (the first of them in input order), or nil if none is.
    private func mostRejected(_ run: Run) -> String? {
        Self.mostRejected(rejectedByInput(run))
    }

    /// How many rejected lines are about each input (`options.inputs`, in order): those held
    /// and those spilled (`FindingRuns.rejectedByPath`).
    func rejectedByInput(_ run: Run) -> [(input: String, count: Int)] {
        func isOf(_ input: String, _ path: String) -> Bool { path == input || path.hasPrefix(input + "#") }
        return options.inputs.map { input in
            (input, run.findings.count { isOf(input, $0.path) } + run.findingRuns.rejectedByPath.reduce(0) { $0 + (isOf(input, $1.key) ? $1.value : 0) })
        }
    }

    /// Spills the findings held to a scratch file when they are more than memory holds
    /// (`FindingRuns`): after every line read.
    func spillFindings(_ run: inout Run) throws {
        guard run.findings.count + run.skips.count + run.salvaged.count > run.findingRuns.limit else { return }
        var held = [run.findings, run.skips, run.salvaged]
        (run.findings, run.skips, run.salvaged) = ([], [], [])
        try run.findingRuns.spillIfOver(&held, folder: directory(of: options.output))
        (run.findings, run.skips, run.salvaged) = (held[0], held[1], held[2])
    }

    /// The input with the most findings (the first of them in input order), or nil if none has.
    static func mostRejected(_ counts: [(input: String, count: Int)]) -> String? {
        var best: (input: String, count: Int)? = nil
        for (input, count) in counts where count > (best?.count ?? 0) { best = (input, count) }
        return best?.input
    }

    private func report(_ run: Run, wanted: WikiWants, requesters: Requesters) -> WikiReport {
        WikiReport(
            wanted: options.wants.count, found: run.articles.keys.count { requesters.isWanted($0) }, missing: run.summary.missing,
            redirectsFollowed: run.redirects.sorted(by: { $0.key < $1.key })
                .filter { wanted.titles[$0.key] != nil && run.articles[$0.key] == nil }.map { ($0.key, $0.value) },
            disambiguations: run.disambiguations.filter { run.articles[$0] == nil }.sorted(), duplicates: run.duplicates,
            filesSkipped: run.summary.filesSkipped,
            lines: run.summary.lines, skipped: run.summary.skipped, linesOfTheWiki: run.summary.linesOfTheWiki,
            otherWikis: run.summary.otherWikis, rejected: run.summary.rejected, passes: run.summary.passes,
            bytes: run.summary.bytes, htmlBytes: run.summary.htmlBytes, inputs: options.inputs.count)
    }
}
