import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// `fieldpack-sanitize`, judged from outside as the oracle judges it: JSON Lines in on stdin,
/// `{"id", "output"}` out on stdout in order, diagnostics on stderr; and `--article`. Runs the
/// built executable: needs `FIELDPACK_BIN`, skipped otherwise.
@Suite struct SanitizeCommandTests {
    static let binaries = ProcessInfo.processInfo.environment["FIELDPACK_BIN"]

    /// Runs `fieldpack-sanitize arguments < input`.
    private func sanitize(_ input: String, _ arguments: [String] = []) throws -> ProcessResult {
        let directory = try TemporaryDirectory()
        try directory.write("input.jsonl", input)
        let tool = "\(try #require(Self.binaries))/fieldpack-sanitize"
        return try run("/bin/sh", ["-c", "exec \"$0\" \"$@\" < input.jsonl", tool] + arguments, directory: directory.path)
    }

    @Test(.enabled(if: binaries != nil))
    func eachLineGetsItsIdAndSafeOutputInOrderAndRefusedInputGetsNull() throws {
        // Raw bytes through html_base64: "<b>", an invalid UTF-8 byte, "</b>".
        let raw = Data(Array("<b>".utf8) + [0xFF] + Array("</b>".utf8)).base64EncodedString()
        let input = """
            {"id": 1, "html": "<p onclick=\\"x()\\">1 &lt; 2 <strong>bold</strong></p>"}

            {"id": "b", "html": "<p>x<script>alert(1)</script></p>"}
            {"id": 3, "html_base64": "\(raw)"}
            {"id": 4, "html": "<p>\(String(repeating: "a", count: 100))</p>"}

            """
        let result = try sanitize(input, ["--max-bytes", "64"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        try #require(lines.count == 5, "\(result.stdout)")
        #expect(lines[4] == "")
        // Ids keep their JSON type; outputs hold only p, b, i, br and escaped text.
        #expect(lines[0].hasPrefix("{\"id\":1,\"output\":"))
        #expect(lines[1].hasPrefix("{\"id\":\"b\",\"output\":"))
        #expect(lines[3] == "{\"id\":4,\"output\":null}")
        let outputs = try lines.prefix(3).map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])["output"] as? String
        }
        #expect(outputs == ["<p>1 &lt; 2 <b>bold</b></p>", "<p>x</p>", "<b>\u{FFFD}</b>"])
        #expect(result.stderr.hasPrefix("fieldpack-sanitize: 4 inputs, 1 refused in "), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test(.enabled(if: binaries != nil), arguments: [
        ("{\"id\": 1, \"html\": \"<p>ok</p>\"}\n[\"not\", \"an\", \"object\"]\n", "/dev/stdin:2: error: expected an object with an \"id\""),
        ("{\"html\": \"<p>x</p>\"}\n", "/dev/stdin:1: error: expected an object with an \"id\""),
        ("\n{\"id\": 1}\n", "/dev/stdin:2: error: expected \"html\" or \"html_base64\" as a string"),
        ("{\"id\": 1, \"html_base64\": \"***\"}\n", "/dev/stdin:1: error: html_base64 is not base64"),
    ])
    func aLineThatIsNotAnInputFailsWithExit1NamingItsLine(input: String, diagnostic: String) throws {
        let result = try sanitize(input)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix(diagnostic + "\n/dev/stdin: error: 1 line(s) were not inputs"), "\(result.stderr)")
        // The good line before it is still written.
        #expect(result.stdout == (input.hasPrefix("{\"id\": 1, \"html\": \"<p>ok") ? "{\"id\":1,\"output\":\"<p>ok</p>\"}\n" : ""))
    }

    /// One bad line (a lone surrogate, invalid JSON) loses only itself (issue 15, item 15).
    @Test(.enabled(if: binaries != nil))
    func aBadLineLosesOnlyItselfAndTheOthersAreWritten() throws {
        let input = """
            {"id": 1, "html": "<p>one</p>"}
            {"id": 2, "html": "<p>\\ud800 lone</p>"}
            {"id": 3, "html": "<p>three
            {"id": 4, "html": "<p>four</p>"}

            """
        let result = try sanitize(input)
        #expect(result.status == 1)
        #expect(result.stdout == "{\"id\":1,\"output\":\"<p>one</p>\"}\n{\"id\":4,\"output\":\"<p>four</p>\"}\n")
        let diagnostics = result.stderr.split(separator: "\n").map(String.init)
        #expect(diagnostics.count == 3, "\(result.stderr)")
        #expect(diagnostics.first?.hasPrefix("/dev/stdin:2: error: not JSON") == true, "\(result.stderr)")
        #expect(diagnostics.dropFirst().first?.hasPrefix("/dev/stdin:3: error: not JSON") == true, "\(result.stderr)")
        #expect(diagnostics.last == "/dev/stdin: error: 2 line(s) were not inputs (named above) and have no output; the other 2 were written")
    }

    @Test(.enabled(if: binaries != nil))
    func theArticleOptionPrintsTheBlurbAndTheSummaryOfOnePage() throws {
        let directory = try TemporaryDirectory()
        let page = try directory.write("great-tit.html", """
            <!DOCTYPE html><html><head><meta charset="utf-8"/><title>Great tit</title></head>
            <body class="mw-parser-output"><section data-mw-section-id="0">
            <table class="infobox"><tr><td>Kingdom: Animalia, with a long cell of text that is not prose.</td></tr></table>
            <p>The <b>great tit</b> (<i>Parus major</i>) is a passerine bird of woodlands and gardens across Europe.</p>
            </section></body></html>
            """)
        let result = try run("\(try #require(Self.binaries))/fieldpack-sanitize", ["--article", page])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == """
            kind: article
            title: Great tit
            sections: 0

            <p>The <b>great tit</b> (<i>Parus major</i>) is a passerine bird of woodlands and gardens across Europe.</p>

            summary: The great tit (Parus major) is a passerine bird of woodlands and gardens across Europe.

            """)
        // Named as the wiki stage names a saved page: by its canonical link over its <title> (it
        // printed "Parus major - Wikipedia"), else by its file's name (it printed "-").
        let linked = try directory.write("saved.html", """
            <!DOCTYPE html><html><head><title>Parus major - Wikipedia</title><link rel="canonical" href="https://en.wikipedia.org/wiki/Great_tit"></head>
            <body><div id="mw-content-text"><div class="mw-parser-output"><p>The great tit is a passerine bird of woodlands and gardens across Europe.</p></div></div></body></html>
            """)
        let fragment = try directory.write("Blue_tit.html", "<p>The blue tit is a small passerine bird of woodlands and gardens across Europe.</p>")
        for (file, title) in [(linked, "Great tit"), (fragment, "Blue tit")] {
            let printed = try run("\(try #require(Self.binaries))/fieldpack-sanitize", ["--article", file])
            #expect(printed.stdout.contains("\ntitle: \(title)\n"), "\(printed.stdout)")
        }
    }

    /// With `--pipeline`, the page is read by that guide's rules: its language's capitals
    /// (Turkish `İ`), its skipped sections and its summary length. Without it, English rules
    /// (`FIZIKSEL`, the section shown).
    @Test(.enabled(if: binaries != nil))
    func theArticleOptionReadsThePageByThePipelinesRules() throws {
        let directory = try TemporaryDirectory()
        let page = try directory.write("baştankara.html", """
            <!DOCTYPE html><html><head><meta charset="utf-8"/><title>Büyük baştankara</title></head>
            <body class="mw-parser-output"><section data-mw-section-id="0">
            <p><b>Büyük baştankara</b> (<i>Parus major</i>), baştankaragiller familyasından bir kuş türüdür. Avrupa'nın ormanlarında ve bahçelerinde yaşar.</p>
            </section><section data-mw-section-id="1"><h2>Fiziksel özellikler</h2>
            <p>Başı ve boynu siyah, yanakları beyazdır; karnı sarı renkte olup ortasında siyah bir şerit bulunur.</p>
            </section><section data-mw-section-id="2"><h2>Kaynakça</h2>
            <p>Kaynak listesi, burada yazılan ve uygulamada gösterilmemesi gereken bir paragraftır.</p>
            </section></body></html>
            """)
        let pipeline = try directory.write("tr.json", """
            {"name": "tr-guide", "inat": ["pages"], "wikipedia_language": "tr", "wikipedia_skip_sections": ["Kaynakça"],
             "wikipedia_summary_length": 60}
            """)
        let tool = "\(try #require(Self.binaries))/fieldpack-sanitize"
        let turkish = try run(tool, ["--article", page, "--pipeline", pipeline])
        #expect(turkish.status == 0, "\(turkish.stderr)")
        #expect(turkish.stdout.contains("<b>FİZİKSEL ÖZELLİKLER</b>"), "\(turkish.stdout)")
        #expect(!turkish.stdout.contains("Kaynak"), "\(turkish.stdout)")
        #expect(turkish.stdout.hasSuffix("summary: Büyük baştankara (Parus major), baştankaragiller familyasından bir kuş türüdür.\n"), "\(turkish.stdout)")
        let english = try run(tool, ["--article", page])
        #expect(english.stdout.contains("<b>FIZIKSEL ÖZELLIKLER</b>"), "\(english.stdout)")
        #expect(english.stdout.contains("Kaynak listesi"), "\(english.stdout)")
        let misplaced = try run(tool, ["--pipeline", pipeline])
        #expect(misplaced.status == 64, "\(misplaced.stderr)")
        #expect(misplaced.stderr.contains("--pipeline goes with --article"), "\(misplaced.stderr)")
    }
}
