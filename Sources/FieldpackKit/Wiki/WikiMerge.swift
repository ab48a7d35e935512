/// Merges the parts of a sharded wiki run (`WikiPart`) into what one whole run writes: the same
/// `articles.jsonl` and `wiki-report.json`, byte for byte, for any shard count.
///
/// What a whole run decides across dumps is decided here over all parts, with the same code:
/// of a page kept by several shards the newest copy wins (`WikiStage.Copy`); redirects, the
/// targets of redirect stubs (`WikiStage.lateWants`: the parts' later passes read every dump for
/// their own stubs' targets, and the merge keeps what a whole run would have looked for), who
/// asked for each article and what is missing (`WikiStage.requesters`), and the reject limit.
/// Parts from other inputs, other tool versions or another shard count are refused, naming both.
///
/// Memory holds the parts' reports (a few hundred bytes per article), never the blurbs: they are
/// read from the parts' `articles.jsonl` one at a time.
public struct WikiMerge {
    let reports: [WikiPart.Report]
    let winners: [String: (part: Int, entry: Int)]
    let requesters: WikiStage.Requesters
    let report: WikiReport

    /// Reads and checks the parts `paths` name (part folders, or folders of them).
    public init(parts paths: [String]) throws {
        let folders = try WikiPart.folders(paths)
        guard !folders.isEmpty else { throw FieldpackError("no wiki parts given") }
        let parser = JSONParser()
        let reports = try folders.map { try WikiPart.Report(folder: $0, parser: parser) }
        self.reports = try Self.checked(reports)
        let decided = Self.decide(self.reports)
        winners = decided.winners
        requesters = decided.requesters
        report = decided.report
    }

    /// The parts in shard order, once each shard of one run is there and every part agrees on
    /// what it was made from.
    static func checked(_ reports: [WikiPart.Report]) throws -> [WikiPart.Report] {
        let first = reports[0]
        for other in reports.dropFirst() {
            // The shard count first: the fingerprint covers it, and this says it plainly.
            if other.identity.shard.count != first.identity.shard.count {
                throw FieldpackError(
                    path: other.path,
                    "is shard \(other.identity.shard) but \(first.path) is shard \(first.identity.shard): parts of one run share a shard count")
            }
            try first.identity.origin.requireSame(other.identity.origin, path: first.path, otherPath: other.path, covered: WikiPart.covered)
        }
        let count = first.identity.shard.count
        var byIndex = [WikiPart.Report?](repeating: nil, count: count)
        for report in reports {
            if let twin = byIndex[report.identity.shard.index] {
                throw FieldpackError(path: report.path, "is shard \(report.identity.shard), and so is \(twin.path): give each shard once")
            }
            byIndex[report.identity.shard.index] = report
        }
        if let gap = byIndex.firstIndex(where: { $0 == nil }) {
            throw FieldpackError(path: first.folder, "shard \(gap)/\(count) is missing: a merge needs all \(count) parts")
        }
        return byIndex.map { $0! }
    }

    /// What a whole run would have kept and reported, from the parts.
    private static func decide(
        _ reports: [WikiPart.Report]
    ) -> (winners: [String: (part: Int, entry: Int)], requesters: WikiStage.Requesters, report: WikiReport) {
        var kept: [String: (part: Int, entry: Int, copy: WikiStage.Copy, wikidata: String?, hasText: Bool)] = [:]
        var duplicates = reports.reduce(0) { $0 + $1.duplicates }
        var htmlBytes = reports.reduce(0) { $0 + $1.htmlBytes }
        // The newest redirect-stub or disambiguation copy of each title (`WikiStage.pageCopies`):
        // an article copy older than it is not kept, whichever came first.
        var pageCopies: [String: WikiStage.Copy] = [:]
        func notePage(_ title: String, _ copy: WikiStage.Copy?) {
            guard let copy else { return }
            if let newest = pageCopies[title], !copy.isNewer(than: newest) { return }
            pageCopies[title] = copy
            if let existing = kept[title], copy.isNewer(than: existing.copy) {
                kept.removeValue(forKey: title)
                duplicates += 1
            }
        }
        func keep(_ entry: WikiPart.Entry, part: Int, index: Int) {
            if let page = pageCopies[entry.title], page.isNewer(than: entry.copy) {
                duplicates += 1
                return
            }
            if let existing = kept[entry.title] {
                duplicates += 1
                if !entry.copy.isNewer(than: existing.copy) { return }
            }
            kept[entry.title] = (part, index, entry.copy, entry.wikidata, entry.hasText)
        }
        var redirects: [String: String] = [:]
        var disambiguations = Set<String>()
        var disambiguationItems = Set<String>()
        // What the first passes found, shard by shard (each read its own share of the dumps).
        for (part, report) in reports.enumerated() {
            for page in report.pageCopies { notePage(page.title, page.copy) }
            for (index, entry) in report.articles.enumerated() where !entry.late { keep(entry, part: part, index: index) }
            for (alias, target) in report.redirects { WikiStage.claim(&redirects, alias: alias, target: target) }
            disambiguations.formUnion(report.disambiguations)
            disambiguationItems.formUnion(report.disambiguationItems)
        }
        // What the later passes found; the same copy found by two shards counts once.
        var lateArticles: [(part: Int, index: Int, entry: WikiPart.Entry)] = []
        var seen: [String: Int] = [:]
        for (part, report) in reports.enumerated() {
            for (index, entry) in report.articles.enumerated() where entry.late {
                let key = "\(entry.title)\n\(entry.copy.source)\n\(entry.copy.line ?? 0)\n\(entry.copy.record ?? "")"
                if let first = seen[key] {
                    // Read by two shards for different stubs: the titles it was wanted as are
                    // both's, or the merge skips a pass a whole run makes it in.
                    let matched = Set(lateArticles[first].entry.matched).union(entry.matched)
                    lateArticles[first].entry.matched = matched.sorted()
                } else {
                    seen[key] = lateArticles.count
                    lateArticles.append((part, index, entry))
                }
            }
        }
        var lateRedirects: [WikiStage.LateFinds.Redirect] = []
        var lateDisambiguations: [WikiStage.LateFinds.Disambiguation] = []
        for report in reports {
            for redirect in report.lateRedirects where !lateRedirects.contains(redirect) { lateRedirects.append(redirect) }
            for page in report.lateDisambiguations where !lateDisambiguations.contains(page) { lateDisambiguations.append(page) }
        }
        // The passes a whole run makes for redirect stubs' targets, with what the shards found.
        var wanted = reports[0].wants
        var followed = Set<String>()
        var itemTitles: [String: String] = [:]
        var passes = 1
        var taken = (articles: Set<Int>(), redirects: Set<Int>(), pages: Set<Int>())
        while passes < WikiStage.maximumPasses {
            let late = WikiStage.lateWants(
                redirects: redirects, found: { kept[$0] != nil }, items: WikiStage.items(of: kept, wikidata: { $0.wikidata }), followed: &followed,
                itemTitles: &itemTitles, wanted: wanted, wholeState: true, followsFound: WikiStage.followsFound(inputs: reports[0].inputCount))
            if late.isEmpty { break }
            passes += 1
            func hit(_ matched: [String]) -> Bool { matched.contains { late.titles[$0] != nil } }
            for (number, found) in lateArticles.enumerated() where !taken.articles.contains(number) && hit(found.entry.matched) {
                taken.articles.insert(number)
                htmlBytes += found.entry.htmlBytes
                keep(found.entry, part: found.part, index: found.index)
            }
            for (number, redirect) in lateRedirects.enumerated() where !taken.redirects.contains(number) && hit(redirect.matched) {
                taken.redirects.insert(number)
                htmlBytes += redirect.htmlBytes
                WikiStage.claim(&redirects, alias: redirect.alias, target: redirect.target)
                notePage(redirect.alias, redirect.copy)
            }
            for (number, page) in lateDisambiguations.enumerated() where !taken.pages.contains(number) && hit(page.matched) {
                taken.pages.insert(number)
                htmlBytes += page.htmlBytes
                disambiguations.insert(page.title)
                if let id = page.wikidata { disambiguationItems.insert(id) }
                notePage(page.title, page.copy)
            }
            wanted.add(late)
        }
        let resolved = WikiStage.requesters(
            of: kept, wikidata: { $0.wikidata }, hasText: { $0.hasText }, redirects: redirects, itemTitles: itemTitles, disambiguations: disambiguations,
            disambiguationItems: disambiguationItems, wanted: wanted, asked: reports[0].wants)
        func sum(_ value: (WikiPart.Report) -> Int) -> Int { reports.reduce(0) { $0 + value($1) } }
        let report = WikiReport(
            wanted: reports[0].wants.count, found: kept.keys.count { resolved.isWanted($0) }, missing: resolved.missing,
            redirectsFollowed: redirects.sorted(by: { $0.key < $1.key })
                .filter { wanted.titles[$0.key] != nil && kept[$0.key] == nil }.map { ($0.key, $0.value) },
            disambiguations: disambiguations.filter { kept[$0] == nil }.sorted(), duplicates: duplicates, filesSkipped: sum(\.filesSkipped),
            lines: sum(\.lines), skipped: sum(\.skipped), linesOfTheWiki: sum(\.linesOfTheWiki),
            otherWikis: reports.reduce(into: [:]) { all, part in all.merge(part.otherWikis, uniquingKeysWith: +) },
            rejected: sum(\.rejected), passes: passes, bytes: sum(\.bytes),
            htmlBytes: htmlBytes, inputs: reports[0].inputCount)
        return (kept.mapValues { ($0.part, $0.entry) }, resolved, report)
    }

    /// The parts' rejects files, as an error names them: each of up to four, else the first and
    /// the last (a thousand shards' paths made a message of a thousand paths).
    private var partsRejects: String {
        let files = reports.map { $0.folder + "/" + WikiPart.rejectsFile }
        return files.count <= 4 ? files.joined(separator: ", ") : "the \(files.count) parts' \(WikiPart.rejectsFile), \(files[0]) to \(files[files.count - 1])"
    }

    /// Fails as a whole run does when the rejected lines of all parts are over the limit, or no
    /// line of any part is of the pipeline's wiki (`WikiStage.checkSomeLineIsOfTheWiki`).
    public func checkRejects() throws {
        let first = reports[0]
        var summary = WikiStage.Summary()
        (summary.linesOfTheWiki, summary.otherWikis, summary.filesSkipped, summary.rejected) =
            (report.linesOfTheWiki, report.otherWikis, report.filesSkipped, report.rejected)
        try WikiStage.checkSomeLineIsOfTheWiki(
            summary, wanted: first.wants, inputCount: first.inputCount, path: nil, rejects: partsRejects)
        let rate = report.lines == 0 ? 0 : Double(report.rejected) / Double(report.lines)
        guard rate > first.maxRejectRate else { return }
        var counts = first.rejectedByInput
        for other in reports.dropFirst() {
            for (index, entry) in other.rejectedByInput.enumerated() where index < counts.count { counts[index].count += entry.count }
        }
        throw WikiStage.overLimit(
            rejected: report.rejected, lines: report.lines, maxRejectRate: first.maxRejectRate, stoppedAt: nil,
            path: WikiStage.mostRejected(counts) ?? first.folder,
            rejects: partsRejects)
    }

    /// The merged `wiki-report.json`.
    public func reportJSON() throws -> String {
        try checkRejects()
        return report.json()
    }

    /// Each article a whole run writes, in its order (by title), with its requesters; `path`
    /// and `line` say where it came from.
    public func forEachArticle(_ body: (_ article: ArticleRecord, _ path: String, _ line: Int) throws -> Void) throws {
        try checkRejects()
        let readers = try reports.map { LineReader(source: try RawFileSource(path: $0.articlesPath)) }
        var read = [Int](repeating: 0, count: reports.count)
        let parser = JSONParser()
        for title in winners.keys.sorted(by: WikiTitle.byteOrder) {
            let requesters = self.requesters.of(title)
            guard !requesters.isEmpty, let winner = winners[title] else { continue }
            let (part, entry) = (winner.part, winner.entry)
            let path = reports[part].articlesPath
            var found: LineReader.Line? = nil
            while read[part] <= entry {
                guard let line = try readers[part].next() else {
                    throw FieldpackError(path: path, "holds \(read[part]) articles, but its part report lists \(reports[part].articles.count)")
                }
                if line.bytes.isEmpty { continue }
                read[part] += 1
                found = line
            }
            guard let line = found else { preconditionFailure("articles are read in title order") }
            var article = try ArticleRecord(decoding: try parser.parse(line, in: path), path: path, line: line.number)
            guard article.title == title else {
                throw FieldpackError(path: path, line: line.number, "holds \"\(article.title)\" where its part report lists \"\(title)\"")
            }
            // The newest copy has no text: the page ships none, as in a whole run.
            if article.html.isEmpty { continue }
            article.setRequesters(requesters)
            try body(article, path, line.number)
        }
    }

    /// Writes the merged `articles.jsonl` and `wiki-report.json` (what a whole run writes).
    public func write(articles: String, report reportPath: String) throws {
        let output = try AtomicOutput(path: articles)
        var writer = JSONWriter(capacity: 1 << 16)
        try forEachArticle { article, _, _ in
            article.encode(into: &writer)
            if writer.count > 1 << 20 {
                try output.write(writer.bytes)
                writer.reset()
            }
        }
        try output.write(writer.bytes)
        try AtomicOutput.write(try reportJSON(), to: reportPath)
        try output.commit()
    }

    /// What the parts were read from, for a depfile: each part's articles and report.
    public var files: [String] { reports.flatMap { [$0.articlesPath, $0.path] } }
}
