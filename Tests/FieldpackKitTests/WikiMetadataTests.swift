import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// Issue 10, rule 7: an article's page id, revision, date and licence come from the page
/// itself; of several copies the newest revision wins; the licence is the stated one, else the
/// one in force at the revision's date.
@Suite struct WikiMetadataTests {
    private typealias H = WikiHarness

    @Test(arguments: [
        ("Dog.html", 4_269_567, 845_493_773, "2018-06-12T04:32:17.000Z", "https://en.wikipedia.org/wiki/Dog"),
        ("Crimean_Mountains-parsoid.html", 4_016_366, 1_147_024_636, "2023-03-28T11:42:48.000Z", "https://en.wikipedia.org/wiki/Crimean_Mountains"),
        ("SubReferences.html", 167_874, 673_412, "2025-09-05T11:48:33.000Z", "https://test.wikipedia.org/wiki/CiteDetails"),
    ])
    func aRealParsoidPageGivesItsPageIdRevisionDateAndAddressFromItsHead(
        file: String, pageID: Int64, revision: Int64, modified: String, url: String
    ) throws {
        let html = try text("\(H.fixtures)/\(file)")
        let page = try BlurbMaker().blurb(html: html).page
        #expect(page.pageID == pageID)
        #expect(page.revision == revision)
        #expect(page.modified == modified)
        #expect(page.url == url)
        #expect(page.license == nil)  // none of these pages states one
    }

    /// An id longer than 18 digits is no id (nil), never a truncated number that could make an
    /// old copy look newest.
    @Test(arguments: [("123456789012345678", Int64(123_456_789_012_345_678)), ("1234567890123456789", nil)])
    func aRevisionOfTooManyDigitsIsNoRevision(digits: String, revision: Int64?) throws {
        let html = """
            <!DOCTYPE html><html about="https://en.wikipedia.org/wiki/Special:Redirect/revision/\(digits)"><head>
            <meta charset="utf-8"/><meta property="mw:pageId" content="\(digits)"/><title>Great tit</title></head>
            <body><section data-mw-section-id="0"><p>\(H.tit)</p></section></body></html>
            """
        let page = try BlurbMaker().blurb(html: html).page
        #expect(page.revision == revision)
        #expect(page.pageID == revision)
    }

    @Test func aSavedPageViewGivesItsIdsFromRLCONFAndItsLicenceFromItsHeadLink() throws {
        let page = try BlurbMaker().blurb(html: try text("\(H.fixtures)/Hermitian_matrix-legacy.html")).page
        #expect(page.pageID == 189_682)
        #expect(page.revision == 942_460_710)
        #expect(page.license == "CC-BY-SA-3.0")  // <link rel="license" href="//creativecommons.org/licenses/by-sa/3.0/" />
        #expect(page.url == "https://en.wikipedia.org/wiki/Hermitian_matrix")
        #expect(page.modified == nil)
    }

    @Test func aSavedPageViewWithoutAHeadLicenceStatesItInItsFooter() throws {
        // The shape of a Vector page view saved from en.wikipedia.org (sample-data's legacy page).
        let html = """
            <!DOCTYPE html>
            <html class="client-nojs" lang="en" dir="ltr">
            <head>
            <meta charset="UTF-8">
            <title>Great tit - Wikipedia</title>
            <script>RLCONF={"wgPageName":"Great_tit","wgCurRevisionId":1282922208,"wgRevisionId":1282922208,"wgArticleId":381722,"wgIsArticle":true,"wgWikibaseItemId":"Q25485"};</script>
            <link rel="canonical" href="https://en.wikipedia.org/wiki/Great_tit">
            </head>
            <body><div id="mw-content-text"><div class="mw-content-ltr mw-parser-output"><p>\(H.tit)</p>
            <h2><span class="mw-headline" id="References">References</span></h2><p>Gosler, A. (1993). The Great Tit.</p></div></div>
            <footer id="footer"><ul id="footer-info"><li id="footer-info-lastmod"> This page was last edited on 21 October 2026, at 08:12</li>
            <li id="footer-info-copyright">Text is available under the <a rel="nofollow" class="external text" href="https://creativecommons.org/licenses/by-sa/4.0/">Creative Commons Attribution-ShareAlike 4.0 License</a>; additional terms may apply.</li></ul></footer>
            </body></html>
            """
        let blurb = try BlurbMaker().blurb(html: html)
        #expect(blurb.html == "<p>\(H.tit)</p>")  // the footer is past the cut before References
        #expect(blurb.page.pageID == 381_722)
        #expect(blurb.page.revision == 1_282_922_208)
        #expect(blurb.page.wikidata == "Q25485")
        #expect(blurb.page.license == "CC-BY-SA-4.0")
        #expect(blurb.page.url == "https://en.wikipedia.org/wiki/Great_tit")
    }

    @Test func anHTMLPageInAFolderCarriesItsOwnMetadataAndTheLicenceInForceAtItsDate() throws {
        let directory = try TemporaryDirectory()
        let dog = try directory.write("pages/Dog.html", try text("\(H.fixtures)/Dog.html"))
        // No <title>: titled by the address it gives for itself, not its file name.
        let tit = try directory.write("pages/page2.html", H.parsoid(
            pageID: 381_722, revision: 1_282_922_208, modified: "2026-11-14T09:27:41Z", isVersionOf: "//en.wikipedia.org/wiki/Great_tit"))
        let output = try H.run([dog, tit], wants: H.wants(["Dog", "Great tit"]), in: directory)
        let dogArticle = try #require(output.articles["Dog"])
        #expect(dogArticle["page_id"] as? Int == 4_269_567)
        #expect(dogArticle["revision"] as? Int == 845_493_773)
        #expect(dogArticle["modified"] as? String == "2018-06-12T04:32:17.000Z")
        #expect(dogArticle["license"] as? String == "CC-BY-SA-3.0")  // 2018: before the 2023 Terms of Use
        #expect(dogArticle["url"] as? String == "https://en.wikipedia.org/wiki/Dog")
        let titArticle = try #require(output.articles["Great tit"])
        #expect(titArticle["page_id"] as? Int == 381_722)
        #expect(titArticle["revision"] as? Int == 1_282_922_208)
        #expect(titArticle["license"] as? String == "CC-BY-SA-4.0")  // 2026
        #expect(titArticle["url"] as? String == "https://en.wikipedia.org/wiki/Great_tit")
    }

    /// A saved redirect page and a saved disambiguation page (legacy markup, no Parsoid page
    /// properties) are a redirect to follow and a disambiguation to skip, never empty articles.
    @Test func aSavedRedirectOrDisambiguationPageIsReadAsOne() throws {
        func page(_ content: String) -> String {
            """
            <!DOCTYPE html><html lang="de"><head><meta charset="UTF-8"><title>Seite – Wikipedia</title></head>
            <body><div id="mw-content-text"><div class="mw-content-ltr mw-parser-output">\(content)</div></div></body></html>
            """
        }
        let redirect = try BlurbMaker().blurb(html: page("""
            <div class="redirectMsg"><p>Weiterleitung nach:</p><ul class="redirectText"><li><a href="/wiki/Kohlmeise#Verhalten" title="Kohlmeise">Kohlmeise</a></li></ul></div>
            """))
        #expect(redirect.kind == .redirect("Kohlmeise"))
        let byAddress = try BlurbMaker().blurb(html: page("""
            <div class="redirectMsg"><p>Redirect to:</p><ul class="redirectText"><li><a href="/wiki/Great_tit">Great tit</a></li></ul></div>
            """))
        #expect(byAddress.kind == .redirect("Great tit"))
        let disambiguation = try BlurbMaker().blurb(html: page("""
            <p><b>Lixus</b> steht für:</p><ul><li>Lixus (Marokko), eine antike Stadt</li></ul>
            <table id="disambigbox" class="dmbox"><tr><td>Dies ist eine Begriffsklärungsseite.</td></tr></table>
            """))
        #expect(disambiguation.kind == .disambiguation)
        let english = try BlurbMaker().blurb(html: page("""
            <p><b>Lixus</b> may refer to:</p><div id="disambig" class="metadata plainlinks dmbox dmbox-disambig"><p>This page lists …</p></div>
            """))
        #expect(english.kind == .disambiguation)
        let article = try BlurbMaker().blurb(html: page("<p>Die Kohlmeise ist eine Vogelart aus der Familie der Meisen, die in Europa weit verbreitet ist.</p>"))
        #expect(article.kind == .article && !article.html.isEmpty)
    }

    /// A page of another language's Wikipedia with a title the pipeline wants ("Lion" is French
    /// too) is not that article: the dump's English one is kept, not replaced.
    @Test func aPageOfAnotherLanguagesWikipediaIsNotTheWantedArticle() throws {
        let directory = try TemporaryDirectory()
        let english = try directory.write("dump.ndjson", H.line("Lion", H.parsoid("The lion is a large cat of the genus Panthera, native to Africa and India.")) + "\n")
        // As the French Wikipedia's REST API serves it.
        let french = try directory.write("pages/Lion.html", H.parsoid(
            "Le lion est une espèce de mammifères carnivores de la famille des félidés, vivant en Afrique.", title: "Lion",
            isVersionOf: "//fr.wikipedia.org/wiki/Lion"))
        let output = try H.run([english, french], wants: H.wants(["Lion"]), in: directory)
        let lion = try #require(output.articles["Lion"])
        #expect((lion["html"] as? String)?.hasPrefix("<p>The lion is a large cat") == true, "\(lion)")
        #expect(lion["url"] as? String == "https://en.wikipedia.org/wiki/Lion")
        // Alone, it is no article at all, and a guide that wants articles is not published without
        // them: no line of the inputs is of the pipeline's Wikipedia.
        let alone = try TemporaryDirectory()
        let error = try #require(throws: FieldpackError.self) { try H.run([french], wants: H.wants(["Lion"]), in: alone) }
        #expect(error.path == french)
        #expect(error.message == "no line of the Wikipedia inputs is of en Wikipedia, the pipeline's wikipedia_language, and 1 article is wanted: "
            + "1 line is of other wikis (fr: 1); give the dump of that language's Wikipedia, or set wikipedia_language to the dump's")
        #expect(!FileSystem.exists(alone.file("articles.jsonl")))
        #expect(FileSystem.exists(alone.file("rejects.jsonl")), "the rejects are written")
    }

    /// A page saved from the address of a redirect (`/wiki/Parus_major`, which shows "Great tit"
    /// and says "Redirected from Parus major") is the article its wanted alias leads to, as an
    /// alias in a dump line's `redirects` is, where it was skipped as "Great tit", which no one
    /// wanted. Its `RLCONF` string is read with its escapes.
    @Test func aSavedPageReachedThroughARedirectIsTheArticleItsWantedAliasLeadsTo() throws {
        let directory = try TemporaryDirectory()
        func page(_ title: String, id: Int, from redirect: String) -> String {
            let name = title.replacingOccurrences(of: " ", with: "_")
            return """
                <!DOCTYPE html><html lang="en"><head><meta charset="UTF-8"><title>\(title) - Wikipedia</title>
                <script>RLCONF={"wgPageName":"\(name)","wgArticleId":\(id),"wgRedirectedFrom":\(redirect),"wgIsArticle":true};</script>
                <link rel="canonical" href="https://en.wikipedia.org/wiki/\(name)"></head>
                <body><div id="mw-content-text"><div class="mw-content-ltr mw-parser-output">
                <p>The \(title.lowercased()) is a small passerine bird of the woods, parks and gardens of Europe.</p></div></div></body></html>
                """
        }
        let tit = try directory.write("pages/saved-1.html", page("Great tit", id: 381_722, from: #""M\u00e9sange_charbonni\u00e8re""#))
        let robin = try directory.write("pages/saved-2.html", page("European robin", id: 10_175, from: #""Erithacus_rubecula""#))
        let output = try H.run([tit, robin], wants: H.wants(["Mésange charbonnière", "Erithacus rubecula"]), in: directory)
        #expect(output.titles == ["European robin", "Great tit"])
        #expect(output.report["redirects_followed"] as? [String: String] == ["Erithacus rubecula": "European robin", "Mésange charbonnière": "Great tit"])
        #expect(try BlurbMaker().blurb(html: page("Great tit", id: 1, from: #""Parus_\"major\"""#)).page.redirectedFrom == #"Parus_"major""#)
        #expect(try BlurbMaker().blurb(html: page("Great tit", id: 1, from: "null")).page.redirectedFrom == nil)
        // Wanted by neither its title nor the one it was reached through: skipped.
        let other = try TemporaryDirectory()
        #expect(try H.run([tit], wants: H.wants(["Parus major"]), in: other).articles.isEmpty)
    }

    /// A saved page view is titled by its own link, and without one by its <title> less the
    /// wiki's name in the wiki's language ("Kohlmeise – Wikipedia" was never matched).
    @Test func aSavedPageViewOfAnyLanguageIsTitledWithoutTheWikisName() throws {
        let directory = try TemporaryDirectory()
        func page(_ title: String, canonical: String?) -> String {
            let link = canonical.map { "<link rel=\"canonical\" href=\"\($0)\">" } ?? ""
            return """
                <!DOCTYPE html><html lang="de"><head><meta charset="UTF-8"><title>\(title)</title>\(link)</head>
                <body><div id="mw-content-text"><div class="mw-content-ltr mw-parser-output">
                <p>Die Kohlmeise ist eine Vogelart aus der Familie der Meisen und in ganz Europa verbreitet.</p></div></div></body></html>
                """
        }
        let linked = try directory.write("a/saved.html", page("Kohlmeise – Wikipedia", canonical: "https://de.wikipedia.org/wiki/Kohlmeise"))
        let unlinked = try directory.write("b/saved.html", page("Blaumeise – Wikipedia", canonical: nil))
        // A saved page of another wiki (Wikibooks, whose name has the stem "wiki") is not the article of its title.
        let wiktionary = try directory.write("c/saved.html", page("Tannenmeise – Wikibooks", canonical: "https://de.wikibooks.org/wiki/Tannenmeise"))
        let output = try H.run([linked, unlinked, wiktionary], wants: H.wants(["Kohlmeise", "Blaumeise", "Tannenmeise"], language: "de"), in: directory)
        #expect(output.titles == ["Blaumeise", "Kohlmeise"])
        #expect(WikiTitle.withoutSiteName("Большая синица — Википедия") == "Большая синица")
        #expect(WikiTitle.withoutSiteName("大山雀 - 维基百科，自由的百科全书") == "大山雀")
        #expect(WikiTitle.withoutSiteName("Mésange charbonnière — Wikipédia") == "Mésange charbonnière")
        #expect(WikiTitle.withoutSiteName("Rock – Paper – Scissors") == "Rock – Paper – Scissors")
        #expect(WikiTitle.withoutSiteName("Rock - Paper – Wikipedia") == "Rock - Paper")
        // Wikis whose names share no stem with those above.
        for (title, name) in [
            ("Голям синигер – Уикипедия", "Голям синигер"), ("چرخ‌ریسک بزرگ - ویکی‌پدیا، دانشنامهٔ آزاد", "چرخ‌ریسک بزرگ"),
            ("นกติ๊ดใหญ่ - วิกิพีเดีย", "นกติ๊ดใหญ่"), ("დიდი წივწივა — ვიკიპედია", "დიდი წივწივა"),
            ("Մեծ երաշտահավ — Վիքիպեդիա", "Մեծ երաշտահավ"), ("Büyük baştankara - Vikipedi", "Büyük baştankara"),
            ("Didžioji zylė – Vikipedija", "Didžioji zylė"),
        ] {
            #expect(WikiTitle.withoutSiteName(title) == name, "\(title)")
        }
    }

    @Test(arguments: [
        ("2023-06-06T23:59:59Z", "CC-BY-SA-3.0"), ("2023-06-07T00:00:00Z", "CC-BY-SA-4.0"),
        ("2018-06-12T04:32:17.000Z", "CC-BY-SA-3.0"), ("2024-01-01T00:00:00Z", "CC-BY-SA-4.0"), ("yesterday", "CC-BY-SA"),
    ])
    func withoutAStatedLicenceTheOneInForceAtTheRevisionsDateIsRecorded(modified: String, license: String) throws {
        #expect(ArticleLicense.resolve(stated: nil, modified: modified) == license)
        let directory = try TemporaryDirectory()
        let dump = try directory.write("dump.ndjson", H.line("Great tit", H.parsoid(), ["date_modified": modified]) + "\n")
        let article = try #require(try H.run([dump], wants: H.wants(["Great tit"]), in: directory).articles["Great tit"])
        #expect(article["license"] as? String == license)
    }

    @Test func aStatedLicenceWinsOverTheDateWhetherTheLineOrThePageStatesIt() throws {
        let directory = try TemporaryDirectory()
        let dump = try directory.write("dump.ndjson", [
            // The line states 3.0 for a 2024 revision: the statement wins.
            H.line("Great tit", H.parsoid(), ["date_modified": "2024-01-01T00:00:00Z", "license": [["identifier": "CC-BY-SA-3.0"]]]),
            // Only the page's head states one.
            H.line("Sonian Forest", H.parsoid(modified: "2024-01-01T00:00:00Z", license: "//creativecommons.org/licenses/by-sa/3.0/")),
            // A licence link fieldpack does not know is kept as the link.
            H.line("Zoniënwoud", H.parsoid(modified: "2024-01-01T00:00:00Z", license: "//example.org/licence")),
        ].joined(separator: "\n") + "\n")
        let output = try H.run([dump], wants: H.wants(["Great tit", "Sonian Forest", "Zoniënwoud"]), in: directory)
        #expect(output.articles["Great tit"]?["license"] as? String == "CC-BY-SA-3.0")
        #expect(output.articles["Sonian Forest"]?["license"] as? String == "CC-BY-SA-3.0")
        #expect(output.articles["Zoniënwoud"]?["license"] as? String == "https://example.org/licence")
    }

    @Test(arguments: [
        ("//creativecommons.org/licenses/by-sa/3.0/", "CC-BY-SA-3.0"),
        ("https://creativecommons.org/licenses/by-sa/4.0/deed.en", "CC-BY-SA-4.0"),
        ("https://creativecommons.org/licenses/by/4.0/", "CC-BY-4.0"),
        ("https://creativecommons.org/publicdomain/zero/1.0/", "CC0-1.0"),
        ("//en.wikipedia.org/wiki/Wikipedia:Text_of_Creative_Commons_Attribution-ShareAlike_3.0_Unported_License", "CC-BY-SA-3.0"),
        ("https://www.gnu.org/copyleft/fdl.html", "https://www.gnu.org/copyleft/fdl.html"),
    ])
    func aLicenceLinkBecomesItsCodeOrStaysALink(link: String, code: String) {
        #expect(ArticleLicense.code(ofLink: link) == code)
    }

    @Test func aDumpLinesHTMLHeadFillsWhatTheLineDoesNotSay() throws {
        let directory = try TemporaryDirectory()
        let html = H.parsoid(pageID: 381_722, revision: 1_282_922_208, modified: "2021-11-09T04:36:27.000Z")
        let dump = try directory.write("dump.ndjson", H.line("Great tit", html, ["identifier": 7]) + "\n")
        let article = try #require(try H.run([dump], wants: H.wants(["Great tit"]), in: directory).articles["Great tit"])
        #expect(article["page_id"] as? Int == 7)  // the line's own value stays
        #expect(article["revision"] as? Int == 1_282_922_208)
        #expect(article["modified"] as? String == "2021-11-09T04:36:27.000Z")
        #expect(article["license"] as? String == "CC-BY-SA-3.0")
    }

    @Test(arguments: [false, true])
    func ofCopiesFromSeveralInputsTheNewestRevisionWinsAndACopyWithoutOneNeverDoes(reversed: Bool) throws {
        let directory = try TemporaryDirectory()
        let newest = "The great tit is a passerine bird that lives in every kind of woodland in Europe."
        let older = "The great tit is a widespread and common bird throughout Europe and Asia, in woodland."
        let undated = "The great tit is a bird whose copy here gives no revision, only a later date, so it loses."
        // An HTML page with the newest revision (in its <html about>), a dump line with an older
        // revision but a later date, and a copy without a revision with the latest date of all.
        let page = try directory.write("pages/Great_tit.html", H.parsoid(newest, revision: 1_282_922_208, modified: "2026-01-01T00:00:00Z"))
        let dump = try directory.write("dump.ndjson", [
            H.line("Great tit", H.parsoid(older), ["version": ["identifier": 1_281_000_000], "date_modified": "2026-06-01T00:00:00Z"]),
        ].joined(separator: "\n") + "\n")
        let noRevision = try directory.write("copy.ndjson", H.line("Great tit", H.parsoid(undated), ["date_modified": "2026-12-01T00:00:00Z"]) + "\n")
        let inputs = reversed ? [noRevision, dump, page] : [page, dump, noRevision]
        let output = try H.run(inputs, wants: H.wants(["Great tit"]), in: directory)
        let article = try #require(output.articles["Great tit"])
        #expect(article["html"] as? String == "<p>\(newest)</p>")
        #expect(article["revision"] as? Int == 1_282_922_208)
        #expect(output.report["duplicate_pages"] as? Int == 2)
    }
}
