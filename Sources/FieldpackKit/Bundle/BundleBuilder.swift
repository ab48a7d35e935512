#if canImport(Glibc)
import Glibc
#endif

/// The bundle stage: deduped records in, a migrated, verified, reproducible SQLite file out.
///
/// Builds in a scratch file (fast settings, one transaction, rows in key order, foreign keys
/// checked row by row), then `VACUUM INTO` a temp file beside the destination (dropping freelist
/// and insertion-order differences), checks that copy's header read-only, fsyncs it and renames
/// it into place. `fieldpack-verify` runs the full checks on the published bundle.
public struct BundleBuilder {
    public struct Options: Sendable {
        /// The deduped records file, or the N parts of a sharded dedupe (shards 0…N-1 of one job,
        /// each with its `ShardPartSidecar`): k-way merged by key, so the bundle's bytes are the
        /// unsharded build's (see `MergedRecords`).
        public var inputs: [String]
        /// The first of `inputs`; setting it makes it the only one.
        public var input: String {
            get { inputs[0] }
            set { inputs = [newValue] }
        }
        public var output: String
        public var pipelineName: String
        /// Which photos ship and what they cost (the pipeline's licences, targets, budget).
        public var policy: ShippingPolicy
        /// Where to write `costs-report.json` (nil: not written).
        public var costsReport: String? = nil
        /// The wiki stage's `articles.jsonl` (nil: no articles).
        public var articles: String? = nil
        /// Instead, the parts of a sharded wiki stage (part folders, or folders of them), merged
        /// into what one whole run writes (`WikiMerge`).
        public var articleParts: [String] = []
        /// The pipeline's destinations.
        public var destinations: [Destination] = []
        /// Where to write the input files' paths, sizes and SHA-256 (`inputs.json`) for the
        /// manifest. They are not in the database: the same records split across differently
        /// named files give the same bytes.
        public var inputsFile: String? = nil
        /// The previously shipped bundle's database: what changed is counted in `bundle_info`
        /// and written to `delta` (`delta.json`).
        public var previous: String? = nil
        /// `previous` as its checks found it (`BundleVerifier.previousDatabase`): the delta is
        /// refused when the file is another by the time it was read.
        public var previousVouched: BundleVerifier.VouchedDatabase? = nil
        public var delta: String? = nil
        /// Build date (Unix seconds; the executable passes `SOURCE_DATE_EPOCH`); nil takes the
        /// newest record's `updated_at`. Never the clock.
        public var sourceDateEpoch: Int64? = nil
        /// What ships of the records (the pipeline's `select`; nil: everything), and the
        /// pipeline file it came from (what its findings name).
        public var selection: Selection? = nil
        public var selectionSource = "select"
        /// Records loaded and bytes of the records file read, for the progress line.
        public var progress = StageProgress.silent("bundle")
        /// The schema history to build with: the shipped one. (Tests pass one whose last step
        /// fails, to show that a failed build publishes nothing.)
        package var migrations: [Migration] = Migrations.all
        /// The most each external sort of the load holds in memory before it spills a run to
        /// the output's folder (tests pass a few bytes, to spill at every record); nil: from the
        /// inputs' size (`SortSpace.runBytes(forInputBytes:)`).
        package var sortRunBytes: Int? = nil
        /// The id of an observation known only by its uuid, before collisions are settled
        /// (`ObservationUUID.exportID`; tests pass a hash that collides, see `ExportIDs`).
        package var exportID: @Sendable (ObservationUUID) -> Int64 = { $0.exportID }

        public init(input: String, output: String, pipelineName: String, policy: ShippingPolicy) {
            self.inputs = [input]
            self.output = output
            self.pipelineName = pipelineName
            self.policy = policy
        }
    }

    public struct Summary: Sendable {
        public var counts: [(table: String, rows: Int64)] = []
        public var fingerprint = ""
        public var buildDate = ""
        public var bytes = 0
        public var records = 0
        public var report: CostReport? = nil
        /// What the selection removed (nil: no selection).
        public var selection: SelectionCounts? = nil
        /// Findings about the build, in this order: export observations kept without an observer
        /// or taxon that no record has (the first `MissingParents.limit` of `missingParents`), a
        /// selection that keeps nothing.
        public var findings: [Finding] = []
        /// Export observations whose observer or taxon no record has (see `ExportObservationRules`).
        public var missingParents = MissingParents()
    }

    /// The shipped file's page size: SQLite's default and recommendation, and APFS's block size.
    public static let pageSize = 4096

    public static let tables = [
        "users", "photos", "taxa", "observations", "observation_photos", "taxon_photos", "photo_tiers", "display_targets",
        "size_costs", "articles", "destinations", "search_entries",
    ]

    /// Each bundle table's row count, as `bundle_info` and the manifest give them.
    static func rowCounts(_ database: Database) throws -> [(table: String, rows: Int64)] {
        try tables.map { ($0, try database.int("SELECT count(*) FROM \($0)") ?? 0) }
    }

    /// The foreign keys the loader checks, as (table, column, parent table).
    public static var checkedForeignKeys: [(table: String, column: String, parent: String)] {
        ReferenceCheck.relations
    }

    public let options: Options

    public init(options: Options) {
        self.options = options
    }

    @discardableResult
    public func run() throws -> Summary {
        for input in options.inputs { _ = try ReadableFile.nonEmpty(input, writtenBy: "fieldpack-dedupe") }  // before any scratch file
        if options.inputs.count > 1 { _ = try ShardPartSidecar.requireOneJob(options.inputs) }
        try FileSystem.refuseOutputs(
            [options.output, options.costsReport, options.inputsFile, options.delta],
            // Not `previous`: a rebuild in place with a delta reads it before it is replaced.
            overwriting: options.inputs + [options.articles].compactMap { $0 } + options.articleParts)
        let files = try BuildFiles(output: options.output, scratchLabel: "scratch")
        defer { files.cleanUp() }
        var summary = Summary()
        let trace = PhaseTrace(stage: "bundle")
        var inputsJSON: String? = nil
        var deltaJSON: String? = nil
        do {
            let scratch = try Database(path: files.scratch)
            // An 8 MiB page cache (128 pages). Most rows go in in their table's key order
            // (observations through `ObservationOrder`, photos, taxa and users by id), so their
            // pages fill one after another; `observation_photos` rows go in by photo, not by
            // their key. With 64 MiB the bundle of the benchmark's 1M API pages and its articles
            // was no faster (24.7–25.3 s against 22.0–24.0 s with 8 MiB) and took 67 MB more;
            // the export's at 10M, 22 MB more. Not measured on a build that keeps most of tens of
            // millions of links, where that table's inserts are random with either cache.
            try scratch.execute("""
                PRAGMA page_size = 65536;
                PRAGMA journal_mode = MEMORY;
                PRAGMA synchronous = OFF;
                PRAGMA cache_size = -8192;
                PRAGMA application_id = \(Migrations.applicationID);
                """)
            try Migrator(migrations: options.migrations).migrate(scratch)
            // SQLite does not enforce keys during the load: the loader checks them (see `ReferenceCheck`).
            try scratch.execute("PRAGMA foreign_keys = OFF")
            // Bulk load without the secondary indexes, then recreate them from their exact stored
            // SQL: building an index by sorting is far faster than millions of random inserts,
            // and the schema (and its fingerprint) ends up the same.
            let indexes = try scratch.rows(
                "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY rowid")
            var info: [(String, String)] = []
            trace.mark("migrations")
            try scratch.transaction {
                for index in indexes { try scratch.execute("DROP INDEX \"\(index[0]!)\"") }
                let measured = try options.policy.measuredSizes.map { try MeasuredSizes(path: $0) }
                var articleByTaxon: [Int64: Int64] = [:]
                if let articles = options.articles {
                    articleByTaxon = try ArticleLoader(path: articles).load(into: scratch, destinations: options.destinations).byTaxon
                } else if !options.articleParts.isEmpty {
                    articleByTaxon = try ArticleLoader(paths: options.articleParts).load(into: scratch, destinations: options.destinations).byTaxon
                } else if !options.destinations.isEmpty {
                    throw FieldpackError(path: options.output, "the pipeline has destinations but no articles file was given")
                }
                trace.mark("articles")
                let loader = try RecordLoader(database: scratch, progress: options.progress)
                options.progress.expect(bytes: options.inputs.reduce(0) { $0 + (FileSystem.size($1) ?? 0) })
                options.progress.start()
                defer { options.progress.finish() }
                try loader.load(
                    paths: options.inputs, policy: options.policy, measured: measured, articles: articleByTaxon,
                    space: SortSpace(
                        folder: directory(of: options.output),
                        runBytes: options.sortRunBytes
                            ?? SortSpace.runBytes(forInputBytes: options.inputs.reduce(0) { $0 + (FileSystem.size($1) ?? 0) })),
                    selection: options.selection, exportID: options.exportID)
                trace.mark("load")
                summary.missingParents = loader.missingParents
                summary.report = loader.report
                // The selection before the secondary indexes: a guide's selection deletes most rows
                // (the benchmark's keeps 1.7% of 1M observations), and every index would be updated
                // for each row deleted; the indexes are then built over what is kept.
                if let selection = options.selection {
                    let counts = try BundleSelection(selection: selection, database: scratch)
                        .apply(to: &summary.report, loaded: loader.selected ?? SelectionCounts())
                    summary.selection = counts
                    summary.findings += Self.findings(counts, source: options.selectionSource)
                    // A finding about an observation `min_photos` or a cap then removed names
                    // what the guide does not ship: a removed observation leaves nothing behind.
                    if summary.missingParents.count > 0 && (selection.minimumPhotos > 0 || selection.caps.observationsPerTaxon != nil) {
                        let present = try scratch.prepare("SELECT 1 FROM observations WHERE id = ?")
                        try summary.missingParents.keepOnly { id in
                            try present.bind([.integer(id)])
                            defer { present.reset() }
                            return try present.step()
                        }
                    }
                    trace.mark("select")
                }
                summary.findings = summary.missingParents.shown + summary.findings
                for index in indexes { try scratch.execute(index[1]!) }
                trace.mark("indexes")
                try SearchIndex.build(scratch, trace: trace)
                trace.mark("search index")
                summary.records = loader.records
                let buildSeconds = options.sourceDateEpoch ?? (loader.newestSeen.map { $0 / 1000 } ?? 0)
                summary.buildDate = Timestamp.iso8601(seconds: buildSeconds)
                summary.counts = try Self.rowCounts(scratch)
                info = [
                    ("schema_version", String(Migrations.latestVersion)),
                    ("pipeline", options.pipelineName),
                    ("tool_version", ToolVersion.version),
                    ("build_date", summary.buildDate),
                    ("photos.licenses_allowed", options.policy.licenses.map(\.rawValue).sorted().joined(separator: ",")),
                ] + summary.counts.map { ("rows.\($0.table)", String($0.rows)) }
                    + (summary.report?.bundleInfo() ?? []).map { ($0.key, $0.value) }
                    + summary.missingParents.bundleInfo
                inputsJSON = loader.inputsJSON() + "\n"
                let insert = try scratch.prepare("INSERT INTO bundle_info (key, value) VALUES (?, ?)")
                for (key, value) in info {
                    try insert.bind(key, at: 1)
                    try insert.bind(value, at: 2)
                    try insert.run()
                }
            }
            trace.mark("commit")
            if let previous = options.previous {
                let delta = try BundleDelta.compute(scratch, previous: previous, output: options.output)
                try options.previousVouched?.checkUnchanged()
                try scratch.transaction {
                    let insert = try scratch.prepare("INSERT INTO bundle_info (key, value) VALUES (?, ?)")
                    for (key, value) in delta.bundleInfo {
                        try insert.bind([.text(key), .text(value)])
                        try insert.run()
                    }
                }
                deltaJSON = delta.json
                trace.mark("delta")
            }
            summary.fingerprint = try SchemaFingerprint.compute(scratch)
            try scratch.transaction {
                let insert = try scratch.prepare("INSERT INTO bundle_info (key, value) VALUES ('schema_fingerprint', ?)")
                try insert.bind(summary.fingerprint, at: 1)
                try insert.run()
            }
            // Foreign keys were checked row by row during the load (see `ReferenceCheck`), and
            // the schema on the scratch file, whose content VACUUM INTO copies. The scratch file
            // loads faster in 64 KiB pages; the shipped copy takes 4 KiB.
            try files.compact(scratch, alongside: SearchIndex.check)
        } catch let error as SQLiteError where error.path == files.scratch || error.path == files.publish {
            // Named as the person knows it: the bundle being built, not its hidden scratch file.
            throw error.building(options.output)
        }
        trace.mark("analyze, vacuum into (beside the search index's integrity-check)")
        // The files beside the database are written to their temp files first (a full disk fails
        // here, before anything is published) and put in place right after the database: a run
        // that fails before leaves the last build's set as it was, never new provenance or a new
        // delta beside the old database, nor the old ones beside a new one.
        var beside: [AtomicOutput] = []
        for (path, text) in [
            (options.inputsFile, inputsJSON), (options.delta, deltaJSON), (options.costsReport, summary.report?.json),
        ] {
            guard let path, let text else { continue }
            let output = try AtomicOutput(path: path)
            try output.write(text)
            try output.flush()
            beside.append(output)
        }
        // fieldpack-manifest runs integrity_check and the rest before it publishes the bundle folder.
        try files.publishCopy()
        trace.mark("publish")
        for output in beside { try output.commit() }
        summary.bytes = FileSystem.size(options.output) ?? 0
        return summary
    }

    /// A notice when the selection keeps no observations or no taxa of what the records had,
    /// with what each rule removed.
    static func findings(_ counts: SelectionCounts, source: String) -> [Finding] {
        let removed = SelectionCounts.rules.compactMap { rule in counts.removed[rule].map { "\(rule) removed \($0)" } }
        let detail = removed.isEmpty ? "" : " (\(removed.joined(separator: ", ")))"
        var findings: [Finding] = []
        if counts.observationsConsidered > 0 && counts.observationsKept == 0 {
            findings.append(Finding(
                path: source, outcome: .notice,
                reason: "the selection keeps none of the \(counts.observationsConsidered) observations\(detail)"))
        }
        if counts.taxaConsidered > 0 && counts.taxaKept == 0 {
            findings.append(Finding(path: source, outcome: .notice, reason: "the selection keeps none of the \(counts.taxaConsidered) taxa"))
        }
        return findings
    }

    static func checkHeader(_ database: Database, path: String) throws {
        let version = try database.int("PRAGMA user_version")
        let application = try database.int("PRAGMA application_id")
        let mode = try database.scalar("PRAGMA journal_mode")
        guard version == Int64(Migrations.latestVersion), application == Int64(Migrations.applicationID), mode == "delete" else {
            throw FieldpackError(
                path: path,
                "the published copy reads user_version \(version ?? -1), application_id \(application ?? -1), journal_mode \(mode ?? "?")")
        }
    }
}
