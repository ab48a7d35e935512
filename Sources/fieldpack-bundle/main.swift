import FieldpackKit

let command = StageCommand(
    name: "fieldpack-bundle",
    usage: "fieldpack-bundle DEDUPED.jsonl --pipeline FILE --output content.sqlite [--source-date-epoch SECONDS]",
    help: """
        Builds the content bundle: applies the ordered migrations to a scratch database, loads the
        deduped records in one transaction, checks foreign keys and integrity, then publishes a
        compacted copy (VACUUM INTO, fsync, rename). The same inputs give the same bytes: the build
        date is SOURCE_DATE_EPOCH or the newest record's updated_at, never the clock.
        """,
    options: ["pipeline", "output", "source-date-epoch"])

command.main { arguments in
    guard arguments.positional.count == 1 else { throw UsageError("give exactly one deduped records file") }
    let pipeline = try Pipeline.load(try arguments.required("pipeline"))
    var options = BundleBuilder.Options(
        input: arguments.positional[0], output: try arguments.required("output"), pipelineName: pipeline.name)
    if let epoch = try arguments.int("source-date-epoch") { options.sourceDateEpoch = Int64(epoch) }
    let clock = StageClock()
    let summary = try BundleBuilder(options: options).run()
    let rows = summary.counts.map { "\($0.rows) \($0.table)" }.joined(separator: ", ")
    StageReport(stage: "bundle", clock: clock).print(
        "schema v\(Migrations.latestVersion), \(rows); \(summary.bytes) bytes", records: summary.records)
}
