@testable import FieldpackKit
import FieldpackTestSupport
import Testing

/// What the wiki stage holds in memory for each article it keeps (issue 12: at most 100 MB with
/// 100k articles wanted). Structural, never timed: the run's table keeps a Wikidata item and a
/// spill-file location per article, and everything else reads back from the spill file as it
/// was stored.
@Suite struct WikiMemoryTests {
    /// An article with every field set (`full`) or every optional one empty.
    private func article(full: Bool) -> WikiStage.Article {
        var article = WikiStage.Article(
            title: "Great tit", pageID: full ? 4_269_567 : nil, revision: full ? 1_234_567_890 : nil,
            modified: full ? "2026-10-01T12:00:00Z" : nil, url: "https://en.wikipedia.org/wiki/Great_tit",
            wikidata: full ? "Q25485" : nil, statedLicense: full ? "CC-BY-SA-4.0" : nil, source: "dumps/a.tar.gz#part-0.ndjson",
            line: full ? 12 : nil, record: full ? "[3]" : nil,
            blurb: Blurb(kind: .article, html: "<p>The great tit — “Parus major”.</p>", summary: "The great tit.", title: "Great tit", sections: 2))
        if full { article.matched = ["Great tit", "Parus major"] }
        article.htmlBytes = 51_234
        return article
    }

    /// A new bound, or a field added to `KeptArticle`, must be a decision: it costs memory for
    /// every kept article. What is not needed to choose a copy or attach requesters belongs in
    /// the spill file (`StoredArticle`).
    @Test func theRunsTableKeepsOnlyAWikidataItemAndASpillLocationPerArticle() {
        let kept = WikiStage.KeptArticle(wikidata: "Q25485", stored: SpillFile.Location(offset: 0, count: 0))
        #expect(Mirror(reflecting: kept).children.map(\.label) == ["wikidata", "stored"])
        #expect(MemoryLayout<WikiStage.KeptArticle>.stride <= 32)
        // The table's element type, checked when this compiles: the run keeps nothing else per article.
        let _: [String: WikiStage.KeptArticle] = WikiStage.Run().articles
    }

    @Test(arguments: [false, true], [false, true])
    func aKeptArticleReadsBackFromTheSpillFileAsItWasStored(full: Bool, onDisk: Bool) throws {
        let directory = try TemporaryDirectory()
        // A tiny buffer on disk, so that the article's parts straddle flushes.
        let spill = onDisk ? try SpillFile(in: directory.path, bufferSize: 16) : SpillFile()
        let stage = WikiStage(options: WikiStage.Options(inputs: [], wants: WikiWants(language: "en"), output: "", report: "", rejects: ""))
        let original = article(full: full)
        try spill.append("bytes before it")
        let kept = try stage.store(original, in: spill)
        try spill.append("bytes after it")
        #expect(kept.wikidata == original.wikidata)
        let back = try stage.article(kept, in: spill)
        #expect(back.copy == original.copy)
        #expect(back.title == original.title)
        #expect(back.pageID == original.pageID)
        #expect(back.url == original.url)
        #expect(back.wikidata == original.wikidata)
        #expect(back.statedLicense == original.statedLicense)
        #expect(back.license == original.license)
        #expect(back.blurb.sections == original.blurb.sections)
        #expect(back.matched == original.matched)
        #expect(back.htmlBytes == original.htmlBytes)
        // What the articles file gets: the same line as from the article in memory.
        var fromMemory = JSONWriter()
        try stage.record(of: original, spill: SpillFile(), language: "en").encode(into: &fromMemory)
        var fromSpill = JSONWriter()
        try stage.record(of: back, spill: spill, language: "en").encode(into: &fromSpill)
        #expect(fromSpill.bytes == fromMemory.bytes)
    }

    @Test func aCutShortRecordIsAnErrorNamingTheSpillsFolder() throws {
        let spill = SpillFile()
        let stage = WikiStage(options: WikiStage.Options(inputs: [], wants: WikiWants(language: "en"), output: "", report: "", rejects: ""))
        let kept = try stage.store(article(full: true), in: spill)
        let cut = WikiStage.KeptArticle(wikidata: nil, stored: SpillFile.Location(offset: kept.stored.offset, count: kept.stored.count - 1))
        #expect(throws: FieldpackError.self) { try stage.article(cut, in: spill) }
    }
}
