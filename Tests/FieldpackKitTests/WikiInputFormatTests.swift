import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// Issue 10, rules 11 and 12: in a folder of mixed files only dumps and pages are read, by
/// content; Enterprise On-demand / Structured Contents article JSON (one object per file, or an
/// array of them) is read like a dump line.
@Suite struct WikiInputFormatTests {
    private typealias H = WikiHarness

    private func reasons(_ rejects: [[String: Any]], in directory: TemporaryDirectory) -> [String] {
        rejects.map { reject in
            let file = (reject["file"] as? String ?? "").replacingOccurrences(of: directory.path + "/", with: "")
            return "\(reject["kind"] as? String ?? "") \(file): \(reject["reason"] as? String ?? "")"
        }
    }

    @Test func aFolderOfMixedFilesReadsDumpsAndPagesByContentAndSkipsTheRestWithAFinding() throws {
        let directory = try TemporaryDirectory()
        try directory.write("dumps/LICENSE", "Creative Commons Attribution-ShareAlike 3.0 Unported\n\nYou are free to share …\n")
        try directory.write("dumps/README", "# enwiki snapshot\n\nDownloaded from dumps.wikimedia.org.\n")
        // A snapshot's metadata, pretty-printed: JSON, but not an article.
        try directory.write("dumps/metadata.json", H.json([
            "identifier": "enwiki_namespace_0", "date_modified": "2026-11-01T00:00:00Z",
            "namespace": ["identifier": 0], "size": ["value": 123.4, "unit_text": "MB"],
        ], pretty: true))
        // The same, on one line, with a dump's name.
        try directory.write("dumps/chunks.ndjson", H.json(["identifier": "enwiki_namespace_0_chunk_0", "size": ["value": 1]]) + "\n")
        try directory.write("dumps/notes.xml", "<?xml version=\"1.0\"?>\n<notes><note>not a page</note></notes>\n")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D]).write(to: URL(fileURLWithPath: directory.file("dumps/logo.png")))
        // Pages zipped (libarchive reads tar here): said to be a zip, not "binary data".
        try (Data([0x50, 0x4B, 0x03, 0x04, 0x14, 0, 0, 0, 8, 0]) + Data(repeating: 0x41, count: 40)).write(to: URL(fileURLWithPath: directory.file("dumps/pages.zip")))
        // A page saved as "Unicode" (UTF-16 with its byte order mark).
        try ([0xFF, 0xFE] + Data("<!DOCTYPE html><html><body><p>Great tit</p></body></html>".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }))
            .write(to: URL(fileURLWithPath: directory.file("dumps/saved.html")))
        // Read by content whatever their names: NDJSON without an extension, a page named .dat,
        // an archive with a LICENSE member beside its NDJSON.
        try directory.write("dumps/enwiki_part_0", H.line("Great tit", H.parsoid()) + "\n")
        try directory.write("dumps/page.dat", H.parsoid(title: "Sonian Forest"))
        try directory.write("tar/enwiki_namespace_0_0.ndjson", H.line("European robin", H.parsoid()) + "\n")
        try directory.write("tar/LICENSE", "Creative Commons Attribution-ShareAlike 4.0 International\n")
        // As macOS's tar packs a downloaded file: its quarantine attribute in an AppleDouble
        // `._` member named like the dump (its lines were rejected, over the limit).
        try (Data([0x00, 0x05, 0x16, 0x07, 0x00, 0x02, 0x00, 0x00]) + Data("Mac OS X        \n\0\0com.apple.quarantine\n".utf8))
            .write(to: URL(fileURLWithPath: directory.file("tar/._enwiki_namespace_0_0.ndjson")))
        _ = try H.tarGz(
            "dumps/enwiki-NS0-20261101-ENTERPRISE-HTML.json.tar.gz", of: "tar",
            files: ["._enwiki_namespace_0_0.ndjson", "enwiki_namespace_0_0.ndjson", "LICENSE"], in: directory)
        let inputs = try Pipeline.resolve([directory.file("dumps")], pipelinePath: "test").files
        let output = try H.run(inputs, wants: H.wants(["Great tit", "Sonian Forest", "European robin"]), in: directory, maxRejectRate: 0)
        #expect(output.titles == ["European robin", "Great tit", "Sonian Forest"])
        #expect(reasons(output.rejects, in: directory) == [
            "skipped dumps/LICENSE: plain text, not a Wikipedia dump or page: skipped",
            "skipped dumps/README: plain text, not a Wikipedia dump or page: skipped",
            "skipped dumps/chunks.ndjson: JSON Lines whose first object is not a Wikipedia article (no \"article_body\"): skipped",
            "skipped dumps/enwiki-NS0-20261101-ENTERPRISE-HTML.json.tar.gz#._enwiki_namespace_0_0.ndjson: macOS metadata (an AppleDouble \"._\" file beside the dump it describes), not a Wikipedia dump: skipped",
            "skipped dumps/enwiki-NS0-20261101-ENTERPRISE-HTML.json.tar.gz#LICENSE: plain text, not a Wikipedia dump or page: skipped",
            "skipped dumps/logo.png: binary data, not a Wikipedia dump or page: skipped",
            "skipped dumps/metadata.json: JSON that is not a Wikipedia article (no \"article_body\"): skipped",
            "skipped dumps/notes.xml: XML, not an HTML page, not a Wikipedia dump or page: skipped",
            "skipped dumps/pages.zip: a zip archive (unzip it and give the files inside), not a Wikipedia dump or page: skipped",
            "skipped dumps/saved.html: UTF-16 text (saved as \"Unicode\": save it as UTF-8), not a Wikipedia dump or page: skipped",
        ])
        #expect(output.report["files_skipped"] as? Int == 10)
        #expect(output.report["lines_rejected"] as? Int == 0)
        #expect(output.report["lines"] as? Int == 3)
    }

    @Test func anArchiveOfAFolderReadsItsFilesAndPassesOverTheFolderEntries() throws {
        let directory = try TemporaryDirectory()
        try directory.write("tar/enwiki/part_0.ndjson", H.line("Great tit", H.parsoid()) + "\n")
        try directory.write("tar/enwiki/pages/Sonian_Forest.html", H.parsoid())
        let archive = try H.tarGz("dump.tar.gz", of: "tar", files: ["enwiki"], in: directory)
        let output = try H.run([archive], wants: H.wants(["Great tit", "Sonian Forest"]), in: directory, maxRejectRate: 0)
        #expect(output.titles == ["Great tit", "Sonian Forest"])  // the page titled by its member's name
        #expect(output.rejects.isEmpty, "\(output.rejects)")
        #expect(output.report["files_skipped"] as? Int == 0)
    }

    @Test func aFileNamedLikeADumpThatHoldsTextIsADamagedDumpItsLinesRejected() throws {
        let directory = try TemporaryDirectory()
        let dump = try directory.write("broken.ndjson", "this was a dump\nbefore it was overwritten\n")
        let output = try H.run([dump], wants: H.wants(["X"]), in: directory)
        #expect(output.rejects.map { $0["kind"] as? String } == ["rejected", "rejected"])
        #expect(output.rejects.map { $0["line"] as? Int } == [1, 2])
        #expect(output.report["files_skipped"] as? Int == 0)
    }

    @Test func theThresholdErrorNamesTheFileTheRejectedLinesComeFrom() throws {
        let directory = try TemporaryDirectory()
        let good = try directory.write("a-good.ndjson", H.line("Great tit", H.parsoid()) + "\n")
        let bad = try directory.write("b-bad.ndjson", "not json\n{\"name\": 1}\n")
        let error = try #require(throws: FieldpackError.self) {
            try H.run([good, bad], wants: H.wants(["Great tit"]), in: directory, maxRejectRate: 0.1)
        }
        #expect(error.path == bad)
        #expect(error.message.hasPrefix("2 of 3 dump lines rejected"))
    }

    /// An empty file not named like a dump (a job's `_SUCCESS` marker beside the dump, an empty
    /// page) is skipped with a finding, as a README is: it does not count against the threshold.
    @Test(arguments: ["_SUCCESS", "page.html"])
    func anEmptyFileNotNamedLikeADumpIsSkipped(name: String) throws {
        let directory = try TemporaryDirectory()
        let empty = try directory.write(name, "")
        let dump = try directory.write("dump.ndjson", H.line("Great tit", H.parsoid()) + "\n")
        let output = try H.run([empty, dump], wants: H.wants(["X"]), in: directory, maxRejectRate: 0)
        #expect(reasons(output.rejects, in: directory) == ["skipped \(name): an empty file (0 bytes), not a Wikipedia dump or page: skipped"])
        // Alone, nothing of the wiki is read: the guide is not published without its articles.
        let alone = try TemporaryDirectory()
        let error = try #require(throws: FieldpackError.self) {
            try H.run([try alone.write(name, "")], wants: H.wants(["X"]), in: alone, maxRejectRate: 0)
        }
        #expect(error.message.contains(": 1 file holds no Wikipedia dump (see \(alone.file("rejects.jsonl")))"), "\(error)")
    }

    /// An empty input named like a dump or an archive (an Enterprise dump's `.json.tar.gz`)
    /// yields nothing: a rejected file (issue 15 item 5), which counts against the threshold.
    @Test(arguments: ["empty.ndjson", "enwiki-NS0-20261101-ENTERPRISE-HTML.json.tar.gz", "dump.tgz", "pages.zip"])
    func anEmptyFileIsARejectedFileThatCountsAgainstTheThreshold(name: String) throws {
        let directory = try TemporaryDirectory()
        let empty = try directory.write(name, "")
        let output = try H.run([empty], wants: H.wants(["X"]), in: directory, maxRejectRate: 1)
        #expect(reasons(output.rejects, in: directory) == ["rejected \(name): the file is empty (0 bytes): no Wikipedia dump or page"])
        #expect(throws: FieldpackError.self) { try H.run([empty], wants: H.wants(["X"]), in: directory, maxRejectRate: 0.5) }
    }

    // MARK: Rule 12: On-demand / Structured Contents article JSON

    private let onDemandFields: [String: Any] = [
        "identifier": 381_722, "url": "https://en.wikipedia.org/wiki/Great_tit", "date_modified": "2026-11-14T09:27:41Z",
        "version": ["identifier": 1_282_922_208, "editor": ["identifier": 1, "name": "Someone"]],
        "main_entity": ["identifier": "Q25485", "url": "https://www.wikidata.org/entity/Q25485"],
        "in_language": ["identifier": "en"], "is_part_of": ["identifier": "enwiki", "url": "https://en.wikipedia.org"],
        "license": [["identifier": "CC-BY-SA-4.0", "name": "Creative Commons Attribution Share Alike 4.0", "url": "https://creativecommons.org/licenses/by-sa/4.0/"]],
        "abstract": "The great tit is a small passerine bird.",
    ]

    @Test(arguments: [true, false])
    func anOnDemandArticleFileIsReadLikeADumpLine(pretty: Bool) throws {
        let directory = try TemporaryDirectory()
        // As the On-demand API answers /v2/articles/{name}/en…: one object, no trailing newline.
        let file = try directory.write("Great_tit.json", H.json(H.article("Great tit", H.parsoid(), onDemandFields), pretty: pretty))
        let output = try H.run([file], wants: H.wants(["Great tit"]), in: directory, maxRejectRate: 0)
        let article = try #require(output.articles["Great tit"])
        #expect(article["page_id"] as? Int == 381_722)
        #expect(article["revision"] as? Int == 1_282_922_208)
        #expect(article["wikidata"] as? String == "Q25485")
        #expect(article["license"] as? String == "CC-BY-SA-4.0")
        #expect(article["html"] as? String == "<p>\(H.tit)</p>")
        #expect(output.rejects.isEmpty)
        #expect(output.report["lines"] as? Int == 1)
    }

    @Test(arguments: [true, false])
    func aJSONArrayOfArticlesIsReadArticleByArticleAndABadOneIsNamedByItsIndex(pretty: Bool) throws {
        let directory = try TemporaryDirectory()
        // The On-demand API answers with an array (one article per wiki asked);
        // Structured Contents objects carry more fields beside article_body.
        let array: [Any] = [
            H.article("Great tit", H.parsoid(), onDemandFields),
            ["identifier": 2, "article_body": ["html": H.parsoid()]],
            H.article("Sonian Forest", H.parsoid(), ["identifier": 3, "sections": [["type": "section", "name": "Abstract"]]]),
        ]
        let file = try directory.write("answer.json", H.json(array, pretty: pretty))
        let output = try H.run([file], wants: H.wants(["Great tit", "Sonian Forest"]), in: directory)
        #expect(output.titles == ["Great tit", "Sonian Forest"])
        #expect(output.rejects.count == 1)
        let reject = try #require(output.rejects.first)
        #expect(reject["file"] as? String == file)
        #expect(reject["record"] as? String == "[1]")
        #expect(reject["line"] is NSNull)
        #expect(reject["reason"] as? String == "no \"name\"")
        #expect(output.report["lines"] as? Int == 3)
        #expect(output.report["lines_rejected"] as? Int == 1)
    }

    /// A `name` or an `article_body.html` of the wrong type was reported as missing.
    @Test func aWrongTypedNameOrHTMLIsNamedAsSuchNotAsMissing() throws {
        let directory = try TemporaryDirectory()
        let lines = [
            H.json(["name": 5, "identifier": 1, "article_body": ["html": H.parsoid()]]),
            H.json(["name": "", "identifier": 2, "article_body": ["html": H.parsoid()]]),
            H.json(["name": "Great tit", "identifier": 3, "article_body": ["html": ["<p>x</p>"]]]),
            H.json(["name": "Sonian Forest", "identifier": 4]),
        ]
        let file = try directory.write("dump.ndjson", lines.joined(separator: "\n") + "\n")
        let output = try H.run([file], wants: H.wants(["Great tit", "Sonian Forest"]), in: directory)
        #expect(output.rejects.map { $0["reason"] as? String } == [
            "\"name\" is an integer, expected the page's title", "\"name\" is empty, expected the page's title",
            "\"article_body.html\" is an array, expected the page's HTML", "no \"article_body.html\"",
        ])
    }

    /// Structured Contents (Enterprise's beta: parsed sections and infoboxes, no `article_body`)
    /// holds no HTML to make a blurb from: a file of it is skipped saying so, one object, an
    /// array or JSON Lines, and is not rejected line by line against the threshold.
    @Test func aStructuredContentsFileIsSkippedSayingWhereTheArticlesAre() throws {
        let directory = try TemporaryDirectory()
        var fields = onDemandFields
        fields["name"] = "Great tit"
        fields["sections"] = [["type": "section", "name": "Abstract", "has_parts": [["type": "paragraph", "value": "The great tit is a small passerine bird."]]]]
        fields["infoboxes"] = [["name": "Automatic taxobox", "type": "infobox"]]
        let object = try directory.write("Great_tit.json", H.json(fields, pretty: true))
        let array = try directory.write("answer.json", H.json([fields], pretty: false))
        let lines = try directory.write("structured.ndjson", H.json(fields, pretty: false) + "\n" + H.json(fields, pretty: false) + "\n")
        // Beside a dump of the wiki (alone they would leave the guide without articles).
        let dump = try directory.write("z-dump.ndjson", H.line("Beetle", H.parsoid()) + "\n")
        let output = try H.run([object, array, lines, dump], wants: H.wants(["Great tit"]), in: directory, maxRejectRate: 0)
        let reason = "Enterprise Structured Contents (parsed sections, no \"article_body\" HTML to make a blurb from: take the articles from the On-demand or Snapshot article endpoints): skipped"
        #expect(reasons(output.rejects, in: directory) == ["skipped Great_tit.json: \(reason)", "skipped answer.json: \(reason)", "skipped structured.ndjson: \(reason)"])
        #expect(output.titles.isEmpty)
    }

    @Test func aJSONArrayOfOtherThingsIsSkippedAndBrokenJSONIsRejectedNamingTheFile() throws {
        let directory = try TemporaryDirectory()
        let list = try directory.write("files.json", H.json([["name": "enwiki_namespace_0_0.ndjson", "size": 1]], pretty: true))
        let broken = try directory.write("cut.json", String(H.json(H.article("Great tit", H.parsoid()), pretty: true).dropLast(20)))
        let output = try H.run([list, broken], wants: H.wants(["Great tit"]), in: directory)
        let found = reasons(output.rejects, in: directory)
        #expect(found.count == 2)
        #expect(found.contains { $0.hasPrefix("rejected cut.json: not JSON") }, "\(found)")
        #expect(found.contains("skipped files.json: a JSON array whose first element is not a Wikipedia article (no \"article_body\"): skipped"))
    }

    /// One bad byte in an On-demand export's array rejected every article of the file, with no
    /// line or record named. Its complete records are read; the damage is named by its place.
    @Test func anArrayOfArticlesWithOneBrokenRecordOrCutShortKeepsItsCompleteRecords() throws {
        let directory = try TemporaryDirectory()
        let array = H.json([
            H.article("Alpha", H.parsoid()), H.article("Beta", H.parsoid()), H.article("Gamma", H.parsoid()),
        ], pretty: true)
        let gamma = try #require(array.range(of: "\"name\" : \"Gamma\""))
        // Record [2] loses the colon after "name".
        let broken = try directory.write("broken.json", array.replacingCharacters(in: gamma, with: "\"name\" \"Gamma\""))
        let brokenLine = array[..<gamma.lowerBound].filter { $0 == "\n" }.count + 1
        let output = try H.run([broken], wants: H.wants(["Alpha", "Beta", "Gamma"]), in: directory)
        #expect(output.titles == ["Alpha", "Beta"])
        #expect(output.rejects.count == 1)
        let rejected = try #require(output.rejects.first)
        #expect(rejected["kind"] as? String == "rejected" && rejected["record"] as? String == "[2]")
        #expect((rejected["line"] as? Int).map { $0 < brokenLine && $0 > brokenLine - 40 } == true, "\(rejected), line \(brokenLine)")
        #expect((rejected["reason"] as? String)?.hasPrefix("not JSON: ") == true, "\(rejected)")

        // Cut inside record [2]: the two before it are read, and the cut is named after [1].
        let second = try TemporaryDirectory()
        let cut = try second.write("cut.json", String(array[..<gamma.upperBound]))
        let cutOutput = try H.run([cut], wants: H.wants(["Alpha", "Beta", "Gamma"]), in: second)
        #expect(cutOutput.titles == ["Alpha", "Beta"])
        #expect(cutOutput.rejects.count == 1)
        let cutFinding = try #require(cutOutput.rejects.first)
        #expect(cutFinding["record"] as? String == "[2]" && (cutFinding["line"] as? Int ?? 0) > 1, "\(cutFinding)")
        #expect((cutFinding["reason"] as? String).map { $0.hasPrefix("the array cannot be read after its record [1] (not JSON: ") && $0.hasSuffix("); kept the 2 complete records before it") } == true, "\(cutFinding)")
        #expect(cutOutput.report["missing"] as? [String] == ["Gamma"])
    }

    /// A tar cut exactly at a member's end (no end-of-archive blocks) read as a whole dump: the
    /// later members' articles were reported missing, with no finding of the cut.
    @Test(arguments: [false, true])
    func aTarCutAtAMembersEndIsAFindingNotAWholeDump(gzipped: Bool) throws {
        let directory = try TemporaryDirectory()
        try directory.write("tar/enwiki_namespace_0_0.ndjson", H.line("Great tit", H.parsoid()) + "\n")
        try directory.write("tar/enwiki_namespace_0_1.ndjson", H.line("European robin", H.parsoid()) + "\n")
        let full = directory.file("full.tar")
        #expect(try run("/bin/tar", ["-cf", full, "-C", directory.file("tar"), "enwiki_namespace_0_0.ndjson", "enwiki_namespace_0_1.ndjson"]).status == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: full))
        // The first member: its header and its data, padded to 512 bytes.
        let firstSize = try #require(FileSystem.size(directory.file("tar/enwiki_namespace_0_0.ndjson")))
        let cut = bytes.prefix(512 + (firstSize + 511) / 512 * 512)
        let dump = directory.file(gzipped ? "dump.tar.gz" : "dump.tar")
        try cut.write(to: URL(fileURLWithPath: directory.file("dump.tar")))
        if gzipped { #expect(try run("/bin/gzip", ["-k", directory.file("dump.tar")]).status == 0) }
        let output = try H.run([dump], wants: H.wants(["Great tit", "European robin"]), in: directory)
        #expect(output.titles == ["Great tit"])
        #expect(output.rejects.contains { ($0["reason"] as? String)?.contains("the tar archive ends after its member enwiki_namespace_0_0.ndjson without the block of zeros") == true }, "\(output.rejects)")
        // The whole archive reads both, with no finding.
        let whole = try H.run([full], wants: H.wants(["Great tit", "European robin"]), in: try TemporaryDirectory())
        #expect(whole.titles == ["European robin", "Great tit"] && whole.rejects.isEmpty)
    }
}
