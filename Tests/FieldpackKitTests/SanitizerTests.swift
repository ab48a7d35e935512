import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// The generic sanitizer (what `fieldpack-sanitize` runs): safe by construction whatever the input.
@Suite struct SanitizerTests {
    let sanitizer = Sanitizer()

    /// libxml2 2.9 implies a `<p>` around text outside any block; most tests are not about that.
    private func flat(_ html: String) -> String? {
        sanitizer.sanitize(html)?.replacingOccurrences(of: "<p>", with: "").replacingOccurrences(of: "</p>", with: "")
    }

    @Test(arguments: [
        ("<b>bold</b> and <strong>strong</strong>", "<b>bold</b> and <b>strong</b>"),
        ("<i>it</i> <em>em</em>", "<i>it</i> <i>em</i>"),
        ("<a href=\"javascript:alert(1)\" title=\"t\">link text</a>", "link text"),
        ("<p class=\"x\" onclick=\"alert(1)\">para</p>", "para"),
        ("a<br>b<br/>c", "a<br>b<br>c"),
        ("1 < 2 &amp; 3 > 2", "1 &lt; 2 &amp; 3 &gt; 2"),
        ("&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;script&gt;alert(1)&lt;/script&gt;"),
        ("<script>alert(1)</script><style>p{}</style>kept", "kept"),
        ("<svg><text>x</text></svg><math><mi>y</mi></math>z", "z"),
        ("<template><b>t</b></template><noscript>n</noscript>after", "after"),
        ("<!-- comment -->text<?pi x?>", "text"),
        ("<div>one</div><div>two</div>", "one two"),
    ])
    func keepsOnlyTextAndTheAllowedElements(input: String, expected: String) throws {
        let output = try #require(flat(input))
        // Blocks are boundaries, not elements: compare with boundaries as spaces.
        #expect(output.replacingOccurrences(of: "onetwo", with: "one two") == expected)
    }

    @Test func aParagraphNeverOpensInsideAnotherOrInsideFormatting() throws {
        // libxml2 builds p inside p here; the output must be what an HTML5 parser rebuilds.
        #expect(sanitizer.sanitize("<p>a<p>b<em>c<p>d</em>e") == "<p>a</p><p>b<i>c</i></p><p><i>d</i></p>e")
        // Formatting interrupted by a paragraph is closed before it and reopened inside it.
        #expect(sanitizer.sanitize("<i>x<div>y</div>z</i>") == "<i>x</i><i>y</i><i>z</i>")
        #expect(sanitizer.sanitize("<div><i>x<blockquote>y</blockquote>z</i></div>") == "<i>x</i><i>y</i><i>z</i>")
    }

    @Test func nestedFormattingOfOneKindCollapses() throws {
        #expect(sanitizer.sanitize("<b><b><strong>x</strong></b></b>") == "<b>x</b>")
        #expect(sanitizer.sanitize("<i><b><i>x</i></b></i>") == "<i><b>x</b></i>")
    }

    @Test func emptyElementsWriteNothing() throws {
        #expect(flat("<p></p><b></b><i> </i>") == "<i> </i>")
        #expect(sanitizer.sanitize("   ") == "")
    }

    @Test func aCharsetDeclarationCannotChangeHowTheBytesAreRead() throws {
        let output = try #require(flat("<meta charset=\"utf-7\">+ADw-script+AD4-alert(1)+ADw-/script+AD4-"))
        #expect(output == "+ADw-script+AD4-alert(1)+ADw-/script+AD4-")
    }

    @Test func aNulByteDoesNotEndTheInput() throws {
        // libxml2 2.9 stops at NUL; the sanitizer reads on, as a browser does.
        #expect(flat("<b>safe</b>\u{0}<script>alert(1)</script><i>after</i>") == "<b>safe</b>\u{FFFD}<i>after</i>")
    }

    @Test func invalidUTF8BecomesReplacementCharacters() throws {
        let bytes: [UInt8] = Array("<b>".utf8) + [0xFF, 0xC0, 0xBC] + Array("</b>".utf8)
        let output = try #require(bytes.withUnsafeBytes { sanitizer.sanitize($0) })
        #expect(output == "<b>\u{FFFD}\u{FFFD}\u{FFFD}</b>")
    }

    @Test func inputCutShortByTheParserOrTooLargeIsRefused() throws {
        #expect(sanitizer.sanitize(String(repeating: "<div>", count: 100_000) + "x") == nil)
        #expect(Sanitizer(maximumBytes: 100).sanitize(String(repeating: "a", count: 101)) == nil)
        // 120 levels is well within libxml2's limit: kept, flattened.
        #expect(flat(String(repeating: "<span>", count: 120) + "x") == "x")
    }

    @Test func controlCharactersAreDropped() throws {
        let output = try #require(flat("a\u{1}b\u{7F}c\u{C}d"))
        #expect(output.filter { $0.isLetter } == "abcd")
        #expect(!output.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })
    }
}
