/// `report.html`: the bundle explained for a data engineer or the app's designer, instead of JSON.
///
/// Its bytes follow from its inputs alone (the database and the stage reports: no clock, no
/// run timings, every list in a stated order), so it is listed in the manifest like the costs
/// report. The run's time and memory per stage are in `RunReport`, outside the bundle.
public struct BundleReport {
    public struct Options: Sendable {
        public var database: String
        public var output: String
        /// Ingest's `rejects.jsonl`: the observations and photos rejected or salvaged.
        /// Ingest's rejects files: one, or a sharded run's (each shard's), counted together.
        public var ingestRejects: [String] = []
        /// The wiki stage's `wiki-report.json`: articles wanted, found and missing.
        public var wikiReport: String? = nil
        /// Instead, the parts of a sharded wiki stage, whose reports merge into it (`WikiMerge`).
        public var wikiParts: [String] = []

        public init(database: String, output: String) {
            self.database = database
            self.output = output
        }
    }

    public struct Summary: Sendable {
        public var sections = 0
        public var bytes = 0
    }

    public let options: Options

    public init(options: Options) {
        self.options = options
    }

    @discardableResult
    public func run() throws -> Summary {
        let facts = try ReportFacts.read(database: options.database, ingestRejects: options.ingestRejects, wikiReport: options.wikiReport, wikiParts: options.wikiParts)
        let (bytes, sections) = Self.render(facts)
        try AtomicOutput.write(String(decoding: bytes, as: UTF8.self), to: options.output)
        return Summary(sections: sections, bytes: bytes.count)
    }

    static func render(_ facts: ReportFacts) -> (bytes: [UInt8], sections: Int) {
        let info = facts.info
        let pipeline = info["pipeline"] ?? "?"
        var page = ReportPage(
            title: "Bundle report: \(pipeline)",
            // `build_date` is the data's date (SOURCE_DATE_EPOCH, else the newest record's), not
            // when the build ran: "built" showed a date years from the run (docs/bundle.md).
            subtitle: "data as of \(info["build_date"] ?? "?") · schema v\(info["schema_version"] ?? "?") · fieldpack \(info["tool_version"] ?? "?")")
        var sections = 0
        func section(_ id: String, _ title: String, _ body: (inout ReportPage) -> Void) {
            sections += 1
            page.section(id, title, body)
        }
        let count = { (key: String) in Int64(info[key] ?? "") ?? 0 }

        section("contents", "What the bundle holds") { page in
            page.tiles([
                ("observations", ReportNumber.count(count("rows.observations"))),
                ("taxa", ReportNumber.count(count("rows.taxa"))),
                ("photos shipped", ReportNumber.count(count("rows.photos"))),
                ("articles", ReportNumber.count(count("rows.articles"))),
                ("destinations", ReportNumber.count(count("rows.destinations"))),
            ])
            page.figure(SVGChart.bars("Rows per table", facts.rows.map { ($0.table, $0.rows, ReportNumber.count($0.rows)) }),
                        caption: "Rows per table, as the manifest counts them.")
            page.html.element("h3", "Per iconic taxon")
            page.figure(SVGChart.bars(
                "Observations per iconic taxon",
                facts.iconic.map { ($0.name, $0.observations, "\(ReportNumber.count($0.observations)) obs · \(ReportNumber.count($0.taxa)) taxa") },
                color: SVGChart.palette[1]),
                caption: "Observations per iconic taxon (taxa.iconic_taxon_name), with the taxa of each.")
            page.table(["iconic taxon", "taxa", "observations"],
                       facts.iconic.map { [$0.name, ReportNumber.count($0.taxa), ReportNumber.count($0.observations)] }, numeric: [1, 2])
        }

        // A pipeline without display targets (the INAT=… default) chooses no tier and costs
        // nothing: its sections said so with empty charts and tables.
        let noTargets = "This pipeline defines no display targets (\"targets\" in the pipeline file), so no photo tier is chosen and "
            + "nothing is costed: add the app's targets to see them."
        section("tiers", "Photo tier chosen per display target") { page in
            guard !facts.targets.isEmpty else { return page.paragraph(noTargets, class: "note") }
            let tierNames = facts.targets.first?.tiers.map(\.tier) ?? []
            page.figure(SVGChart.stacked(
                "Photos per tier and display target", segments: tierNames,
                facts.targets.map { target in (target.name, tierNames.map { name in target.tiers.first { $0.tier == name }?.photos ?? 0 }) }),
                caption: "For each display target, the smallest iNaturalist tier that covers its box; remote photos keep their own URL.")
            page.table(
                ["target", "mode", "box (px)", "photos", "upscaled"],
                facts.targets.map { target in
                    [target.name, target.mode, "\(target.box.0) × \(target.box.1)",
                     ReportNumber.count(target.tiers.reduce(0) { $0 + $1.photos }), ReportNumber.count(target.upscaled)]
                }, numeric: [3, 4])
            // Which costs are estimates: a remote photo's own URL serves one size (costed at its
            // original), and a photo of unknown size is costed at an assumed one.
            let remote = count("photos.remote"), assumed = count("photos.assumed_dimensions")
            if remote > 0 || assumed > 0 {
                page.paragraph(
                    "Of the photos shipped, \(ReportNumber.count(remote)) are remote (their own URL, one size, costed at their original "
                        + "dimensions) and \(ReportNumber.count(assumed)) have unknown dimensions (costed at an assumed size): their costs "
                        + "below are estimates.", class: "note")
            }
        }

        section("bytes", "Decoded and download bytes per target") { page in
            if facts.targets.isEmpty { page.paragraph(noTargets, class: "note") }
            for target in facts.targets {
                page.html.element("h3", "\(target.name) (\(target.mode), \(target.box.0) × \(target.box.1) px)")
                page.figure(SVGChart.histogram(
                    "\(target.name): decoded bytes per photo", Self.byteBins(target.sizes.map { ($0.decoded, $0.photos) }),
                    color: SVGChart.palette[2]),
                    caption: "Decoded (in-memory bitmap) bytes per photo, in powers of two.")
                page.figure(SVGChart.histogram(
                    "\(target.name): download bytes per photo", Self.byteBins(target.sizes.map { ($0.download, $0.photos) }),
                    color: SVGChart.palette[5]),
                    caption: "Download bytes per photo (the cost model's estimate), in powers of two.")
                let keys = ["p50", "p90", "p99", "max", "total"]
                page.table(
                    ["bytes"] + keys,
                    [("decoded", target.decoded), ("download", target.download)].map { name, values in
                        // Of no photo there is no percentile: "–", not "0 B" (the total is 0 B).
                        let shipped = target.sizes.reduce(Int64(0)) { $0 + Int64($1.photos) }
                        return [name] + keys.map { key in
                            shipped == 0 && key != "total" ? "–" : values.first { $0.0 == key }.map { ReportNumber.bytes($0.1) } ?? "–"
                        }
                    }, numeric: [1, 2, 3, 4, 5])
            }
        }

        section("budget", "Memory budget simulation") { page in
            guard !facts.targets.isEmpty else { return page.paragraph(noTargets, class: "note") }
            let budget = count("costs.memory_budget_bytes")
            page.paragraph("Budget: \(ReportNumber.bytes(budget)) of decoded photos. Scrolling a list from the top, how many photos fit at once, how many are larger than the whole budget, and how many stay cached at the end.")
            page.figure(SVGChart.stacked(
                "Photos that fit the memory budget", segments: ["fit from the top", "do not fit", "larger than the budget"],
                colors: Self.goodWarnBad,
                facts.targets.map { target in
                    let shipped = target.tiers.reduce(0) { $0 + $1.photos }
                    return (target.name, [target.fitFromTop, max(0, shipped - target.fitFromTop - target.largerThanBudget), target.largerThanBudget])
                }))
            page.table(
                ["target", "fit from the top", "larger than the budget", "cached at the end", "decoded p99"],
                facts.targets.map { target in
                    [target.name, ReportNumber.count(target.fitFromTop), ReportNumber.count(target.largerThanBudget),
                     ReportNumber.count(target.cachedAtEnd), target.decoded.first { $0.0 == "p99" }.map { ReportNumber.bytes($0.1) } ?? "–"]
                }, numeric: [1, 2, 3, 4])
        }

        if let selection = facts.selection {
            section("selection", "What the pipeline's selection kept") { page in
                page.tiles([
                    ("observations kept", "\(ReportNumber.count(selection.observationsKept)) of \(ReportNumber.count(selection.observationsConsidered))"),
                    ("taxa kept", "\(ReportNumber.count(selection.taxaKept)) of \(ReportNumber.count(selection.taxaConsidered))"),
                    ("photos kept", ReportNumber.count(selection.photosKept)),
                ])
                page.figure(SVGChart.bars(
                    "Observations removed per rule", selection.removed.map { ($0.rule, $0.count, ReportNumber.count($0.count)) },
                    color: SVGChart.palette[3]),
                    caption: "Observations the pipeline's select rules removed, each counted under the first rule that removed it.")
                page.table(["removed", "count"], selection.removed.map { ["observations: \($0.rule)", ReportNumber.count($0.count)] } + [
                    ["photos: not selected", ReportNumber.count(selection.photosNotSelected)],
                    ["photos: over the photos_per_taxon cap", ReportNumber.count(selection.photosCapped)],
                    ["users", ReportNumber.count(selection.usersRemoved)],
                    ["articles", ReportNumber.count(selection.articlesRemoved)],
                ], numeric: [1])
            }
        }

        section("licences", "Licences shipped and excluded") { page in
            let considered = count("photos.considered")
            let shipped = count("photos.shipped")
            page.tiles([
                ("photos considered", ReportNumber.count(considered)), ("shipped", ReportNumber.count(shipped)),
                ("excluded", ReportNumber.count(considered - shipped)),
            ])
            page.paragraph("Allowed licences: \(info["photos.licenses_allowed"].map { $0.split(separator: ",").joined(separator: ", ") } ?? "?").")
            page.figure(SVGChart.bars("Photos shipped per licence", facts.shippedLicenses.map { ($0.0, $0.1, ReportNumber.count($0.1)) }),
                        caption: "Photos shipped, per licence.")
            page.figure(SVGChart.bars("Photos excluded per reason", facts.excluded.map { ($0.0, $0.1, ReportNumber.count($0.1)) }, color: SVGChart.palette[3]),
                        caption: "Photos left out, per reason.")
            page.table(["reason", "photos", "why"], facts.excluded.map { [$0.0, ReportNumber.count($0.1), Self.explain($0.0)] }, numeric: [1])
        }

        section("ingest", "Records rejected or salvaged at ingest") { page in
            // What the bundle stage salvaged of the export's observations (a missing observers
            // or taxa table): said on standard error alone, while this section said "nothing
            // salvaged".
            let withoutObserver = count("observations.without_observer"), withoutTaxon = count("observations.without_taxon")
            if withoutObserver > 0 || withoutTaxon > 0 {
                page.paragraph(
                    "At the bundle stage, \(ReportNumber.count(withoutObserver)) observations of the open-data export were kept without their "
                        + "observer and \(ReportNumber.count(withoutTaxon)) without their taxon: the export's observers or taxa table (nor an API "
                        + "copy) has no row for them, so their photos have no one to credit and their taxa are unknown (fieldpack-bundle's "
                        + "warnings name the first \(MissingParents.limit)).", class: "note")
            }
            guard let groups = facts.ingestFindings else {
                page.paragraph("No ingest rejects file was given (--rejects).", class: "note")
                return
            }
            if groups.isEmpty {
                page.paragraph("Every record of every input was read whole: nothing rejected, nothing salvaged.")
                return
            }
            let outcomes = ["rejected", "salvaged", "notice"]
            page.figure(SVGChart.stacked(
                "Findings per input file", segments: outcomes,
                colors: [SVGChart.palette[3], SVGChart.palette[1], SVGChart.palette[7]],
                Self.chartedFiles(Self.findingsPerFile(groups, outcomes: outcomes))),
                caption: "Rejected: the record was dropped (no usable id). Salvaged: a part was dropped, the record kept."
                    + " At most \(Self.chartedFileLimit) files are drawn, those with the most findings.")
            // The page ships in the bundle: a dump of 50,000 damaged pages made it 23 MB. The
            // rows with the most findings, in file order; the rest counted in one line.
            let listed = Self.largest(groups, limit: Self.listedRowLimit, count: \.count)
            page.table(["file", "outcome", "part", "count", "example"],
                       listed.map { [$0.file, $0.outcome, $0.part, ReportNumber.count($0.count), $0.example] }, numeric: [3])
            if listed.count < groups.count {
                let left = groups.count - listed.count
                let findings = groups.reduce(Int64(0)) { $0 + $1.count } - listed.reduce(Int64(0)) { $0 + $1.count }
                page.paragraph(
                    "\(ReportNumber.count(left)) more rows (\(ReportNumber.count(findings)) findings) are not listed: the \(Self.listedRowLimit) "
                        + "with the most findings are. The build folder's inat/rejects.jsonl (not published with the bundle) lists every finding.", class: "note")
            }
        }

        section("articles", "Wikipedia articles") { page in
            if let wiki = facts.wiki, wiki.inputs == 0 {
                // Not looked for, not missing: the page listed every wanted article as missing.
                page.paragraph(
                    "This pipeline names no Wikipedia input (\"wikipedia\" in the pipeline file): the \(ReportNumber.count(wiki.wanted)) "
                        + "articles its taxa and destinations would show were not looked for.", class: "note")
            } else if let wiki = facts.wiki {
                page.tiles([
                    ("wanted", ReportNumber.count(wiki.wanted)), ("found", ReportNumber.count(wiki.found)),
                    ("missing", ReportNumber.count(Int64(wiki.missing.count))),
                    ("disambiguation pages", ReportNumber.count(Int64(wiki.disambiguations.count))),
                ])
                page.paragraph("\(ReportNumber.count(wiki.lines)) dump lines read, \(ReportNumber.count(wiki.skipped)) skipped, \(ReportNumber.count(wiki.rejected)) rejected; \(ReportNumber.count(wiki.duplicates)) pages seen more than once (the newest kept).")
                // A file that held no articles (a snapshot's metadata, a dump of another kind):
                // when every file is one, the page said "0 dump lines read" and no more.
                if wiki.filesSkipped > 0 {
                    page.paragraph(
                        "\(ReportNumber.count(wiki.filesSkipped)) \(wiki.filesSkipped == 1 ? "file" : "files") skipped whole, holding no Wikipedia articles: the build folder's wiki/rejects.jsonl names \(wiki.filesSkipped == 1 ? "it" : "each") and says why.",
                        class: "note")
                }
                if !wiki.missing.isEmpty {
                    page.html.element("h3", "Missing")
                    page.list(Array(wiki.missing.prefix(Self.listedRowLimit)))
                    if wiki.missing.count > Self.listedRowLimit {
                        page.paragraph(
                            "\(ReportNumber.count(wiki.missing.count - Self.listedRowLimit)) more are not listed here: the build folder's wiki/wiki-report.json (not published with the bundle) lists every one.",
                            class: "note")
                    }
                }
                if !wiki.redirects.isEmpty {
                    page.html.element("h3", "Redirects followed")
                    page.table(["wanted", "article"], wiki.redirects.prefix(Self.listedRowLimit).map { [$0.0, $0.1] })
                    if wiki.redirects.count > Self.listedRowLimit {
                        page.paragraph(
                            "\(ReportNumber.count(wiki.redirects.count - Self.listedRowLimit)) more are not listed here: the build folder's wiki/wiki-report.json (not published with the bundle) lists every one.",
                            class: "note")
                    }
                }
                if !wiki.disambiguations.isEmpty {
                    page.html.element("h3", "Disambiguation pages skipped")
                    page.list(Array(wiki.disambiguations.prefix(Self.listedRowLimit)))
                    if wiki.disambiguations.count > Self.listedRowLimit {
                        page.paragraph(
                            "\(ReportNumber.count(wiki.disambiguations.count - Self.listedRowLimit)) more are not listed here: the build folder's wiki/wiki-report.json (not published with the bundle) lists every one.",
                            class: "note")
                    }
                }
            } else {
                page.paragraph("No wiki report was given (--wiki-report).", class: "note")
            }
            page.html.element("h3", "Licences of the articles")
            page.table(["licence", "articles"], facts.articleLicenses.map { [$0.0, ReportNumber.count($0.1)] }, numeric: [1])
            page.html.element("h3", "Destinations")
            page.table(["destination", "name", "article"], facts.destinations.map { [$0.id, $0.name, $0.article ?? "none"] })
        }

        section("blurbs", "Blurb length") { page in
            let lengths = facts.blurbLengths
            page.figure(SVGChart.histogram("Blurb length in characters", Self.lengthBins(lengths), color: SVGChart.palette[4]),
                        caption: "Characters a reader sees per blurb (tags left out), \(lengths.count) blurbs.")
            let sorted = lengths.sorted()
            if !sorted.isEmpty {
                page.paragraph("Shortest \(sorted.first!), median \(sorted[sorted.count / 2]), longest \(sorted.last!) characters.")
            }
        }

        section("delta", "Changes since the previous bundle") { page in
            guard !facts.delta.isEmpty else {
                page.paragraph("No previous bundle was given (make bundle PREVIOUS=path/to/bundle), so there is no delta.", class: "note")
                return
            }
            page.paragraph("Against the previous bundle with SHA-256 \(info["delta.previous_sha256"] ?? "?").")
            page.figure(SVGChart.stacked(
                "Changes per kind", segments: ["added", "changed", "removed"], colors: Self.goodWarnBad,
                facts.delta.map { ($0.kind, [$0.added, $0.changed, $0.removed]) }))
            page.table(["kind", "added", "changed", "removed"],
                       facts.delta.map { [$0.kind, ReportNumber.count($0.added), ReportNumber.count($0.changed), ReportNumber.count($0.removed)] },
                       numeric: [1, 2, 3])
        }

        section("run", "Time and memory per stage") { page in
            page.paragraph("The run's time and peak memory per stage are in run-report.html beside the bundle folder, not in it: they differ from run to run, and this page's bytes must not.", class: "note")
        }
        return (page.finished(footer: "fieldpack \(info["tool_version"] ?? "") · schema fingerprint \(info["schema_fingerprint"] ?? "?")"), sections)
    }

    static let goodWarnBad = [SVGChart.palette[0], SVGChart.palette[1], SVGChart.palette[3]]

    /// What an exclusion reason of the costs report means.
    /// What an exclusion's key (`PhotoShipping.Exclusion.key`) means, for the "why" column.
    static func explain(_ reason: String) -> String {
        if reason.hasPrefix("license:") { return "licence \(reason.dropFirst(8)) is not among the pipeline's licences" }
        if reason.hasPrefix("unknown-license:") {
            return "licence code \"\(reason.dropFirst(16))\" is not one fieldpack knows (so not among the pipeline's)"
        }
        if reason.hasPrefix("placeholder:") { return "iNaturalist's placeholder image (\(reason.dropFirst(12))), not a photo" }
        if reason == "hidden" { return "hidden by iNaturalist's moderators" }
        if reason == "no-credit" { return "no attribution and no observer to credit" }
        if reason == CostReport.unlinkedKey {
            return "no observation links it and no taxon shows it (an older copy of its observation listed it and the newest does not, or its observation is in no input)"
        }
        // The URL's own reason: a URL naming another photo is an https URL too.
        if reason.hasPrefix("url:") { return "its URL cannot be shipped: \(reason.dropFirst(4))" }
        if reason == "selection:not-selected" {
            return "left out by the pipeline's select rules (places, taxa, grades, dates, min_photos, the observation cap)"
        }
        if reason == "selection:photo-cap" { return "over the pipeline's photos_per_taxon cap" }
        return reason
    }

    /// Chart labels for files (the table gives each whole path): the fewest last components
    /// that tell each apart (two exports' `…/2024-06/observations.csv` and `…/2024-07/…`), kept
    /// by their end when longer than `limit` characters, where pages of one dump differ
    /// (`…page_000001.json`, `…page_000002.json`), so that they fit the chart's label column.
    /// Labels that cutting made the same again keep some of their start too (`expor…ations.csv`),
    /// and failing that are numbered.
    static func fileLabels(_ paths: [String], limit: Int = 20) -> [String] {
        let components = paths.map { $0.split(separator: "/").map(String.init) }
        let whole = components.map { parts -> String in
            var count = 1
            while count < parts.count, components.contains(where: { $0 != parts && $0.suffix(count) == parts.suffix(count) }) {
                count += 1
            }
            return parts.suffix(count).joined(separator: "/")
        }
        func cut(_ label: String, head: Int) -> String {
            guard label.count > limit else { return label }
            return head == 0 ? "…" + String(label.suffix(limit - 1)) : String(label.prefix(head)) + "…" + String(label.suffix(limit - 1 - head))
        }
        var labels = whole.map { cut($0, head: 0) }
        for (label, indexes) in Dictionary(grouping: labels.indices, by: { labels[$0] }) where indexes.count > 1 {
            let group = indexes.map { whole[$0] }
            if let head = (3...(limit - 4)).first(where: { head in Set(group.map { cut($0, head: head) }).count == group.count }) {
                for index in indexes { labels[index] = cut(whole[index], head: head) }
            } else {
                for (number, index) in indexes.enumerated() { labels[index] = "\(String(label.prefix(limit - 4)))… \(number + 1)" }
            }
        }
        return labels
    }

    /// How many rows the findings table, and items the lists of missing and disambiguation
    /// pages, hold at most: the page is shipped in the bundle, and must stay small whatever the
    /// dumps' damage.
    static let listedRowLimit = 200

    /// The `limit` elements with the largest `count` (ties in their order), in their order.
    static func largest<Element>(_ elements: [Element], limit: Int, count: (Element) -> Int64) -> [Element] {
        largestIndices(elements.count, limit: limit) { count(elements[$0]) }.map { elements[$0] }
    }

    /// The indices, of `0..<total`, of the `limit` with the largest `value` (ties: the earlier), in order.
    static func largestIndices(_ total: Int, limit: Int, value: (Int) -> Int64) -> [Int] {
        guard total > limit else { return Array(0..<total) }
        return (0..<total).sorted { (value($1), $0) < (value($0), $1) }.prefix(limit).sorted()
    }

    /// How many files the findings chart draws: a dump of thousands of pages with findings in
    /// most of them drew a bar each (4,593 on the benchmark's dump, a chart 128,000 px tall).
    static let chartedFileLimit = 20

    /// The chart's bars: the `chartedFileLimit` files with the most findings (ties in the files'
    /// order), in the files' order, then one bar adding up every other file's, when there are any.
    static func chartedFiles(_ rows: [(file: String, counts: [Int64])]) -> [(label: String, values: [Int64])] {
        guard rows.count > chartedFileLimit else { return zip(fileLabels(rows.map(\.file)), rows).map { ($0, $1.counts) } }
        let totals = rows.map { $0.counts.reduce(0, +) }
        let keptRows = largestIndices(rows.count, limit: chartedFileLimit) { totals[$0] }
        let kept = Set(keptRows)
        var bars = zip(fileLabels(keptRows.map { rows[$0].file }), keptRows).map { (label: $0, values: rows[$1].counts) }
        var rest = Array(repeating: Int64(0), count: rows[0].counts.count)
        for row in rows.indices where !kept.contains(row) {
            for (column, count) in rows[row].counts.enumerated() { rest[column] += count }
        }
        let others = rows.count - chartedFileLimit
        bars.append((label: "\(others) other file\(others == 1 ? "" : "s")", values: rest))
        return bars
    }

    /// Each file's findings counted per outcome (in `outcomes` order; another outcome is not
    /// counted), the files in the order they first appear: one pass over the groups, however many
    /// input files there are (a dump of 50,000 pages may have findings in most of them).
    static func findingsPerFile(
        _ groups: [ReportFacts.FindingGroup], outcomes: [String]
    ) -> [(file: String, counts: [Int64])] {
        var rows: [(file: String, counts: [Int64])] = []
        var rowOfFile: [[UInt8]: Int] = [:]  // by bytes, as files are named (see `findingGroups`)
        for group in groups {
            let row: Int
            if let known = rowOfFile[Array(group.file.utf8)] {
                row = known
            } else {
                row = rows.count
                rowOfFile[Array(group.file.utf8)] = row
                rows.append((group.file, Array(repeating: 0, count: outcomes.count)))
            }
            if let column = outcomes.firstIndex(of: group.outcome) { rows[row].counts[column] += group.count }
        }
        return rows
    }

    /// Counts per power-of-two bin of bytes, from the smallest bin present to the largest.
    static func byteBins(_ values: [(bytes: Int64, photos: Int64)]) -> [(label: String, count: Int64)] {
        guard !values.isEmpty else { return [] }
        func bin(_ bytes: Int64) -> Int { bytes <= 1 ? 0 : 64 - (bytes - 1).leadingZeroBitCount }
        let bins = values.map { bin($0.bytes) }
        // At least six bins, so that one size class still reads as a distribution.
        let high = bins.max()!, low = min(bins.min()!, max(0, high - 5))
        var counts = [Int64](repeating: 0, count: high - low + 1)
        for (index, value) in values.enumerated() { counts[bins[index] - low] += value.photos }
        return counts.enumerated().map { ("≤" + Self.powerOfTwo(low + $0.offset), $0.element) }
    }

    /// 2^exponent bytes in binary units: `512 B`, `16 KiB`, `4 MiB`.
    static func powerOfTwo(_ exponent: Int) -> String {
        switch exponent {
        case 30...: return "\(1 << (exponent - 30)) GiB"
        case 20...: return "\(1 << (exponent - 20)) MiB"
        case 10...: return "\(1 << (exponent - 10)) KiB"
        default: return "\(1 << exponent) B"
        }
    }

    /// Counts per bin of a round width, about ten bins over the lengths.
    static func lengthBins(_ lengths: [Int]) -> [(label: String, count: Int64)] {
        guard let longest = lengths.max() else { return [] }
        // Round widths (1, 2, 2.5 or 5 times a power of ten) at any length: past 10,000 a width
        // of longest / 12 + 1 drew bins of "0–83072", "83073–166145".
        var widths = [10, 20, 25, 50]
        while widths.last! <= longest { widths += widths.suffix(4).map { $0 * 10 } }
        let width = widths.first { longest / $0 < 12 }!
        var counts = [Int64](repeating: 0, count: longest / width + 1)
        for length in lengths { counts[length / width] += 1 }
        return counts.enumerated().map { ("\($0.offset * width)–\(($0.offset + 1) * width - 1)", $0.element) }
    }
}
