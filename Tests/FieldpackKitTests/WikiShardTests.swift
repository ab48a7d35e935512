@testable import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// The sharded wiki stage (`--shard K/N`, issue 12): whatever the shard count, the merged parts
/// are the bytes one whole run writes, and a merge refuses parts that do not belong together.
@Suite struct WikiShardTests {
    private typealias H = WikiHarness

    private static func stub(to target: String) -> String {
        "<html><body><section data-mw-section-id=\"0\"><link rel=\"mw:PageProp/redirect\" href=\"./\(target)\"/></section></body></html>"
    }
    private static let disambiguation = "<html><head><meta property=\"mw:PageProp/disambiguation\"/></head><body><p>Lixus may refer to:</p></body></html>"

    /// A sentence that makes each article's blurb its own.
    private static func sentence(_ title: String) -> String { "The \(title) is a small bird that lives in woods, parks and gardens." }

    /// The whole run's `articles.jsonl` and report, and the merge of `count` shards' parts.
    private func outputs(_ inputs: [String], wants: WikiWants, count: Int, in directory: TemporaryDirectory) throws
        -> (whole: (articles: String, report: String), merged: (articles: String, report: String))
    {
        let whole = try TemporaryDirectory()
        try H.run(inputs, wants: wants, in: whole)
        var folders: [String] = []
        // Shards in reverse order: the order they run in does not matter.
        for index in (0..<count).reversed() {
            let shard = try Shard(index: index, count: count)
            let folder = directory.file("shard-\(index)-of-\(count)")
            try FileSystem.makeDirectories(folder)
            var options = WikiStage.Options(
                inputs: inputs, wants: wants, output: folder + "/articles.jsonl", report: folder + "/wiki-report.json",
                rejects: folder + "/rejects.jsonl")
            options.maxRejectRate = 1
            options.shard = shard
            options.part = WikiPart.Identity(
                shard: shard, origin: WikiPart.origin(inputs: inputs, wants: wants, rules: options.rules, maxRejectRate: 1, shards: count))
            try WikiStage(options: options).run()
            folders.append(folder)
        }
        let merged = (directory.file("merged-articles.jsonl"), directory.file("merged-report.json"))
        try WikiMerge(parts: folders).write(articles: merged.0, report: merged.1)
        return ((try text(whole.file("articles.jsonl")), try text(whole.file("report.json"))), (try text(merged.0), try text(merged.1)))
    }

    private func expectSame(_ inputs: [String], wants: WikiWants, count: Int, in directory: TemporaryDirectory) throws -> [String: Any] {
        let (whole, merged) = try outputs(inputs, wants: wants, count: count, in: directory)
        #expect(!whole.articles.isEmpty)
        #expect(merged.articles == whole.articles, "articles differ for \(count) shards")
        #expect(merged.report == whole.report, "reports differ for \(count) shards:\n\(merged.report)\nwhole:\n\(whole.report)")
        return try JSONSerialization.jsonObject(with: Data(whole.report.utf8)) as! [String: Any]
    }

    /// A page found through an alias its copy lists, or through its Wikidata item, is read
    /// again by its title: the newest copy wins, whichever copy named the alias or the item (an
    /// Enterprise base dump refreshed with REST pages shipped the base's old revision, the newer
    /// copies never read), and the item's requesters keep the page when the newest copy does
    /// not name the item. The same bytes whole and sharded; the re-read copy counts once.
    @Test(arguments: [1, 2, 3])
    func aPageFoundByAnAliasOrItsItemShipsItsNewestCopy(shards: Int) throws {
        let directory = try TemporaryDirectory()
        let inputs = [
            try directory.write("a-base.ndjson", H.line("Dog", H.parsoid(Self.sentence("old dog")), [
                "version": ["identifier": 100], "main_entity": ["identifier": "Q144"], "redirects": [["name": "Domestic dog"]],
            ]) + "\n"),
            try directory.write("b-update.ndjson", H.line("Dog", H.parsoid(Self.sentence("newer dog")), ["version": ["identifier": 200]]) + "\n"),
            try directory.write("c-page.html", H.parsoid(Self.sentence("newest dog"), revision: 300, isVersionOf: "//en.wikipedia.org/wiki/Dog")),
        ]
        var wants = WikiWants(language: "en")
        wants.want(title: "Domestic dog", by: .destination("d1"))
        wants.want(wikidata: "Q144", by: .destination("d2"))
        let report = try expectSame(inputs, wants: wants, count: shards, in: directory)
        let whole = try TemporaryDirectory()
        let output = try H.run(inputs, wants: wants, in: whole)
        #expect(output.titles == ["Dog"])
        #expect(output.articles["Dog"]?["revision"] as? Int == 300)
        #expect(output.articles["Dog"]?["destinations"] as? [String] == ["d1", "d2"])
        #expect(report["missing"] as? [String] == [])
        #expect(report["duplicate_pages"] as? Int == 2)
    }

    /// A shard's later passes want more than the merge's (it follows every stub): it must not
    /// skip, as read before, a copy it read for a title the merge does not follow at that
    /// pass. Stub P → X is stale (P has a newer article); A → B → Y reaches X through the alias
    /// Y that X lists: X ships for A, whole and sharded alike.
    @Test(arguments: [1, 2, 3])
    func aCopyAShardReadForAStaleStubIsStillFoundThroughAnAlias(shards: Int) throws {
        let directory = try TemporaryDirectory()
        let inputs = [
            try directory.write("a.ndjson", [
                H.line("P", Self.stub(to: "X"), ["version": ["identifier": 1]]),
                H.line("A", Self.stub(to: "B"), ["version": ["identifier": 1]]),
            ].joined(separator: "\n") + "\n"),
            try directory.write("b.ndjson", [
                H.line("P", H.parsoid(Self.sentence("p")), ["version": ["identifier": 5]]),
                H.line("B", Self.stub(to: "Y"), ["version": ["identifier": 1]]),
                H.line("X", H.parsoid(Self.sentence("x")), ["version": ["identifier": 1], "redirects": [["name": "Y"]]]),
            ].joined(separator: "\n") + "\n"),
        ]
        let report = try expectSame(inputs, wants: H.wants(["A", "P"]), count: shards, in: directory)
        #expect(report["missing"] as? [String] == [])
        let whole = try TemporaryDirectory()
        #expect(try H.run(inputs, wants: H.wants(["A", "P"]), in: whole).titles == ["P", "X"])
    }

    /// A Wikidata item two pages name goes to one of them, the first with text by title,
    /// when the dumps are read again for their other copies: both shipped, with the item's
    /// requesters, and the destination took the last.
    /// A dump of another language's Wikipedia (`wikipedia_language` left at `en` for a German
    /// dump) gave a guide without articles, published with exit 0 and every line skipped
    /// without a word. Whole or sharded, the run fails saying which wikis the lines are of; with
    /// one line of the pipeline's wiki, wanted or not, it goes on as before.
    @Test(arguments: [1, 3])
    func aDumpOfAnotherWikiAloneIsAnErrorNotAGuideWithoutArticles(shards: Int) throws {
        let directory = try TemporaryDirectory()
        let german = ["Kohlmeise", "Blaumeise", "Amsel"].map { H.line($0, H.parsoid("Die \($0) ist eine Vogelart aus der Familie der Meisen."), ["in_language": ["identifier": "de"]]) }
        let french = H.line("Mésange", H.parsoid("La mésange est un petit passereau."), ["is_part_of": ["identifier": "frwiki"]])
        let dump = try directory.write("dewiki.ndjson", (german + [french]).joined(separator: "\n") + "\n")
        let expected = "no line of the Wikipedia inputs is of en Wikipedia, the pipeline's wikipedia_language, and 1 article is wanted: "
            + "4 lines are of other wikis (de: 3, frwiki: 1); give the dump of that language's Wikipedia, or set wikipedia_language to the dump's"
        let wants = H.wants(["Great tit"])
        let whole = try TemporaryDirectory()
        let error = try #require(throws: FieldpackError.self) { try H.run([dump], wants: wants, in: whole) }
        #expect(error.path == dump && error.message == expected, "\(error)")
        #expect(!FileSystem.exists(whole.file("articles.jsonl")))
        let sharded = try #require(throws: FieldpackError.self) { _ = try outputs([dump], wants: wants, count: shards, in: try TemporaryDirectory()) }
        #expect(sharded.message == expected, "\(sharded)")
        // One line of the wiki beside them: no article found is the report's `missing`, as before.
        let english = try directory.write("enwiki.ndjson", H.line("Beetle", H.parsoid(Self.sentence("beetle"))) + "\n")
        let (found, merged) = try outputs([dump, english], wants: wants, count: shards, in: try TemporaryDirectory())
        #expect(found.articles.isEmpty && merged.report == found.report)
        let report = try JSONSerialization.jsonObject(with: Data(found.report.utf8)) as! [String: Any]
        #expect(report["lines_of_the_wiki"] as? Int == 1 && report["lines_of_other_wikis"] as? [String: Int] == ["de": 3, "frwiki": 1], "\(report)")
    }

    @Test(arguments: [1, 2])
    func anItemTwoPagesNameShipsOneOfThemWhenTheirCopiesAreReadAgain(shards: Int) throws {
        let directory = try TemporaryDirectory()
        let inputs = [
            try directory.write("a.ndjson", H.line("Lixus", H.parsoid(Self.sentence("site")), ["main_entity": ["identifier": "Q1"]]) + "\n"),
            try directory.write("b.ndjson", H.line("Lixus (genus)", H.parsoid(Self.sentence("genus")), ["main_entity": ["identifier": "Q1"]]) + "\n"),
        ]
        _ = try expectSame(inputs, wants: H.wants([], wikidata: ["Q1"]), count: shards, in: directory)
        let whole = try TemporaryDirectory()
        #expect(try H.run(inputs, wants: H.wants([], wikidata: ["Q1"]), in: whole).titles == ["Lixus"])
    }

    @Test(arguments: [1, 4, 16])
    func severalDumpsMergeToTheWholeRunsBytes(shards: Int) throws {
        let directory = try TemporaryDirectory()
        var inputs: [String] = []
        // The same title in two dumps (the higher revision wins), a redirect in an article's
        // redirects field, a disambiguation page, a line that is not JSON, an article wanted by
        // its Wikidata item, and a title nobody has.
        inputs.append(try directory.write("a.ndjson", [
            H.line("Great tit", H.parsoid(Self.sentence("great tit")), ["version": ["identifier": 5]]),
            H.line("Blue tit", H.parsoid(Self.sentence("blue tit")), ["main_entity": ["identifier": "Q25485"]]),
            "{not json",
        ].joined(separator: "\n") + "\n"))
        inputs.append(try directory.write("b.ndjson", [
            H.line("Great tit", H.parsoid(Self.sentence("newer great tit")), ["version": ["identifier": 9]]),
            H.line("Sonian Forest", H.parsoid(Self.sentence("forest")), ["redirects": [["name": "Forêt de Soignes"]]]),
        ].joined(separator: "\n") + "\n"))
        inputs.append(try directory.write("c.ndjson", H.line("Lixus", Self.disambiguation) + "\n"))
        inputs.append(try directory.write("d.html", H.parsoid(Self.sentence("robin"), title: "European robin")))
        inputs.append(try directory.write("README", "not a dump\n"))
        let wants = H.wants(["Great tit", "Forêt de Soignes", "Lixus", "European robin", "Nowhere bird"], wikidata: ["Q25485"])
        let report = try expectSame(inputs, wants: wants, count: shards, in: directory)
        #expect(report["duplicate_pages"] as? Int == 1)
        #expect(report["missing"] as? [String] == ["Nowhere bird"])
        #expect(report["lines_rejected"] as? Int == 1)
    }

    @Test(arguments: [1, 4, 16])
    func anArchiveSplitsByMember(shards: Int) throws {
        let directory = try TemporaryDirectory()
        let names = ["Great tit", "Blue tit", "Coal tit", "Marsh tit", "Willow tit", "Crested tit", "Long-tailed tit"]
        var files: [String] = []
        for (index, name) in names.enumerated() {
            // Each member also holds a copy of the first article, older or newer.
            let lines = [
                H.line(name, H.parsoid(Self.sentence(name)), ["version": ["identifier": 100 + index]]),
                H.line("Great tit", H.parsoid(Self.sentence("great tit \(index)")), ["version": ["identifier": index * 7 % 5]]),
            ]
            files.append("part-\(index).ndjson")
            _ = try directory.write("members/part-\(index).ndjson", lines.joined(separator: "\n") + "\n")
        }
        _ = try directory.write("members/LICENSE", "CC BY-SA\n")
        let archive = try H.tarGz("dump.json.tar.gz", of: "members", files: files + ["LICENSE"], in: directory)
        let report = try expectSame([archive], wants: H.wants(names), count: shards, in: directory)
        #expect(report["found"] as? Int == names.count)
        #expect(report["files_skipped"] as? Int == 1)
    }

    /// A `.tar.gz` cut inside a member's data is one finding however many shards read it: a
    /// shard that passed over that member met the cut at the next header, and told it as well.
    @Test(arguments: [2, 3, 4])
    func anArchiveCutInsideAMemberIsOneFindingInAnyNumberOfShards(shards: Int) throws {
        let directory = try TemporaryDirectory()
        var random = SplitMix(seed: 7)
        var files: [String] = []
        for index in 0..<5 {
            // Text that hardly compresses, so that a cut of the compressed file falls in proportion.
            let lines = (0..<40).map { line in
                H.line("Bird \(index)-\(line)", H.parsoid((0..<60).map { _ in String(random.next() % 1_000_000, radix: 36) }.joined(separator: " ") + "."))
            }
            files.append("part-\(index).ndjson")
            _ = try directory.write("members/part-\(index).ndjson", lines.joined(separator: "\n") + "\n")
        }
        let archive = try H.tarGz("dump.json.tar.gz", of: "members", files: files, in: directory)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
        try bytes.prefix(bytes.count * 9 / 10).write(to: URL(fileURLWithPath: archive))
        let (whole, merged) = try outputs([archive], wants: H.wants(["Bird 0-1", "Bird 4-39"]), count: shards, in: directory)
        let report = try JSONSerialization.jsonObject(with: Data(whole.report.utf8)) as! [String: Any]
        #expect(report["lines_rejected"] as? Int == 1, "\(whole.report)")
        #expect(merged.report == whole.report, "\(merged.report)")
        #expect(merged.articles == whole.articles)
    }

    /// A `.ndjson.gz` cut inside a line that starts in one shard's block of inflated bytes and is
    /// cut in the next: one finding, as in a whole run. The shard owning the cut's end told it a
    /// second time, at the line after, so the merged report counted one line more.
    @Test(arguments: [2, 3])
    func aGzipCutInsideALineAcrossTwoShardsBlocksIsOneFinding(shards: Int) throws {
        let directory = try TemporaryDirectory()
        var random = SplitMix(seed: 11)
        let lines = (0..<24).map { index in
            H.line("Bird \(index)", H.parsoid((0..<40_000).map { _ in String(random.next() % 1_000_000, radix: 36) }.joined(separator: " ") + "."))
        }
        let text = lines.joined(separator: "\n") + "\n"
        let block = ByteRangeLines.blockBytes
        // The line across the first block's end, and a cut inside it, past that end.
        var start = 0
        var crossing = 0..<0
        for line in lines {
            let end = start + line.utf8.count + 1
            if start < block && end > block { crossing = start..<end }
            start = end
        }
        try #require(crossing.upperBound - block > 64 << 10, "the line across the block's end is too short after it")
        let path = try directory.writeGzip("dump.ndjson.gz", text)
        let compressed = try Data(contentsOf: URL(fileURLWithPath: path))
        // The shortest prefix of the gzip file that inflates past the block's end by 16 KiB.
        let prefix = directory.file("prefix.gz")
        func inflated(_ count: Int) throws -> Int {
            try compressed.prefix(count).write(to: URL(fileURLWithPath: prefix))
            let counted = try run("/bin/sh", ["-c", "gzip -dc '\(prefix)' 2>/dev/null | wc -c"]).stdout
            return Int(counted.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }
        var (low, high) = (0, compressed.count)
        while low < high {
            let middle = (low + high) / 2
            if try inflated(middle) < block + (16 << 10) { low = middle + 1 } else { high = middle }
        }
        let reached = try inflated(low)
        try #require(reached > block && reached < crossing.upperBound - 1, "\(reached) against \(crossing)")
        try compressed.prefix(low).write(to: URL(fileURLWithPath: path))
        try FileManager.default.removeItem(atPath: prefix)
        let wanted = H.wants((0..<24).map { "Bird \($0)" })
        let report = try expectSame([path], wants: wanted, count: shards, in: directory)
        #expect(report["lines_rejected"] as? Int == 1, "\(report)")
    }

    @Test(arguments: [1, 4, 16])
    func aLargeNDJSONFileSplitsByByteRange(shards: Int) throws {
        let directory = try TemporaryDirectory()
        var lines: [String] = []
        var wanted: [String] = []
        for index in 0..<600 {
            let title = "Bird \(index % 450)"  // 150 titles twice, far apart
            lines.append(H.line(title, H.parsoid(Self.sentence(title) + String(repeating: " Padding.", count: index % 37)), [
                "version": ["identifier": index],
            ]))
            if index % 3 == 0 { wanted.append(title) }
            if index % 101 == 0 { lines.append("") }  // blank lines belong to no one
        }
        let dump = try directory.write("big.ndjson", lines.joined(separator: "\n") + "\n")
        let report = try expectSame([dump], wants: H.wants(wanted), count: shards, in: directory)
        #expect(report["lines"] as? Int == 600)
    }

    @Test(arguments: [1, 4, 16])
    func aRedirectStubsTargetInAnotherShardIsFollowed(shards: Int) throws {
        let directory = try TemporaryDirectory()
        // "Parus major" is a stub to "Great tit", which nobody wanted: a whole run reads the dumps
        // again for it; so does the stub's shard, and the merge keeps what the whole run found.
        let inputs = [
            try directory.write("stubs.ndjson", H.line("Parus major", Self.stub(to: "Great_tit")) + "\n"),
            try directory.write("other.ndjson", H.line("Coal tit", H.parsoid(Self.sentence("coal tit"))) + "\n"),
            try directory.write("articles.ndjson", H.line("Great tit", H.parsoid(Self.sentence("great tit"))) + "\n"),
        ]
        let report = try expectSame(inputs, wants: H.wants(["Parus major", "Coal tit"]), count: shards, in: directory)
        #expect(report["passes"] as? Int == 2)
        #expect(report["redirects_followed"] as? [String: String] == ["Parus major": "Great tit"])
    }

    /// A stub's target in two dumps: a whole run counts the older copy as a duplicate page and
    /// cleans both; a shard's later pass kept only the newest, so the merged report (and the
    /// report.html and manifest made from it) said one duplicate fewer.
    @Test(arguments: [1, 2, 4])
    func aStubsTargetWithTwoCopiesCountsBothAsAWholeRunDoes(shards: Int) throws {
        let directory = try TemporaryDirectory()
        let inputs = [
            try directory.write("stubs.ndjson", H.line("Parus major", Self.stub(to: "Great_tit")) + "\n"),
            try directory.write("articles.ndjson", H.line("Great tit", H.parsoid(Self.sentence("great tit")), ["version": ["identifier": 5]]) + "\n"),
            try directory.write("newer.ndjson", H.line("Great tit", H.parsoid(Self.sentence("great tit, newer")), ["version": ["identifier": 6]]) + "\n"),
            try directory.write("other.ndjson", H.line("Coal tit", H.parsoid(Self.sentence("coal tit"))) + "\n"),
        ]
        let report = try expectSame(inputs, wants: H.wants(["Parus major", "Coal tit"]), count: shards, in: directory)
        #expect(report["passes"] as? Int == 2)
        #expect(report["duplicate_pages"] as? Int == 1)
    }

    /// A saved page reached through a redirect, wanted by that title and by a stub in another
    /// dump that points to it (followed in a later pass): the same articles and report in any
    /// number of shards.
    @Test(arguments: [2, 3])
    func aSavedPageReachedThroughARedirectIsTheSameInAnyNumberOfShards(count: Int) throws {
        let directory = try TemporaryDirectory()
        let saved = """
            <!DOCTYPE html><html lang="en"><head><meta charset="UTF-8"><title>Great tit - Wikipedia</title>
            <script>RLCONF={"wgPageName":"Great_tit","wgArticleId":381722,"wgRedirectedFrom":"Parus_major"};</script>
            <link rel="canonical" href="https://en.wikipedia.org/wiki/Great_tit"></head>
            <body><div id="mw-content-text"><div class="mw-content-ltr mw-parser-output"><p>\(Self.sentence("great tit"))</p></div></div></body></html>
            """
        let inputs = [
            try directory.write("0-stub.ndjson", H.line("Stub A", Self.stub(to: "Parus_major")) + "\n"),
            try directory.write("1-saved/Great_tit.html", saved),
            try directory.write("2-other.ndjson", H.line("Coal tit", H.parsoid(Self.sentence("coal tit"))) + "\n"),
        ]
        let report = try expectSame(inputs, wants: H.wants(["Stub A", "Parus major", "Coal tit"]), count: count, in: directory)
        #expect(report["redirects_followed"] as? [String: String] == ["Parus major": "Great tit", "Stub A": "Parus major"])
        // Read again for its title in the later pass, it is the copy already kept, not a duplicate.
        #expect(report["duplicate_pages"] as? Int == 0, "\(report)")
    }

    /// One copy read by two shards' later passes for different stubs (one for its title, one
    /// for an alias in its redirects): the merge kept the first shard's reason only and then
    /// skipped the pass a whole run reads it again in, one duplicate page fewer.
    @Test func aCopyTwoShardsReadForDifferentStubsIsWantedAsBoth() throws {
        let directory = try TemporaryDirectory()
        // With 2 shards and 4 files: shard 0 reads files 0 and 2, shard 1 files 1 and 3.
        let inputs = [
            try directory.write("0-stub-to-t.ndjson", H.line("Stub A", Self.stub(to: "Great_tit")) + "\n"),
            try directory.write("1-t.ndjson", H.line("Great tit", H.parsoid(Self.sentence("great tit")), ["redirects": [["name": "Parus major"]]]) + "\n"),
            try directory.write("2-other.ndjson", H.line("Coal tit", H.parsoid(Self.sentence("coal tit"))) + "\n"),
            try directory.write("3-stub-to-u.ndjson", H.line("Stub B", Self.stub(to: "Parus_major")) + "\n"),
        ]
        let report = try expectSame(inputs, wants: H.wants(["Great tit", "Stub A", "Stub B", "Coal tit"]), count: 2, in: directory)
        #expect(report["passes"] as? Int == 2)
    }

    /// A page with no text left by the rules is kept as its newest copy and written by no one:
    /// the same articles, report and findings whatever the shard count, also when a redirect
    /// stub in another dump points to it (it counts as found: no later pass looks for it).
    @Test(arguments: [1, 3])
    func aPageWithNoTextIsTheSameFindingAndNoArticleInAnyNumberOfShards(shards: Int) throws {
        let directory = try TemporaryDirectory()
        let listOnly = H.parsoid("The genus contains the following species:")
            .replacingOccurrences(of: "</section></body>", with: "<ul><li>Lixus a</li><li>Lixus b</li></ul></section></body>")
        let inputs = [
            try directory.write("stubs.ndjson", H.line("Lixus weevil", Self.stub(to: "Lixus")) + "\n"),
            try directory.write("genus.ndjson", H.line("Lixus", listOnly, ["redirects": [["name": "Lixus beetle"]]]) + "\n"),
            try directory.write("other.ndjson", H.line("Coal tit", H.parsoid(Self.sentence("coal tit"))) + "\n"),
        ]
        let wants = H.wants(["Lixus", "Lixus weevil", "Lixus beetle", "Coal tit"])
        let report = try expectSame(inputs, wants: wants, count: shards, in: directory)
        #expect(report["missing"] as? [String] == [])
        #expect(report["passes"] as? Int == 1)
        // The parts' findings hold the whole run's one; a shard whose stub points to the page
        // reads it again in its later pass and repeats it (as for a disambiguation page): the
        // parts' rejects files are not published, and the merged outputs are the same.
        var findings = Set<String>()
        for index in 0..<shards {
            findings.formUnion(try lines(directory.file("shard-\(index)-of-\(shards)/rejects.jsonl")))
        }
        #expect(findings.count == 1 && findings.first!.contains(#"this copy of \"Lixus\" has no text left"#), "\(findings)")
    }

    /// Two pages of one Wikidata item, the first by title with no text left by the rules (a
    /// list page): a destination wanting the item gets the page with text, not nothing, in a
    /// whole run and in any number of shards.
    @Test(arguments: [1, 3])
    func aWantedWikidataItemGoesToItsPageWithTextOverOneWithNone(shards: Int) throws {
        let directory = try TemporaryDirectory()
        let listOnly = H.parsoid("The genus contains the following species:")
            .replacingOccurrences(of: "</section></body>", with: "<ul><li>Lixus a</li><li>Lixus b</li></ul></section></body>")
        let inputs = [
            try directory.write("a.ndjson", H.line("List of Lixus species", listOnly, ["main_entity": ["identifier": "Q42"]]) + "\n"),
            try directory.write("b.ndjson", H.line("Lixus", H.parsoid(Self.sentence("lixus")), ["main_entity": ["identifier": "Q42"]]) + "\n"),
        ]
        let wants = H.wants([], wikidata: ["Q42"])
        let report = try expectSame(inputs, wants: wants, count: shards, in: directory)
        #expect(report["missing"] as? [String] == [])
        let whole = try H.run(inputs, wants: wants, in: try TemporaryDirectory())
        #expect(whole.titles == ["Lixus"])
    }

    /// A page turned into a disambiguation page or a redirect since an older dump: its newer
    /// copy wins over the older article copy, whichever dump comes first, in a whole run and in
    /// any number of shards (the stale article shipped, and the redirect's requesters were
    /// credited to both it and the redirect's target).
    @Test(arguments: [1, 3], [false, true])
    func aNewerRedirectOrDisambiguationCopyReplacesAnOlderArticle(shards: Int, newFirst: Bool) throws {
        let directory = try TemporaryDirectory()
        let old = [
            H.line("Lixus", H.parsoid(Self.sentence("lixus weevil")), ["version": ["identifier": 10]]),
            H.line("Foo bird", H.parsoid(Self.sentence("foo bird")), ["version": ["identifier": 10]]),
            H.line("Still bird", H.parsoid(Self.sentence("newer still bird")), ["version": ["identifier": 30]]),
        ].joined(separator: "\n") + "\n"
        let new = [
            H.line("Lixus", Self.disambiguation, ["version": ["identifier": 20]]),
            H.line("Foo bird", Self.stub(to: "Bar_bird"), ["version": ["identifier": 20]]),
            H.line("Bar bird", H.parsoid(Self.sentence("bar bird")), ["version": ["identifier": 20]]),
            // A stub older than the article copy it meets is the older copy: the article stays.
            H.line("Still bird", Self.stub(to: "Bar_bird"), ["version": ["identifier": 25]]),
        ].joined(separator: "\n") + "\n"
        let inputs = [
            try directory.write(newFirst ? "a-new.ndjson" : "b-new.ndjson", new),
            try directory.write(newFirst ? "b-old.ndjson" : "a-old.ndjson", old),
        ]
        let wants = H.wants(["Lixus", "Foo bird", "Still bird"])
        let report = try expectSame(inputs, wants: wants, count: shards, in: directory)
        #expect(report["missing"] as? [String] == [])
        #expect(report["duplicate_pages"] as? Int == 2)  // the two stale article copies
        let whole = try H.run(inputs, wants: wants, in: try TemporaryDirectory())
        #expect(whole.titles == ["Bar bird", "Still bird"])
        #expect((whole.articles["Still bird"]?["summary"] as? String)?.contains("newer still bird") == true)
    }

    /// A wanted page read on the first pass and dropped as older than its disambiguation copy
    /// is not looked for again through a stub pointing to it (the whole run read the dumps once
    /// more, counted the stale copy twice, and disagreed with its shards); and a stub older than
    /// an article of its own title is stale: its target is not followed and credited too.
    @Test(arguments: [1, 2, 3])
    func staleCopiesAreNeitherReadAgainNorFollowed(shards: Int) throws {
        let directory = try TemporaryDirectory()
        let inputs = [
            try directory.write("a.ndjson", [
                H.line("Alpha", Self.stub(to: "Tee"), ["version": ["identifier": 5]]),
                H.line("Tee", H.parsoid(Self.sentence("tee bird")), ["version": ["identifier": 1]]),
                H.line("Still bird", H.parsoid(Self.sentence("still bird")), ["version": ["identifier": 30]]),
            ].joined(separator: "\n") + "\n"),
            try directory.write("b.ndjson", [
                H.line("Tee", Self.disambiguation, ["version": ["identifier": 2]]),
                H.line("Still bird", Self.stub(to: "Bar_bird"), ["version": ["identifier": 25]]),
                H.line("Bar bird", H.parsoid(Self.sentence("bar bird")), ["version": ["identifier": 20]]),
            ].joined(separator: "\n") + "\n"),
        ]
        let wants = H.wants(["Alpha", "Tee", "Still bird"])
        let report = try expectSame(inputs, wants: wants, count: shards, in: directory)
        #expect(report["duplicate_pages"] as? Int == 1)
        #expect(report["passes"] as? Int == 1)
        #expect(report["disambiguation_pages_skipped"] as? [String] == ["Tee"])
        let whole = try H.run(inputs, wants: wants, in: try TemporaryDirectory())
        #expect(whole.titles == ["Still bird"])
    }

    /// A shard follows every stub: its own article of the alias may lose in the merge to
    /// another shard's newer copy (the shard kept the alias's article and left its stub's
    /// target unread, and the merge, which wanted it, shipped nothing).
    @Test(arguments: [1, 2, 3])
    func aShardFollowsAStubWhoseAliasArticleMayLoseInTheMerge(shards: Int) throws {
        let directory = try TemporaryDirectory()
        let inputs = [
            try directory.write("a.ndjson", [
                H.line("Alpha", Self.stub(to: "Tee"), ["version": ["identifier": 1]]),
                H.line("Alpha", H.parsoid(Self.sentence("alpha bird")), ["version": ["identifier": 2]]),
            ].joined(separator: "\n") + "\n"),
            try directory.write("b.ndjson", [
                H.line("Alpha", Self.disambiguation, ["version": ["identifier": 3]]),
                H.line("Tee", H.parsoid(Self.sentence("tee bird")), ["version": ["identifier": 1]]),
            ].joined(separator: "\n") + "\n"),
        ]
        let report = try expectSame(inputs, wants: H.wants(["Alpha"]), count: shards, in: directory)
        #expect(report["passes"] as? Int == 2)
    }

    /// What was asked for and not found, once: a stub leading to a disambiguation page is
    /// skipped (it was "missing"), a stub leading to a page in no dump is its alias's miss (its
    /// target was listed too), and `wanted` counts what was asked for, not the stubs' targets
    /// the later passes looked for.
    @Test(arguments: [1, 3])
    func theReportListsWhatWasAskedForAndNotFoundOnce(shards: Int) throws {
        let directory = try TemporaryDirectory()
        let inputs = [
            try directory.write("a.ndjson", [
                H.line("Lixus genus", Self.stub(to: "Lixus")), H.line("Gone bird", Self.stub(to: "Nowhere_bird")),
                H.line("Coal tit", H.parsoid(Self.sentence("coal tit"))),
            ].joined(separator: "\n") + "\n"),
            try directory.write("b.ndjson", H.line("Lixus", Self.disambiguation) + "\n"),
        ]
        let report = try expectSame(inputs, wants: H.wants(["Lixus genus", "Gone bird", "Coal tit"]), count: shards, in: directory)
        #expect(report["missing"] as? [String] == ["Gone bird"])
        #expect(report["wanted"] as? Int == 3)
        #expect(report["disambiguation_pages_skipped"] as? [String] == ["Lixus"])
    }

    @Test func aPartFromOtherInputsIsRefusedNamingBoth() throws {
        let directory = try TemporaryDirectory()
        let dump = try directory.write("a.ndjson", H.line("Great tit", H.parsoid()) + "\n")
        var folders: [String] = []
        for (index, titles) in [["Great tit"], ["Great tit", "Blue tit"]].enumerated() {
            let shard = try Shard(index: index, count: 2)
            let wants = H.wants(titles)
            let folder = directory.file("shard-\(index)")
            try FileSystem.makeDirectories(folder)
            var options = WikiStage.Options(
                inputs: [dump], wants: wants, output: folder + "/articles.jsonl", report: folder + "/wiki-report.json", rejects: folder + "/rejects.jsonl")
            options.shard = shard
            options.part = WikiPart.Identity(
                shard: shard, origin: WikiPart.origin(inputs: [dump], wants: wants, rules: options.rules, maxRejectRate: 0.01, shards: 2))
            try WikiStage(options: options).run()
            folders.append(folder)
        }
        let error = try #require(throws: FieldpackError.self) { try WikiMerge(parts: folders) }
        #expect(error.description.contains(folders[0]) && error.description.contains(folders[1]))
        #expect(error.description.contains("made from other inputs"))
        // One part alone is not the whole run either.
        let missing = try #require(throws: FieldpackError.self) { try WikiMerge(parts: [folders[0]]) }
        #expect(missing.description.contains("shard 1/2 is missing"))
    }

    /// A part records what it was made from as ingest and dedupe parts do (`ShardOrigin`): a
    /// part of another tool version is refused, naming both part reports.
    @Test func aMergeRefusesAPartMadeByAnotherToolVersionNamingBoth() throws {
        let directory = try TemporaryDirectory()
        let dump = try directory.write("a.ndjson", H.line("Great tit", H.parsoid(Self.sentence("Great tit"))) + "\n")
        let folders = try parts([dump], wants: H.wants(["Great tit"]), count: 2, maxRejectRate: 0.01, in: directory)
        let report = folders[1] + "/" + WikiPart.reportFile
        let text = try String(contentsOfFile: report, encoding: .utf8)
        #expect(text.contains(ToolVersion.description))
        try text.replacingOccurrences(of: ToolVersion.description, with: "0.0.9").write(toFile: report, atomically: true, encoding: .utf8)
        let error = try #require(throws: FieldpackError.self) { try WikiMerge(parts: folders) }
        #expect(error.path == report)
        #expect(error.message.contains(folders[0] + "/" + WikiPart.reportFile), "\(error)")
        #expect(error.message.contains("made by fieldpack 0.0.9"), "\(error)")
    }

    /// The parts of `inputs` in `count` shards, made with a reject limit of `maxRejectRate`.
    private func parts(_ inputs: [String], wants: WikiWants, count: Int, maxRejectRate: Double, in directory: TemporaryDirectory) throws -> [String] {
        try (0..<count).map { index in
            let shard = try Shard(index: index, count: count)
            let folder = directory.file("limit-\(index)-of-\(count)")
            try FileSystem.makeDirectories(folder)
            var options = WikiStage.Options(
                inputs: inputs, wants: wants, output: folder + "/articles.jsonl", report: folder + "/wiki-report.json", rejects: folder + "/rejects.jsonl")
            options.maxRejectRate = maxRejectRate
            options.shard = shard
            options.part = WikiPart.Identity(
                shard: shard, origin: WikiPart.origin(inputs: inputs, wants: wants, rules: options.rules, maxRejectRate: maxRejectRate, shards: count))
            try WikiStage(options: options).run()
            return folder
        }
    }

    /// A shard sees only its share of the lines: the reject limit is the merge's to apply, over
    /// all of them, so the sharded build fails exactly when the whole run does.
    @Test func theRejectLimitAppliesToAllShardsTogether() throws {
        let directory = try TemporaryDirectory()
        let good = (0..<5).map { H.line("Bird \($0)", H.parsoid(Self.sentence("bird \($0)"))) }
        let a = try directory.write("a.ndjson", (good.prefix(4) + ["{not json"]).joined(separator: "\n") + "\n")
        let b = try directory.write("b.ndjson", (good + ["{not json either"]).joined(separator: "\n") + "\n")
        let wants = H.wants((0..<5).map { "Bird \($0)" })
        // 2 of 11 lines (18%): under a 20% limit, though shard 0 alone (1 of 5) is at 20%.
        let passing = try parts([a, b], wants: wants, count: 2, maxRejectRate: 0.2, in: directory)
        _ = try WikiMerge(parts: passing).reportJSON()
        // Over a 15% limit: the whole run fails, and so does the merge, with the same message.
        let whole = try TemporaryDirectory()
        var options = WikiStage.Options(
            inputs: [a, b], wants: wants, output: whole.file("articles.jsonl"), report: whole.file("report.json"), rejects: whole.file("rejects.jsonl"))
        options.maxRejectRate = 0.15
        let wholeError = try #require(throws: FieldpackError.self) { try WikiStage(options: options).run() }
        let held = try TemporaryDirectory()
        let failing = try parts([a, b], wants: wants, count: 2, maxRejectRate: 0.15, in: held)
        let mergeError = try #require(throws: FieldpackError.self) { try WikiMerge(parts: failing).reportJSON() }
        #expect(mergeError.path == wholeError.path && wholeError.path == a)
        #expect(mergeError.message.hasPrefix("2 of 11 dump lines rejected (18.18%), over the 15.0% limit"), "\(mergeError.message)")
        #expect(wholeError.message.hasPrefix("2 of 11 dump lines rejected (18.18%), over the 15.0% limit"), "\(wholeError.message)")
        #expect(mergeError.message.contains(failing[1] + "/rejects.jsonl"), "\(mergeError.message)")
        // Many parts: the first and the last are named, not every one (a thousand paths).
        let manyFolder = try TemporaryDirectory()
        let many = try parts([a, b], wants: wants, count: 6, maxRejectRate: 0.15, in: manyFolder)
        let manyError = try #require(throws: FieldpackError.self) { try WikiMerge(parts: many).reportJSON() }
        #expect(manyError.message.hasSuffix("see the 6 parts' rejects.jsonl, \(many[0])/rejects.jsonl to \(many[5])/rejects.jsonl"), "\(manyError.message)")
    }

    static let binaries = ProcessInfo.processInfo.environment["FIELDPACK_BIN"]

    /// The sample pipeline with its wiki stage in 4 shards (make rules shard-wiki-K) gives the
    /// bundle's bytes: content.sqlite, the costs report, report.html and the manifest.
    @Test(.enabled(if: binaries != nil))
    func makeBundleWithShardedWikiGivesTheUnshardedBundle() throws {
        let directory = try TemporaryDirectory()
        func make(_ build: String, _ arguments: [String]) throws {
            let result = try run(
                "/usr/bin/make", ["--no-print-directory", "SKIP_TOOLS=1", "BUILD=\(build)", "BIN=\(Self.binaries!)", "bundle"] + arguments,
                directory: repositoryRoot)
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        }
        try make(directory.file("whole"), [])
        try make(directory.file("sharded"), ["SHARDS=4"])
        for index in 0..<4 {
            #expect(WikiPart.isPart(directory.file("sharded/sample/wiki/shard-\(index)-of-4")))
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("sharded/sample/wiki/articles.jsonl")))
        for file in ["content.sqlite", "costs-report.json", "report.html", "manifest.json", "manifest-sha256.txt"] {
            let whole = try Data(contentsOf: URL(fileURLWithPath: directory.file("whole/sample/bundle/\(file)")))
            let sharded = try Data(contentsOf: URL(fileURLWithPath: directory.file("sharded/sample/bundle/\(file)")))
            #expect(whole == sharded, "\(file) differs with SHARDS=4")
        }
    }

    @Test func byteRangesNeverLoseOrDoubleALine() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            // Lines of random lengths (some empty), as offsets of their first bytes.
            var offsets: [Int] = []
            var offset = 0
            for _ in 0..<Int.random(in: 0...60, using: &generator) {
                offsets.append(offset)
                offset += Int.random(in: 1...50, using: &generator)
            }
            let size = offset
            for count in 1...17 {
                let owners = try (0..<count).map { index in
                    WikiShare(shard: try Shard(index: index, count: count), files: 1).lines(file: 0, size: size, compressed: false)
                }
                for line in offsets {
                    #expect(owners.count { $0.owns(offset: line) } == 1, "line at \(line) of \(size) bytes, \(count) shards")
                }
                // The ranges tile the file: each starts where the last ended.
                for index in 1..<count {
                    #expect(ByteRangeLines.range(of: try Shard(index: index - 1, count: count), size: size).upperBound
                        == ByteRangeLines.range(of: try Shard(index: index, count: count), size: size).lowerBound)
                }
            }
        }
    }
}
