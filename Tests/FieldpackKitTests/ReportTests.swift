@testable import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// report.html (a bundle explained on one page) and run-report.html (the run's timings).
@Suite struct ReportTests {
    static let binaries = ProcessInfo.processInfo.environment["FIELDPACK_BIN"]

    static var sampleInputs: [String] {
        let folder = "\(repositoryRoot)/sample-data/inat"
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { !$0.hasSuffix(".md") }.sorted().map { "\(folder)/\($0)" }
    }

    private func report(_ directory: TemporaryDirectory, name: String = "report.html", rejects: [String]? = nil) throws -> String {
        var options = BundleReport.Options(database: directory.file("content.sqlite"), output: directory.file(name))
        options.ingestRejects = rejects ?? [directory.file("rejects.jsonl")]
        try BundleReport(options: options).run()
        return try text(directory.file(name))
    }

    /// A sharded ingest's rejects files, one `--rejects` each: every file but the last was
    /// dropped without a word, and the page looked whole.
    @Test func theFindingsOfSeveralRejectsFilesAreCountedTogether() throws {
        let directory = try TemporaryDirectory()
        try buildBundle(inputs: Self.sampleInputs, in: directory, name: "sample", epoch: 1_700_000_000)
        let all = try lines(directory.file("rejects.jsonl"))
        try #require(all.count >= 2)
        let first = try directory.write("first.jsonl", all.prefix(1).map { $0 + "\n" }.joined())
        let rest = try directory.write("rest.jsonl", all.dropFirst().map { $0 + "\n" }.joined())
        let whole = try report(directory, name: "whole.html")
        let split = try report(directory, name: "split.html", rejects: [first, rest])
        #expect(split == whole)
        #expect(split != (try report(directory, name: "last.html", rejects: [rest])))
    }

    @Test func theSampleBundlesReportShowsEveryPartWithChartsAndNoScript() throws {
        let directory = try TemporaryDirectory()
        try buildBundle(inputs: Self.sampleInputs, in: directory, name: "sample", epoch: 1_700_000_000)
        let html = try report(directory)
        #expect(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"))
        for id in ["contents", "tiers", "bytes", "budget", "licences", "ingest", "articles", "blurbs", "delta", "run"] {
            #expect(html.contains("<section id=\"\(id)\">"), "no section \(id)")
        }
        #expect(html.components(separatedBy: "<svg class=\"chart\"").count - 1 >= 12)
        #expect(!html.lowercased().contains("<script"))
        // Nothing is fetched: no external stylesheet, image or font.
        #expect(!html.contains("href=") && !html.contains("src=") && !html.contains("url("))
        // Counts come from the bundle: the rows per table, the licences, the salvaged photo.
        let database = try Database(path: directory.file("content.sqlite"), mode: .immutable)
        let observations = try #require(try database.int("SELECT count(*) FROM observations"))
        #expect(html.contains("<span class=\"figure\">\(observations)</span><span class=\"label\">observations</span>"))
        #expect(html.contains("license:cc-by-nc"))
        #expect(html.contains("<td class=\"wrap\">salvaged</td><td class=\"wrap\">photos[].id</td>"))
        #expect(html.contains("No previous bundle was given"))
        // One row per iconic taxon (the sample has six insect taxa), with its taxa and observations.
        let insects = try #require(try database.int("SELECT count(*) FROM taxa WHERE iconic_taxon_name = 'Insecta'"))
        #expect(insects > 1)
        #expect(html.components(separatedBy: "<tr><td class=\"wrap\">Insecta</td>").count - 1 == 1)
        #expect(html.contains("<tr><td class=\"wrap\">Insecta</td><td class=\"num\">\(insects)</td>"))
    }

    @Test func theSameBundleGivesTheSameReportBytes() throws {
        let directory = try TemporaryDirectory()
        try buildBundle(inputs: Self.sampleInputs, in: directory, name: "sample", epoch: 1_700_000_000)
        let first = try report(directory, name: "first.html")
        let second = try report(directory, name: "second.html")
        #expect(first == second)
    }

    @Test func eachTargetsSizeClassesCountItsPhotosAsTheCostsViewGroupsThem() throws {
        let directory = try TemporaryDirectory()
        try buildBundle(inputs: Self.sampleInputs, in: directory, name: "sample", epoch: 1_700_000_000)
        let facts = try ReportFacts.read(database: directory.file("content.sqlite"), ingestRejects: [], wikiReport: nil)
        let database = try Database(path: directory.file("content.sqlite"), mode: .immutable)
        let targets = try database.rows("SELECT id, name FROM display_targets ORDER BY id")
        #expect(targets.count >= 2 && facts.targets.map(\.name) == targets.map { $0[1] ?? "" })
        for (target, row) in zip(facts.targets, targets) {
            let grouped = try database.rows("""
                SELECT decoded_bytes, download_bytes, count(*) FROM photo_costs WHERE target_id = ?
                GROUP BY 1, 2 ORDER BY 1, 2
                """, [.integer(Int64(row[0] ?? "") ?? 0)]).map { $0.map { $0 ?? "" } }
            #expect(grouped.count > 1, "the sample's photos fall in one size class for \(target.name)")
            #expect(target.sizes.map { ["\($0.decoded)", "\($0.download)", "\($0.photos)"] } == grouped)
        }
    }

    @Test func findingsAreCountedPerFileAndOutcomeWhateverTheGroupsOrder() {
        typealias Group = ReportFacts.FindingGroup
        let groups = [
            Group(file: "/in/b.json", outcome: "salvaged", part: "results[].id", count: 2, example: ""),
            Group(file: "/in/a.json", outcome: "rejected", part: "results[].id", count: 5, example: ""),
            Group(file: "/in/b.json", outcome: "rejected", part: "results[].uuid", count: 1, example: ""),
            Group(file: "/in/a.json", outcome: "rejected", part: "results[].photos[].id", count: 3, example: ""),
            Group(file: "/in/b.json", outcome: "notice", part: "(record)", count: 7, example: ""),
            Group(file: "/in/c.json", outcome: "unknown", part: "(record)", count: 4, example: ""),
            Group(file: "/in/b.json", outcome: "salvaged", part: "results[].taxon", count: 6, example: ""),
        ]
        let rows = BundleReport.findingsPerFile(groups, outcomes: ["rejected", "salvaged", "notice"])
        #expect(rows.map(\.file) == ["/in/b.json", "/in/a.json", "/in/c.json"])
        #expect(rows.map(\.counts) == [[1, 8, 7], [8, 0, 0], [0, 0, 0]])
    }

    /// Two files whose names differ only in how "é" is written (composed, decomposed) are two
    /// files on Linux, and two rows; Swift's String equality took them for one.
    @Test func filesWhoseNamesAreCanonicallyEquivalentAreCountedApart() throws {
        let directory = try TemporaryDirectory()
        let composed = "/in/caf\u{E9}.json", decomposed = "/in/cafe\u{301}.json"
        let rejects = try directory.write("rejects.jsonl", [composed, decomposed, decomposed].map {
            #"{"file":"\#($0)","outcome":"rejected","path":"results[0].id","reason":"no id"}"#
        }.joined(separator: "\n") + "\n")
        let groups = try ReportFacts.findingGroups([rejects], parser: JSONParser())
        #expect(groups.map { Array($0.file.utf8) } == [Array(composed.utf8), Array(decomposed.utf8)].sorted { $0.lexicographicallyPrecedes($1) })
        #expect(groups.map(\.count).sorted() == [1, 2])
        let rows = BundleReport.findingsPerFile(groups, outcomes: ["rejected"])
        #expect(rows.count == 2)
    }

    /// Every exclusion the shipping rules give has its own explanation: a URL naming another
    /// photo read "not a usable https photo URL", and "hidden" read as its key.
    @Test(arguments: [
        (PhotoShipping.Exclusion.license(.ccByNc), "licence cc-by-nc is not among the pipeline's licences"),
        (.unknownLicense("cc-zero"), "licence code \"cc-zero\" is not one fieldpack knows (so not among the pipeline's)"),
        (.unusableURL("URL names another photo"), "its URL cannot be shipped: URL names another photo"),
        (.hidden, "hidden by iNaturalist's moderators"),
        (.noCredit, "no attribution and no observer to credit"),
    ])
    func eachExclusionIsExplainedInItsOwnWords(exclusion: PhotoShipping.Exclusion, explanation: String) {
        #expect(BundleReport.explain(exclusion.key) == explanation)
    }

    /// A guide built with `select` says what the selection kept and removed, per rule, as the
    /// bundle recorded it (`selection` in bundle_info): the page showed only the rows kept.
    @Test func aSelectedBundlesReportShowsWhatTheSelectionKeptAndRemoved() throws {
        let directory = try TemporaryDirectory()
        var selection = Selection()
        selection.qualityGrades = ["research"]
        try ingestAndDedupe(Self.sampleInputs, in: directory, selection: selection)
        var options = BundleBuilder.Options(
            input: directory.file("deduped.jsonl"), output: directory.file("content.sqlite"), pipelineName: "selected", policy: try samplePolicy())
        options.selection = selection
        try BundleBuilder(options: options).run()
        let html = try report(directory)
        let database = try Database(path: directory.file("content.sqlite"), mode: .immutable)
        let kept = try #require(try database.int("SELECT count(*) FROM observations"))
        let recorded = try #require(try database.scalar("SELECT value FROM bundle_info WHERE key = 'selection'"))
        let facts = try JSONSerialization.jsonObject(with: Data(recorded.utf8)) as! [String: Any]
        let observations = facts["observations"] as! [String: Any]
        let considered = observations["considered"] as! Int
        let removed = (observations["removed"] as! [String: Int])["quality_grades"]!
        #expect(removed > 0 && considered == Int(kept) + removed)
        #expect(html.contains("<section id=\"selection\">"))
        #expect(html.contains("<span class=\"figure\">\(kept) of \(considered)</span><span class=\"label\">observations kept</span>"), "\(html)")
        #expect(html.contains("<td class=\"wrap\">observations: quality_grades</td><td class=\"num\">\(removed)</td>"))
        // Without a selection there is no such section.
        let plain = try TemporaryDirectory()
        try buildBundle(inputs: Self.sampleInputs, in: plain)
        #expect(!(try report(plain)).contains("<section id=\"selection\">"))
    }

    /// The selection's exclusions, the largest on a regional guide, read as their own keys.
    @Test func theSelectionsExclusionsAreExplainedToo() {
        #expect(BundleReport.explain("selection:not-selected") == "left out by the pipeline's select rules (places, taxa, grades, dates, min_photos, the observation cap)")
        #expect(BundleReport.explain("selection:photo-cap") == "over the pipeline's photos_per_taxon cap")
    }

    /// A wiki report whose counts are not counts is an error naming the field, not zeros.
    @Test(arguments: [
        (#"{"wanted": 12, "found": "eleven"}"#, #""found" is a string, expected a count"#),
        (#"{"wanted": "12"}"#, #""wanted" is a string, expected a count"#),
        (#"{"wanted": 12, "missing": "Great tit"}"#, #""missing" must be an array of titles"#),
        (#"{"found": 3}"#, #"no "wanted""#),
    ])
    func aWikiReportWithAWrongTypedFieldIsAnErrorNamingIt(json: String, reason: String) throws {
        let error = try #require(throws: FieldpackError.self) {
            try ReportFacts.wikiFacts("wiki-report.json", bytes: Array(json.utf8), parser: JSONParser())
        }
        #expect(error.path == "wiki-report.json" && error.message.contains(reason), "\(error)")
    }

    @Test func theFindingsChartDrawsTheFilesWithTheMostFindingsAndOneBarForTheRest() {
        // 25 files: file i has i rejected and 1 salvaged finding, except file 3, which has 100.
        var rows: [(file: String, counts: [Int64])] = (0..<25).map { ("/in/page-\($0).json", [Int64($0), 1, 0]) }
        rows[3].counts = [100, 0, 0]
        let bars = BundleReport.chartedFiles(rows)
        #expect(bars.count == BundleReport.chartedFileLimit + 1)
        // Kept: file 3 and files 6…24 (the 20 largest), in the files' order; files 0, 1, 2, 4, 5 added up.
        #expect(bars.dropLast().map(\.label) == ["page-3.json"] + (6..<25).map { "page-\($0).json" })
        #expect(bars.last?.label == "5 other files")
        #expect(bars.last?.values == [0 + 1 + 2 + 4 + 5, 5, 0])
        // Equal totals at the cut-off: the earlier files are drawn. Files 0…21 with 5 findings each.
        let tied: [(file: String, counts: [Int64])] = (0..<22).map { ("/in/tied-\($0).json", [5, 0, 0]) }
        let tiedBars = BundleReport.chartedFiles(tied)
        #expect(tiedBars.map(\.label) == (0..<20).map { "tied-\($0).json" } + ["2 other files"])
        #expect(BundleReport.chartedFiles(Array(tied.prefix(21))).last?.label == "1 other file")
        // At the limit or under it, every file is drawn as it is.
        let few = Array(rows.prefix(BundleReport.chartedFileLimit))
        #expect(BundleReport.chartedFiles(few).map(\.label) == BundleReport.fileLabels(few.map(\.file)))
        #expect(BundleReport.chartedFiles(few).map(\.values) == few.map(\.counts))
    }

    /// The findings table of a dump with thousands of damaged files lists the rows with the most
    /// findings and counts the rest (the shipped page grew to 23 MB with 50,000 files).
    @Test func theFindingsTableListsTheRowsWithTheMostFindingsAndCountsTheRest() throws {
        let directory = try TemporaryDirectory()
        try buildBundle(inputs: Self.sampleInputs, in: directory, name: "sample", epoch: 1_700_000_000)
        let lines = (0..<(BundleReport.listedRowLimit + 50)).map { index in
            // File 7 has three findings; every other file one.
            String(repeating: #"{"file":"dumps/page-\#(String(format: "%05d", index)).json","line":1,"offset":0,"record":null,"path":"photos[0].id","outcome":"salvaged","reason":"r"}"# + "\n", count: index == 7 ? 3 : 1)
        }
        let rejects = try directory.write("many-rejects.jsonl", lines.joined())
        let html = try report(directory, rejects: [rejects])
        let rows = html.components(separatedBy: "<td class=\"wrap\">dumps/page-").count - 1
        #expect(rows == BundleReport.listedRowLimit)
        #expect(html.contains("dumps/page-00007.json") && html.contains("dumps/page-00199.json") && !html.contains("dumps/page-00200.json"))
        #expect(html.contains("50 more rows (50 findings) are not listed"), "\(html)")
        #expect(BundleReport.largest([1, 5, 2, 5, 3], limit: 3, count: { Int64($0) }) == [5, 5, 3])
    }

    /// The wiki stage's files skipped whole were in wiki-report.json and nowhere on the page (a
    /// dump of the wrong kind read as "0 dump lines read"); and the redirects followed, one row
    /// each, were listed without the limit the other lists keep.
    @Test func theArticlesSectionNamesFilesSkippedAndListsAtMostTheLimitOfRedirects() throws {
        let directory = try TemporaryDirectory()
        try buildBundle(inputs: Self.sampleInputs, in: directory, name: "sample", epoch: 1_700_000_000)
        let extra = 30
        let redirects = (0..<(BundleReport.listedRowLimit + extra)).map { "\"R\(String(format: "%04d", $0))\": \"T\(String(format: "%04d", $0))\"" }
        let wiki = try directory.write("wiki-report.json", """
            {"wanted": 600, "found": 100, "missing": [], "redirects_followed": {\(redirects.joined(separator: ", "))},
             "disambiguation_pages_skipped": [], "lines": 5, "files_skipped": 2}
            """)
        var options = BundleReport.Options(database: directory.file("content.sqlite"), output: directory.file("report.html"))
        options.wikiReport = wiki
        try BundleReport(options: options).run()
        let html = try text(directory.file("report.html"))
        #expect(html.contains("2 files skipped whole, holding no Wikipedia articles"), "\(html)")
        #expect(html.components(separatedBy: "<td class=\"wrap\">R0").count - 1 == BundleReport.listedRowLimit)
        #expect(html.contains("R0199") && !html.contains("R0200"))
        // Named where it is: the build folder's report, which the published bundle does not hold.
        #expect(html.contains("\(extra) more are not listed here: the build folder&#39;s wiki/wiki-report.json (not published with the bundle) lists every one."))
        // A pipeline without Wikipedia inputs: its wanted articles were not looked for, not missing.
        let none = try directory.write("none-report.json", """
            {"inputs": 0, "wanted": 7, "found": 0, "missing": ["A", "B", "C", "D", "E", "F", "G"], "redirects_followed": {},
             "disambiguation_pages_skipped": [], "lines": 0, "files_skipped": 0}
            """)
        options.wikiReport = none
        try BundleReport(options: options).run()
        let noInputs = try text(directory.file("report.html"))
        #expect(noInputs.contains("This pipeline names no Wikipedia input"), "\(noInputs)")
        #expect(!noInputs.contains("<h3>Missing</h3>"))
    }

    /// A bar's value text ends inside the chart, however long it is: the longest bar leaves it
    /// room ("1 234 576 obs · 12 351 taxa" ran past the edge at realistic counts).
    @Test func aBarsValueTextEndsInsideTheChart() throws {
        let rows: [(label: String, value: Int64, text: String)] = [
            ("Aves", 1_234_576, "1 234 576 obs · 12 351 taxa"), ("Insecta", 600_000, "600 000 obs · 9 000 taxa"),
        ]
        let svg = SVGChart.bars("Observations per iconic taxon", rows)
        let pattern = try NSRegularExpression(pattern: #"<text x="(\d+)" y="\d+" class="value">([^<]*)</text>"#)
        let matches = pattern.matches(in: svg, range: NSRange(svg.startIndex..., in: svg))
        #expect(matches.count == rows.count)
        for match in matches {
            let x = Int(svg[Range(match.range(at: 1), in: svg)!])!
            let text = String(svg[Range(match.range(at: 2), in: svg)!])
            #expect(x + text.count * SVGChart.valueCharacterWidth <= SVGChart.width, "\(text) at \(x)")
        }
    }

    /// Charts with nothing to draw say so (an empty row was "map-pin: ", an empty histogram an
    /// axis of 1 and no word); a value is drawn inside its segment only when it fits there, and
    /// grouped as the tables group it; a label that may be drawn wider than its room is squeezed
    /// into it (twenty capitals spilled off the chart's left edge).
    @Test func emptyChartsSayNoneValuesFitTheirSegmentsAndLabelsTheirRoom() {
        let stacked = SVGChart.stacked("Tiers per target", segments: ["square", "small"], [("map-pin", [0, 0]), ("detail", [60_000, 880_000])])
        #expect(stacked.contains(#"aria-label="Tiers per target: map-pin: none; detail: square 60000, small 880000""#), "\(stacked)")
        #expect(!stacked.contains(">60\u{202F}000</text>") && stacked.contains(">880\u{202F}000</text>") && stacked.contains(">940\u{202F}000</text>"), "\(stacked)")
        #expect(SVGChart.histogram("Bytes", [("<10 KB", 0), ("<20 KB", 0)]).contains(">none</text>"))
        #expect(!SVGChart.histogram("Bytes", [("<10 KB", 1)]).contains(">none</text>"))
        let capitals = SVGChart.stacked("Findings", segments: ["rejected"], [("OBSERVATIONS_PAGE_0001", [3]), ("page-1.json", [2])])
        #expect(capitals.contains(#"text-anchor="end" textLength="140" lengthAdjust="spacingAndGlyphs">OBSERVATIONS_PAGE_0001</text>"#), "\(capitals)")
        #expect(capitals.contains(#"text-anchor="end">page-1.json</text>"#))
    }

    /// A chart names every value it draws to screen readers (`role="img"` hides its texts):
    /// the per-licence counts and the tier mix were shown in no table.
    @Test func aChartNamesItsValuesToScreenReaders() {
        let bars = SVGChart.bars("Photos shipped per licence", [("cc-by", 15, "15"), ("cc0", 1, "1")])
        #expect(bars.contains(#"aria-label="Photos shipped per licence: cc-by 15; cc0 1""#), "\(bars)")
        let stacked = SVGChart.stacked("Tiers per target", segments: ["square", "small"], [("list-cell", [20, 0]), ("detail", [3, 7])])
        #expect(stacked.contains(#"aria-label="Tiers per target: list-cell: square 20; detail: square 3, small 7""#), "\(stacked)")
        let histogram = SVGChart.histogram("Bytes", [("<10 KB", 4), ("<20 KB", 0)])
        #expect(histogram.contains(#"aria-label="Bytes: &lt;10 KB: 4; &lt;20 KB: 0""#), "\(histogram)")
    }

    /// Chart labels tell files apart: two exports' tables of one name, a dump's pages whose
    /// names differ only at their end; each fits the label column (20 characters).
    @Test func fileLabelsTellEveryFileApartAndFitTheChart() {
        let paths = [
            "/data/inaturalist-open-data-2024-06/observations.csv", "/data/inaturalist-open-data-2024-07/observations.csv",
            "/srv/dumps/inaturalist_api_2024_07_15_observations_page_000001.json",
            "/srv/dumps/inaturalist_api_2024_07_15_observations_page_000002.json", "/in/taxa.json",
            // Told apart only after their cut: at their start, or in their middle.
            "/x/exportA_2024/observations.csv", "/x/exportB_2024/observations.csv",
            "/d/page_000001_of_020000.json", "/d/page_010001_of_020000.json",
        ]
        let labels = BundleReport.fileLabels(paths)
        #expect(Set(labels).count == paths.count, "\(labels)")
        #expect(labels.allSatisfy { $0.count <= 20 }, "\(labels)")
        #expect(labels[2] == "…ns_page_000001.json" && labels[4] == "taxa.json", "\(labels)")
    }

    @Test func aBlurbsVisibleLengthCountsCharactersOutsideTagsAndAnEntityAsOne() {
        let cases: [(String, Int)] = [
            ("", 0), ("<p>caf&eacute; <b>x</b></p>", 6), ("é<br>ü", 2), ("日本", 2),
            ("x > y; z", 8),  // a lone `>` or `;` is text
            ("&amp;&lt;", 2), ("a&b", 2),  // an entity never closed hides the rest
            ("a&b<i>c</i>;d", 3),  // a tag inside an entity: the entity still ends at its `;`
            ("text <unclosed tag", 5), ("ab<", 2),
            ("<a title='&amp;'>x", 1),  // an entity inside a tag is the tag's
            ("&a<b;>c;d", 2),  // a `;` inside a tag does not end the entity
        ]
        for (html, length) in cases {
            #expect(ReportFacts.visibleLength(html) == length, "\(html)")
        }
    }

    /// The word-at-a-time count of text runs against a byte at a time, on deterministic random
    /// blurbs long enough for whole words: ASCII, two-, three- and four-byte characters, tags,
    /// entities, and lone `>` and `;`, at every offset of a word.
    @Test func aBlurbsVisibleLengthIsTheSameCountedEightBytesAtATime() {
        func byteAtATime(_ html: [UInt8]) -> Int {
            var count = 0
            var index = 0
            var inEntity = false
            while index < html.count {
                let byte = html[index]
                index += 1
                if byte == UInt8(ascii: "<") {
                    guard let close = html[index...].firstIndex(of: UInt8(ascii: ">")) else { return count }
                    index = close + 1
                } else if byte == UInt8(ascii: "&") {
                    count += 1
                    inEntity = true
                } else if inEntity {
                    if byte == UInt8(ascii: ";") { inEntity = false }
                } else if byte & 0xC0 != 0x80 {
                    count += 1
                }
            }
            return count
        }
        let pieces = ["a", "bc", "defghij", "é", "日", "🦉", " ", "<p>", "</b>", "<a href='x'>", "&amp;", "&", ";", ">", "<"]
        var random = SortInPlaceTests.SplitMix64(state: 17)
        for _ in 0..<2_000 {
            var html = ""
            for _ in 0..<Int.random(in: 0...40, using: &random) { html += pieces.randomElement(using: &random)! }
            #expect(ReportFacts.visibleLength(html) == byteAtATime(Array(html.utf8)), "\(html)")
        }
    }

    /// A pipeline without display targets (what `make bundle INAT=…` writes) chooses no tier and
    /// costs nothing: its three sections said so with empty charts and header-only tables.
    @Test func aBundleWithoutDisplayTargetsSaysSoInsteadOfEmptyCharts() throws {
        let directory = try TemporaryDirectory()
        var policy = try samplePolicy()
        policy.targets = []
        try buildBundle(inputs: Self.sampleInputs, in: directory, name: "sample", epoch: 1_700_000_000, policy: policy)
        let html = try report(directory)
        #expect(html.components(separatedBy: "This pipeline defines no display targets").count - 1 == 3)
        for title in ["Photos per tier and display target", "Photos that fit the memory budget"] { #expect(!html.contains(title), "\(title)") }
        // The header dates the data, not the run.
        #expect(html.contains("data as of 2023-11-14T22:13:20Z"))
    }

    /// Which costs are estimates, and what the bundle stage salvaged of the export's
    /// observations (said on standard error alone; the ingest section said "nothing salvaged").
    @Test func theEstimatedCostsAndTheExportsMissingParentsAreSaid() throws {
        let directory = try TemporaryDirectory()
        try buildBundle(inputs: Self.sampleInputs, in: directory, name: "sample", epoch: 1_700_000_000)
        let database = try Database(path: directory.file("content.sqlite"))
        try database.execute("""
            UPDATE bundle_info SET value = '3' WHERE key = 'photos.remote';
            INSERT INTO bundle_info (key, value) VALUES ('observations.without_observer', '12'), ('observations.without_taxon', '4');
            """)
        let html = try report(directory)
        #expect(html.contains("Of the photos shipped, 3 are remote"), "the remote photos' estimate")
        #expect(html.contains("At the bundle stage, 12 observations of the open-data export were kept without their observer and 4 without their taxon"))
    }

    /// One scale for every row of a stacked chart: a row of 1 drew as long as a row of 38.
    @Test func aStackedChartsRowsShareOneScale() throws {
        let svg = SVGChart.stacked("Findings per input file", segments: ["rejected"], [("big.json", [38]), ("small.json", [1])])
        let widths = svg.matches(of: /<rect x="\d+" y="\d+" width="(\d+)" height/).map { Int($0.1)! }
        #expect(widths.count >= 2 && widths[0] > 20 * widths[1], "\(widths)")
    }

    /// A bidirectional override from the data (`Evil\u{202E}FDP.exe` showed as "EvilexeFDP.")
    /// is shown replaced, as credits drop it.
    @Test func bidirectionalOverridesFromTheDataAreShownReplaced() {
        #expect(HTMLText.escaped("Evil\u{202E}FDP.exe \u{2066}x\u{2069}") == "Evil\u{FFFD}FDP.exe \u{FFFD}x\u{FFFD}")
        #expect(HTMLText.escaped("Café – “quoted” ‘x’") == "Café – “quoted” ‘x’")
    }

    /// Blurb lengths of any size are binned at round widths (a 1 MB blurb gave "0–83072").
    @Test func blurbLengthsAreBinnedAtRoundWidths() {
        let bins = BundleReport.lengthBins([10, 4_000, 996_872])
        #expect(bins.count <= 12 && bins.first?.label == "0–99999", "\(bins.map(\.label))")
        #expect(BundleReport.lengthBins([5, 95]).first?.label == "0–9")
    }

    /// A control character from the data (a NUL in a title, an escape sequence in a file name)
    /// is shown as U+FFFD: written raw, the browser dropped it and the page was not text.
    @Test func controlCharactersFromTheDataAreShownReplaced() {
        #expect(HTMLText.escaped("Nul\u{0}x Esc\u{1B}[31m\tok\n") == "Nul\u{FFFD}x Esc\u{FFFD}[31m\tok\n")
    }

    /// Bytes in the unit that keeps the figure under 1000 once rounded.
    @Test(arguments: [
        (999, "999 B"), (1000, "1.0 KB"), (99_940, "99.9 KB"), (99_960, "100 KB"), (999_400, "999 KB"), (999_600, "1.0 MB"),
        (999_999_999, "1.0 GB"), (1_500_000_000, "1.5 GB"),
    ] as [(Int64, String)])
    func bytesArePrintedInTheUnitThatKeepsThemUnderAThousand(value: Int64, text: String) {
        #expect(ReportNumber.bytes(value) == text)
    }

    /// A timing out of range names its file (1e300 seconds crashed the run report).
    @Test(arguments: ["1e300", "-5"])
    func aTimingOutOfRangeIsRefusedNamingItsFile(seconds: String) throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("timings/inat.json", #"{"stage":"inat","seconds":"# + seconds + #","records":5,"bytes":10,"peak_rss_bytes":1000}"#)
        let error = try #require(throws: FieldpackError.self) { try StageTiming.read(folder: directory.file("timings")) }
        #expect(error.path == path && error.message.hasPrefix("not a stage timing: seconds must be from 0"), "\(error)")
    }

    @Test func namesFromTheDataAreEscaped() throws {
        let directory = try TemporaryDirectory()
        let observation = """
            {"id":1,"uuid":"00000000-0000-4000-8000-000000000001","quality_grade":"research","observed_on":"2024-04-30","updated_at":"2024-05-01T10:00:00+00:00",\
            "created_at":"2024-04-30T09:00:00+00:00","location":"50.5,4.25",\
            "taxon":{"id":9,"name":"Danaus <i>plexippus</i>","rank":"species","rank_level":10,"iconic_taxon_name":"<script>alert(1)</script> & \\"Insecta\\""},\
            "user":{"id":7,"login":"u7","name":null},"photos":[],"observation_photos":[]}
            """
        let input = try directory.write("inputs/page.json", page([observation]))
        try buildBundle(inputs: [input], in: directory)
        let rejects = try directory.write(
            "rejects.jsonl",
            #"{"file":"dumps/<b>bold</b>&'x'.json","line":1,"offset":0,"record":null,"path":"photos[0].id","outcome":"salvaged","reason":"photos[0].id is \"<img src=x>\""}"# + "\n")
        let html = try report(directory, rejects: [rejects])
        #expect(!html.contains("<script>alert(1)</script>"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Insecta&quot;"))
        #expect(!html.contains("<b>bold</b>") && html.contains("dumps/&lt;b&gt;bold&lt;/b&gt;&amp;&#39;x&#39;.json"))
        #expect(!html.contains("<img src=x>") && html.contains("&quot;&lt;img src=x&gt;&quot;"))
    }

    @Test func aDeltaAgainstThePreviousBundleIsCountedPerKind() throws {
        let first = try TemporaryDirectory()
        try buildBundle(inputs: [try first.write("a.json", page([observationJSON(id: 1), observationJSON(id: 2)]))], in: first)
        let second = try TemporaryDirectory()
        try ingestAndDedupe([try second.write("b.json", page([observationJSON(id: 2), observationJSON(id: 3), observationJSON(id: 4)]))], in: second)
        var bundle = BundleBuilder.Options(
            input: second.file("deduped.jsonl"), output: second.file("content.sqlite"), pipelineName: "test", policy: try samplePolicy())
        bundle.previous = first.file("content.sqlite")
        bundle.delta = second.file("delta.json")
        try BundleBuilder(options: bundle).run()
        let html = try report(second)
        #expect(!html.contains("No previous bundle was given"))
        #expect(html.contains("<tr><td class=\"wrap\">observations</td><td class=\"num\">2</td><td class=\"num\">0</td><td class=\"num\">1</td></tr>"),
                "\(html)")
    }

    @Test func aFileThatIsNotABundleIsAnErrorNamingIt() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("content.sqlite")
        try Database(path: path).execute("CREATE TABLE t (x)")
        #expect(throws: FieldpackError.self) {
            try BundleReport(options: .init(database: path, output: directory.file("report.html"))).run()
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("report.html")))
    }

    @Test func theRunReportListsEveryStageInPipelineOrder() throws {
        let directory = try TemporaryDirectory()
        let timings = directory.file("timings")
        for (stage, seconds) in [("verify", 0.5), ("inat", 2.25), ("bundle", 1.0)] {
            try StageTiming(stage: stage, seconds: seconds, records: 100, bytes: 4_000_000, peakResidentBytes: 50 << 20).write(into: timings)
        }
        try RunReport(timings: timings, output: directory.file("run.html"), pipeline: "sample").run()
        let html = try text(directory.file("run.html"))
        let order = ["fieldpack-inat", "fieldpack-bundle", "fieldpack-verify"].map { html.range(of: "<td class=\"wrap\">\($0)</td>")?.lowerBound }
        #expect(order.allSatisfy { $0 != nil })
        #expect(order.compactMap { $0 } == order.compactMap { $0 }.sorted())
        #expect(html.contains("<td class=\"num\">2.25</td>"))
        // Each stage's figures are from its last run, not all from one build.
        #expect(html.contains("time and peak memory of each stage&#39;s last run (a build reruns only the stages whose inputs changed), 3.75 s added up"))
    }

    /// A sharded stage is one stage in the count the run reports, however many shards it had.
    @Test func theRunReportCountsStagesNotShards() throws {
        let directory = try TemporaryDirectory()
        let timings = directory.file("timings")
        for index in 0..<3 {
            try StageTiming(stage: "inat", shard: try Shard(index: index, count: 3), seconds: 1, records: 10, bytes: 100, peakResidentBytes: 1 << 20)
                .write(into: timings)
        }
        try StageTiming(stage: "bundle", seconds: 1, records: 10, bytes: 100, peakResidentBytes: 1 << 20).write(into: timings)
        #expect(try RunReport(timings: timings, output: directory.file("run.html"), pipeline: "sample").run() == 2)
    }

    /// Every stage's summary line has records/s, MB/s and peak RSS, and with FIELDPACK_TIMINGS
    /// its figures land in that folder.
    @Test(.enabled(if: binaries != nil))
    func stagesWriteTheirTimingsWhereFieldpackTimingsSays() throws {
        let bin = try #require(Self.binaries)
        let directory = try TemporaryDirectory()
        let timings = directory.file("timings")
        let input = "\(repositoryRoot)/sample-data/inat/shipping-cases.jsonl"
        let ingest = try run("\(bin)/fieldpack-inat", [input, "--output", directory.file("r.jsonl"), "--rejects", directory.file("x.jsonl")],
                             environment: ["FIELDPACK_TIMINGS": timings])
        #expect(ingest.status == 0, "\(ingest.stderr)")
        let dedupe = try run("\(bin)/fieldpack-dedupe", [directory.file("r.jsonl"), "--output", directory.file("d.jsonl"), "--conflicts", directory.file("c.json")],
                             environment: ["FIELDPACK_TIMINGS": timings])
        #expect(dedupe.status == 0, "\(dedupe.stderr)")
        for output in [ingest.stderr, dedupe.stderr] {
            #expect(output.contains(" records/s, ") && output.contains(" MB/s, peak RSS "), "\(output)")
        }
        let stages = try StageTiming.read(folder: timings)
        #expect(stages.map(\.stage) == ["inat", "dedupe"])
        #expect(stages.allSatisfy { $0.peakResidentBytes > 0 && ($0.records ?? 0) > 0 && ($0.bytes ?? 0) > 0 })
        // Dated, within the test's run.
        let now = Int64(Date().timeIntervalSince1970)
        #expect(stages.allSatisfy { ($0.finishedAt ?? 0) > now - 600 && ($0.finishedAt ?? 0) <= now + 1 }, "\(stages)")
    }

    /// After a failed build the last run's page stays as it was, with nothing to date it: a team
    /// opening it the next morning took it for the night's run. Each row says when its stage
    /// finished, and the subtitle when the last one did.
    @Test func theRunReportDatesEachStagesFiguresAndTheLastStage() throws {
        let directory = try TemporaryDirectory()
        let timings = directory.file("timings")
        try StageTiming(stage: "inat", seconds: 2, records: 10, bytes: 100, peakResidentBytes: 1 << 20, finishedAt: 1_796_600_000).write(into: timings)
        for index in 0..<2 {
            try StageTiming(stage: "dedupe", shard: try Shard(index: index, count: 2), seconds: 1, records: 10, bytes: 100,
                            peakResidentBytes: 1 << 20, finishedAt: 1_796_600_100 + Int64(index) * 7).write(into: timings)
        }
        // A timing from before timings were dated.
        try StageTiming(stage: "bundle", seconds: 1, records: 10, bytes: 100, peakResidentBytes: 1 << 20).write(into: timings)
        #expect(try StageTiming.read(folder: timings).map(\.finishedAt) == [1_796_600_000, 1_796_600_100, 1_796_600_107, nil])
        try RunReport(timings: timings, output: directory.file("run.html"), pipeline: "sample").run()
        let html = try text(directory.file("run.html"))
        #expect(html.contains("<th>finished (UTC)</th>"), "\(html)")
        #expect(html.contains("2026-12-06 23:33:20</td>") && html.contains("2026-12-06 23:35:07</td>") && html.contains("–</td></tr>"), "\(html)")
        #expect(html.contains("the last stage finished at 2026-12-06 23:35:07. A build that failed leaves this page as it was"))
        let bad = try directory.write("bad/inat.json", #"{"stage": "inat", "seconds": 1, "peak_rss_bytes": 1, "finished_at": "yesterday"}"# + "\n")
        let error = try #require(throws: FieldpackError.self) { try StageTiming.read(folder: directory.file("bad")) }
        #expect(error.path == bad && error.message.contains("finished_at is not a time"))
    }
}
