import CWikiAllocator
import FieldpackKit

let command = StageCommand(
    name: "fieldpack-wiki",
    usage: """
        fieldpack-wiki --pipeline FILE --records DEDUPED.jsonl… --output articles.jsonl --report wiki-report.json
                      --rejects rejects.jsonl [--depfile FILE] [--stamp FILE] [--max-reject-rate R]
               fieldpack-wiki --pipeline FILE --records DEDUPED.jsonl… --shard K/N --output-folder DIR [--depfile FILE] [--stamp FILE]
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
        --records may be given once per part of a sharded dedupe.

        --shard K/N (or the engine's array index: SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX,
        AWS_BATCH_JOB_ARRAY_INDEX with FIELDPACK_SHARDS) reads shard K's share of the dumps: its
        files by position, or, with fewer files than shards, its archive members and its byte
        range of each JSON Lines file. It writes a part into --output-folder DIR (articles.jsonl,
        wiki-report.json, rejects.jsonl); fieldpack-bundle --articles and fieldpack-report
        --wiki-report merge the N parts into exactly what one whole run gives.

        --stamp FILE: an output whose bytes come out the same as the file already there is left
        as it was, its modification time included, and FILE is written when the run succeeds,
        no newer than the oldest output written (the depfile names FILE as its target). make
        rules that depend on the outputs, with the outputs depending on FILE, then rebuild
        nothing after a run that changed nothing: a touched dump, or one with the same bytes
        (the Makefile does this).
        """,
    options: ["pipeline", "records", "output", "report", "rejects", "depfile", "stamp", "max-reject-rate", "shard", "output-folder"])

/// The stage's options, and the dumps' folders (for the depfile), from the command line and the
/// pipeline. The pipeline's destinations (100,000 of them for a large bundle) are never held as a
/// list: the stage needs only the wants made from them.
func stageOptions(_ arguments: Arguments) throws -> (options: WikiStage.Options, folders: [String], walked: [String], keyed: [String: Depfile.Keyed]) {
    let records = arguments.all("records")
    guard !records.isEmpty else { throw UsageError("--records is required (once per deduped records file)") }
    let maxRejectRate = try arguments.fraction("max-reject-rate")
    let loaded = try WikiWants.loading(pipeline: try arguments.required("pipeline"))
    let pipeline = loaded.pipeline
    var wants = loaded.wants
    for path in records { try wants.addTaxa(fromDeduped: path) }
    let inputs = try pipeline.resolveWikipediaInputs()
    let folder = arguments.value("output-folder")
    // The array engine's variables only for a part (`--output-folder`): an unsharded run inside
    // an array job (several pipelines built as one job's tasks) is whole, as ingest's and dedupe's are.
    let shard = folder == nil && arguments.value("shard") == nil ? Shard.whole : try Shard.resolve(option: arguments.value("shard"))
    if !shard.isWhole && folder == nil { throw UsageError("shard \(shard) writes a part: give --output-folder DIR") }
    var options: WikiStage.Options
    // Before the part's folder is made: made inside an input folder, it was no longer refused.
    try Pipeline.refuseOutputsInWalkedFolders(
        ["output", "report", "rejects", "depfile", "stamp"].map { arguments.value($0) }
            + [folder.map { "\($0)/\(WikiPart.articlesFile)" }],
        folders: inputs.walked)
    if let folder {
        for option in ["output", "report", "rejects"] where arguments.value(option) != nil {
            throw UsageError("--output-folder names the part's files: give it without --\(option)")
        }
        try FileSystem.makeDirectories(folder)
        options = WikiStage.Options(
            inputs: inputs.files, wants: wants, output: folder + "/" + WikiPart.articlesFile,
            report: folder + "/" + WikiPart.reportFile, rejects: folder + "/" + WikiPart.rejectsFile)
    } else {
        options = WikiStage.Options(
            inputs: inputs.files, wants: wants, output: try arguments.required("output"),
            report: try arguments.required("report"), rejects: try arguments.required("rejects"))
    }
    options.rules = pipeline.blurbRules
    options.keepsUnchangedOutputs = arguments.value("stamp") != nil
    options.progress = arguments.progress(stage: "wiki")
    options.maxRejectRate = maxRejectRate ?? pipeline.maxRejectRate ?? 0.01
    options.freedMemoryRelease = FreedMemoryRelease { fp_wiki_release_freed_memory() }
    if folder != nil {
        options.shard = shard
        options.part = WikiPart.Identity(
            shard: shard,
            origin: WikiPart.origin(
                inputs: inputs.files, wants: wants, rules: options.rules, maxRejectRate: options.maxRejectRate, shards: shard.count))
    }
    // Before anything is written: the depfile and the stamp are outputs too, and the records
    // files and the pipeline's settings inputs.
    try arguments.refuseOutputs(
        ["depfile", "stamp"], extra: options.outputs, overwriting: options.inputs + records + pipeline.settingsFiles)
    return (options, inputs.folders, inputs.walked, PipelineReader.wiki.keyed(pipeline))
}

command.main { arguments in
    guard arguments.positional.isEmpty else { throw UsageError("give the inputs in the pipeline file") }
    let (options, folders, walked, keyed) = try stageOptions(arguments)
    let clock = StageClock()
    let stamp = arguments.value("stamp")
    // Before the outputs: a run killed after its articles were written (a shard's target) must
    // not leave them without the depfile that ties them to the dumps, which make then never
    // reran them for. Written first, a run that fails leaves it beside outputs make redoes;
    // pending until the outputs are in place, then with the dumps as they were before the run
    // read them (`Depfile.Identities`).
    let identities = Depfile.Identities.take(options.inputs + folders, walked: Set(walked))
    if let depfile = arguments.value("depfile") {
        try Depfile.write(depfile, target: stamp ?? options.output, prerequisites: options.inputs + folders, keyed: keyed, taken: .pending)
    }
    let summary = try WikiStage(options: options).run()
    if let stamp {
        for path in summary.unchanged { StandardError.write("fieldpack-wiki: \(path): the same bytes as before, left as it was") }
        // What the stamp says: the outputs this run wrote and those it left as they were.
        let replaced = options.outputs.filter { !summary.unchanged.contains($0) }
        try AtomicOutput.write(
            replaced.map { "written \($0)\n" }.joined() + summary.unchanged.map { "unchanged \($0)\n" }.joined(), to: stamp)
        // No newer than the oldest output written, so make finds those up to date (and `make -q`
        // says so) after a run that wrote them all; one left as it was stays older than the stamp.
        if let oldest = replaced.compactMap(FileSystem.modificationTime).min() {
            try FileSystem.setModificationTime(stamp, oldest)
        }
    }
    if let depfile = arguments.value("depfile") {
        try Depfile.write(depfile, target: stamp ?? options.output, prerequisites: options.inputs + folders, keyed: keyed, taken: identities)
    }
    StageReport(stage: "wiki", clock: clock).print(
        "\(options.inputs.count) files, \(summary.lines) lines (\(summary.skipped) skipped, \(summary.rejected) rejected), "
            + "\(summary.articles) articles for \(options.wants.count) wanted, \(summary.missing.count) missing, "
            + "\(summary.htmlBytes) bytes of article HTML cleaned in \(summary.passes) pass(es)",
        records: summary.lines, bytes: summary.bytes, shard: options.part?.shard)
}
