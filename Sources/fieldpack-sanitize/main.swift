import FieldpackKit

let command = StageCommand(
    name: "fieldpack-sanitize",
    usage: "fieldpack-sanitize [--max-bytes N] < inputs.jsonl > outputs.jsonl",
    help: """
        Sanitizes HTML the way blurbs are: reads JSON Lines {"id", "html"} (or {"id", "html_base64"}
        for raw bytes) on standard input and writes {"id", "output"} on standard output, in order.
        The output holds only text and the elements p, b, i and br, without attributes; it is null
        only when the input is refused (larger than --max-bytes, default 2 MiB, or nested past
        libxml2's depth limit). A line that is not such an object is an error naming its line.
        """,
    options: ["max-bytes"])

command.main { arguments in
    guard arguments.positional.isEmpty else { throw UsageError("reads standard input; give no files") }
    var sanitizer = Sanitizer()
    if let limit = try arguments.int("max-bytes") {
        guard limit > 0 else { throw UsageError("--max-bytes must be positive") }
        sanitizer.maximumBytes = limit
    }
    let clock = StageClock()
    let count = try SanitizeLines(sanitizer: sanitizer).run(input: "/dev/stdin", output: 1)
    StageReport(stage: "sanitize", clock: clock).print("\(count.lines) inputs, \(count.refused) refused", records: count.lines)
}
