import FieldpackKit

let command = StageCommand(
    name: "fieldpack-bundle",
    usage: """
        fieldpack-bundle DEDUPED.jsonl... --pipeline FILE --output content.sqlite [--articles articles.jsonl | --articles PART…]
                         [--costs-report FILE] [--depfile FILE] [--source-date-epoch SECONDS]
                         [--previous PREVIOUS_BUNDLE --delta delta.json] [--inputs inputs.json]
               fieldpack-bundle migrate PREVIOUS_BUNDLE --output content.sqlite
        """,
    help: """
        Builds the content bundle: applies the ordered migrations to a scratch database, loads the
        deduped records in one transaction, checks foreign keys and integrity, then publishes a
        compacted copy (VACUUM INTO, fsync, rename). The same inputs give the same bytes: the build
        date is --source-date-epoch, else SOURCE_DATE_EPOCH (Unix seconds; anything else is a usage
        error), else the newest record's updated_at, never the clock. Given the N parts of a
        sharded dedupe (dedupe/shard-J-of-N/records.jsonl, each with its .made-from.json), it
        merges them by key into the order one deduped file has: the same bundle, byte for byte.

        Only photos that may ship go in: an allowed licence (the pipeline's "licenses"), a real
        https photo (not a placeholder), and someone to credit. Each gets its tier URL template,
        normalised licence and credit; each taxon its hero photo; each size class its cost in every
        display target (the pipeline's "targets"). --costs-report writes the aggregates as JSON.

        The pipeline's "select" (places, taxa, quality grades, dates, a minimum of photos, caps per
        taxon) then keeps only what the guide ships, with the taxa of what it keeps and their
        ancestors; the costs report counts what each rule removed. A selection that keeps nothing
        is a warning on stderr.

        An observation known only from the open-data export gets a negative id from its uuid's
        hash (two uuids with one hash get two ids: the lower uuid keeps it). An export
        observation's observer or taxon that no record has is dropped, with a warning naming the
        export's file and line. Both hold alike for one deduped file and for a sharded dedupe.

        --articles takes the wiki stage's articles.jsonl, or the N parts of a sharded wiki stage
        (fieldpack-wiki --shard K/N --output-folder PART; repeat the option, or give a folder of
        parts), which it merges into exactly the articles one whole run gives; it refuses parts
        made from other inputs or by another version, naming both.
        """,
    options: ["pipeline", "output", "articles", "costs-report", "depfile", "source-date-epoch", "previous", "delta", "inputs"])

command.main { arguments in
    if arguments.positional.first == "migrate" {
        guard arguments.positional.count == 2 else { throw UsageError("give exactly one previous bundle to migrate") }
        if let option = arguments.givenOptions(except: ["output"]).first {
            throw UsageError("migrate takes only --output: --\(option) has nothing to do with it")
        }
        let output = try arguments.required("output")
        // A bundle's folder holds only what its manifest lists: one more file, and it no longer
        // verifies (nor serves as --previous). The folder named, or the one holding the database
        // named (a flat bundle's, or a bag's around its data/).
        if let folder = BundleVerifier.bundleFolder(of: arguments.positional[1]), FileSystem.isInside(output, folder: folder) {
            throw FieldpackError(
                path: output, "is inside the bundle folder \(folder) it migrates, which would then fail its check (a file its manifest does not list): write it elsewhere")
        }
        let source = try BundleVerifier.previousDatabase(arguments.positional[1], checksFile: false, report: StandardError.write)
        let clock = StageClock()
        var migration = BundleMigration.Options(source: source.path, output: output)
        migration.vouched = source
        let summary = try BundleMigration(options: migration).run()
        StageReport(stage: "bundle", clock: clock).print(
            summary.from == summary.to
                ? "\(source.path) is already at schema v\(summary.to) (fingerprint \(summary.fingerprint)): published as it is"
                : "migrated \(source.path) from schema v\(summary.from) to v\(summary.to), fingerprint \(summary.fingerprint)")
        return
    }
    guard !arguments.positional.isEmpty else {
        throw UsageError("give one deduped records file, or the parts of a sharded dedupe (shards 0…N-1)")
    }
    if arguments.value("delta") != nil && arguments.value("previous") == nil {
        throw UsageError("--delta compares with a previous bundle: give --previous FILE")
    }
    // A date the manifest writes and the app reads as YYYY-MM-DDTHH:MM:SSZ: from 1970 to 9999
    // (a later one was published as "3170843-11-07…", which the manifest stage then refused).
    func buildDate(_ epoch: Int64, _ name: String) throws -> Int64 {
        guard (0...253_402_300_799).contains(epoch) else {
            throw UsageError("\(name) must be Unix seconds from 0 (1970-01-01) to 253402300799 (9999-12-31), not \(epoch)")
        }
        return epoch
    }
    var sourceDateEpoch: Int64? = nil
    if let epoch = try arguments.int("source-date-epoch") {
        sourceDateEpoch = try buildDate(Int64(epoch), "--source-date-epoch")
    } else if let text = environment("SOURCE_DATE_EPOCH"), !text.isEmpty {
        guard let epoch = Int64(text) else { throw UsageError("SOURCE_DATE_EPOCH must be Unix seconds, not \"\(text)\"") }
        sourceDateEpoch = try buildDate(epoch, "SOURCE_DATE_EPOCH")
    }
    let pipeline = try Pipeline.load(try arguments.required("pipeline"))
    let outputs = ["output", "costs-report", "inputs", "delta", "depfile"]
    try arguments.refuseOutputs(
        outputs, overwriting: arguments.positional + arguments.all("articles") + pipeline.settingsFiles, insideFolders: arguments.all("articles"))
    var options = BundleBuilder.Options(
        input: arguments.positional[0], output: try arguments.required("output"), pipelineName: pipeline.name,
        policy: pipeline.shipping)
    options.inputs = arguments.positional
    options.costsReport = arguments.value("costs-report")
    // One articles.jsonl, or the parts of a sharded wiki stage (repeated, or a folder of them).
    let articles = arguments.all("articles")
    if articles.count == 1 && !FileSystem.isDirectory(articles[0]) {
        options.articles = articles[0]
    } else {
        options.articleParts = articles
    }
    options.inputsFile = arguments.value("inputs")
    options.destinations = pipeline.destinations
    options.selection = pipeline.selection
    options.selectionSource = pipeline.path
    options.progress = arguments.progress(stage: "bundle")
    if let previous = arguments.value("previous") {
        // The previous bundle (its database, the folder or bag holding it) is an input of every
        // output but --output: a rebuild in place with a delta reads it before it is replaced.
        // Told from its path, before the bundle is verified (minutes for a large one).
        try arguments.refuseOutputs(
            Array(outputs.dropFirst()), overwriting: [previous], insideFolders: BundleVerifier.bundleFolder(of: previous).map { [$0] } ?? [])
        let vouched = try BundleVerifier.previousDatabase(previous, report: StandardError.write)
        options.previous = vouched.path
        options.previousVouched = vouched
        options.delta = try arguments.required("delta")
    }
    options.sourceDateEpoch = sourceDateEpoch
    let clock = StageClock()
    // The depfile before the database: a run killed between the two must not leave a bundle that
    // make takes as up to date whatever the measured sizes or the places become. Pending until
    // the database is in place, then with the files as they were read (`Depfile.Identities`).
    // The pipeline file too, by its identity as it was loaded: the bundle reads nearly every
    // key, and the stages before it name it only by the keys they read (`PipelineReader`), so
    // one copied in with an older time and other targets is made again here.
    let prerequisites = [pipeline.path] + pipeline.settingsFiles
    let identities = Depfile.Identities.take(prerequisites)
    if let depfile = arguments.value("depfile") {
        try Depfile.write(depfile, target: options.output, prerequisites: prerequisites, taken: .pending)
    }
    let summary = try BundleBuilder(options: options).run()
    if let depfile = arguments.value("depfile") {
        try Depfile.write(depfile, target: options.output, prerequisites: prerequisites, taken: identities)
    }
    for finding in summary.findings { StandardError.write(finding.diagnostic) }
    let missing = summary.missingParents
    if missing.count > missing.shown.count {
        StandardError.write("fieldpack-bundle: warning: \(missing.count - missing.shown.count) more observations of the export refer to an observer or taxon no record has (the first \(MissingParents.limit) are listed above)")
    }
    let rows = summary.counts.map { "\($0.rows) \($0.table)" }.joined(separator: ", ")
    let photos = summary.report.map { report in
        "; photos: \(report.shipped) of \(report.photos) ship (\(report.remote) remote), \(report.photos - report.shipped) excluded"
    } ?? ""
    StageReport(stage: "bundle", clock: clock).print(
        "schema v\(Migrations.latestVersion), \(rows)\(photos); \(summary.bytes) bytes", records: summary.records,
        bytes: options.inputs.reduce(0) { $0 + (FileSystem.size($1) ?? 0) })
}
