import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// The wiki stage's documented behaviours (README, "Wikipedia blurbs"), one test each, on small
/// constructed dumps with expected values worked out by hand.
@Suite struct WikiBehaviourTests {
    /// One Enterprise NDJSON line: `name`, `article_body.html` and any other fields.
    private func line(_ name: String, _ html: String, _ fields: [String: Any] = [:]) -> String {
        var object: [String: Any] = ["name": name, "article_body": ["html": html]]
        for (key, value) in fields { object[key] = value }
        return String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// A page whose blurb is exactly `<p>sentence</p>` (a prose paragraph ending in a full stop).
    private func document(_ sentence: String, head: String = "") -> String {
        "<html><head>\(head)</head><body><p>\(sentence)</p></body></html>"
    }

    private func stub(to target: String) -> String {
        "<html><body><section data-mw-section-id=\"0\"><link rel=\"mw:PageProp/redirect\" href=\"./\(target)\"/></section></body></html>"
    }

    private let disambiguation = "<html><head><meta property=\"mw:PageProp/disambiguation\"/></head><body><p>Lixus may refer to:</p></body></html>"

    private let tit = "The great tit is a small passerine bird of the woods, parks and gardens of Europe."

    private func wants(_ titles: [String], language: String = "en") -> WikiWants {
        var wants = WikiWants(language: language)
        for title in titles { wants.want(title: title, by: .destination("d")) }
        return wants
    }

    private struct Output {
        var lines: [[String: Any]]
        var report: [String: Any]
        var rejects: [[String: Any]]
    }

    @discardableResult
    private func run(_ inputs: [String], wants: WikiWants, in directory: TemporaryDirectory, maxRejectRate: Double? = 1) throws -> Output {
        var options = WikiStage.Options(
            inputs: inputs, wants: wants, output: directory.file("articles.jsonl"), report: directory.file("report.json"),
            rejects: directory.file("rejects.jsonl"))
        if let maxRejectRate { options.maxRejectRate = maxRejectRate }
        try WikiStage(options: options).run()
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("report.json")))) as! [String: Any]
        return Output(lines: try jsonLines(directory.file("articles.jsonl")), report: report, rejects: try jsonLines(directory.file("rejects.jsonl")))
    }

    // MARK: What an article carries

    @Test func anArticleCarriesItsCreditsAndEveryRequesterInOrder() throws {
        let directory = try TemporaryDirectory()
        let dump = try directory.write("dump.ndjson", line("Great tit", document(tit), [
            "identifier": 381722, "url": "https://en.wikipedia.org/wiki/Great_tit", "date_modified": "2026-11-14T09:27:41Z",
            "version": ["identifier": 1282922208, "editor": ["name": "Someone"]], "main_entity": ["identifier": "Q2631058"],
            "in_language": ["identifier": "en"], "license": [["identifier": "CC-BY-SA-3.0"], ["identifier": "GFDL"]],
            "an_unknown_key": [1, 2, 3],
        ]) + "\n")
        var wanted = WikiWants(language: "en")
        wanted.want(title: "great_tit", by: .taxon(13))
        wanted.want(title: "Great%20tit", by: .taxon(4))
        wanted.want(title: "Great tit", by: .destination("park"))
        wanted.want(title: "Great tit", by: .destination("forest"))
        let output = try run([dump], wants: wanted, in: directory)
        #expect(output.lines.count == 1)
        let article = try #require(output.lines.first)
        #expect(Set(article.keys) == ["title", "page_id", "revision", "modified", "url", "language", "wikidata", "license", "taxa",
                                      "destinations", "sections", "summary", "html"])
        #expect(article["title"] as? String == "Great tit")
        #expect(article["page_id"] as? Int == 381722)
        #expect(article["revision"] as? Int == 1282922208)
        #expect(article["modified"] as? String == "2026-11-14T09:27:41Z")
        #expect(article["url"] as? String == "https://en.wikipedia.org/wiki/Great_tit")
        #expect(article["language"] as? String == "en")
        #expect(article["wikidata"] as? String == "Q2631058")
        #expect(article["license"] as? String == "CC-BY-SA-3.0")
        #expect(article["taxa"] as? [Int] == [4, 13])
        #expect(article["destinations"] as? [String] == ["forest", "park"])
        #expect(article["sections"] as? Int == 0)
        #expect(article["summary"] as? String == tit)
        #expect(article["html"] as? String == "<p>\(tit)</p>")
        #expect(output.report["wanted"] as? Int == 1)
        #expect(output.report["found"] as? Int == 1)
    }

    @Test(arguments: ["en", "fr"])
    func aLineWithOnlyANameAndHTMLGetsTheVersionlessLicenceAndAURLInTheLanguage(language: String) throws {
        let directory = try TemporaryDirectory()
        let dump = try directory.write("dump.ndjson", line("Sonian Forest", document(tit)) + "\n")
        let article = try #require(try run([dump], wants: wants(["Sonian Forest"], language: language), in: directory).lines.first)
        // Neither a licence nor a date: CC BY-SA, version unknown, never a blanket 4.0.
        #expect(article["license"] as? String == "CC-BY-SA")
        #expect(article["url"] as? String == "https://\(language).wikipedia.org/wiki/Sonian_Forest")
        #expect(article["language"] as? String == language)
        for key in ["page_id", "revision", "modified", "wikidata"] { #expect(article[key] is NSNull, "\(key)") }
    }

    // MARK: Selection

    @Test(arguments: [("en", 1), ("fr", 9)])
    func linesInAnotherLanguageThanTheWantedOneAreSkipped(language: String, revision: Int) throws {
        let directory = try TemporaryDirectory()
        let dump = try directory.write("dump.ndjson", [
            line("Great tit", document(tit), ["in_language": ["identifier": "fr"], "version": ["identifier": 9]]),
            line("Great tit", document(tit), ["in_language": ["identifier": "en"], "version": ["identifier": 1]]),
        ].joined(separator: "\n") + "\n")
        let output = try run([dump], wants: wants(["Great tit"], language: language), in: directory)
        #expect(output.lines.map { $0["revision"] as? Int } == [revision])
        #expect(output.lines.map { $0["language"] as? String } == [language])
        #expect(output.report["lines_skipped"] as? Int == 1)
        #expect(output.report["duplicate_pages"] as? Int == 0)
    }

    /// A line that does not state its language (no `in_language`) is of the wiki its `url`
    /// names: an English "Lion" was read into a German guide, and won on line order.
    @Test(arguments: [("en", 9), ("de", 1)])
    func aLineWithoutItsLanguageIsOfTheWikiItsURLNames(language: String, revision: Int) throws {
        let directory = try TemporaryDirectory()
        let dump = try directory.write("dump.ndjson", [
            line("Great tit", document(tit), ["url": "https://en.wikipedia.org/wiki/Great_tit", "version": ["identifier": 9]]),
            line("Great tit", document(tit), ["url": "https://de.wikipedia.org/wiki/Great_tit", "version": ["identifier": 1]]),
        ].joined(separator: "\n") + "\n")
        let output = try run([dump], wants: wants(["Great tit"], language: language), in: directory)
        #expect(output.lines.map { $0["revision"] as? Int } == [revision])
        #expect(output.report["lines_skipped"] as? Int == 1)
        #expect(output.report["duplicate_pages"] as? Int == 0)
    }

    /// A line of another wiki in the wanted language (an On-demand answer lists every
    /// project's copy: Wiktionary's "dog", Simple English Wikipedia's "Dog") is skipped, by its
    /// `is_part_of` or else by its address: its higher revision won, and a dictionary entry
    /// shipped as the article, without a word.
    @Test(arguments: [("enwiktionary", "en.wiktionary.org"), ("simplewiki", "simple.wikipedia.org"), (nil, "en.wiktionary.org")])
    func aLineOfAnotherWikiInTheWantedLanguageIsSkipped(project: String?, host: String) throws {
        let directory = try TemporaryDirectory()
        var fields: [String: Any] = ["in_language": ["identifier": "en"], "url": "https://\(host)/wiki/Great_tit", "version": ["identifier": 9]]
        if let project { fields["is_part_of"] = ["identifier": project] }
        let dump = try directory.write("dump.ndjson", [
            line("Great tit", document("A great tit is a word for a bird of the woods."), fields),
            line("Great tit", document(tit), ["is_part_of": ["identifier": "enwiki"], "in_language": ["identifier": "en"], "version": ["identifier": 1]]),
        ].joined(separator: "\n") + "\n")
        let output = try run([dump], wants: wants(["Great tit"]), in: directory)
        #expect(output.lines.map { $0["revision"] as? Int } == [1])
        #expect(output.report["lines_skipped"] as? Int == 1)
    }

    /// A guide from Simple English Wikipedia (`wikipedia_language: simple`, which the pipeline
    /// accepts): its lines are `in_language` `en`, and were all skipped as another language's.
    /// The wiki is the one `is_part_of` names; English Wikipedia's copy is the one skipped.
    @Test func aSimpleEnglishGuideReadsTheLinesOfSimpleWikiByTheirProject() throws {
        let directory = try TemporaryDirectory()
        let dump = try directory.write("dump.ndjson", [
            line("Great tit", document(tit), ["is_part_of": ["identifier": "simplewiki"], "in_language": ["identifier": "en"],
                                              "url": "https://simple.wikipedia.org/wiki/Great_tit", "version": ["identifier": 9]]),
            line("Great tit", document(tit), ["is_part_of": ["identifier": "enwiki"], "in_language": ["identifier": "en"], "version": ["identifier": 1]]),
        ].joined(separator: "\n") + "\n")
        let output = try run([dump], wants: wants(["Great tit"], language: "simple"), in: directory)
        #expect(output.lines.map { $0["revision"] as? Int } == [9])
        #expect(output.report["lines_skipped"] as? Int == 1)
    }

    /// Copies without a revision are ranked by the instant of their date, not its text: 12:00 at
    /// +02:00 is before 11:00 UTC, 11:00:00.500Z after 11:00:00Z; a date that is not one counts as
    /// none, with a finding (it won over every real date as the greater string, and shipped).
    @Test(arguments: [
        ("2024-03-01T11:00:00Z", "2024-03-01T12:00:00+02:00"), ("2024-03-01T11:00:00.500Z", "2024-03-01T11:00:00Z"),
        ("2024-03-01T11:00:00Z", "unknown"),
    ])
    func copiesWithoutARevisionAreRankedByTheInstantOfTheirDate(newer: String, older: String) throws {
        let directory = try TemporaryDirectory()
        let newerText = "The great tit is a passerine bird that lives in every kind of woodland in Europe."
        for order in [false, true] {
            let lines = [line("Great tit", document(newerText), ["date_modified": newer]), line("Great tit", document(tit), ["date_modified": older])]
            let dump = try directory.write("dump.ndjson", (order ? lines.reversed() : lines).joined(separator: "\n") + "\n")
            let output = try run([dump], wants: wants(["Great tit"]), in: directory)
            #expect(output.lines.map { $0["html"] as? String } == ["<p>\(newerText)</p>"], "\(newer) against \(older)")
            #expect(output.lines.map { $0["modified"] as? String } == [newer])
            let dropped = output.rejects.filter { ($0["reason"] as? String)?.hasPrefix("date_modified \"unknown\" is not a date") == true }
            #expect(dropped.count == (older == "unknown" ? 1 : 0), "\(output.rejects)")
        }
    }

    /// A part of the wrong type is dropped with a finding, the line kept; a revision given as a
    /// string of digits is read as its number (the newer copy lost to an older one, silently).
    @Test func aPartOfTheWrongTypeIsDroppedWithAFindingAndAQuotedRevisionRead() throws {
        let directory = try TemporaryDirectory()
        let newerText = "The great tit is a passerine bird that lives in every kind of woodland in Europe."
        let dump = try directory.write("dump.ndjson", [
            line("Great tit", document(newerText), ["version": ["identifier": "200"], "main_entity": ["identifier": 7], "identifier": "12"]),
            line("Great tit", document(tit), ["version": ["identifier": 100]]),
        ].joined(separator: "\n") + "\n")
        let output = try run([dump], wants: wants(["Great tit"]), in: directory)
        #expect(output.lines.map { $0["revision"] as? Int } == [200])
        #expect(output.lines.map { $0["page_id"] as? Int } == [12])
        let fields = output.rejects.filter { $0["kind"] as? String == "salvaged" }.compactMap { ($0["reason"] as? String)?.split(separator: " ").first.map(String.init) }.sorted()
        #expect(fields == ["identifier", "main_entity.identifier", "version.identifier"], "\(output.rejects)")
    }

    @Test(arguments: [false, true], [false, true])
    func ofAPageSeenTwiceTheHigherRevisionWinsElseTheLaterModificationDate(revisions: Bool, newerFirst: Bool) throws {
        let directory = try TemporaryDirectory()
        let newerText = "The great tit is a passerine bird that lives in every kind of woodland in Europe."
        // With revisions, the newer copy has the higher revision but the earlier date.
        let newer = line("Great tit", document(newerText), revisions
            ? ["version": ["identifier": 5], "date_modified": "2026-01-01T00:00:00Z"] : ["date_modified": "2026-03-01T00:00:00Z"])
        let older = line("Great tit", document(tit), revisions
            ? ["version": ["identifier": 4], "date_modified": "2026-06-01T00:00:00Z"] : ["date_modified": "2026-01-01T00:00:00Z"])
        let dump = try directory.write("dump.ndjson", (newerFirst ? [newer, older] : [older, newer]).joined(separator: "\n") + "\n")
        let output = try run([dump], wants: wants(["Great tit"]), in: directory)
        #expect(output.lines.map { $0["html"] as? String } == ["<p>\(newerText)</p>"])
        #expect(output.report["duplicate_pages"] as? Int == 1)
    }

    @Test func taxaWantTheirWikipediaURLsArticleInTheWantedLanguage() throws {
        let directory = try TemporaryDirectory()
        let taxa = """
            {"id":1,"name":"Parus major","rank":"species","wikipedia_url":"http://en.wikipedia.org/wiki/Great_tit"}
            {"id":2,"name":"Parus major","rank":"species","wikipedia_url":"https://fr.wikipedia.org/wiki/M%C3%A9sange_charbonni%C3%A8re"}
            {"id":3,"name":"Aves","rank":"class"}
            {"id":4,"name":"Parus","rank":"genus","wikipedia_url":"https://en.wikipedia.org/wiki/Great%20tit"}
            {"id":5,"name":"Paridae","rank":"family","wikipedia_url":"https://www.inaturalist.org/taxa/5"}

            """
        try ingestAndDedupe([try directory.write("taxa.jsonl", taxa), try directory.write("obs.json", observationJSON(id: 1))], in: directory)
        var english = WikiWants(language: "en")
        try english.addTaxa(fromDeduped: directory.file("deduped.jsonl"))
        #expect(english.titles == ["Great tit": [.taxon(1), .taxon(4)]])
        #expect(english.wikidata.isEmpty)
        var french = WikiWants(language: "fr")
        try french.addTaxa(fromDeduped: directory.file("deduped.jsonl"))
        #expect(french.titles == ["Mésange charbonnière": [.taxon(2)]])

        let dump = try directory.write("dump.ndjson", line("Great tit", document(tit)) + "\n")
        let output = try run([dump], wants: english, in: directory)
        #expect(output.lines.map { $0["taxa"] as? [Int] } == [[1, 4]])
        #expect(output.lines.map { $0["destinations"] as? [String] } == [[]])
    }

    @Test func aWikidataWantMatchesInAnyCaseAndADisambiguationPageWantedByItIsSkippedNotMissing() throws {
        let directory = try TemporaryDirectory()
        let dump = try directory.write("dump.ndjson", [
            line("Serengeti National Park", document(tit), ["main_entity": ["identifier": "Q5094612"]]),
            line("Lixus", disambiguation, ["main_entity": ["identifier": "Q6661845"]]),
        ].joined(separator: "\n") + "\n")
        var wanted = WikiWants(language: "en")
        wanted.want(wikidata: "q5094612", by: .destination("serengeti"))
        wanted.want(wikidata: "Q6661845", by: .destination("lixus"))
        let output = try run([dump], wants: wanted, in: directory)
        #expect(output.lines.map { $0["title"] as? String } == ["Serengeti National Park"])
        #expect(output.lines.first?["destinations"] as? [String] == ["serengeti"])
        #expect(output.report["missing"] as? [String] == [])
        #expect(output.report["disambiguation_pages_skipped"] as? [String] == ["Lixus"])
        #expect(output.rejects.count == 1)
        #expect(output.rejects.first?["kind"] as? String == "skipped")
        #expect(output.rejects.first?["file"] as? String == dump)
        #expect(output.rejects.first?["line"] as? Int == 2)
        #expect(output.rejects.first?["reason"] as? String == "\"Lixus\" is a disambiguation page: skipped")
    }

    @Test func aChainOfRedirectStubsIsFollowedWithOneMorePassPerStub() throws {
        let directory = try TemporaryDirectory()
        let dump = try directory.write("dump.ndjson", [
            line("Gamma", document(tit)), line("Beta", stub(to: "Gamma")), line("Alpha", stub(to: "Beta")), line("Delta", document(tit)),
        ].joined(separator: "\n") + "\n")
        let output = try run([dump], wants: wants(["Alpha"]), in: directory)
        #expect(output.lines.map { $0["title"] as? String } == ["Gamma"])
        #expect(output.lines.first?["destinations"] as? [String] == ["d"])
        #expect(output.report["passes"] as? Int == 3)
        #expect(output.report["redirects_followed"] as? [String: String] == ["Alpha": "Beta", "Beta": "Gamma"])
        #expect(output.report["missing"] as? [String] == [])
        // Lines are counted once, in the first pass.
        #expect(output.report["lines"] as? Int == 4)
    }

    @Test func articlesAreWrittenInTitleByteOrderAndUnwantedOnesNotAtAll() throws {
        let directory = try TemporaryDirectory()
        let dump = try directory.write("dump.ndjson", ["Zebra", "élan", "Unwanted", "Ant", "apple"].map { line($0, document(tit)) }
            .joined(separator: "\n") + "\n")
        let output = try run([dump], wants: wants(["Zebra", "Élan", "ant", "Apple"]), in: directory)
        // "Ant" < "Apple" < "Zebra" < "Élan" (0xC3 0x89 sorts after every ASCII byte).
        #expect(output.lines.map { $0["title"] as? String } == ["Ant", "Apple", "Zebra", "Élan"])
    }

    @Test func anHTMLPageIsTitledByItsTitleElementElseByItsFileName() throws {
        let directory = try TemporaryDirectory()
        let titled = try directory.write("pages/page1.html", document(tit, head: "<title>Sonian Forest - Wikipedia</title>"))
        let untitled = try directory.write("pages/Hoge_Kempen_National_Park.html", document(tit))
        let output = try run([titled, untitled], wants: wants(["Sonian Forest", "Hoge Kempen National Park"]), in: directory)
        #expect(output.lines.map { $0["title"] as? String } == ["Hoge Kempen National Park", "Sonian Forest"])
        #expect(output.lines.map { $0["url"] as? String } == [
            "https://en.wikipedia.org/wiki/Hoge_Kempen_National_Park", "https://en.wikipedia.org/wiki/Sonian_Forest",
        ])
        #expect(output.lines.allSatisfy { $0["html"] as? String == "<p>\(tit)</p>" && $0["license"] as? String == "CC-BY-SA" })
    }

    /// A plain page cut short (a download that stopped) is rejected: its blurb stopped
    /// mid-sentence and shipped without a word. A fragment (no `<html>`) is not judged.
    @Test func anHTMLPageCutShortIsRejectedAndAFragmentIsNot() throws {
        let directory = try TemporaryDirectory()
        let whole = document("The great tit is a small bird. It lives in woods, parks and gardens of Europe and Asia.")
        let cut = try directory.write("pages/Great_tit.html", String(whole.prefix(whole.count - 40)))
        let fragment = try directory.write("pages/Blue_tit.html", "<p>The blue tit is a small bird of woods and gardens.</p>")
        let output = try run([cut, fragment], wants: wants(["Great tit", "Blue tit"]), in: directory)
        #expect(output.lines.map { $0["title"] as? String } == ["Blue tit"])
        #expect(output.rejects.map { $0["file"] as? String } == [cut], "\(output.rejects)")
        #expect((output.rejects.first?["reason"] as? String)?.hasPrefix("the page starts as a whole HTML document but ends before its </html>") == true)
        #expect(output.report["lines_rejected"] as? Int == 1)
        #expect(output.report["lines"] as? Int == 2)
    }

    /// A page whose bytes are not UTF-8 (saved in its declared ISO-8859-1) is read repaired, as
    /// a dump line is, and said with a salvaged finding: it was silent.
    @Test func anHTMLPageThatIsNotUTF8IsReadRepairedWithAFinding() throws {
        let directory = try TemporaryDirectory()
        var bytes = Array(document("La for\u{EA}t de Soignes est une for\u{EA}t situ\u{E9}e au sud-est de Bruxelles.").utf8)
        // ISO-8859-1: ê and é as one byte each, not UTF-8.
        bytes = Array(String(decoding: bytes, as: UTF8.self).unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) })
        let path = directory.file("pages/Forêt_de_Soignes.html")
        try FileSystem.makeDirectories(directory.file("pages"))
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let output = try run([path], wants: wants(["Forêt de Soignes"]), in: directory)
        #expect(output.lines.count == 1)
        #expect((output.lines.first?["html"] as? String)?.contains("\u{FFFD}") == true)
        #expect(output.rejects.map { "\($0["kind"] as? String ?? ""):\($0["file"] as? String ?? "")" } == ["salvaged:\(path)"], "\(output.rejects)")
    }

    // MARK: The report

    @Test func theReportGivesWhatWasWantedFoundMissingAndHowMuchWasRead() throws {
        let directory = try TemporaryDirectory()
        let wantedHTML = document(tit)
        let dump = try directory.write("dump.ndjson", [
            line("Great tit", wantedHTML), line("Beetle", document("Beetles are insects of the order Coleoptera, the largest order.")), "not json",
        ].joined(separator: "\n") + "\n")
        var wanted = wants(["Great tit", "Nowhere"])
        wanted.want(wikidata: "Q1", by: .destination("universe"))
        let report = try run([dump], wants: wanted, in: directory).report
        #expect(Set(report.keys) == ["inputs", "wanted", "found", "missing", "redirects_followed", "disambiguation_pages_skipped", "duplicate_pages",
                                     "files_skipped", "lines", "lines_skipped", "lines_of_the_wiki", "lines_of_other_wikis", "lines_rejected",
                                     "passes", "bytes_read", "html_bytes_cleaned"])
        #expect(report["lines_of_the_wiki"] as? Int == 2 && (report["lines_of_other_wikis"] as? [String: Int])?.isEmpty == true)
        #expect(report["wanted"] as? Int == 3)
        #expect(report["found"] as? Int == 1)
        #expect(report["missing"] as? [String] == ["Nowhere", "Q1"])
        #expect(report["redirects_followed"] as? [String: String] == [:])
        #expect(report["disambiguation_pages_skipped"] as? [String] == [])
        #expect(report["duplicate_pages"] as? Int == 0)
        #expect(report["files_skipped"] as? Int == 0)
        #expect(report["lines"] as? Int == 3)
        #expect(report["lines_skipped"] as? Int == 1)
        #expect(report["lines_rejected"] as? Int == 1)
        #expect(report["passes"] as? Int == 1)
        let size = try FileManager.default.attributesOfItem(atPath: dump)[.size] as? Int
        #expect(report["bytes_read"] as? Int == size)
        #expect(report["html_bytes_cleaned"] as? Int == wantedHTML.utf8.count)
    }

    // MARK: Bad input

    @Test(arguments: [
        (#"{"identifier":1,"article_body":{"html":"<p>x</p>"}}"#, #"no "name""#),
        (#"{"name":"","article_body":{"html":"<p>x</p>"}}"#, #""name" is empty, expected the page's title"#),
        (#"{"name":"X","article_body":{}}"#, #"no "article_body.html""#),
        (#"{"name":"X"}"#, #"no "article_body.html""#),
        ("[1,2]", "the line is not a JSON object"),
    ])
    func aLineWithoutANameOrArticleHTMLIsRejectedWithItsPlaceAndReason(bad: String, reason: String) throws {
        try rejectsLine(bad, reason: reason)
    }

    /// A lone surrogate escape in a title, or bytes that are not UTF-8 in the HTML, refused the
    /// whole article as "not JSON"; repaired to U+FFFD, as ingest does, the article is kept,
    /// with a finding of kind "salvaged".
    @Test func anArticleWithALoneSurrogateOrBytesThatAreNotUTF8IsKeptRepaired() throws {
        let directory = try TemporaryDirectory()
        var bytes = Array((line("Great SURROGATEtit", document(tit)).replacingOccurrences(of: "SURROGATE", with: "\\ud800") + "\n").utf8)
        bytes += Array((line("X", document("Caf\u{E9} au lait is a drink that is served hot in a cup.")) + "\n").utf8)
            .map { $0 == 0xC3 ? 0xFF : $0 }.filter { $0 != 0xA9 }
        // Nobody wants the third, and the fourth has no HTML: neither is a salvaged finding.
        bytes += Array((line("Nobody SURROGATE", document(tit)).replacingOccurrences(of: "SURROGATE", with: "\\udc80") + "\n").utf8)
        bytes += Array(#"{"name": "X \ud800"}"#.utf8) + [0x0A]
        // NaN in a dump line is not quoted as ingest quotes it: the line is not JSON.
        bytes += Array(#"{"name": "X", "identifier": NaN, "article_body": {"html": "<p>x</p>"}}"#.utf8) + [0x0A]
        let dump = directory.file("dump.ndjson")
        try Data(bytes).write(to: URL(fileURLWithPath: dump))
        let output = try run([dump], wants: wants(["Great \u{FFFD}tit", "X"]), in: directory)
        #expect(output.lines.map { $0["title"] as? String } == ["Great \u{FFFD}tit", "X"])
        #expect((output.lines.last?["html"] as? String)?.contains("Caf\u{FFFD} au lait") == true)
        #expect(output.rejects.map { "\($0["kind"] as? String ?? ""):\($0["line"] as? Int ?? 0)" } == ["rejected:4", "rejected:5", "salvaged:1", "salvaged:2"])
        #expect(output.report["lines_rejected"] as? Int == 2)
    }

    private func rejectsLine(_ bad: String, reason: String) throws {
        let directory = try TemporaryDirectory()
        let dump = try directory.write("dump.ndjson", line("Great tit", document(tit)) + "\n" + bad + "\n")
        let output = try run([dump], wants: wants(["Great tit", "X"]), in: directory)
        #expect(output.lines.map { $0["title"] as? String } == ["Great tit"])
        #expect(output.rejects.count == 1)
        let reject = try #require(output.rejects.first)
        #expect(Set(reject.keys) == ["kind", "file", "line", "reason"])
        #expect(reject["kind"] as? String == "rejected")
        #expect(reject["file"] as? String == dump)
        #expect(reject["line"] as? Int == 2)
        #expect(reject["reason"] as? String == reason)
        #expect(output.report["lines_rejected"] as? Int == 1)
    }

    @Test func aFindingInsideAnArchiveNamesItsMemberAndEveryMemberIsRead() throws {
        let directory = try TemporaryDirectory()
        try directory.write("tar/part_0.ndjson", line("Great tit", document(tit)) + "\nnot json\n")
        try directory.write("tar/part_1.ndjson", line("Sonian Forest", document(tit)) + "\n")
        let archive = directory.file("dump.json.tar.gz")
        #expect(try FieldpackTestSupport.run("/bin/sh", ["-c", "cd '\(directory.file("tar"))' && tar -czf '\(archive)' part_0.ndjson part_1.ndjson"]).status == 0)
        let output = try run([archive], wants: wants(["Great tit", "Sonian Forest"]), in: directory)
        #expect(output.lines.map { $0["title"] as? String } == ["Great tit", "Sonian Forest"])
        #expect(output.rejects.count == 1)
        #expect(output.rejects.first?["file"] as? String == "\(archive)#part_0.ndjson")
        #expect(output.rejects.first?["line"] as? Int == 2)
        #expect((output.rejects.first?["reason"] as? String)?.hasPrefix("not JSON") == true)
    }

    @Test(arguments: [(99, true), (98, false)])
    func theDefaultRejectThresholdIsOnePercentOfTheLines(good: Int, passes: Bool) throws {
        let directory = try TemporaryDirectory()
        let lines = (1...good).map { line("Page \($0)", document(tit)) } + ["not json"]
        let dump = try directory.write("dump.ndjson", lines.joined(separator: "\n") + "\n")
        if passes {
            try run([dump], wants: wants(["Nothing"]), in: directory, maxRejectRate: nil)
        } else {
            let error = try #require(throws: FieldpackError.self) { try run([dump], wants: wants(["Nothing"]), in: directory, maxRejectRate: nil) }
            #expect(error.message == "1 of 99 dump lines rejected (1.01%), over the 1.0% limit; see \(directory.file("rejects.jsonl"))")
        }
        #expect(FileManager.default.fileExists(atPath: directory.file("articles.jsonl")) == passes)
        #expect(try jsonLines(directory.file("rejects.jsonl")).count == 1)
    }
}
