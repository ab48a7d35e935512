import FieldpackKit

let command = StageCommand(
    name: "fieldpack-sanitize",
    usage: """
        fieldpack-sanitize [--max-bytes N] < inputs.jsonl > outputs.jsonl
               fieldpack-sanitize --article FILE.html [--pipeline FILE]
        """,
    help: """
        Sanitizes HTML the way blurbs are: reads JSON Lines {"id", "html"} (or {"id", "html_base64"}
        for raw bytes) on standard input and writes {"id", "output"} on standard output, in order.
        The output holds only text and the elements p, b, i and br, without attributes; it is null
        only when the input is refused (larger than --max-bytes, default 2 MiB, or nested past
        libxml2's depth limit). A line that is not such an object (not JSON, a lone surrogate, no
        id) is named with its line and has no output; every other line is still written, and the
        run then exits 1.

        --article FILE.html prints the blurb of one Wikipedia article (Parsoid or legacy HTML) and
        its summary, by the wiki stage's rules: a way to see what the app would show. With
        --pipeline, by that pipeline's rules (wikipedia_language for the headings' capitals,
        wikipedia_skip_sections, wikipedia_summary_length), as its guide's wiki stage would.
        """,
    options: ["max-bytes", "article", "pipeline"])

command.main { arguments in
    if let path = arguments.value("article") {
        let rules = try arguments.value("pipeline").map { try Pipeline.load($0, for: .wiki).blurbRules } ?? BlurbRules()
        let bytes = try ReadableFile.contents(of: path)
        let blurb = try bytes.withUnsafeBytes { buffer in
            do { return try BlurbMaker(rules: rules).blurb(html: buffer) } catch { throw FieldpackError(path: path, "\(error)") }
        }
        // Named as the wiki stage names a saved page (its link, its <title>, its file's name).
        let title = WikiTitle.ofPage(url: blurb.page.url, title: blurb.title, fileName: path).title
        print("kind: \(blurb.kind)\ntitle: \(title)\nsections: \(blurb.sections)\n\n\(blurb.html)\n\nsummary: \(blurb.summary)")
        return
    }
    guard arguments.value("pipeline") == nil else { throw UsageError("--pipeline goes with --article") }
    guard arguments.positional.isEmpty else { throw UsageError("reads standard input; give no files") }
    var sanitizer = Sanitizer()
    if let limit = try arguments.int("max-bytes") {
        guard limit > 0 else { throw UsageError("--max-bytes must be positive") }
        sanitizer.maximumBytes = limit
    }
    let clock = StageClock()
    let count = try SanitizeLines(sanitizer: sanitizer).run(input: "/dev/stdin", output: 1)
    guard count.skipped == 0 else {
        throw FieldpackError(
            path: "/dev/stdin",
            "\(count.skipped) line(s) were not inputs (named above) and have no output; the other \(count.lines) were written")
    }
    StageReport(stage: "sanitize", clock: clock).print("\(count.lines) inputs, \(count.refused) refused", records: count.lines)
}
