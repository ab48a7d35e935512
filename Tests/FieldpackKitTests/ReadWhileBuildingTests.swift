import CLibXML2
@testable import FieldpackKit
@testable import FieldpackSynth
import FieldpackTestSupport
import Testing

/// An article is read while libxml2 builds its tree, and what was read is freed (`TreeStream`):
/// the blurb is always the one a walk of the whole tree gives, and the tree of a Parsoid article
/// never holds more than what has not been read yet. Each blurb is compared with a maker that
/// builds the whole tree and reads it after the parse (`readsWhileBuilding = false`,
/// `buildsWholeTree = true`).
@Suite struct ReadWhileBuildingTests {
    /// What a blurb is, refusals included.
    private static func outcome(_ html: String, whileBuilding: Bool) -> String {
        var maker = BlurbMaker()
        maker.readsWhileBuilding = whileBuilding
        maker.buildsWholeTree = !whileBuilding
        do {
            let blurb = try maker.blurb(html: html)
            return "\(blurb.kind) | \(blurb.title ?? "-") | \(blurb.sections) | \(blurb.html) | \(blurb.summary) | \(blurb.page)"
        } catch {
            return "refused: \(error)"
        }
    }

    private static func expectSameAsWholeTree(_ html: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(outcome(html, whileBuilding: true) == outcome(html, whileBuilding: false), sourceLocation: sourceLocation)
    }

    private static func parsoid(_ body: String, bodyClass: String = "mw-parser-output") -> String {
        """
        <!DOCTYPE html><html><head><meta charset="utf-8"/><title>Great tit</title></head><body class="\(bodyClass)">\(body)</body></html>
        """
    }

    private static let prose = "They nest in holes in trees and in nest boxes in gardens across the whole of Europe."

    /// Content whose reading looks at a neighbour of a child of the content root (the next
    /// visible element, the previous one), or at text and elements the reader looks past.
    static let neighbourArticles: [(String, String)] = [
        ("an introduction before a list, a link between them", parsoid(
            "<p>The great tit eats:</p><link rel=\"mw:PageProp/Category\" href=\"./Category:Birds\"/><ul><li>Insects</li></ul><p>and in winter seeds, as \(prose)</p>")),
        ("a paragraph cut by a table after a meta and a style", parsoid(
            "<p>\(prose) Adults weigh about <math>18</math></p>\n<meta property=\"mw:x\"/>\n<style>p{}</style>\n<table><tr><td>x</td></tr></table><p>\(prose)</p>")),
        ("a quote's attribution after a style", parsoid(
            "<blockquote><p>A quote that goes with its attribution.</p></blockquote><style>q{}</style><p>— Someone, 1901</p><p>\(prose)</p>")),
        ("a quote box's attribution", parsoid(
            "<div class=\"quotebox\"><p>A boxed quote.</p></div>\n<p><cite>Someone</cite>, in a letter</p><p>\(prose)</p>")),
        ("bare text in the root between blocks", parsoid("<p>\(prose)</p> Bare text in the body. <ul><li>x</li></ul><p>\(prose)</p>")),
        ("a paragraph followed by bare text after whitespace", parsoid("<p>\(prose) It goes on</p>\n  \nand on <table></table><p>\(prose)</p>")),
        ("root-level headings around a skipped section", parsoid(
            "<p>\(prose)</p><h2>References</h2><p>A list.</p><h3>Notes</h3><p>More.</p><h2>Biology</h2><p>\(prose)</p><h2>Diet</h2><h2>Range</h2><p>\(prose)</p>")),
        ("an element left open across sections", parsoid(
            "<section><h2>Biology</h2><p>\(prose) <b>Bold that stays open</section><section><h2>Diet</h2><p>\(prose)</p></section>")),
        ("a second body with another class", parsoid("<section><p>\(prose)</p></section><body class=\"other\"><section><p>\(prose)</p></section>")),
        ("an html element inside the body", parsoid("<section><p>\(prose)</p></section><html lang=\"fr\"><section><p>\(prose)</p></section>")),
        ("a redirect link in the middle", parsoid("<section><p>\(prose)</p></section><link rel=\"mw:PageProp/redirect\" href=\"./Parus_major\"/><section><p>\(prose)</p></section>")),
        ("a disambiguation marker in a later section", parsoid(
            "<section><p>\(prose)</p></section><section><meta property=\"mw:PageProp/disambiguation\"/><p>\(prose)</p></section>")),
        ("content before the body element", """
            <!DOCTYPE html><html><head><title>Great tit</title></head><p>Before the body.</p><body class="mw-parser-output"><section><p>\(prose)</p></section></body></html>
            """),
        ("the content root inside a body without the class", parsoid("<section><div class=\"mw-parser-output\"><p>\(prose)</p></div></section><p>Outside.</p>", bodyClass: "x")),
        ("a content root nested in a Parsoid body", parsoid("<section><p>\(prose)</p></section><div class=\"mw-parser-output\"><p>Nested root.</p></div><p>\(prose)</p>")),
        ("a stub paragraph and empty sections", parsoid("<section><p>Short</p></section><section><h2>Diet</h2></section><section><h2>Range</h2><p>\(prose)</p></section>")),
        ("sections nested past a hundred levels", parsoid(String(repeating: "<section><p>\(prose)</p>", count: 120) + String(repeating: "</section>", count: 120))),
        ("sections nested past libxml2's depth limit", parsoid(String(repeating: "<section><p>x</p>", count: 300))),
        ("a heading and its paragraph split by a comment and a processing instruction", parsoid(
            "<section><h2>Biology</h2></section><!-- x --><?pi x?><section><p>\(prose)</p></section>")),
    ]

    @Test(arguments: neighbourArticles)
    func whatAChildOfTheRootLooksAtIsThereWhenItIsRead(name: String, html: String) {
        Self.expectSameAsWholeTree(html)
    }

    @Test(arguments: TrailingBoilerplateTests.hidingArticles)
    func whatTheBytesHideBeforeTheTailIsReadAsTheWholeTreeReadsIt(name: String, html: String) {
        Self.expectSameAsWholeTree(html)
    }

    @Test(arguments: TrailingBoilerplateTests.edgeTails)
    func aTailAtTheEdgeMakesTheWholeTreesBlurb(tail: String) {
        Self.expectSameAsWholeTree(Self.parsoid("<section><h2>Biology</h2><p>\(Self.prose)</p></section><section><h2>References</h2>\(tail)</section>"))
    }

    @Test(arguments: realWikiPages)
    func realPagesMakeTheWholeTreesBlurb(name: String) throws {
        Self.expectSameAsWholeTree(try text(wikiFixture(name)))
    }

    @Test func syntheticArticlesOfEverySizeMakeTheWholeTreesBlurb() {
        var random = SplitMix64(state: 11)
        for size in [4_000, 50_000, 400_000, 1_500_000] {
            Self.expectSameAsWholeTree(SyntheticWiki.article(title: "Synthetic species \(size)", random: &random, size: size))
        }
    }

    @Test(.enabled(if: !TrailingBoilerplateTests.corpus.isEmpty, "no hostile-HTML corpus at ../shared/corpus/xss (set XSS_CORPUS)"))
    func hostileVectorsBetweenSectionsMakeTheWholeTreesBlurb() {
        for vector in TrailingBoilerplateTests.corpus {
            Self.expectSameAsWholeTree(Self.parsoid("<section><p>\(Self.prose)</p></section>\(vector)<section><p>\(Self.prose)</p></section>"))
            Self.expectSameAsWholeTree(Self.parsoid("<p>\(Self.prose) It goes on:</p>\(vector)<p>\(Self.prose)</p>"))
        }
    }

    /// Elements in the tree under `node` (itself not counted).
    private static func elements(under node: xmlNodePtr) -> Int {
        var count = 0
        walkChildren(of: node, visit: { child in
            if child.isElement { count += 1 }
            return true
        })
        return count
    }

    private static func parse(_ html: String, stream: TreeStream?) throws -> HTMLDocument {
        try html.utf8CString.withUnsafeBytes { bytes in
            try HTMLDocument.parse(UnsafeRawBufferPointer(rebasing: bytes.dropLast()), limit: 1 << 24, stream: stream)
        }
    }

    /// The tree a Parsoid article leaves after its parse holds its last section and the emptied
    /// elements of the others: every section before it was read and freed while the parse went on.
    @Test func aParsoidArticlesSectionsAreFreedAsTheyAreRead() throws {
        var random = SplitMix64(state: 3)
        let html = SyntheticWiki.article(title: "Synthetic species 1", random: &random, size: 400_000)
        let whole = try Self.parse(html, stream: nil)
        let stream = TreeStream(rules: BlurbRules())
        let streamed = try Self.parse(html, stream: stream)
        let wholeRoot = try #require(ArticleCleaner.contentRoot(whole).0)
        let root = try #require(ArticleCleaner.contentRoot(streamed).0)
        #expect(stream.root == root)
        #expect(stream.readEarly > 20)
        var child = root.pointee.children
        var emptied = 0
        while let current = child, current != stream.lastRead?.pointee.next {
            #expect(current.pointee.children == nil)
            if current.isElement { emptied += 1 }
            child = current.pointee.next
        }
        #expect(emptied > 20)
        // After the emptied ones, the last section only (nothing starts after it to show it complete).
        var unread = 0
        while let current = child {
            if current.isElement { unread += 1 }
            child = current.pointee.next
        }
        #expect(unread == 1)
        #expect(Self.elements(under: root) < Self.elements(under: wholeRoot))
    }

    /// A legacy page's content root is only known once its tree is built: nothing is read early.
    @Test func aLegacyPageIsReadAfterItsParse() throws {
        let stream = TreeStream(rules: BlurbRules())
        _ = try Self.parse(try text(wikiFixture("Hermitian_matrix-legacy.html")), stream: stream)
        #expect(stream.root == nil && stream.readEarly == 0)
    }

    /// A reader that read early from a root other than the one the whole document has gives no
    /// blurb, and the maker parses again without reading early.
    @Test func aReaderOfAnotherRootGivesNoBlurb() throws {
        let stream = TreeStream(rules: BlurbRules())
        let html = Self.parsoid("<section><p>\(Self.prose)</p></section><section><p>\(Self.prose)</p></section>")
        let read = try Self.parse(html, stream: stream)
        #expect(stream.readEarly > 0)
        let other = try Self.parse(html, stream: nil)
        #expect(ArticleCleaner(rules: BlurbRules()).clean(other, tailHeading: nil, readSoFar: stream) == nil)
        withExtendedLifetime(read) {}
    }

    /// libxml2 reads an article through its I/O callbacks, a window at a time
    /// (`HTMLDocument.WindowedInput`), and builds the tree it builds from the whole input in
    /// memory (`htmlReadMemory`, which copies it twice).
    @Test func readingThroughAWindowBuildsTheTreeOfReadingFromMemory() throws {
        var pages = try realWikiPages.map { try text(wikiFixture($0)) }
        pages += TrailingBoilerplateTests.corpus.map { $0.replacingOccurrences(of: "\u{0}", with: "") }
        pages += [
            "\u{FEFF}" + Self.parsoid("<p>\(Self.prose)</p>"),
            Self.parsoid("<meta charset=\"utf-16\"/><p>\(Self.prose) Ünïcödé, 鶴, ١٢٣.</p>"),
            "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>" + Self.parsoid("<p>\(Self.prose) Café.</p>"),
            "<p>A fragment without a document, \(Self.prose)",
            // A comment, a script and an attribute value longer than libxml2's windows.
            Self.parsoid("<!--" + String(repeating: "a comment -- ", count: 3000) + "--><script>" + String(repeating: "if (a < b) {}", count: 3000)
                + "</script><p title=\"" + String(repeating: "x", count: 40_000) + "\">\(Self.prose)</p>"),
        ]
        var random = SplitMix64(state: 5)
        pages.append(SyntheticWiki.article(title: "Synthetic species 1", random: &random, size: 1_500_000))
        func dump(_ document: htmlDocPtr?) -> String {
            guard let document else { return "no document" }
            var out: UnsafeMutablePointer<xmlChar>? = nil
            var count: Int32 = 0
            htmlDocDumpMemory(document, &out, &count)
            defer { fp_xml_free(out) }
            return out.map { String(decoding: UnsafeBufferPointer(start: $0, count: Int(count)), as: UTF8.self) } ?? "nothing"
        }
        for page in pages {
            let windowed = try? Self.parse(page, stream: nil)
            let whole = page.utf8CString.withUnsafeBufferPointer { chars in
                htmlReadMemory(chars.baseAddress, Int32(chars.count - 1), nil, "UTF-8", HTMLDocument.options)
            }
            defer { xmlFreeDoc(whole) }
            #expect(dump(windowed?.pointer) == dump(whole), "\(page.prefix(80))")
        }
    }
}
