@testable import FieldpackKit
import FieldpackTestSupport
import Foundation
import Synchronization
import Testing

/// The offline search index, queried as the app queries it, on the sample bundle.
@Suite(.serialized) struct SearchTests {
    /// The sample pipeline's bundle, built once by make into a temporary folder.
    private static func sampleBundle() throws -> (TemporaryDirectory, Database) {
        let directory = try TemporaryDirectory()
        let result = try run(
            "/usr/bin/make", ["--no-print-directory", "SKIP_TOOLS=1", "BUILD=\(directory.path)", "bundle"]
                + (ProcessInfo.processInfo.environment["FIELDPACK_BIN"].map { ["BIN=\($0)"] } ?? []),
            directory: repositoryRoot)
        guard result.status == 0 else { throw FieldpackError("make bundle failed: \(result.stderr)") }
        return (directory, try Database(path: directory.file("sample/bundle/content.sqlite"), mode: .immutable))
    }

    private func search(_ database: Database, _ query: String) throws -> [String] {
        try database.rows("""
            SELECT e.kind || ':' || e.name FROM search JOIN search_entries AS e ON e.id = search.rowid
            WHERE search MATCH ? ORDER BY bm25(search, 10.0, 5.0, 1.0), e.id
            """, [.text(query)]).map { $0[0] ?? "" }
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["FIELDPACK_BIN"] != nil))
    func prefixesDiacriticsAndRankingWorkAsTheAppQueriesThem() throws {
        let (_, database) = try Self.sampleBundle()
        // Prefixes, on scientific and common names: every taxon of the genus, and only those,
        // before the articles that mention it.
        let genus = try database.rows("SELECT 'taxon:' || name FROM taxa WHERE name LIKE 'Nicrophorus%' ORDER BY name").map { $0[0] ?? "" }
        #expect(genus == ["taxon:Nicrophorus", "taxon:Nicrophorus vespillo", "taxon:Nicrophorus vespilloides"])
        let nicrophorus = try search(database, "nicroph*")
        try #require(!nicrophorus.isEmpty)
        #expect(Set(nicrophorus.prefix(genus.count)) == Set(genus), "\(nicrophorus)")
        #expect(nicrophorus.dropFirst(genus.count).allSatisfy { !$0.hasPrefix("taxon:") }, "\(nicrophorus)")
        #expect(try search(database, "rouge*").first == "taxon:Erithacus rubecula")  // Rougegorge familier
        // Diacritics folded both ways: "foret" finds the Sonian Forest article ("Forêt de Soignes").
        #expect(try search(database, "foret").contains("article:Sonian Forest"))
        #expect(try search(database, "mésange").first == "taxon:Parus major")
        // A name match ranks above a mention in another article's text.
        let robin = try search(database, "robin")
        #expect(robin.first == "article:European robin")
        #expect(robin.contains("taxon:Erithacus rubecula"))
        // Destinations are found by name.
        #expect(try search(database, "serengeti").first == "destination:Serengeti National Park")
    }
}

/// The text the search index holds for a blurb, read over bytes.
struct SearchPlainTextTests {
    @Test func tagsBecomeOneSpaceAndEntitiesAreDecodedOnce() {
        #expect(PlainText.ofBlurb("<p>The <b>robin</b>  sings&amp;lt;</p><p>A&lt;B &gt; C</p>") == "The robin sings&lt; A<B > C")
    }

    @Test func aTagFollowedByACombiningMarkIsStillATag() {
        // `<p>` then U+034F: as `Character`s the `>` and the mark are one grapheme, so a walk
        // over characters never ended the tag and lost the whole text.
        #expect(PlainText.ofBlurb("<p>\u{034F}word</p>") == "\u{034F}word")
        #expect(PlainText.ofBlurb("<p>\u{200C}کتاب</p>") == "\u{200C}کتاب")
    }

    @Test func anEmptyOrAllMarkupBlurbHasNoText() {
        #expect(PlainText.ofBlurb("") == "")
        #expect(PlainText.ofBlurb("<p></p><br>") == "")
    }

    /// The rules one step at a time, on bytes: every tag (to its `>`, or to the end) and every
    /// stray `>` a space; then the three entities decoded in one pass; then spaces collapsed and
    /// trimmed.
    private static func reference(_ html: [UInt8]) -> [UInt8] {
        var untagged: [UInt8] = []
        var index = 0
        while index < html.count {
            if html[index] == UInt8(ascii: "<") {
                guard let close = html[(index + 1)...].firstIndex(of: UInt8(ascii: ">")) else { break }
                untagged.append(UInt8(ascii: " "))
                index = close + 1
            } else {
                untagged.append(html[index] == UInt8(ascii: ">") ? UInt8(ascii: " ") : html[index])
                index += 1
            }
        }
        var decoded: [UInt8] = []
        index = 0
        let entities: [(String, UInt8)] = [("&lt;", UInt8(ascii: "<")), ("&gt;", UInt8(ascii: ">")), ("&amp;", UInt8(ascii: "&"))]
        outer: while index < untagged.count {
            for (name, byte) in entities where untagged[index...].starts(with: Array(name.utf8)) {
                decoded.append(byte)
                index += name.utf8.count
                continue outer
            }
            decoded.append(untagged[index])
            index += 1
        }
        return Array(decoded.split(separator: UInt8(ascii: " ")).joined(separator: [UInt8(ascii: " ")]))
    }

    /// Seeded random blurbs of tags, entities, stray brackets, spaces and multi-byte text read
    /// as the reference reads them, cut anywhere (an unclosed tag or entity at the end).
    @Test func randomBlurbsReadAsTheRulesOneStepAtATimeReadThem() {
        let pieces = ["<p>", "</p>", "<b>", "</i>", "<br>", " ", "  ", "&lt;", "&gt;", "&amp;", "&amp;lt;", "&", "&l", "&g;",
                      ">", "<", "robin", "é", "\u{034F}", "丹顶鹤", "x<y", "a>b", ";"]
        var state: UInt64 = 0x5DEE_CE66_D1CE_4E5B
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var out: [UInt8] = []
        for _ in 0..<3000 {
            var html = Array((0..<next(24)).map { _ in pieces[next(pieces.count)] }.joined().utf8)
            html = Array(html.prefix(next(html.count + 1) + (next(2) == 0 ? html.count : 0)))
            html.withUnsafeBytes { PlainText.ofBlurb($0, into: &out) }
            #expect(out == Self.reference(html), "\(String(decoding: html, as: UTF8.self))")
        }
    }
}

/// FTS5's check of the search index, and the compaction it runs beside.
struct SearchIndexCheckTests {
    @Test func theIndexCheckLeavesTheFileAsItWasAndFailsWhenTheIndexIsDamaged() throws {
        let directory = try TemporaryDirectory()
        let inputs = ReportTests.sampleInputs
        try buildBundle(inputs: inputs, in: directory, name: "sample", epoch: 1_700_000_000)
        let path = directory.file("content.sqlite")
        let before = try SHA256.hex(ofFile: path).digest
        // Beside a reader holding its shared lock, as VACUUM INTO does while the check runs:
        // the check needs no lock that conflicts with it (there is no busy timeout to hide one).
        do {
            let reader = try Database(path: path, mode: .readOnly)
            try reader.execute("BEGIN")
            #expect(try reader.int("SELECT count(*) FROM search_entries") ?? 0 > 0)
            try SearchIndex.check(path)
            try reader.execute("COMMIT")
        }
        #expect(try SHA256.hex(ofFile: path).digest == before)
        // The index's last block (its one segment after `optimize`) zeroed behind its back.
        do {
            let database = try Database(path: path)
            try database.execute("UPDATE search_data SET block = zeroblob(length(block)) WHERE id = (SELECT max(id) FROM search_data)")
        }
        #expect(throws: SQLiteError.self) { try SearchIndex.check(path) }
    }

    /// The index holds the text it was given as tokens only: an entry keeps what a result shows,
    /// and an article's words are found by search though only its blurb holds them.
    @Test func theIndexStoresNoTextAndTheEntriesOnlyWhatAResultShows() throws {
        let directory = try TemporaryDirectory()
        try buildBundle(inputs: ReportTests.sampleInputs, in: directory, name: "sample")
        // An article as the wiki stage writes it, for a taxon of the sample and a destination.
        try rebuildBundle(in: directory, article: """
            {"title":"Monarch butterfly","page_id":1,"revision":2,"modified":"2026-01-01T00:00:00Z","url":"https://en.wikipedia.org/wiki/Monarch_butterfly","language":"en","wikidata":"Q1","license":"CC-BY-SA-4.0","taxa":[48662],"destinations":["sierra"],"sections":0,"summary":"A butterfly.","html":"<p>It winters in the <b>oyamel</b> forests of Michoac&amp;n.</p>"}
            """, destinations: [Destination(id: "sierra", name: "Sierra Chincua", wikipedia: "Monarch butterfly", wikidata: nil)])
        let database = try Database(path: directory.file("content.sqlite"), mode: .immutable)
        let columns = try database.rows("SELECT name FROM pragma_table_info('search_entries') ORDER BY cid").map { $0[0] ?? "" }
        #expect(columns == ["id", "kind", "ref", "name", "common_name"])
        #expect(try database.int("SELECT count(*) FROM search_docsize") == database.int("SELECT count(*) FROM search_entries"))
        // Filled without merges, then merged into one segment; FTS5's default merging is put back
        // for any later writer.
        #expect(try database.rows("SELECT k, v FROM search_config ORDER BY k") == [["automerge", "4"], ["version", "4"]])
        func found(_ query: String) throws -> [String] {
            try database.rows("""
                SELECT e.kind || ':' || e.ref || ':' || e.name FROM search JOIN search_entries AS e ON e.id = search.rowid
                WHERE search MATCH ? ORDER BY bm25(search, 10.0, 5.0, 1.0), e.id
                """, [.text(query)]).map { $0[0] ?? "" }
        }
        // The blurb's words (its plain text: tags gone, the entity decoded) find the article; the
        // summary's find the taxon and the destination whose article it is.
        #expect(try found("oyamel") == ["article:1:Monarch butterfly"])
        #expect(try found("\"michoac&n\"") == ["article:1:Monarch butterfly"])
        // (The title's match ranks first: the name column weighs most.)
        let butterfly = try found("butterfly")
        #expect(butterfly.first == "article:1:Monarch butterfly", "\(butterfly)")
        #expect(Set(butterfly.dropFirst()) == ["taxon:48662:Danaus plexippus", "destination:sierra:Sierra Chincua"], "\(butterfly)")
        #expect(try found("sierra") == ["destination:sierra:Sierra Chincua"])
    }

    /// The articles' texts are made a batch ahead of the writes: whatever the batches hold (one
    /// article each, or all of them), the entries and the index are the same bytes.
    @Test func theArticlesBatchesLeaveTheIndexAsOneBatchMakesIt() throws {
        let directory = try TemporaryDirectory()
        var contents: [[[String?]]] = []  // each database's entries and index, row by row
        for (name, batchBytes) in [("one", 1 << 30), ("each", 1), ("some", 40)] {
            let database = try Database(path: directory.file("\(name).sqlite"))
            try Migrator().migrate(database)
            try database.execute("""
                INSERT INTO articles (id, title, language, url, license, sections, summary, blurb_html) VALUES
                    (1, 'Monarch butterfly', 'en', 'u1', 'CC-BY-SA-4.0', 0, 'A butterfly.', '<p>It winters in <b>oyamel</b> forests.</p>'),
                    (2, 'Great tit', 'en', 'u2', 'CC-BY-SA-4.0', 0, 'A bird.', '<p>A passerine of woodlands &amp; gardens.</p>'),
                    (3, 'Sonian Forest', 'fr', 'u3', 'CC-BY-SA-4.0', 0, 'A forest.', ''),
                    (4, 'Robin', 'en', 'u4', 'CC-BY-SA-4.0', 0, 'A bird.', '<p>The <i>robin</i> sings.</p><p>Rougegorge.</p>');
                """)
            try database.transaction { try SearchIndex.build(database, batchBytes: batchBytes) }
            contents.append(try [
                "SELECT id, kind, ref, name, common_name FROM search_entries ORDER BY id",
                "SELECT id, hex(block) FROM search_data ORDER BY id",
                "SELECT segid, hex(term), pgno FROM search_idx ORDER BY segid, term",
                "SELECT id, hex(sz) FROM search_docsize ORDER BY id",
            ].flatMap { try database.rows($0) })
            #expect(try database.rows("SELECT e.ref FROM search JOIN search_entries AS e ON e.id = search.rowid WHERE search MATCH 'oyamel OR gardens OR rougegorge' ORDER BY e.id")
                    == [["1"], ["2"], ["4"]], "\(name)")
            #expect(try database.int("SELECT count(*) FROM search_entries") == 4, "\(name)")
        }
        #expect(contents[1] == contents[0])
        #expect(contents[2] == contents[0])
    }

    @Test func aCheckBesideTheCopyGetsTheDatabasesPathAndItsFailureFailsTheCompaction() throws {
        let directory = try TemporaryDirectory()
        let files = try BuildFiles(output: directory.file("out.sqlite"), scratchLabel: "scratch")
        defer { files.cleanUp() }
        let database = try Database(path: files.scratch)
        try database.execute("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2)")
        let checked = Mutex<[String]>([])
        try files.compact(database, alongside: { path in checked.withLock { $0.append(path) } })
        #expect(checked.withLock { $0 } == [files.scratch])
        #expect((FileSystem.size(files.publish) ?? 0) > 0)
        // The copy fails too this time (VACUUM INTO needs an empty file): the check's error is the one.
        #expect(throws: FieldpackError.self) {
            try files.compact(database, alongside: { _ in throw FieldpackError(path: "search", "the index disagrees") })
        }
    }
}
