@testable import FieldpackKit
@testable import FieldpackSynth
import FieldpackTestSupport
import Foundation
import Testing

/// The tree of an article's trailing boilerplate is left unbuilt (`TreeTail`), and libxml2 stops
/// reading where the bytes are shown inert (`InertTail`): the blurb is always the one a whole
/// parse gives, whatever the bytes hide (comments, scripts, attribute values, misnested or
/// upper-case headings, deep nesting). Each case is compared with `buildsWholeTree = true`.
@Suite struct TrailingBoilerplateTests {
    private static let lead = #"<section data-mw-section-id="0"><p>The great tit is a passerine bird of woodlands and gardens across Europe.</p></section>"#
    private static let nest = "<p>They nest in holes in trees and in nest boxes in gardens.</p>"

    private static func article(_ sections: String, head: String = "", bodyClass: String = "mw-parser-output", lead: String = lead) -> String {
        """
        <!DOCTYPE html><html><head><title>Great tit</title>\(head)</head><body class="\(bodyClass)">\(lead)\(sections)</body></html>
        """
    }

    /// What a blurb is, refusals included, for comparing two ways of making it.
    private static func outcome(_ html: String, unbuilt: Bool, rules: BlurbRules = BlurbRules()) -> String {
        var maker = BlurbMaker(rules: rules)
        maker.buildsWholeTree = !unbuilt
        // The whole parse is the plain one: built whole, read after it (`ReadWhileBuildingTests`).
        maker.readsWhileBuilding = unbuilt
        do {
            let blurb = try maker.blurb(html: html)
            return "\(blurb.kind) | \(blurb.title ?? "-") | \(blurb.sections) | \(blurb.html) | \(blurb.summary) | \(blurb.page)"
        } catch {
            return "refused: \(error)"
        }
    }

    private static func expectSameAsWholeParse(_ html: String, rules: BlurbRules = BlurbRules(), sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(outcome(html, unbuilt: true, rules: rules) == outcome(html, unbuilt: false, rules: rules), sourceLocation: sourceLocation)
    }

    /// Articles whose bytes make a scan for `<h2` see a trailing "References" that is not what
    /// libxml2 reads, or hide after it something the rules read. Each one fooled the byte cut
    /// that parsed only up to the proposed heading.
    static let hidingArticles: [(String, String)] = [
        ("a heading in a comment", article(
            "<section><h2>Biology</h2><p>Adults weigh about eighteen grams and have a black head.</p><!-- <section><h2>References</h2> -->\(nest)</section>")),
        ("a heading in an attribute value", article(
            #"<section><h2>Biology</h2><p title="<section><h2>References</h2>">They nest in holes in trees and in nest boxes in gardens.</p></section>"#)),
        ("a heading in a script", article(
            #"<section><h2>Biology</h2><script>var s = "<section><h2>References</h2>";</script>\#(nest)</section>"#)),
        ("a heading in the head's script", article(
            "<section><h2>Biology</h2>\(nest)</section>", head: #"<script>var s = "<h2>References</h2>";</script>"#)),
        ("an upper-case heading after it", article("<section><h2>References</h2><p>A list.</p></section><section><H2>Biology</H2>\(nest)</section>")),
        ("a heading with a tab after its name", article(
            "<section><h2>References</h2><p>A list.</p></section><section><h2\tid=\"b\">Biology</h2>\(nest)</section>")),
        ("a heading inside a navbox", article(#"<section><h2>Biology</h2><div class="navbox"><h2>References</h2></div>\#(nest)</section>"#)),
        ("an attribute with a > before the heading's text", article(
            #"<section><h2>References</h2><p>A list.</p></section><section><h2 title=">References</h2>">Biology</h2>\#(nest)</section>"#)),
        ("an edit link the rules keep", article(
            "<section><h2>Biology</h2>\(nest)</section><section><h2>Notes<span>[edit]</span></h2><p>These notes are shown as a section of the article itself.</p></section>")),
        ("a redirect link after it", article(#"<section><h2>References</h2><link rel="mw:PageProp/redirect" href="./Parus_major"/></section>"#)),
        ("a disambiguation marker written with a character reference", article(
            #"<section><h2>References</h2><meta property="mw:PageProp&#47;disambiguation"/></section>"#)),
        ("the content root after it", article(
            #"<h2>References</h2><div class="mw-parser-output"><p>Only this paragraph is the article body here.</p></div>"#, bodyClass: "x",
            lead: "<p>The great tit is a passerine bird of woodlands and gardens across Europe.</p>")),
        ("a heading inside a paragraph's bold text", article(
            "<section><h2>Biology</h2><p><b>Adults weigh about eighteen grams <h2>References</h2> and have a black head.</b></p></section>")),
        ("a heading left open", article("<section><h2>Biology</h2>\(nest)</section><section><h2>References")),
        ("a comment left open", article("<section><h2>References</h2><!-- <p>x</p></section><section><h2>Biology</h2>\(nest)")),
        ("a non-breaking space in a skipped name", article(
            "<section><h2>References</h2><p>A list.</p></section><section><h2>See\u{A0}also</h2><p>Other tits.</p></section>")),
        ("text after the body", article("<section><h2>References</h2><p>A list.</p></section></body></html> <p>They nest in holes in trees and in nest boxes.</p>")),
    ]

    @Test(arguments: hidingArticles)
    func whatTheBytesHideIsReadAsAWholeParseReadsIt(name: String, html: String) {
        Self.expectSameAsWholeParse(html)
    }

    /// Tails after a trailing "References" heading written to sit at the edge of what `InertTail`
    /// accepts as inert: each makes the blurb a whole parse makes, inert or not.
    static let edgeTails: [String] = [
        "<ol class=\"references\"><li id=cite_note-1 hidden>A source.<br>More.</li></ol>",
        "<ol><li><a href=./X/>x</a></li></ol></section></body></html>\n",
        "</section></body> <p>Kept after the body?</p></html>",
        "</section></body></html>tail text",
        "<div><h2/></div><p>After an empty heading.</p>",
        "<H2>Biology</H2><p>Upper-case heading after it.</p>",
        "<h2>See also</h2><p>A list.</p><h2>External links</h2>",
        "<h2>External&#32;links</h2><p>With a reference in the heading.</p>",
        "<h2>Notes <span>1</span></h2><p>A heading with an element.</p>",
        "<p>x</p></p></br><p>Stray end tags.</p>",
        "<link rel=mw:PageProp/redirect href=./Parus_major>",
        "<meta property='mw:PageProp/disambiguation'/>",
        "<div class=\"mw&#45;parser-output\"><p>A root written with a reference.</p></div>",
        "<div class=\"MW-PARSER-OUTPUT\"><p>Another case.</p></div>",
        "<div title=\"</div><h2>Biology</h2>\"><p>A heading in an attribute.</p></div>",
        "<div\u{0C}class=navbox><h2>Biology</h2></div>",
        "<div =x><h2>Biology</h2></div>",
        "<style>h2{}</style><h2>Biology</h2>",
        "<textarea><h2>Biology</h2></textarea>",
        "<!-- </section> --><h2>Biology</h2><p>After a comment.</p>",
        "<?php echo 1 ?><h2>Biology</h2>",
        "<a b='1'c=2><h2>Biology</h2></a>",
        String(repeating: "<div>", count: 200) + "x" + String(repeating: "</div>", count: 200),
        String(repeating: "<div>", count: 260) + "x" + String(repeating: "</div>", count: 260),
        String(repeating: "<br>", count: 400) + String(repeating: "<img src=x>", count: 400),
    ]

    @Test(arguments: edgeTails)
    func aTailAtTheEdgeOfWhatIsShownInertMakesTheWholeParsesBlurb(tail: String) {
        Self.expectSameAsWholeParse(Self.article("<section><h2>Biology</h2>\(Self.nest)</section><section><h2>References</h2>\(tail)</section>"))
    }

    /// The tree does stop: an ordinary article's reference list is never built.
    @Test func anArticlesTrailingReferenceListIsNotBuilt() throws {
        let html = Self.article("""
            <section><h2 id="Biology">Biology</h2>\(Self.nest)</section>
            <section><h2 id="References">References</h2><ol class="references"><li id="cite_note-1">A source.</li></ol></section>
            """)
        let rules = BlurbRules()
        var watch: TreeTail? = nil
        let document = try html.utf8CString.withUnsafeBytes { bytes in
            try HTMLDocument.parse(UnsafeRawBufferPointer(rebasing: bytes.dropLast()), limit: 1 << 20) { clean in
                watch = BoilerplateTail.headingTagEnd(in: clean, skipped: rules.skippedSections).map { TreeTail(stopAt: $0, rules: rules, bytes: clean) }
                return watch
            }
        }
        let tail = try #require(watch)
        #expect(tail.stopped && tail.provedInert)
        var names: [String] = []
        walkChildren(of: try #require(ArticleCleaner.contentRoot(document).0), visit: { node in
            if node.isElement { names.append(String(cString: node.pointee.name)) }
            return true
        })
        #expect(names.contains("h2") && !names.contains("ol") && !names.contains("li"))
        #expect(Self.outcome(html, unbuilt: true).contains("They nest in holes"))
    }

    /// libxml2 refuses a document nested past its depth limit: the same documents are refused,
    /// with the same depth, when the nesting is in the part left unbuilt.
    @Test(arguments: [240, 250, 251, 252, 253, 254, 255, 256, 257, 258, 260, 300])
    func aTailNestedPastLibxml2sLimitIsRefusedAsAWholeParseRefusesIt(depth: Int) {
        let nested = String(repeating: "<div>", count: depth) + "x" + String(repeating: "</div>", count: depth)
        Self.expectSameAsWholeParse(Self.article("<section><h2>References</h2>\(nested)</section>"))
        // Inside a heading of the tail, which is built to be read, then freed.
        Self.expectSameAsWholeParse(Self.article("<section><h2>References</h2></section><section><h2>Notes" + nested + "</h2></section>"))
    }

    /// The walk remembers libxml2's answer (an element kept empty or not) for a few dozen tag
    /// names, then asks libxml2 again: after 70 made-up names, elements nested past the depth
    /// limit are still counted, so the document is refused as a whole parse refuses it.
    @Test(arguments: [250, 255, 256, 257, 260])
    func afterManyTagNamesEveryElementStillCountsTowardsTheDepthLimit(depth: Int) {
        let names = (1...70).map { "<x\($0) class=a></x\($0)>" }.joined()
        let nested = String(repeating: "<span><br>", count: depth) + "x" + String(repeating: "</span>", count: depth)
        Self.expectSameAsWholeParse(Self.article("<section><h2>References</h2>\(names)\(nested)</section>"))
    }

    /// The wiki's own skip list decides, as the rules do: a section the pipeline adds is skipped,
    /// and one it does not list is read.
    @Test func thePipelinesSkippedSectionsDecideWhatIsLeftUnbuilt() {
        var rules = BlurbRules()
        rules.skippedSections.insert("distribution maps")
        let html = Self.article("<section><h2>Biology</h2>\(Self.nest)</section><section><h2>Distribution maps</h2><p>Maps of where it lives in winter.</p></section>")
        Self.expectSameAsWholeParse(html, rules: rules)
        Self.expectSameAsWholeParse(html)
        #expect(!Self.outcome(html, unbuilt: true, rules: rules).contains("Maps of where"))
        #expect(Self.outcome(html, unbuilt: true).contains("Maps of where"))
    }

    @Test(arguments: realWikiPages)
    func realPagesMakeTheWholeParsesBlurb(name: String) throws {
        Self.expectSameAsWholeParse(try text(wikiFixture(name)))
    }

    @Test func syntheticArticlesOfEverySizeMakeTheWholeParsesBlurb() {
        var random = SplitMix64(state: 7)
        for size in [4_000, 50_000, 400_000, 1_500_000] {
            Self.expectSameAsWholeParse(SyntheticWiki.article(title: "Synthetic species \(size)", random: &random, size: size))
        }
    }

    /// The shared hostile-HTML corpus (`../shared/corpus/xss`, or `XSS_CORPUS`), each vector
    /// placed before the trailing boilerplate, inside it, and inside its heading.
    static let corpus: [String] = {
        let folder = ProcessInfo.processInfo.environment["XSS_CORPUS"] ?? "\(repositoryRoot)/../shared/corpus/xss"
        guard let lines = try? FieldpackTestSupport.lines("\(folder)/vectors.jsonl") else { return [] }
        return lines.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["html"] as? String
        }
    }()

    @Test(.enabled(if: !corpus.isEmpty, "no hostile-HTML corpus at ../shared/corpus/xss (set XSS_CORPUS)"))
    func hostileVectorsAroundTheTrailingBoilerplateMakeTheWholeParsesBlurb() {
        for vector in Self.corpus {
            Self.expectSameAsWholeParse(Self.article("<section><h2>Biology</h2>\(vector)\(Self.nest)</section><section><h2>References</h2><p>A list.</p></section>"))
            Self.expectSameAsWholeParse(Self.article("<section><h2>Biology</h2>\(Self.nest)</section><section><h2>References</h2>\(vector)</section>"))
            Self.expectSameAsWholeParse(Self.article("<section><h2>Biology</h2>\(Self.nest)</section><section><h2>References</h2></section><section><h2>Notes\(vector)</h2></section>"))
        }
    }
}
