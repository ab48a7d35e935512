import FieldpackKit
import Testing

/// fieldpack-verify's blurb check reads markup as bytes (issue 15, item 12): combining marks and
/// joiners after a tag are text, and cannot hide a tag the app would render.
@Suite struct BlurbMarkupCheckTests {
    @Test(arguments: [
        "<p>\u{034F}x</p>", "<p>\u{200C}می\u{200C}شود</p>", "<p><b>\u{0301}</b><i>a</i><br></p>", "",
        "text without tags", "<p>中文。</p><p>العربية؟</p>",
    ])
    func wellFormedBlurbsWithCombiningMarksAfterTagsPass(html: String) {
        #expect(DatabaseChecks.blurbDefect(html) == nil)
    }

    @Test(arguments: [
        ("\u{0600}<img src=x onerror=alert(1)>\u{0301}", "holds <img src=x onerror=alert(1)>, which is not allowed"),
        ("<p>a</p>\u{0301}>", "has a bare '>'"),
        ("<p>\u{0301}<script>\u{0301}</p>", "holds <script>, which is not allowed"),
        ("<p><b>x</p></b>", "closes </p> out of order"),
        ("<b><p>x</p></b>", "opens <p> inside <b>"),
        ("<b><b>x</b></b>", "nests <b> in itself"),
        ("<p>x", "leaves <p> open"),
        ("<p>x <", "has a '<' that opens no tag"),
        ("<P>x</P>", "holds <P>, which is not allowed"),
    ])
    func unsafeOrUnbalancedMarkupIsNamed(html: String, reason: String) {
        #expect(DatabaseChecks.blurbDefect(html) == reason)
    }
}
