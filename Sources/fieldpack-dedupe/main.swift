import FieldpackKit

let command = StageCommand(
    name: "fieldpack-dedupe",
    usage: """
        fieldpack-dedupe (RECORDS.jsonl | INAT_SHARDS_DIR [--shard J/N]) --output DEDUPED.jsonl --conflicts CONFLICTS.json [--examples 20] [--pipeline FILE [--depfile FILE]]
               fieldpack-dedupe --merge-conflicts PART.jsonl… --conflicts CONFLICTS.json [--examples 20]
        """,
    help: """
        Keeps one record per observation, taxon, user and photo id: the newest updated_at wins,
        whatever file it came from. Photo identity is the photo id, never the URL. Writes the
        records sorted by kind and id, and a report of photos whose licence, attribution or URL
        differ between occurrences; --examples sets how many of those photo ids it shows in full
        (default 20). Observations are one per uuid; one whose newest copy comes from the
        open-data export keeps the export's file and line after its columns, for the bundle
        stage, which settles what needs every record at once (an export-only observation's id
        when two uuids share a hash; an observer or taxon that no record has).

        With --pipeline, the pipeline's "select" rules that read only an observation's own
        values (places; quality grades and the observed range too when it has no taxon rule)
        apply to each winning observation: one they remove is not written, nor its photo links,
        and a "select" line after the observations counts them by rule, for the bundle stage,
        which applies every rule and refuses records deduped under other rules than its
        pipeline's. When fieldpack-inat applied the taxon rule too (only export tables, whose
        taxa give one answer per taxon), the rows it marked removed by the taxa, grades or
        dates are counted under those rules. A records file (not a shard's folder) also loses
        the photos no written observation or taxon refers to, counted in that line, except those
        with measured sizes.
        --depfile lists the GeoJSON files those rules were read from, and the measured sizes.

        Given the folder of a sharded ingest (holding shard-I-of-N/ folders), it is dedupe shard
        J of N (--shard J/N, else the engine's array index, see the README): it checks that the
        N ingest shards are one job's, judges the whole job's reject threshold, and dedupes
        partition J of every ingest shard. It writes a .made-from.json beside --output.

        --merge-conflicts joins the conflicts reports beside the N parts of a sharded dedupe
        (dedupe/shard-J-of-N/records.jsonl, one job's) into the report one unsharded dedupe
        writes: the counts add up, the examples are the first by photo id.
        """,
    options: ["output", "conflicts", "examples", "shard", "pipeline", "depfile"],
    flags: ["merge-conflicts"])

command.main { arguments in
    if arguments.flag("merge-conflicts") {
        guard !arguments.positional.isEmpty else { throw UsageError("give the N parts of a sharded dedupe (their records files)") }
        if let option = arguments.givenOptions(except: ["conflicts", "examples"]).first {
            throw UsageError("--merge-conflicts writes only --conflicts: --\(option) has nothing to do with it")
        }
        try ConflictMerge.merge(
            parts: arguments.positional, examples: try arguments.int("examples", atLeast: 0) ?? Dedupe.defaultExamples, to: try arguments.required("conflicts"))
        return
    }
    guard arguments.positional.count == 1 else { throw UsageError("give exactly one records file") }
    let clock = StageClock()
    let pipeline = try arguments.value("pipeline").map { try Pipeline.load($0, for: .dedupe) }
    let selection = pipeline?.selection
    // Photos with measured sizes are written whatever the selection keeps (`Dedupe.Options`).
    let measuredSizes = selection == nil ? nil : pipeline?.shipping.measuredSizes
    if arguments.value("depfile") != nil && arguments.value("pipeline") == nil {
        throw UsageError("--depfile lists the files of --pipeline's select: give --pipeline")
    }
    // A sharded ingest's folder: its parts are the inputs.
    try arguments.refuseOutputs(
        ["output", "conflicts", "depfile"], overwriting: arguments.positional + (pipeline?.settingsFiles ?? []), insideFolders: arguments.positional)
    let sharded = FileSystem.isDirectory(arguments.positional[0])
    if arguments.value("shard") != nil && !sharded { throw UsageError("--shard needs the folder of a sharded ingest, not a records file") }
    // Before the run (a run killed after its output must not leave that output without its
    // depfile, which make would take as up to date whatever the places become), pending until
    // the outputs are in place, then with the files as they were read (`Depfile.Identities`).
    let prerequisites = (selection?.files ?? []) + (measuredSizes.map { [$0] } ?? [])
    let identities = Depfile.Identities.take(prerequisites)
    func writeDepfile(_ taken: Depfile.Identities) throws {
        guard let depfile = arguments.value("depfile") else { return }
        try Depfile.write(
            depfile, target: try arguments.required("output"), prerequisites: prerequisites,
            keyed: pipeline.map { PipelineReader.dedupe.keyed($0) } ?? [:], taken: taken)
    }
    try writeDepfile(.pending)
    let measuredPhotos = try measuredSizes.map { try MeasuredSizes(path: $0).entries.map(\.photo) } ?? []
    if sharded {
        let shard = try Shard.resolve(option: arguments.value("shard"))
        var options = DedupeShard.Options(
            inat: arguments.positional[0], shard: shard, output: try arguments.required("output"),
            conflicts: try arguments.required("conflicts"))
        if let examples = try arguments.int("examples", atLeast: 0) { options.examples = examples }
        options.progress = arguments.progress(stage: "dedupe")
        options.selection = selection
        options.measuredPhotos = measuredPhotos
        let summary = try DedupeShard(options: options).run()
        try writeDepfile(identities)
        report(summary, clock: clock, shard: shard)
        return
    }
    var options = Dedupe.Options(
        input: arguments.positional[0], output: try arguments.required("output"),
        conflicts: try arguments.required("conflicts"))
    if let examples = try arguments.int("examples", atLeast: 0) { options.examples = examples }
    options.progress = arguments.progress(stage: "dedupe")
    options.selection = selection
    options.measuredPhotos = measuredPhotos
    let summary = try Dedupe(options: options).run()
    try writeDepfile(identities)
    report(summary, clock: clock, shard: nil)
}

func report(_ summary: Dedupe.Summary, clock: StageClock, shard: Shard?) {
    let unique = summary.unique
    StageReport(stage: "dedupe", clock: clock).print(
        (shard.map { "shard \($0): " } ?? "") +
        "\(unique["obs"] ?? 0) observations, \(unique["taxon"] ?? 0) taxa, \(unique["user"] ?? 0) users, "
            + "\(unique["photo"] ?? 0) photos (from \(summary.occurrences["photo"] ?? 0) occurrences; "
            + "\(summary.filledDimensions) dimensions filled, \(summary.conflicts.ids) with conflicts)"
            + (summary.selected.map { "; the selection left out \($0.removed.values.reduce(0, +)) observations" } ?? "")
            + (summary.spillPartitions > 0 ? "; over the memory budget, spilled into \(summary.spillPartitions) partitions" : ""),
        records: summary.records, bytes: summary.bytes, shard: shard)
}
