import FieldpackKit

let command = StageCommand(
    name: "fieldpack-inat",
    usage: "fieldpack-inat (--pipeline FILE | INPUT... | DIR... | -) --output RECORDS.jsonl --rejects REJECTS.jsonl [--depfile FILE] [--max-reject-rate 0.01] [--workers N] [--open-data-date YYYY-MM-DD] | (--pipeline FILE | INPUT...) --output-folder DIR [--shard I/N] [--range-bytes BYTES] | --merge-rejects INAT_DIR --shards N --rejects REJECTS.jsonl | --pipeline FILE --print-name",
    help: """
        Ingests iNaturalist dumps (API pages of observations, taxa or species counts, bare
        arrays of records, single records, JSON Lines; any of them gzip-compressed, detected
        by content, whatever the file's extension) and the iNaturalist open-data export (its
        .tar.gz, or its observations, photos, taxa and observers tables, plain or .gz, told by
        their header lines) into normalized records. The export's rows are dated by the
        inaturalist-open-data-YYYYMMDD in their names, else by --open-data-date (default: the
        pipeline's "open_data_date"). A folder is walked
        like a pipeline's input folder; - reads standard input. A file that is not iNaturalist
        JSON or an export table (another CSV export, Darwin Core, HTML, binary) stops the stage with one error.
        A record keeps its good parts: an unusable part (a wrong-typed field, a photo without
        an id) is dropped and listed in the rejects file as "salvaged"; only a record without a
        usable id is "rejected". Each finding gives file, line, JSON path and reason. The stage
        fails when more than --max-reject-rate of the records are rejected (default: the
        pipeline's "max_reject_rate", else 0.01 = 1%). A plain export table over 4 MiB is read
        as byte ranges side by side on the --workers (its input record follows the run's records).
        With --pipeline and a "select" of places (or, without taxa, of quality grades or an
        observed range), the export's photo rows are written without their links to the
        observations those rules remove (fieldpack-dedupe must then get the same --pipeline);
        when every input is an export table, a removed observation's row or an unselected
        photo's row whose key has no other row is only counted, in a "select" line, the
        taxon rule applies too when the export's taxa tables give one answer per taxon, and
        only the taxa and observers a kept row may need are written (the others are counted).
        --print-name prints the pipeline's name and exits.

        With --output-folder it is ingest shard I of N (--shard I/N, else the engine's array
        index, see the README): it reads its share of the inputs (whole files by their place in
        the input list, and byte ranges of large JSON Lines files and export tables, cut at line
        starts; see --range-bytes, default 256 MiB) and writes its records partitioned by dedupe
        key into DIR/part-J.jsonl (J = 0…N-1), its rejects into DIR/rejects.jsonl and, last,
        DIR/summary.json. The threshold is judged over all shards by each dedupe shard.
        --merge-rejects joins the N shards' rejects under INAT_DIR in input order.
        """,
    options: ["pipeline", "output", "rejects", "depfile", "max-reject-rate", "workers", "open-data-date",
              "output-folder", "shard", "range-bytes", "merge-rejects", "shards"],
    flags: ["print-name"])

command.main { arguments in
    if let base = arguments.value("merge-rejects") {
        guard let count = try arguments.int("shards") else { throw UsageError("--merge-rejects needs --shards N") }
        let shards = try IngestShards(base: base, count: try Shard(index: 0, count: count).count)
        // The shards' folders are what it reads: its output in one would replace a shard's file.
        let rejects = try arguments.required("rejects")
        try FileSystem.refuseOutputs(
            [rejects], overwriting: [], insideFolders: try (0..<count).map { IngestShardSummary.folder(base: base, shard: try Shard(index: $0, count: count)) })
        try shards.mergeRejects(to: rejects)
        return
    }
    var inputs: [String] = []
    var folders: [String] = []
    // The folders whose every file is read (not a glob's, only watched): no output goes there.
    var walked: [String] = []
    // A folder is walked like a pipeline's; `-` is standard input.
    for argument in arguments.positional {
        if argument != StandardInput.argument && FileSystem.isDirectory(argument) {
            // A folder that holds no input file is refused there, naming it.
            let resolved = try Pipeline.resolve([argument], pipelinePath: argument)
            inputs += resolved.files
            folders += resolved.folders
            walked += resolved.walked
        } else {
            inputs.append(argument == StandardInput.argument ? argument : lexicallyNormal(argument))
        }
    }
    if inputs.filter({ $0 == StandardInput.argument }).count > 1 { throw UsageError("- (standard input) can be given only once") }
    var maxRejectRate: Double? = nil
    var openDataDate: Int64? = nil
    var selection: Selection? = nil
    var measuredSizes: String? = nil
    var repeatFilterBytes: Int? = nil
    var settingsFiles: [String] = []
    var keyed: [String: Depfile.Keyed] = [:]
    if let pipelinePath = arguments.value("pipeline") {
        if arguments.flag("print-name") {
            print(try Pipeline.name(at: pipelinePath))
            return
        }
        let pipeline = try Pipeline.load(pipelinePath, for: .inat)
        maxRejectRate = pipeline.maxRejectRate
        openDataDate = pipeline.openDataDate
        selection = pipeline.selection
        measuredSizes = selection == nil ? nil : pipeline.shipping.measuredSizes
        repeatFilterBytes = pipeline.repeatFilterBytes
        settingsFiles = pipeline.settingsFiles
        let resolved = try pipeline.resolveINatInputs()
        // The Wikipedia inputs are read only by the wiki stage, after ingest and dedupe: one
        // that does not exist fails the build here, before them.
        _ = try pipeline.resolveWikipediaInputs()
        inputs += resolved.files
        folders += resolved.folders
        // The pipeline file by what ingest reads of it (`PipelineReader`), not by its times.
        keyed = PipelineReader.inat.keyed(pipeline)
        walked += resolved.walked
    }
    if inputs.isEmpty { throw UsageError("give --pipeline or input files") }
    try arguments.refuseOutputs(["output", "rejects", "depfile"], overwriting: inputs + settingsFiles)
    try Pipeline.refuseOutputsInWalkedFolders(
        ["output", "rejects", "depfile"].map { arguments.value($0) } + [arguments.value("output-folder").map { IngestShardSummary.path(folder: $0) }],
        folders: walked)
    let folder = arguments.value("output-folder")
    // A shard writes its folder's files (parts, rejects, summary): no input may be among them.
    if let folder, let inside = (inputs + settingsFiles + [arguments.value("pipeline")].compactMap { $0 })
        .first(where: { FileSystem.isInside($0, folder: folder) }) {
        throw FieldpackError(path: inside, "is inside --output-folder \(folder), which the shard writes: keep the inputs out of it")
    }
    var options = INatIngest.Options(
        inputs: inputs, output: folder == nil ? try arguments.required("output") : "",
        rejects: folder == nil ? try arguments.required("rejects") : "")
    if let folder {
        options.outputFolder = folder
        options.shard = try Shard.resolve(option: arguments.value("shard"))
        if let bytes = try arguments.int("range-bytes") {
            guard bytes > 0 else { throw UsageError("--range-bytes must be positive") }
            options.rangeBytes = bytes
        }
    } else if arguments.value("shard") != nil {
        throw UsageError("--shard needs --output-folder (a shard writes N parts)")
    }
    options.depfile = arguments.value("depfile")
    // Their rows are always written (dedupe writes them whatever the selection keeps).
    options.measuredSizes = measuredSizes
    if let repeatFilterBytes { options.repeatFilterBytes = repeatFilterBytes }
    if let measuredSizes { options.measuredPhotos = try MeasuredSizes(path: measuredSizes).entries.map(\.photo) }
    options.watchedFolders = folders
    options.keyed = keyed
    options.walkedFolders = walked
    if let rate = try arguments.fraction("max-reject-rate") {
        options.maxRejectRate = rate
    } else if let pipelinePath = arguments.value("pipeline") {
        if let maxRejectRate { options.maxRejectRate = maxRejectRate }
        // A make user sets it in the pipeline file (or with MAX_REJECT_RATE=, which writes it).
        options.maxRejectRateName = "pipeline's max_reject_rate"
        // A pipeline file make wrote from INAT=… is not edited by hand (make would refuse it
        // next time): its setting comes from MAX_REJECT_RATE=.
        options.maxRejectRateHint = PipelineTemplate.wasWritten(pipelinePath)
            ? "to allow more, run make bundle INAT=… again with MAX_REJECT_RATE=R (0 to 1)"
            : "to allow more, raise \"max_reject_rate\" in \(pipelinePath)"
    }
    if let text = arguments.value("open-data-date") {
        guard let date = Timestamp.day(text) else { throw UsageError("--open-data-date \(Timestamp.dayProblem(text))") }
        openDataDate = date
    }
    options.openDataDate = openDataDate
    options.selection = selection
    if let workers = try arguments.int("workers", atLeast: 1) { options.workers = workers }
    options.progress = arguments.progress(stage: "inat")
    let clock = StageClock()
    let summary = try INatIngest(options: options).run { first, count in
        for finding in first.prefix(20) { StandardError.write(finding.diagnostic) }
        if count > 20 { StandardError.write("fieldpack-inat: … \(count - 20) more in \(folder.map { "\($0)/rejects.jsonl" } ?? options.rejects)") }
    }
    for notice in summary.notices { StandardError.write("fieldpack-inat: notice: \(notice)") }
    let report = StageReport(stage: "inat", clock: clock)
    let counts = summary.counts
    // A sharded run counts its units; an unsharded one its files, and the ranges of cut tables.
    let read = folder != nil
        ? "shard \(options.shard): \(summary.files.count) files and ranges"
        : "\(summary.fileCount) files" + (summary.files.count > summary.fileCount ? " (\(summary.files.count) files and ranges)" : "")
    report.print(
        read + ", \(summary.accepted) records accepted, \(summary.rejected) rejected, "
            + "\(summary.salvaged) salvaged (parts dropped, records kept); "
            + "found \(counts.observations) observation, \(counts.taxa) taxon, \(counts.users) user and \(counts.photos) photo occurrences"
            + (summary.prunedLinks > 0 ? "; \(summary.prunedLinks) export photo links left out (their observations are not selected)" : "")
                + (summary.leftOutRows > 0 ? ", \(summary.leftOutRows) rows only counted (removed and with no other row, or taxa and observers no kept row needs)" : ""),
        records: summary.accepted, bytes: summary.bytes, shard: folder == nil ? nil : options.shard)
}
