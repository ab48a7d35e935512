import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// The wiki stage on the sample dumps and on damaged ones.
@Suite struct WikiStageTests {
    private let sampleWiki = "\(repositoryRoot)/sample-data/wiki"

    private func sampleInputs() throws -> [String] {
        try Pipeline.resolve(["\(repositoryRoot)/sample-data/wiki"], pipelinePath: "test").files
    }

    /// Runs the stage; returns the articles by title and the report.
    @discardableResult
    private func run(
        _ inputs: [String], wants: WikiWants, in directory: TemporaryDirectory, maxRejectRate: Double = 1
    ) throws -> (articles: [String: [String: Any]], report: [String: Any], rejects: [[String: Any]]) {
        var options = WikiStage.Options(
            inputs: inputs, wants: wants, output: directory.file("articles.jsonl"), report: directory.file("report.json"),
            rejects: directory.file("rejects.jsonl"))
        options.maxRejectRate = maxRejectRate
        try WikiStage(options: options).run()
        var articles: [String: [String: Any]] = [:]
        for line in try lines(directory.file("articles.jsonl")) {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            articles[object["title"] as! String] = object
        }
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("report.json")))) as! [String: Any]
        return (articles, report, try jsonLines(directory.file("rejects.jsonl")))
    }

    private func wants(_ titles: [String], wikidata: [String] = []) -> WikiWants {
        var wants = WikiWants(language: "en")
        for (index, title) in titles.enumerated() { wants.want(title: title, by: .destination("d\(index)")) }
        for (index, id) in wikidata.enumerated() { wants.want(wikidata: id, by: .destination("q\(index)")) }
        return wants
    }

    @Test func everyMemberOfEveryDumpFormatIsReadAndTheNewestRevisionWins() throws {
        let directory = try TemporaryDirectory()
        let (articles, report, _) = try run(try sampleInputs(), wants: wants(
            ["Monarch_butterfly", "great tit", "European robin", "Burying beetle", "Kalmthoutse Heide", "Hoge Kempen National Park"],
            wikidata: ["Q5094612"]), in: directory)
        // The tar.gz's two members, the bare NDJSON, the gzip NDJSON and the legacy HTML page.
        #expect(Set(articles.keys) == ["Monarch butterfly", "Great tit", "European robin", "Burying beetle",
                                       "Kalmthoutse Heide", "Hoge Kempen National Park", "Serengeti National Park"])
        #expect(articles["Great tit"]?["revision"] as? Int == 1_282_922_208)  // the later file's newer copy
        #expect(articles["European robin"]?["revision"] as? Int == 1_281_140_260)  // the later file's copy is older
        #expect(articles["Serengeti National Park"]?["destinations"] as? [String] == ["q0"])
        #expect(report["duplicate_pages"] as? Int == 2)
        // 16 lines: the 7 wanted articles, 2 of them twice; the other 7 (Beetle, the Parus major
        // stub, Lixus, …) are skipped after a JSON parse only.
        #expect(report["lines_skipped"] as? Int == 16 - 9)
        let html = try #require(articles["Great tit"]?["html"] as? String)
        #expect(html.hasPrefix("<p>The <b>great tit</b>"))
        #expect(Sanitizer().sanitize(html) == html)
    }

    @Test func redirectsAreFollowedBothWays() throws {
        let directory = try TemporaryDirectory()
        // "Forêt de Soignes" is in Sonian Forest's redirects field; "Parus major" is a redirect
        // stub whose target nobody else wanted: a second pass reads it.
        let (articles, report, _) = try run(try sampleInputs(), wants: wants(["Forêt_de_Soignes", "Parus major"]), in: directory)
        #expect(Set(articles.keys) == ["Sonian Forest", "Great tit"])
        #expect(report["passes"] as? Int == 2)
        #expect(report["redirects_followed"] as? [String: String] == ["Forêt de Soignes": "Sonian Forest", "Parus major": "Great tit"])
        #expect(report["missing"] as? [String] == [])
    }

    @Test func aDisambiguationPageIsAFindingNotAnArticle() throws {
        let directory = try TemporaryDirectory()
        let (articles, report, rejects) = try run(try sampleInputs(), wants: wants(["Lixus", "Nowhere Park"]), in: directory)
        #expect(articles.isEmpty)
        #expect(report["disambiguation_pages_skipped"] as? [String] == ["Lixus"])
        #expect(report["missing"] as? [String] == ["Nowhere Park"])
        #expect(rejects.map { $0["kind"] as? String } == ["skipped"])
        #expect(rejects.first?["line"] as? Int == 3)
    }

    /// A page the rules leave no text of shipped an empty blurb with no finding. Its copy is a
    /// finding, and the page ships no blurb; it is still the page's newest copy (a blanked
    /// revision wins over the older one) and found (no pass reads the dumps again for it).
    @Test func anArticleTheRulesLeaveNoTextOfIsAFindingAndShipsNoBlurb() throws {
        let directory = try TemporaryDirectory()
        // A genus page that is only a list introduction and its list, reached by its title and
        // by a redirect in its own redirects field.
        let listOnly = WikiHarness.parsoid("The genus contains the following species:")
            .replacingOccurrences(of: "</section></body>", with: "<ul><li>Lixus a</li><li>Lixus b</li></ul></section></body>")
        let blanked = WikiHarness.parsoid("").replacingOccurrences(of: "<p id=\"mwAg\"></p>", with: "")
        let dump = [
            WikiHarness.line("Lixus", listOnly, ["identifier": 1, "version": ["identifier": 10], "redirects": [["name": "Lixus weevil"]]]),
            WikiHarness.line("Great tit", WikiHarness.parsoid(), ["identifier": 2, "version": ["identifier": 20]]),
            WikiHarness.line("Great tit", blanked, ["identifier": 2, "version": ["identifier": 21]]),
            WikiHarness.line("Coal tit", WikiHarness.parsoid("The coal tit is a small passerine bird of the tit family."), ["identifier": 3]),
        ].joined(separator: "\n") + "\n"
        let path = try directory.write("dump.ndjson", dump)
        let output = try WikiHarness.run([path], wants: WikiHarness.wants(["Lixus", "Lixus weevil", "Great tit", "Coal tit"]), in: directory)
        #expect(output.titles == ["Coal tit"])
        #expect(output.report["missing"] as? [String] == [])
        #expect(output.report["passes"] as? Int == 1)
        let skipped = output.rejects.map { "\($0["kind"] as? String ?? ""):\($0["line"] as? Int ?? 0): \($0["reason"] as? String ?? "")" }
        #expect(skipped == [
            "skipped:1: this copy of \"Lixus\" has no text left by the blurb rules (only lists, tables, stubs or skipped sections): it is not shipped",
            "skipped:3: this copy of \"Great tit\" has no text left by the blurb rules (only lists, tables, stubs or skipped sections): it is not shipped",
        ])
    }

    @Test func damagedDumpsGiveFindingsWithTheirPlaceAndTheRunGoesOn() throws {
        let directory = try TemporaryDirectory()
        let good = try text("\(repositoryRoot)/Tests/FieldpackKitTests/Fixtures/wiki/enterprise-2021.ndjson")
        let clark = try #require(good.split(separator: "\n").last.map(String.init))
        func line(_ name: String, html: String) -> String {
            let object: [String: Any] = ["name": name, "identifier": 1, "article_body": ["html": html]]
            return String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        }
        let deep = line("Deep", html: String(repeating: "<div>", count: 100_000) + "<p>text.</p>")
        let huge = line("Huge", html: "<p title=\"" + String(repeating: "a", count: 10_000_000) + "\">A paragraph long enough to keep, ending well.</p>")
        let dump = [clark, "{\"name\": \"Broken\", ", deep, huge].joined(separator: "\n") + "\n"
        let plain = try directory.write("dump.ndjson", dump)
        var invalid = Array("{\"name\":\"Bad bytes\",\"article_body\":{\"html\":\"<p>\u{1}".utf8)
        invalid += [0xFF, 0xFE]
        invalid += Array("</p>\"}}\n".utf8)
        let invalidPath = directory.file("invalid.ndjson")
        try Data(invalid).write(to: URL(fileURLWithPath: invalidPath))
        // A gzip stream cut short, two thirds in: inside its fourth line (the huge one).
        let gzip = try directory.writeGzip("cut.ndjson.gz", dump)
        let compressed = try Data(contentsOf: URL(fileURLWithPath: gzip))
        try compressed.prefix(compressed.count * 2 / 3).write(to: URL(fileURLWithPath: gzip))
        let (articles, _, rejects) = try run([plain, invalidPath, gzip], wants: wants(
            ["William Clark (inventor)", "Deep", "Huge", "Bad bytes"]), in: directory)
        // The good line makes its golden blurb whatever the damage around it.
        let golden = try text("\(repositoryRoot)/Tests/FieldpackKitTests/Golden/wiki-enterprise-William_Clark.html")
            .components(separatedBy: "\n\nsummary: ")
        try #require(golden.count == 2)
        let william = try #require(articles["William Clark (inventor)"])
        #expect(william["html"] as? String == golden[0])
        #expect(william["summary"] as? String == String(golden[1].dropLast()))
        // Within the 16 MB article limit: parsed, its 10 MB attribute dropped.
        #expect(articles["Huge"]?["html"] as? String == "<p>A paragraph long enough to keep, ending well.</p>")
        let reasons = rejects.map { "\(($0["file"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent } ?? ""):\($0["line"] as? Int ?? 0): \($0["reason"] as? String ?? "")" }
        #expect(reasons.contains { $0.hasPrefix("dump.ndjson:2: not JSON") })
        #expect(reasons.contains { $0.hasPrefix("dump.ndjson:3: article \"Deep\": elements nest") })
        // Bytes that are not UTF-8 and a raw control character in its text: read repaired, said so.
        #expect(reasons.contains { $0.hasPrefix("invalid.ndjson:1: text that is not UTF-8") && $0.contains("control character inside a string escaped") }, "\(reasons)")
        // The cut stream: its complete lines were read, and the damage is named at the line it cuts.
        #expect(reasons.filter { $0.hasPrefix("cut.ndjson.gz:") }.map { $0.split(separator: ":")[1] } == ["2", "3", "4"], "\(reasons)")
        #expect(reasons.contains { $0.hasPrefix("cut.ndjson.gz:4: truncated: ") }, "\(reasons)")
    }

    /// The sample Enterprise dump with one bit flipped near its start: the gzip stream inflates
    /// to noise before the damage is met, and that noise is not "binary data, not a dump" to
    /// skip (the stage passed with every article missing): the file is rejected, and the reject
    /// limit stops the stage.
    @Test func aDumpDamagedBeforeItsContentCanBeToldIsRejectedNotSkipped() throws {
        let directory = try TemporaryDirectory()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: "\(repositoryRoot)/sample-data/wiki/enwiki-NS0-20261101-ENTERPRISE-HTML.json.tar.gz"))
        bytes[100] ^= 4
        let path = directory.file("flipped.json.tar.gz")
        try bytes.write(to: URL(fileURLWithPath: path))
        let output = try run([path], wants: wants(["Great tit"]), in: directory)
        #expect(output.report["files_skipped"] as? Int == 0)
        let finding = try #require(output.rejects.first)
        #expect(finding["kind"] as? String == "rejected" && finding["file"] as? String == path)
        #expect((finding["reason"] as? String)?.hasPrefix("gzip data is corrupt") == true, "\(finding)")
        let error = try #require(throws: FieldpackError.self) { try run([path], wants: wants(["Great tit"]), in: directory, maxRejectRate: 0.2) }
        #expect(error.message.contains("1 of 1 dump lines rejected"), "\(error)")
    }

    /// A gzip dump whose stream breaks between two lines (its second gzip member cut short after
    /// its header, so no line is left half) is damage, never an end of file: the lines before it
    /// are read, and the cut is a finding at the line that would have come next. The first
    /// member is a few megabytes of articles that hardly compress, so the cut is met while the
    /// lines are read, not when the archive reader opens the file.
    @Test func aGzipDumpCutBetweenTwoLinesIsATruncationNotACleanEnd() throws {
        let directory = try TemporaryDirectory()
        let dump = try text("\(repositoryRoot)/Tests/FieldpackKitTests/Fixtures/wiki/enterprise-2021.ndjson")
        let lines = dump.split(separator: "\n").map(String.init)
        try #require(lines.count == 2)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func filler(_ number: Int) -> String {
            var words = ""
            for _ in 0..<2_000 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                words += String(state >> 20, radix: 36) + " "
            }
            return "{\"name\": \"Filler \(number)\", \"identifier\": \(number), \"article_body\": {\"html\": \"<p>\(words)</p>\"}}"
        }
        let before = (1...100).map(filler) + [lines[0]]
        let first = try Data(contentsOf: URL(fileURLWithPath: try directory.writeGzip("first.gz", before.joined(separator: "\n") + "\n")))
        let rest = try Data(contentsOf: URL(fileURLWithPath: try directory.writeGzip("rest.gz", lines[1] + "\n")))
        let cut = directory.file("cut.ndjson.gz")
        try (first + rest.prefix(12)).write(to: URL(fileURLWithPath: cut))
        let (articles, _, rejects) = try run([cut], wants: wants(["William Clark (inventor)", "Filler 7"]), in: directory)
        let reasons = rejects.map { "\(($0["file"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent } ?? ""):\($0["line"] as? Int ?? 0): \($0["reason"] as? String ?? "")" }
        #expect(reasons.count == 1 && reasons[0].hasPrefix("cut.ndjson.gz:102: truncated: "), "\(reasons)")
        // The lines before the cut were read; William Clark's, after it, was lost.
        #expect(articles["Filler 7"] != nil)
        #expect(articles["William Clark (inventor)"] == nil)
    }

    /// A small gzip dump cut short is cut while the archive reader opens it (libarchive reads
    /// ahead to tell its format): its complete lines are still read, and the cut is a finding at
    /// the line it cuts. Every line was lost, and the file was one rejected record.
    @Test func aSmallGzipDumpCutShortKeepsTheLinesBeforeTheCut() throws {
        let directory = try TemporaryDirectory()
        let lines = (1...40).map { number in
            "{\"name\": \"Animal \(number)\", \"identifier\": \(number), \"article_body\": {\"html\": \"<p>"
                + String(repeating: "Animal \(number) lives in the woods and eats seeds in winter. ", count: 40) + "</p>\"}}"
        }
        let gzip = try directory.writeGzip("cut.ndjson.gz", lines.joined(separator: "\n") + "\n")
        let compressed = try Data(contentsOf: URL(fileURLWithPath: gzip))
        #expect(compressed.count < 64 << 10)
        try compressed.prefix(compressed.count / 2).write(to: URL(fileURLWithPath: gzip))
        let (articles, _, rejects) = try run([gzip], wants: wants(["Animal 2", "Animal 40"]), in: directory)
        #expect(articles["Animal 2"] != nil)
        #expect(articles["Animal 40"] == nil)
        let reasons = rejects.map { "\($0["line"] as? Int ?? 0): \($0["reason"] as? String ?? "")" }
        #expect(reasons.count == 1 && reasons[0].contains(": truncated: gzip stream is truncated"), "\(reasons)")
        #expect(rejects.first?["line"] as? Int ?? 0 > 2, "\(reasons)")
    }

    /// Two pages that claim one alias (a redirect retargeted between two dumps): the wanted alias
    /// goes to the same article whatever the order of the dumps (the target first in byte
    /// order), where the last one read used to win.
    @Test func anAliasTwoPagesClaimGoesToTheSameArticleWhateverTheOrderOfTheDumps() throws {
        let directory = try TemporaryDirectory()
        // The sample's updates: "Great tit" and "European robin" (and "Lixus", left as it is).
        let dump = try text("\(sampleWiki)/updates.ndjson")
        let files = try dump.split(separator: "\n").prefix(2).enumerated().map { index, line in
            var object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            object["redirects"] = [["name": "Wanted alias"]]
            let text = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
            return try directory.write("dump-\(index).ndjson", text + "\n")
        }
        try #require(files.count == 2)
        var outputs: [String] = []
        for (name, order) in [("forward", files), ("backward", Array(files.reversed()))] {
            let folder = try TemporaryDirectory("fieldpack-\(name)")
            let (articles, report, _) = try run(order, wants: wants(["Wanted alias"]), in: folder)
            #expect(articles.keys.sorted() == ["European robin"], "\(name): \(articles.keys.sorted())")
            #expect("\(report["redirects_followed"] ?? "")".contains("European robin"), "\(name)")
            outputs.append(try text(folder.file("articles.jsonl")))
        }
        #expect(outputs[0] == outputs[1])
    }

    @Test func overTheRejectThresholdNothingIsPublished() throws {
        let directory = try TemporaryDirectory()
        let dump = try directory.write("bad.ndjson", "not json\n{\"name\": 1}\n")
        let error = try #require(throws: FieldpackError.self) {
            try run([dump], wants: wants(["X"]), in: directory, maxRejectRate: 0.5)
        }
        #expect(error.path == dump)
        #expect(error.message == "2 of 2 dump lines rejected (100.0%), over the 50.0% limit; see \(directory.file("rejects.jsonl"))")
        #expect(!FileManager.default.fileExists(atPath: directory.file("articles.jsonl")))
        #expect(try jsonLines(directory.file("rejects.jsonl")).count == 2)
    }

    @Test func theSameDumpsInAnotherOrderGiveTheSameArticles() throws {
        let first = try TemporaryDirectory()
        let second = try TemporaryDirectory()
        let titles = ["Great tit", "European robin", "Sonian Forest", "Kalmthoutse Heide"]
        try run(try sampleInputs(), wants: wants(titles), in: first)
        try run(try sampleInputs().reversed(), wants: wants(titles), in: second)
        #expect(try text(first.file("articles.jsonl")) == text(second.file("articles.jsonl")))
    }

    @Test(arguments: [
        ("great_tit", "Great tit"), ("Great%20tit", "Great tit"), ("  For%C3%AAt_de__Soignes ", "Forêt de Soignes"),
        ("iPhone", "IPhone"), ("élan", "Élan"), ("Lixus_(beetle)", "Lixus (beetle)"),
        // As MediaWiki: Georgian keeps its letter (not the Mtavruli capital), ß stays ß.
        ("დიდი_წივწივა", "დიდი წივწივა"), ("ßtest", "ßtest"),
        // As MediaWiki's title codec: the spaces it folds (no-break, narrow no-break,
        // ideographic) and the direction marks it strips.
        ("Große\u{A0}Seen", "Große Seen"), ("Große%C2%A0Seen", "Große Seen"), ("Parc\u{202F}national", "Parc national"),
        ("大山雀\u{3000}亚种", "大山雀 亚种"), ("\u{200E}Lion\u{200F}", "Lion"),
    ])
    func titlesMatchTheWayWikipediaMatchesThem(raw: String, normalized: String) {
        #expect(WikiTitle.normalize(raw) == normalized)
    }

    /// Turkish and Azerbaijani Wikipedia capitalize a leading `i` as the dotted `İ`: a
    /// destination typed `istanbul` is the dump's "İstanbul" there (it was "Istanbul", missing),
    /// and stays "Istanbul" everywhere else.
    @Test func aTurkishOrAzerbaijaniTitleStartingWithIIsCapitalizedWithItsDot() throws {
        #expect(WikiTitle.normalize("istanbul", language: "tr") == "\u{130}stanbul")
        #expect(WikiTitle.normalize("ılgın", language: "tr") == "Ilgın")
        #expect(WikiTitle.normalize("istanbul", language: "en") == "Istanbul")
        #expect(WikiTitle.fromURL("https://tr.wikipedia.org/wiki/ibibik")! == ("tr", "\u{130}bibik"))
        let directory = try TemporaryDirectory()
        let dump = try directory.write("trwiki.ndjson", WikiHarness.line(
            "\u{130}stanbul", WikiHarness.parsoid("\u{130}stanbul, Türkiye'nin en kalabalık şehri ve ekonomik merkezidir."),
            ["in_language": ["identifier": "tr"]]) + "\n")
        var wants = WikiWants(language: "tr")
        wants.want(title: "istanbul", by: .destination("istanbul"))
        let (articles, _, _) = try run([dump], wants: wants, in: directory)
        #expect(articles.keys.sorted() == ["\u{130}stanbul"])
    }

    @Test func wikipediaURLsGiveLanguageAndTitle() {
        #expect(WikiTitle.fromURL("http://en.wikipedia.org/wiki/Great_tit")! == ("en", "Great tit"))
        #expect(WikiTitle.fromURL("https://fr.m.wikipedia.org/wiki/M%C3%A9sange_charbonni%C3%A8re#Taxonomie")! == ("fr", "Mésange charbonnière"))
        #expect(WikiTitle.fromURL("https://www.inaturalist.org/taxa/1") == nil)
        // Chinese Wikipedia's variant links name the same article.
        #expect(WikiTitle.fromURL("https://zh.wikipedia.org/zh-hans/%E5%A4%A7%E5%B1%B1%E9%9B%80")! == ("zh", "大山雀"))
        #expect(WikiTitle.fromURL("https://zh.wikipedia.org/zh-tw/大山雀")! == ("zh", "大山雀"))
        #expect(WikiTitle.fromURL("https://en.wikipedia.org/zh-hans/Great_tit") == nil)
        // The script's own address names the article in its query (it was not wanted at all).
        #expect(WikiTitle.fromURL("https://en.wikipedia.org/w/index.php?title=Great_tit&oldid=1234#Taxonomy")! == ("en", "Great tit"))
        #expect(WikiTitle.fromURL("https://en.wikipedia.org/w/index.php?oldid=1234&title=Great+tit")! == ("en", "Great tit"))
        #expect(WikiTitle.fromURL("https://de.wikipedia.org/w/index.php?title=C%2B%2B")! == ("de", "C++"))
        #expect(WikiTitle.fromURL("https://en.wikipedia.org/w/index.php?curid=1234") == nil)
    }

    /// The article's url is the credit link the app opens: a `javascript:` URL, a relative
    /// `/wiki/…` or a protocol-relative one reached the bundle as stated.
    @Test func anArticleURLThatIsNotAnHTTPSAddressIsBuiltFromItsTitleWithAFinding() throws {
        let directory = try TemporaryDirectory()
        let html = WikiHarness.parsoid()
        let stated = [
            "Epsilon": "javascript:alert(1)", "Gamma": "//en.wikipedia.org/wiki/Gamma", "Zeta": "/wiki/Zeta",
            "Eta": "http://en.wikipedia.org/wiki/Eta", "Theta": "https://en.wikipedia.org/wiki/Theta",
            "Iota": "https://en.wikipedia.org/wiki/Io ta", "Kappa": "data:text/html,<b>x</b>",
            // Another site: the app would open it as the article's credit.
            "Lambda": "https://evil.example/wiki/Lambda", "Mu": "https://de.wikipedia.org/wiki/Mu",
        ]
        // Of the English Wikipedia by what the lines say of themselves, whatever their url.
        let own: [String: Any] = ["in_language": ["identifier": "en"], "is_part_of": ["identifier": "enwiki"]]
        let dump = try directory.write(
            "dump.ndjson", stated.keys.sorted().map { WikiHarness.line($0, html, own.merging(["url": stated[$0]!]) { $1 }) }.joined(separator: "\n") + "\n")
        let output = try WikiHarness.run([dump], wants: WikiHarness.wants(Array(stated.keys)), in: directory)
        let urls = output.articles.mapValues { $0["url"] as? String }
        #expect(urls == [
            "Epsilon": "https://en.wikipedia.org/wiki/Epsilon", "Gamma": "https://en.wikipedia.org/wiki/Gamma",
            "Zeta": "https://en.wikipedia.org/wiki/Zeta", "Eta": "https://en.wikipedia.org/wiki/Eta",
            "Theta": "https://en.wikipedia.org/wiki/Theta", "Iota": "https://en.wikipedia.org/wiki/Iota",
            "Kappa": "https://en.wikipedia.org/wiki/Kappa", "Lambda": "https://en.wikipedia.org/wiki/Lambda",
            "Mu": "https://en.wikipedia.org/wiki/Mu",
        ])
        let findings = output.rejects.filter { $0["field"] as? String == "url" }
        #expect(findings.map { $0["kind"] as? String } == Array(repeating: "salvaged", count: 6))
        // Epsilon, Iota, Kappa, Lambda, Mu, Zeta.
        #expect(findings.map { $0["line"] as? Int } == [1, 4, 5, 6, 7, 9], "\(findings)")
        #expect(findings.first?["reason"] as? String
                == "url \"javascript:alert(1)\" is not an https address on en.wikipedia.org: the article's address is built from its title")
    }

    /// Two pages claim one alias: the loser is not written, and the summary's count of articles
    /// (the stage's last line on stderr) said 2 where the file held 1.
    @Test func theSummaryCountsTheArticlesWrittenNotALosingClaimant() throws {
        let directory = try TemporaryDirectory()
        let html = WikiHarness.parsoid()
        let dump = try directory.write("dump.ndjson", [
            WikiHarness.line("Wolf", html, ["identifier": 1, "version": ["identifier": 10], "redirects": [["name": "Canis lupus"]]]),
            WikiHarness.line("Tigress", html, ["identifier": 2, "version": ["identifier": 20], "redirects": [["name": "Canis lupus"]]]),
            // Wanted and found, with no text left: not written, not counted.
            WikiHarness.line("Empty", "<p></p>", ["identifier": 3, "version": ["identifier": 30]]),
        ].joined(separator: "\n") + "\n")
        let options = WikiStage.Options(
            inputs: [dump], wants: WikiHarness.wants(["Canis lupus", "Empty"]), output: directory.file("articles.jsonl"),
            report: directory.file("report.json"), rejects: directory.file("rejects.jsonl"))
        let summary = try WikiStage(options: options).run()
        let written = try jsonLines(directory.file("articles.jsonl"))
        #expect(written.count == 1)
        #expect(summary.articles == written.count)
    }

    /// Thai has no sentence ends: its summary is cut at a character, which was a scalar, and a
    /// syllable's vowel and tone marks were cut off its consonant.
    @Test func aSummaryCutInTextWithoutSpacesKeepsTheLastCharacterWhole() throws {
        let directory = try TemporaryDirectory()
        let thai = String(repeating: "ก", count: 299) + "ที่" + String(repeating: "ก", count: 50)
        let dump = try directory.write("dump.ndjson", WikiHarness.line("Thai", WikiHarness.parsoid(thai)) + "\n")
        let output = try WikiHarness.run([dump], wants: WikiHarness.wants(["Thai"]), in: directory)
        let summary = try #require(output.articles["Thai"]?["summary"] as? String)
        #expect(summary == String(repeating: "ก", count: 299) + "ที่…", "\(summary.unicodeScalars.suffix(6).map { String($0.value, radix: 16) })")
    }

    /// A citation label in plain brackets was removed bare: `north . It`, `south ,`, and a double
    /// space where two stood (`mountains  of`), in the blurb and its plain-text summary.
    @Test func aPlainCitationLabelIsRemovedWithTheSpaceBeforeIt() throws {
        let directory = try TemporaryDirectory()
        let text = "The bird is common in the north [12]. It is rare in the south [citation needed], where it breeds only in the mountains [a][b] of the region."
        let dump = try directory.write("dump.ndjson", WikiHarness.line("Bird", WikiHarness.parsoid(text)) + "\n")
        let output = try WikiHarness.run([dump], wants: WikiHarness.wants(["Bird"]), in: directory)
        let clean = "The bird is common in the north. It is rare in the south, where it breeds only in the mountains of the region."
        #expect(output.articles["Bird"]?["summary"] as? String == clean)
        #expect(output.articles["Bird"]?["html"] as? String == "<p>\(clean)</p>")
    }

    /// Right-to-left wikis write `&rlm;` after Latin text; between a removed transcription and the
    /// separator or bracket beside it, it stopped the tidying: `(\u{200F}، Panthera` and `Lion\u{200F} \u{200F})`.
    @Test func aDirectionMarkBesideARemovedTranscriptionIsTidiedAsASpaceWouldBe() throws {
        let directory = try TemporaryDirectory()
        let lead = "<b>النمر</b> (<span class=\"IPA\">[nimr]</span>&rlm;، <i>Panthera tigris</i>) هو حيوان مفترس كبير من فصيلة السنوريات يعيش في آسيا."
            + "</p><p id=\"mwAw\"><b>الأسد</b> (بالإنجليزية: Lion&rlm; <span class=\"IPA\">[ˈlaɪən]</span>&rlm;) هو حيوان مفترس كبير يعيش في أفريقيا."
        let dump = try directory.write("dump.ndjson", WikiHarness.line("Tiger", WikiHarness.parsoid(lead)) + "\n")
        let output = try WikiHarness.run([dump], wants: WikiHarness.wants(["Tiger"]), in: directory)
        let html = try #require(output.articles["Tiger"]?["html"] as? String)
        #expect(html.contains("<b>النمر</b> (<i>Panthera tigris</i>) هو"), "\(html.unicodeScalars.map { $0.value < 128 ? String($0) : String(format: "<%04X>", $0.value) }.joined())")
        #expect(html.contains("(بالإنجليزية: Lion) هو"), "\(html)")
    }

    /// A dump of millions of bad lines held every finding in memory (a 500 KB gzip took 24 GB).
    /// Past what memory holds they are spilled as sorted runs and merged (and the runs merged
    /// once there are too many): the rejects file is the same bytes either way, and the input
    /// most lines were rejected from is still named.
    @Test func findingsSpilledPastWhatMemoryHoldsGiveTheSameRejectsFile() throws {
        var lines: [String] = []
        for index in 0..<150 {
            switch index % 5 {
            case 0: lines.append(WikiHarness.line("Bird \(index)", WikiHarness.parsoid(), ["url": "javascript:x\(index)"]))  // salvaged
            case 1: lines.append("{\"name\": \"broken \(index)\"")  // rejected: not JSON
            case 2: lines.append(WikiHarness.line("Page \(index)", WikiHarness.parsoid()))
            case 3: lines.append("[\(index)]")  // rejected: not an article
            default: lines.append(WikiHarness.line("Nothing \(index)", "<p></p>"))  // no text
            }
        }
        var outputs: [(rejects: String, report: String, articles: String, error: String?)] = []
        for held in [Int.max, 3, 1] {
            let directory = try TemporaryDirectory()
            let first = try directory.write("a.ndjson", lines.prefix(100).joined(separator: "\n") + "\n")
            let second = try directory.write("b.ndjson", lines.dropFirst(100).joined(separator: "\n") + "\n")
            let titles = (0..<150).map { ["Bird \($0)", "Page \($0)", "Nothing \($0)"] }.joined().map { $0 }
            var options = WikiStage.Options(
                inputs: [first, second], wants: WikiHarness.wants(Array(titles)), output: directory.file("articles.jsonl"),
                report: directory.file("report.json"), rejects: directory.file("rejects.jsonl"))
            options.findingsHeld = held
            options.maxRejectRate = 0.3
            var failure: String? = nil
            do { try WikiStage(options: options).run() } catch let error as FieldpackError {
                failure = error.description.replacingOccurrences(of: directory.path, with: "")
            }
            outputs.append((
                try text(directory.file("rejects.jsonl")).replacingOccurrences(of: directory.path, with: ""),
                (try? text(directory.file("report.json"))) ?? "", (try? text(directory.file("articles.jsonl"))) ?? "", failure))
        }
        #expect(outputs[0].rejects.split(separator: "\n").count > 100)
        #expect(outputs[0].error?.hasPrefix("/a.ndjson: error: ") == true, "\(outputs[0].error ?? "")")
        for spilled in outputs.dropFirst() {
            #expect(spilled.rejects == outputs[0].rejects)
            #expect(spilled.error == outputs[0].error)
        }
    }
}
