import FieldpackKit
import FieldpackSynth

let command = StageCommand(
    name: "fieldpack-synth",
    usage: """
        fieldpack-synth --observations N --seed S --output DIR [--per-page 200] [--workers 2] [--taxa T] [--users U] [--reuse] [--damage]
               fieldpack-synth --wiki-articles N --seed S --output DIR [--damage]
               fieldpack-synth --open-data N [--seed S] [--tar] [--date YYYYMMDD] (DIR | --output DIR)
               fieldpack-synth --parse-only (--pipeline FILE | INPUT...)
        """,
    help: """
        Writes a deterministic synthetic iNaturalist dump for benchmarks: API v1 observation pages
        DIR/page-000001.json, … (one minified page per file), then DIR/synth.txt naming the
        parameters (ingest skips it). The same N and seed give the same bytes. About 1% of the
        observations also appear as an older copy in another page; ~0.1% of photo ids are shared
        by two observations. --taxa and --users default to N/50 and N/20, at most 20000 and 50000.
        --reuse keeps DIR as it is when its synth.txt says it already holds this dump.
        --damage adds realistic damage (malformed records, a truncated page, repeated photos under
        changed licences, hard unicode; counted on synth.txt's third line), and for --wiki-articles
        a long tail of large articles (1 in 100 of 1.2 to 6 MB).

        --wiki-articles N writes instead a synthetic Wikimedia Enterprise NDJSON dump of N Parsoid-like
        articles (median about 50 KB of HTML, a tail to about 1 MB) to DIR/articles.ndjson, and
        DIR/pipeline.json wanting 80% of them, for the wiki stage's benchmark.

        --open-data N writes instead an iNaturalist open-data export of N observations in the
        real shape: DIR/observations.csv, photos.csv, taxa.csv and observers.csv (tab-separated,
        no quoting), or with --tar one DIR/inaturalist-open-data-<date>.tar.gz holding them (date
        20241127 unless --date). Duplicate photo rows, quotes inside names, None names, JPG
        extensions and missing dimensions, coordinates and dates included. Seed 1 unless --seed.

        --parse-only reads the iNaturalist inputs (a pipeline's, or those given) and only parses
        them with simdjson, on one core, writing nothing: the parser's share of ingest.
        """,
    options: ["observations", "seed", "output", "per-page", "workers", "taxa", "users", "wiki-articles", "pipeline", "open-data", "date"],
    flags: ["reuse", "parse-only", "damage", "tar"])

command.main { arguments in
    if arguments.flag("parse-only") {
        var inputs = arguments.positional
        if let pipeline = arguments.value("pipeline") { inputs += try Pipeline.load(pipeline).resolveINatInputs().files }
        if inputs.isEmpty { throw UsageError("--parse-only needs --pipeline or input files") }
        let clock = StageClock()
        let rate = try ParseRate.measure(inputs: inputs)
        StageReport(stage: "synth", clock: clock).print(
            "parse only (one core): \(rate.documents) documents", records: rate.documents, bytes: rate.bytes)
        return
    }
    if let observations = try arguments.int("open-data") {
        guard observations > 0 else { throw UsageError("--open-data must be at least 1") }
        guard arguments.positional.count <= 1 else { throw UsageError("--open-data takes one folder") }
        let seedText = arguments.value("seed") ?? "1"
        guard let seed = UInt64(seedText) else { throw UsageError("--seed must be a non-negative integer, not \"\(seedText)\"") }
        guard let output = arguments.positional.first ?? arguments.value("output") else { throw UsageError("--open-data needs a folder") }
        var options = SyntheticOpenData.Options(observations: observations, seed: seed, output: output)
        options.tar = arguments.flag("tar")
        if let date = arguments.value("date") {
            guard date.utf8.count == 8, date.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { throw UsageError("--date must be YYYYMMDD") }
            options.date = date
        }
        let clock = StageClock()
        let summary = try SyntheticOpenData(options: options).run()
        StageReport(stage: "synth", clock: clock).print(
            "open-data export: \(summary.observations) observations, \(summary.photoRows) photo rows "
                + "(\(summary.duplicatePhotoRows) duplicate photo rows), \(summary.taxa) taxa, \(summary.observers) observers, \(summary.bytes) bytes",
            records: summary.observations, bytes: summary.bytes)
        return
    }
    guard arguments.positional.isEmpty else { throw UsageError("takes no positional arguments") }
    if arguments.value("pipeline") != nil { throw UsageError("--pipeline goes with --parse-only") }
    if let articles = try arguments.int("wiki-articles") {
        guard articles > 0 else { throw UsageError("--wiki-articles must be at least 1") }
        let seedText = try arguments.required("seed")
        guard let seed = UInt64(seedText) else { throw UsageError("--seed must be a non-negative integer") }
        let clock = StageClock()
        var wikiOptions = SyntheticWiki.Options(articles: articles, seed: seed, output: try arguments.required("output"))
        wikiOptions.largeTail = arguments.flag("damage")
        let written = try SyntheticWiki(options: wikiOptions).run()
        StageReport(stage: "synth", clock: clock).print(
            "\(articles) articles, \(written.htmlBytes) bytes of HTML, \(written.bytes) bytes of NDJSON", records: articles,
            bytes: written.bytes)
        return
    }
    guard let observations = try arguments.int("observations") else { throw UsageError("--observations is required") }
    let seedText = try arguments.required("seed")
    guard let seed = UInt64(seedText) else { throw UsageError("--seed must be a non-negative integer, not \"\(seedText)\"") }
    var options = SyntheticDump.Options(observations: observations, seed: seed, output: try arguments.required("output"))
    options.damage = arguments.flag("damage")
    if let perPage = try arguments.int("per-page") { options.perPage = perPage }
    if let workers = try arguments.int("workers", atLeast: 1) { options.workers = workers }
    if let taxa = try arguments.int("taxa") {
        guard taxa > 0 else { throw UsageError("--taxa must be at least 1") }
        options.taxa = taxa
    }
    if let users = try arguments.int("users") {
        guard users > 0 else { throw UsageError("--users must be at least 1") }
        options.users = users
    }
    let dump = SyntheticDump(options: options)
    if arguments.flag("reuse") && dump.isComplete {
        StandardError.write("fieldpack-synth: \(options.output) already holds this dump; kept it")
        return
    }
    let clock = StageClock()
    let summary = try dump.run()
    StageReport(stage: "synth", clock: clock).print(
        "\(summary.pages) pages, \(summary.records) observation records (\(summary.olderCopies) older copies), "
            + "\(summary.taxa) taxa, \(summary.users) users, \(summary.bytes) bytes"
            + (summary.damage.map { "; damage: " + $0.text } ?? ""),
        records: summary.records, bytes: summary.bytes)
}
