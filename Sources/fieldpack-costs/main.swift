import FieldpackKit

let command = StageCommand(
    name: "fieldpack-costs",
    usage: "fieldpack-costs DEDUPED.jsonl --pipeline FILE --output PHOTOS.jsonl --report costs-report.json",
    help: """
        Decides which photos may ship (licence allow-list, placeholders, https, a credit), derives
        the URL of every CDN tier, builds credits from the licence and the photographer's name,
        and estimates for every display target the tier to fetch, its download bytes and its
        decoded memory. Writes one line per photo and a report of the aggregates.
        """,
    options: ["pipeline", "output", "report"])

command.main { arguments in
    guard arguments.positional.count == 1 else { throw UsageError("give exactly one deduped records file") }
    let pipeline = try Pipeline.load(try arguments.required("pipeline"))
    let clock = StageClock()
    let report = try CostStage(options: .init(
        input: arguments.positional[0], output: try arguments.required("output"),
        report: try arguments.required("report"), policy: pipeline.shipping)).run()
    StageReport(stage: "costs", clock: clock).print(
        "\(report.photos) photos, \(report.shipped) may ship (\(report.remote) remote), "
            + "\(report.photos - report.shipped) excluded; \(report.targets.count) targets",
        records: report.photos)
}
