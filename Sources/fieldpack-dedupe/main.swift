import FieldpackKit

let command = StageCommand(
    name: "fieldpack-dedupe",
    usage: "fieldpack-dedupe (RECORDS.jsonl | INAT_SHARDS_DIR [--shard J/N]) --output DEDUPED.jsonl --conflicts CONFLICTS.json [--examples 20]",
    help: """
        Keeps one record per observation, taxon, user and photo id: the newest updated_at wins,
        whatever file it came from. Photo identity is the photo id, never the URL. Writes the
        records sorted by kind and id, and a report of photos whose licence, attribution or URL
        differ between occurrences; --examples sets how many of those photo ids it shows in full
        (default 20). Observations are one per uuid; one whose newest copy comes from the
        open-data export keeps the export's file and line after its columns, for the bundle
        stage, which settles what needs every record at once (an export-only observation's id
        when two uuids share a hash; an observer or taxon that no record has).

        Given the folder of a sharded ingest (holding shard-I-of-N/ folders), it is dedupe shard
        J of N (--shard J/N, else the engine's array index, see the README): it checks that the
        N ingest shards are one job's, judges the whole job's reject threshold, and dedupes
        partition J of every ingest shard. It writes a .made-from.json beside --output.
        """,
    options: ["output", "conflicts", "examples", "shard"])

command.main { arguments in
    guard arguments.positional.count == 1 else { throw UsageError("give exactly one records file") }
    let clock = StageClock()
    if FileSystem.isDirectory(arguments.positional[0]) {
        let shard = try Shard.resolve(option: arguments.value("shard"))
        var options = DedupeShard.Options(
            inat: arguments.positional[0], shard: shard, output: try arguments.required("output"),
            conflicts: try arguments.required("conflicts"))
        if let examples = try arguments.int("examples") { options.examples = examples }
        options.progress = arguments.progress(stage: "dedupe")
        report(try DedupeShard(options: options).run(), clock: clock, shard: shard)
        return
    }
    if arguments.value("shard") != nil { throw UsageError("--shard needs the folder of a sharded ingest, not a records file") }
    var options = Dedupe.Options(
        input: arguments.positional[0], output: try arguments.required("output"),
        conflicts: try arguments.required("conflicts"))
    if let examples = try arguments.int("examples") { options.examples = examples }
    options.progress = arguments.progress(stage: "dedupe")
    report(try Dedupe(options: options).run(), clock: clock, shard: nil)
}

func report(_ summary: Dedupe.Summary, clock: StageClock, shard: Shard?) {
    let unique = summary.unique
    StageReport(stage: "dedupe", clock: clock).print(
        (shard.map { "shard \($0): " } ?? "") +
        "\(unique["obs"] ?? 0) observations, \(unique["taxon"] ?? 0) taxa, \(unique["user"] ?? 0) users, "
            + "\(unique["photo"] ?? 0) photos (from \(summary.occurrences["photo"] ?? 0) occurrences; "
            + "\(summary.filledDimensions) dimensions filled, \(summary.conflicts.ids) with conflicts)"
            + (summary.spillPartitions > 0 ? "; over the memory budget, spilled into \(summary.spillPartitions) partitions" : ""),
        records: summary.records, bytes: summary.bytes, shard: shard)
}
