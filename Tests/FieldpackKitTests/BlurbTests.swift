import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// The blurb rules, one by one, on small articles in each markup flavour, and golden blurbs of
/// real pages.
@Suite struct BlurbTests {
    let maker = BlurbMaker()

    /// A Parsoid article body: sections wrapping bare headings.
    private func parsoid(_ sections: String) -> String {
        """
        <!DOCTYPE html><html><head><meta charset="utf-8"/><title>Test</title></head>
        <body class="mw-parser-output"><section data-mw-section-id="0">\(sections)</body></html>
        """
    }

    private let lead = "<p>The <b>great tit</b> (<i>Parus major</i>) is a passerine bird of woodlands and gardens across Europe.</p>"

    @Test func citationMarkersOfEveryStyleGoButRealSuperscriptsStay() throws {
        let blurb = try maker.blurb(html: parsoid("""
            <p>It covers about 12 km<sup>2</sup> of heath.<sup about="#mwt3" class="mw-ref reference" typeof="mw:Extension/ref">\
            <a href="./X#cite_note-1"><span class="mw-reflink-text"><span class="cite-bracket">[</span>1<span class="cite-bracket">]\
            </span></span></a></sup> Males sing.<sup class="mw-ref" typeof="mw:Extension/ref"><a>[lower-alpha 1]</a></sup>\
            <sup class="reference"><a>[a]</a></sup><sup typeof="mw:Extension/ref mw:Error"><a>[1.1]</a></sup>\
            <sup class="reference">:104</sup> Females do not[note 2] sing[12].</p>
            """))
        #expect(blurb.html == "<p>It covers about 12 km² of heath. Males sing. Females do not sing.</p>")
    }

    @Test func linksKeepTheirTextOnly() throws {
        let blurb = try maker.blurb(html: parsoid(lead.replacingOccurrences(
            of: "passerine", with: "<a rel=\"mw:WikiLink\" href=\"./Passerine\" title=\"Passerine\">passerine</a>")))
        #expect(blurb.html.contains("is a passerine bird"))
        #expect(!blurb.html.contains("href") && !blurb.html.contains("title"))
    }

    @Test func tablesFiguresHatnotesAndBoxesAreDropped() throws {
        let blurb = try maker.blurb(html: parsoid("""
            <div class="shortdescription nomobile noexcerpt noprint searchaux" style="display:none">Species of bird</div>
            <div role="note" class="hatnote navigation-not-searchable">For other uses, see Tit.</div>
            <table class="infobox biota"><tr><td>Kingdom: Animalia. A long cell of text that is not prose at all here.</td></tr></table>
            <table class="ambox"><tr><td>This article needs additional citations for verification of its claims.</td></tr></table>
            <div class="infobox_v3 noarchive large taxobox_v3 zoologie animal bordered"><p>A great tit on a branch, an adult male.</p></div>
            <figure typeof="mw:File/Thumb"><img src="x.jpg"/><figcaption>A male great tit singing on a branch in spring.</figcaption></figure>
            <style data-mw-deduplicate="TemplateStyles:r1">.x{color:red}</style>
            \(lead)<link rel="mw:PageProp/Category" href="./Category:Birds"/>
            <div role="navigation" class="navbox">Birds of Europe: tits, chickadees and titmice of the region.</div>
            """))
        #expect(blurb.html == "<p>The <b>great tit</b> (<i>Parus major</i>) is a passerine bird of woodlands and gardens across Europe.</p>")
    }

    @Test func boilerplateSectionsAreSkippedWithTheirSubsections() throws {
        let blurb = try maker.blurb(html: parsoid("""
            \(lead)</section>
            <section data-mw-section-id="1"><h2 id="Description">Description</h2>
            <p>Adults weigh about eighteen grams and have a black head with white cheeks.</p></section>
            <section data-mw-section-id="2"><h2 id="See_also">See also</h2><p>Other tits are described in other articles of this wiki.</p>
            <section data-mw-section-id="3"><h3 id="Lists">Related lists</h3><p>A list of the birds of Europe can be found elsewhere.</p></section></section>
            <section data-mw-section-id="4"><h2 id="References">References</h2>
            <div class="reflist"><ol class="mw-references references"><li>Smith, J. (2001). Tits. A very long reference text.</li></ol></div></section>
            """))
        #expect(blurb.html.hasSuffix("<br><b>DESCRIPTION</b><br><p>Adults weigh about eighteen grams and have a black head with white cheeks.</p>"))
        #expect(!blurb.html.contains("Other tits") && !blurb.html.contains("list of the birds") && !blurb.html.contains("Smith"))
        #expect(blurb.sections == 1)
    }

    @Test func emptySectionsAndShortHeadingsAreNotShownAndHeadingsAreBoldUpperCase() throws {
        let blurb = try maker.blurb(html: parsoid("""
            \(lead)</section><section data-mw-section-id="1"><h2 id="Behaviour">Behaviour</h2>
            <section data-mw-section-id="2"><h3 id="Diet">Diet and feeding</h3><p>It eats insects in summer and seeds in winter, often at feeders.</p></section></section>
            <section data-mw-section-id="3"><h2 id="Art">Art</h2><p>The bird appears on stamps and coins of several European countries.</p></section>
            """))
        #expect(blurb.html.components(separatedBy: "<b>").count - 1 == 2)  // the lead's bold and one heading
        #expect(blurb.html.contains("<br><b>DIET AND FEEDING</b><br><p>It eats insects"))
        #expect(!blurb.html.contains("BEHAVIOUR") && !blurb.html.contains("ART"))
        #expect(blurb.html.contains("<p>The bird appears on stamps"))
    }

    @Test func stubsAndOrphanedListIntroductionsAreDropped() throws {
        let blurb = try maker.blurb(html: parsoid("""
            \(lead)<p>Adult female, Belgium</p><p>51°N 4°E</p><p>Short but a sentence.</p>
            <p>The subspecies are:</p><ul><li>P. m. major</li></ul><p>Recognised forms include:-</p><p class="mw-empty-elt"></p>
            """))
        #expect(blurb.html == lead.replacingOccurrences(of: "</p>", with: "</p>") + "<p>Short but a sentence.</p>")
    }

    /// A list introduction after whole sentences takes only itself with it: the sentences
    /// before it stay ("The Crimea's highest peak is … The other peaks are:" lost its peak).
    @Test func aListIntroductionAfterWholeSentencesTakesOnlyItselfWithIt() throws {
        let blurb = try maker.blurb(html: parsoid("""
            \(lead)<p>The mountains consist of three ranges. The highest is the Main Range, a chain of plateaus. Its peaks are:</p>
            <ul><li>Roman-Kosh</li></ul><p>Kohlmeisen rufen „Zizibä“ und „Titi“ und singen im Frühjahr laut. Die Unterarten sind：</p>
            """))
        #expect(blurb.html == lead + "<p>The mountains consist of three ranges. The highest is the Main Range, a chain of plateaus.</p>"
            + "<p>Kohlmeisen rufen „Zizibä“ und „Titi“ und singen im Frühjahr laut.</p>")
    }

    /// What an abbreviation makes look like a sentence before a list introduction is not kept:
    /// a fragment shorter than a stub, or one that stops inside a bracket.
    @Test func anAbbreviationBeforeAListIntroductionKeepsNoFragment() throws {
        let blurb = try maker.blurb(html: parsoid("""
            \(lead)<p>Birds breeding on St. Helena and the islands nearby include:</p><ul><li>Sooty tern</li></ul>
            <p>Three subspecies of the great tit of Europe and Asia are recognised here (Gill et al. 2020, and later works):</p><ul><li>P. m. major</li></ul>
            """))
        #expect(blurb.html == lead, "\(blurb.html)")
    }

    @Test func legacyHeadingsOfBothGenerationsAreRead() throws {
        let blurb = try maker.blurb(html: """
            <html><head><title>Heath - Wikipedia</title></head><body>
            <div id="toc" class="toc"><h2 id="mw-toc-heading">Contents</h2></div>
            <div class="mw-parser-output">\(lead)
            <h2><span class="mw-headline" id="History">History</span><span class="mw-editsection">[<a href="/w/index.php?action=edit">edit</a>]</span></h2>
            <p>The heath was grazed by sheep for centuries before it became a reserve.</p>
            <div class="mw-heading mw-heading2"><h2 id="Fauna">Fauna</h2><span class="mw-editsection">[<a>edit</a>]</span></div>
            <p>Nightjars and woodlarks breed on the open heath in late spring.<sup id="cite_ref-1" class="reference"><a>&#91;1&#93;</a></sup></p>
            </div><h2>Navigation menu</h2><p>Not part of the article at all, and long enough to count.</p></body></html>
            """)
        #expect(blurb.html.contains("<br><b>HISTORY</b><br><p>The heath was grazed"))
        #expect(blurb.html.hasSuffix("<br><b>FAUNA</b><br><p>Nightjars and woodlarks breed on the open heath in late spring.</p>"))
        #expect(!blurb.html.contains("CONTENTS") && !blurb.html.contains("edit") && !blurb.html.contains("Navigation"))
        #expect(blurb.title == "Heath - Wikipedia")
    }

    /// A saved page view carries parsed wikitext before the article: its status indicators (a
    /// protection lock, a place's title coordinates) and the site notice. The article is the
    /// content text's, not the first `mw-parser-output` of the page.
    @Test(arguments: [true, false])
    func aPageViewsIndicatorsAndSiteNoticeAreNotTakenForTheArticle(wrapped: Bool) throws {
        let article = """
            <div class="mw-parser-output">\(lead)
            <h2><span class="mw-headline" id="Fauna">Fauna</span></h2>
            <p>Nightjars and woodlarks breed on the open heath in late spring.</p></div>
            """
        let blurb = try maker.blurb(html: """
            <html><head><title>Heath - Wikipedia</title></head><body>
            <div id="siteNotice"><div id="localNotice"><div class="mw-parser-output"><p>Wiki Loves Earth: upload photos of the nature of your country this month.</p></div></div></div>
            <div class="vector-body-before-content"><div class="mw-indicators">
            <div id="mw-indicator-pp-default" class="mw-indicator"><div class="mw-parser-output"><span typeof="mw:File"><a href="/wiki/Wikipedia:Protection_policy#semi" title="This article is semi-protected."><img alt="Page semi-protected" src="//upload.wikimedia.org/lock.png" width="20" height="20"></a></span></div></div>
            <div id="mw-indicator-coordinates" class="mw-indicator"><div class="mw-parser-output"><span class="geo">51.4; 4.5</span></div></div>
            </div></div>
            \(wrapped ? #"<div id="mw-content-text" class="mw-body-content">\#(article)</div>"# : article)
            </body></html>
            """)
        #expect(blurb.html.hasPrefix(lead), "\(blurb.html)")
        #expect(blurb.html.hasSuffix("<br><b>FAUNA</b><br><p>Nightjars and woodlarks breed on the open heath in late spring.</p>"), "\(blurb.html)")
        #expect(!blurb.html.contains("Wiki Loves") && !blurb.html.contains("51.4"))
    }

    /// A ruby reading goes in brackets after its base, as a browser without ruby shows it when
    /// the page gives `<rp>` brackets; without them it was glued to the base.
    @Test(arguments: [
        "<ruby>四十雀<rt>しじゅうから</rt></ruby>",
        "<ruby>四十雀<rp>（</rp><rt>しじゅうから</rt><rp>）</rp></ruby>",
    ])
    func aRubyReadingIsShownInBracketsAfterItsBase(ruby: String) throws {
        let blurb = try maker.blurb(html: parsoid("<p>\(ruby)（学名: Parus minor）は、スズメ目シジュウカラ科に分類される鳥類の一種である。日本全国に分布する。</p>"))
        #expect(blurb.html.hasPrefix("<p>四十雀（しじゅうから）（学名: Parus minor）は"), "\(blurb.html)")
    }

    /// A Latin reading (pinyin on an English page) takes ASCII brackets; a hidden one shows nothing.
    @Test func aLatinRubyReadingTakesPlainBracketsAndAHiddenOneIsDropped() throws {
        let blurb = try maker.blurb(html: parsoid("""
            <p>The great tit is called <ruby>大山雀<rt>dà shānquè</rt></ruby> in Chinese and \
            <ruby>四十雀<rt style="display:none">しじゅうから</rt></ruby> in Japanese, where it is common.</p>
            """))
        #expect(blurb.html.contains("<ruby>") == false)
        #expect(blurb.html.contains("大山雀(dà shānquè) in Chinese and 四十雀 in Japanese"), "\(blurb.html)")
    }

    @Test func theSummaryIsTheLeadCutAtASentenceNearTheLength() throws {
        var rules = BlurbRules()
        rules.summaryLength = 120
        let text = "<p>First sentence is here and it is long enough to matter a bit. Second sentence follows it, also long. "
            + "Third sentence goes past the limit by some way for sure.</p>"
        let blurb = try BlurbMaker(rules: rules).blurb(html: parsoid(text + "</section><section><h2>Later</h2><p>Not in the summary at all, though it is prose.</p>"))
        #expect(blurb.summary == "First sentence is here and it is long enough to matter a bit. Second sentence follows it, also long.")
    }

    @Test func redirectStubsAndDisambiguationPagesAreRecognized() throws {
        let stub = try maker.blurb(html: text(wikiFixture("redirect-stub.html")))
        #expect(stub.kind == .redirect("Aşkale"))
        #expect(stub.html.isEmpty)
        let line = try lines(wikiFixture("enterprise-2021.ndjson"))[0]
        let html = try #require(((try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["article_body"]
            as? [String: Any])?["html"] as? String)
        #expect(try maker.blurb(html: html).kind == .disambiguation)
    }

    @Test func anEnterpriseDumpLineMakesItsGoldenBlurb() throws {
        // William Clark (inventor), enwiki 2021: a hatnote, a reference, categories and hidden
        // template spans inside the lead paragraph.
        let line = try lines(wikiFixture("enterprise-2021.ndjson"))[1]
        let html = try #require(((try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["article_body"]
            as? [String: Any])?["html"] as? String)
        let blurb = try maker.blurb(html: html)
        let directory = try TemporaryDirectory()
        try expectGolden(try directory.write("blurb.html", "\(blurb.html)\n\nsummary: \(blurb.summary)\n"), "wiki-enterprise-William_Clark.html")
    }


    @Test(arguments: [
        "Dog.html", "Cat-parse_contents_en.html", "Hermitian_matrix-legacy.html", "Crimean_Mountains-parsoid.html", "SubReferences.html",
        // Constructed in the real markup's shape (SOURCES.md): zh and ar Parsoid, the apps' mobile-html.
        "zh-Red-crowned_crane-parsoid.html", "ar-Cheetah-parsoid.html", "mobile-html-Common_kingfisher.html",
    ])
    func realPagesMakeTheirGoldenBlurbs(name: String) throws {
        // CiteDetails is a test page of one-line examples: keep its short paragraphs to see
        // its sub-references ([1.1], [group 1.2]) go.
        var rules = BlurbRules()
        if name == "SubReferences.html" { rules.stubLength = 0 }
        let blurb = try BlurbMaker(rules: rules).blurb(html: text(wikiFixture(name)))
        let directory = try TemporaryDirectory()
        let output = try directory.write("blurb.html", "\(blurb.html)\n\nsummary: \(blurb.summary)\n")
        try expectGolden(output, "wiki-\(name)")
        // Whatever the page, the blurb is safe markup: sanitizing it again changes nothing.
        #expect(Sanitizer().sanitize(blurb.html).map { $0.replacingOccurrences(of: "<p></p>", with: "") } == blurb.html
                || blurb.html.isEmpty)
    }
}
