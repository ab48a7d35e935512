@testable import FieldpackKit
@testable import FieldpackSynth
import FieldpackTestSupport
import Foundation
import Synchronization
import Testing

/// What the wiki stage's workers hold at once is bounded by bytes of article HTML, not by a
/// count: a long tail of multi-megabyte articles never has several of their trees alive together.
@Suite struct BlurbPoolTests {
    private static func article(_ title: String) -> WikiStage.Article {
        WikiStage.Article(
            title: title, pageID: nil, revision: nil, modified: nil, url: "https://en.wikipedia.org/wiki/\(title)", wikidata: nil,
            statedLicense: nil, source: "dump.ndjson", line: 1, record: nil, blurb: Blurb(kind: .article, html: "", summary: "", title: nil, sections: 0))
    }

    /// Submits articles of `sizes` bytes; returns the titles of the blurbs that came back, and
    /// the most HTML that was in flight at once.
    private static func submit(_ sizes: [Int], budget: Int) -> (titles: [String], peak: Int) {
        let pool = BlurbPool(maker: BlurbMaker(), byteBudget: budget, maximumJobs: 64)
        var random = SplitMix64(state: 3)
        var titles: [String] = []
        for (index, size) in sizes.enumerated() {
            var html = SyntheticWiki.article(title: "Species \(index)", random: &random, size: size)
            html.withUTF8 { pool.submit(article("Species \(index)"), html: UnsafeRawBufferPointer($0)) }
            titles += pool.collect().map(\.0.title)
        }
        titles += pool.drain().map(\.0.title)
        return (titles, pool.peakBytesInFlight)
    }

    @Test func theHTMLInFlightStaysWithinTheByteBudget() {
        let sizes = (0..<40).map { 8_000 + ($0 * 7_919) % 50_000 }
        let (titles, peak) = Self.submit(sizes, budget: 120_000)
        #expect(titles.sorted() == (0..<40).map { "Species \($0)" }.sorted())
        #expect(peak <= 120_000)
        #expect(peak > 60_000)  // several articles did run side by side
    }

    @Test func aLargeArticlesMemoryIsReleasedOnceItsBlurbIsMadeAndASmallOnesNever() {
        var random = SplitMix64(state: 5)
        let pages = [4_000, 150_000, 30_000, 400_000, 9_000, 220_000].enumerated().map { index, size in
            SyntheticWiki.article(title: "Species \(index)", random: &random, size: size)
        }
        let threshold = 100_000
        let large = pages.filter { $0.utf8.count >= threshold }.count
        #expect(large == 3 && pages.count - large == 3)  // both kinds are there to tell apart
        let releases = Mutex(0)
        let pool = BlurbPool(
            maker: BlurbMaker(), byteBudget: 1 << 20, maximumJobs: 4,
            release: FreedMemoryRelease(afterBytes: threshold) { releases.withLock { $0 += 1 } })
        for (index, page) in pages.enumerated() {
            var html = page
            html.withUTF8 { pool.submit(Self.article("Species \(index)"), html: UnsafeRawBufferPointer($0)) }
        }
        let results = pool.drain()
        #expect(results.count == pages.count)
        #expect(results.allSatisfy { (try? $0.1.get()) != nil })
        #expect(releases.withLock { $0 } == large)
    }

    /// After a multi-megabyte article's line the stage gives back its reader's grown buffers
    /// (`LineReader.shrinkBuffer`, `JSONParser.releaseCapacity`): what was read ahead of it is kept.
    @Test func theArticlesAfterAMultiMegabyteLineAreReadWhole() throws {
        let directory = try TemporaryDirectory()
        var random = SplitMix64(state: 17)
        let sizes = [20_000, 3_500_000, 30_000, 9_000, 2_600_000, 40_000]
        let pages = sizes.enumerated().map { index, size in SyntheticWiki.article(title: "Species \(index)", random: &random, size: size) }
        #expect(pages.filter { $0.utf8.count > WikiStage.longLineBytes }.count == 2)
        let lines = pages.enumerated().map { index, html in WikiHarness.line("Species \(index)", html) }
        let dump = try directory.write("dump.ndjson", lines.joined(separator: "\n") + "\n")
        let output = try WikiHarness.run([dump], wants: WikiHarness.wants(pages.indices.map { "Species \($0)" }), in: directory)
        #expect(output.titles.count == pages.count)
        for (index, html) in pages.enumerated() {
            #expect(output.articles["Species \(index)"]?["html"] as? String == (try BlurbMaker().blurb(html: html)).html)
        }
    }

    @Test func anArticleLargerThanTheBudgetIsMadeAlone() {
        let small = [6_000, 6_000, 6_000]
        let big = 300_000
        let (titles, peak) = Self.submit(small + [big] + small, budget: 20_000)
        #expect(titles.count == 7)
        // Whatever runs beside it would add to its bytes.
        #expect(peak >= big && peak < big + 6_000)
    }

    /// The stage's outputs do not depend on how much is in flight, nor on the order blurbs
    /// come back in, nor on giving large articles' memory back.
    @Test(arguments: [1, 64 << 10, 1 << 30])
    func theStagesOutputsDoNotDependOnItsByteBudget(budget: Int) throws {
        let directory = try TemporaryDirectory()
        var random = SplitMix64(state: 11)
        var lines: [String] = []
        for index in 0..<30 {
            let html = SyntheticWiki.article(title: "Species \(index)", random: &random, size: [5_000, 40_000, 250_000][index % 3])
            lines.append(WikiHarness.line("Species \(index)", html))
        }
        let dump = try directory.write("dump.ndjson", lines.joined(separator: "\n") + "\n")
        let wants = WikiHarness.wants((0..<30).map { "Species \($0)" })
        let reference = try TemporaryDirectory()
        try WikiHarness.run([dump], wants: wants, in: reference)
        var options = WikiStage.Options(
            inputs: [dump], wants: wants, output: directory.file("articles.jsonl"), report: directory.file("report.json"),
            rejects: directory.file("rejects.jsonl"))
        options.maxRejectRate = 1
        options.inFlightBytes = budget
        let releases = Mutex(0)
        options.freedMemoryRelease = FreedMemoryRelease(afterBytes: 200_000) { releases.withLock { $0 += 1 } }
        try WikiStage(options: options).run()
        #expect(releases.withLock { $0 } == 10)  // the 250 kB articles, each once
        for name in ["articles.jsonl", "report.json", "rejects.jsonl"] {
            #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file(name))) == Data(contentsOf: URL(fileURLWithPath: reference.file(name))))
        }
    }
}
