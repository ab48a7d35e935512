import FieldpackKit

let command = StageCommand(
    name: "fieldpack-report",
    usage: """
        fieldpack-report content.sqlite --output report.html [--rejects inat/rejects.jsonl …] [--wiki-report wiki-report.json | --wiki-report PART…]
               fieldpack-report --timings DIR --output run-report.html [--pipeline-name NAME]
        """,
    help: """
        Writes report.html, one self-contained page (inline CSS and SVG charts, no script, nothing
        fetched) that explains a bundle: rows per table and per iconic taxon, the photo tier per
        display target, decoded and download bytes, the memory budget simulation, licences shipped
        and excluded, the records ingest rejected or salvaged (--rejects, once per file: a
        sharded ingest's rejects files are counted together), the articles wanted,
        found and missing (--wiki-report), blurb lengths and the delta against the previous
        bundle. Its bytes follow from its inputs only, so the manifest lists it.

        --timings DIR writes instead run-report.html: each stage's time and peak memory, from the
        DIR/<stage>.json files the stages write when FIELDPACK_TIMINGS=DIR (make bundle sets it),
        and a sharded stage's shards together and one by one (DIR/<stage>.shard-I-of-N.json).
        It differs from run to run and is kept outside the bundle.
        """,
    options: ["output", "rejects", "wiki-report", "timings", "pipeline-name"])

command.main { arguments in
    let output = try arguments.required("output")
    let clock = StageClock()
    if let timings = arguments.value("timings") {
        guard arguments.positional.isEmpty else { throw UsageError("--timings takes no database") }
        try arguments.refuseOutputs(["output"], overwriting: [timings], insideFolders: [timings])
        let stages = try RunReport(timings: timings, output: output, pipeline: arguments.value("pipeline-name") ?? "pipeline").run()
        // Not a StageReport: its timing would overwrite the one of the report.html run.
        StandardError.write("fieldpack-report: \(output): \(stages) stage(s)")
        return
    }
    guard arguments.positional.count == 1 else { throw UsageError("give exactly one bundle database") }
    try arguments.refuseOutputs(
        ["output"], overwriting: arguments.positional + arguments.all("rejects") + arguments.all("wiki-report"), insideFolders: arguments.all("wiki-report"))
    var options = BundleReport.Options(database: arguments.positional[0], output: output)
    options.ingestRejects = arguments.all("rejects")
    // The wiki stage's report, or the parts of a sharded wiki stage (repeated, or a folder).
    let wiki = arguments.all("wiki-report")
    if wiki.count == 1 && !FileSystem.isDirectory(wiki[0]) {
        options.wikiReport = wiki[0]
    } else {
        options.wikiParts = wiki
    }
    let summary = try BundleReport(options: options).run()
    StageReport(stage: "report", clock: clock).print(
        "\(output): \(summary.sections) sections, \(summary.bytes) bytes", bytes: FileSystem.size(options.database))
}
