import FieldpackKit

let command = StageCommand(
    name: "fieldpack-wiki",
    usage: """
        fieldpack-wiki --pipeline FILE --records DEDUPED.jsonl --output articles.jsonl --report wiki-report.json
                      --rejects rejects.jsonl [--depfile FILE] [--max-reject-rate R]
        """,
    help: """
        Reads the pipeline's Wikipedia dumps, by content whatever their names (Wikimedia Enterprise
        .tar.gz archives of NDJSON, bare or gzip-compressed NDJSON, On-demand / Structured Contents
        article JSON, one object or an array, HTML pages); other files in a folder (LICENSE, README,
        metadata .json) are skipped with a finding. It keeps the articles the bundle needs:
        the taxa's wikipedia_url titles (from the deduped iNaturalist records) and the pipeline's
        destinations (a "wikipedia" title or a "wikidata" QID). Titles match as Wikipedia matches
        them; redirects are followed; disambiguation pages are skipped with a finding; of a page
        seen twice the newest revision wins. Page id, revision, date and licence come from the
        input, else from the page's own HTML; without a stated licence, the one in force on the
        revision's date (CC BY-SA 3.0 before 2023-06-07, 4.0 from). Each article becomes a safe
        blurb and a summary (one JSON line each). The report lists what was wanted and not found.
        """,
    options: ["pipeline", "records", "output", "report", "rejects", "depfile", "max-reject-rate"])

command.main { arguments in
    guard arguments.positional.isEmpty else { throw UsageError("give the inputs in the pipeline file") }
    let pipeline = try Pipeline.load(try arguments.required("pipeline"))
    var wants = WikiWants(language: pipeline.wikipediaLanguage)
    // A sharded dedupe's parts: --records once per part (the taxa wanted are a set).
    _ = try arguments.required("records")
    for records in arguments.all("records") { try wants.addTaxa(fromDeduped: records) }
    pipeline.destinationWants(into: &wants)
    let inputs = try pipeline.resolveWikipediaInputs()
    var options = WikiStage.Options(
        inputs: inputs.files, wants: wants, output: try arguments.required("output"),
        report: try arguments.required("report"), rejects: try arguments.required("rejects"))
    options.rules = pipeline.blurbRules
    options.progress = arguments.progress(stage: "wiki")
    options.maxRejectRate = try arguments.double("max-reject-rate") ?? pipeline.maxRejectRate ?? 0.01
    let clock = StageClock()
    let summary = try WikiStage(options: options).run()
    if let depfile = arguments.value("depfile") {
        try Depfile.write(depfile, target: options.output, prerequisites: inputs.files + inputs.folders)
    }
    StageReport(stage: "wiki", clock: clock).print(
        "\(inputs.files.count) files, \(summary.lines) lines (\(summary.skipped) skipped, \(summary.rejected) rejected), "
            + "\(summary.articles) articles for \(wants.count) wanted, \(summary.missing.count) missing, "
            + "\(summary.htmlBytes) bytes of article HTML cleaned in \(summary.passes) pass(es)",
        records: summary.lines, bytes: summary.bytes)
}
