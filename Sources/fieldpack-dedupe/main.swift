import FieldpackKit

let command = StageCommand(
    name: "fieldpack-dedupe",
    usage: "fieldpack-dedupe RECORDS.jsonl --output DEDUPED.jsonl --conflicts CONFLICTS.json [--examples 20]",
    help: """
        Keeps one record per observation, taxon, user and photo id: the newest updated_at wins,
        whatever file it came from. Photo identity is the photo id, never the URL. Writes the
        records sorted by kind and id, and a report of photos whose licence, attribution or URL
        differ between occurrences; --examples sets how many of those photo ids it shows in full
        (default 20). Observations are one per uuid. One known only from the open-data export
        gets a negative id from its uuid's hash (two uuids with one hash get two ids). Its
        observer or taxon is dropped when no record has it, with a warning naming the export's
        line.
        """,
    options: ["output", "conflicts", "examples"])

command.main { arguments in
    guard arguments.positional.count == 1 else { throw UsageError("give exactly one records file") }
    var options = Dedupe.Options(
        input: arguments.positional[0], output: try arguments.required("output"),
        conflicts: try arguments.required("conflicts"))
    if let examples = try arguments.int("examples") { options.examples = examples }
    options.progress = arguments.progress(stage: "dedupe")
    let clock = StageClock()
    let summary = try Dedupe(options: options).run()
    let unique = summary.unique
    // Export observations kept without an observer or taxon that no record has.
    for finding in summary.missingParents.shown { StandardError.write(finding.diagnostic) }
    if summary.missingParents.count > summary.missingParents.shown.count {
        StandardError.write("fieldpack-dedupe: warning: \(summary.missingParents.count - summary.missingParents.shown.count) more observations of the export refer to an observer or taxon no record has (the first \(MissingParents.limit) are listed above)")
    }
    StageReport(stage: "dedupe", clock: clock).print(
        "\(unique["obs"] ?? 0) observations, \(unique["taxon"] ?? 0) taxa, \(unique["user"] ?? 0) users, "
            + "\(unique["photo"] ?? 0) photos (from \(summary.occurrences["photo"] ?? 0) occurrences; "
            + "\(summary.filledDimensions) dimensions filled, \(summary.conflicts.ids) with conflicts)",
        records: summary.records, bytes: summary.bytes)
}
