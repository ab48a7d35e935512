import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The ingest stage: iNaturalist dumps in, one normalized records file out (JSON Lines), plus a
/// rejects file. Files are read in parallel and their records joined in input order, so the
/// output does not depend on scheduling.
public struct INatIngest {
    public struct Options: Sendable {
        public var inputs: [String]
        public var output: String
        public var rejects: String
        public var maxRejectRate = 0.01
        /// What `maxRejectRate` is called where it was set, and what to change to allow more,
        /// for the error over it.
        public var maxRejectRateName = "--max-reject-rate"
        public var maxRejectRateHint: String? = nil
        public var workers = 2
        public var maxDocumentBytes = 256 << 20
        public var depfile: String? = nil
        /// Folders and globs the inputs came from, for the depfile (a new file changes a folder).
        public var watchedFolders: [String] = []
        /// Those of `watchedFolders` walked for inputs, whose notes and hidden files are not read
        /// (`Depfile.Identities`).
        public var walkedFolders: [String] = []
        /// Files the depfile names by what ingest read of them: the pipeline's (`PipelineReader`).
        public var keyed: [String: Depfile.Keyed] = [:]
        /// Input files per unit of work and of satellite collapsing (see `Satellites`).
        public var filesPerChunk = 32
        /// Records and raw bytes read, for the progress line.
        public var progress = StageProgress.silent("inat")
        /// The date of loose open-data tables (Unix ms at 00:00 UTC; the pipeline's
        /// `open_data_date`), when their names do not carry it (see `OpenDataDate`).
        public var openDataDate: Int64? = nil
        /// A sharded run (`outputFolder` set): this task's share of the units (`IngestUnits`),
        /// its records partitioned by key into `shard.count` parts in `outputFolder` with its
        /// rejects and summary there (see `IngestShardSummary`); `output` and `rejects` unused.
        public var shard = Shard.whole
        public var outputFolder: String? = nil
        /// A sharded run cuts a JSON Lines file or open-data table larger than this into byte
        /// ranges of at most this size.
        public var rangeBytes = 256 << 20
        /// Any run cuts an open-data table larger than this into byte ranges of at most this size,
        /// read side by side (see `IngestUnits`).
        public var tableRangeBytes = IngestUnits.tableRangeBytes
        /// The pipeline's `select`: the export's photo links to observations its dedupe rules
        /// remove are not written (`ExportLinkPruning`); nil: every link is.
        public var selection: Selection? = nil
        /// The pipeline's measured sizes file (`ShippingPolicy.measuredSizes`) and its photos,
        /// whose rows are always written (`ExportLinkPruning.Singles`): dedupe writes them
        /// whatever the selection keeps.
        public var measuredSizes: String? = nil
        public var measuredPhotos: [Int64] = []
        /// The most memory the keys that repeat may take (the pipeline's `repeat_filter_bytes`;
        /// `ExportLinkPruning.Singles`).
        public var repeatFilterBytes = ExportLinkPruning.defaultFilterBytes
        /// Whether the plan finds each export row's fate, which lets ingest leave out a quiet row by
        /// its key alone (`ExportRowFates`); off, every row is read whole, as tests compare.
        var readsRowFates = true

        public init(inputs: [String], output: String, rejects: String) {
            self.inputs = inputs
            self.output = output
            self.rejects = rejects
        }
    }

    public struct Summary: Sendable {
        /// What the run decided that a user should know (`ExportLinkPruning.plan`'s notice).
        public var notices: [String] = []
        /// Each file or byte range read, in unit order.
        public var files: [FileSummary] = []
        /// The input files (a file read in ranges counts once).
        public var fileCount: Int { files.count - files.filter { $0.range != nil && $0.part > 0 }.count }
        public var counts = RecordCounts()
        public var accepted = 0
        /// Records without a usable id (or not records at all): dropped, and counted against
        /// `maxRejectRate`.
        public var rejected = 0
        /// Parts dropped from records that were kept (see `Finding.Outcome`).
        public var salvaged = 0
        /// The first findings, in input order (at most `FileIngest.sampleLimit` per file and in
        /// all); every finding is in the rejects file.
        public var findings: [Finding] = []
        /// How many findings there were in all.
        public var findingCount = 0
        /// Files whose reading stopped early, and where (see `rejectLimit`).
        public var stopped: [(path: String, at: String)] = []
        public var bytes = 0
        /// Export photo links not written, because the selection removes their observation.
        public var prunedLinks = 0
        /// Export rows not written at all, only counted (`ExportLinkPruning.Singles`, `ExportParents`).
        public var leftOutRows = 0

        public var rejectRate: Double {
            accepted + rejected == 0 ? 0 : Double(rejected) / Double(accepted + rejected)
        }
    }

    /// One file, or one byte range of a file (`range`), as it was read.
    public struct FileSummary: Sendable {
        public var path: String
        public var bytes: Int
        public var sha256: String
        public var format: String
        public var accepted: Int
        public var rejected: Int
        public var salvaged: Int
        /// The byte range read (nil: the whole file) and its place among the file's ranges; in a
        /// sharded run, where it is in the shard's rejects file.
        public var range: Range<Int>? = nil
        public var part = 0
        public var findings = 0
        public var rejectsBytes = 0
        public var stoppedAt: String? = nil
        /// An export table read under pruning: the digest of the rules (`InputRecord.pruned`).
        public var prunedBy: String? = nil
        public var prunedLinks = 0
        public var leftOutRows = 0
    }

    public let options: Options

    public init(options: Options) {
        self.options = options
    }

    /// Runs the stage.
    ///
    /// - Throws: `FieldpackError` when an input cannot be read or is not iNaturalist JSON (see
    ///   `ForeignInput`; valid JSON with no record of any `RecordShape`), or when the reject rate exceeds
    ///   `maxRejectRate` (the rejects file is still written; the records file is not published).
    ///   Only rejected records count: salvaged parts never fail a run.
    ///
    /// - Parameter diagnose: given the first findings and how many there were in all, before the
    ///   threshold is judged, so a person sees why a run over it failed.
    @discardableResult
    public func run(diagnose: (_ first: [Finding], _ count: Int) -> Void = { _, _ in }) throws -> Summary {
        let inputs = options.inputs
        if inputs.isEmpty { throw FieldpackError("no input files") }
        let folder = options.outputFolder
        try FileSystem.refuseOutputs(
            [folder == nil ? options.output : nil, folder == nil ? options.rejects : nil, options.depfile], overwriting: inputs)
        // What the depfile names, as it is before anything is read (`Depfile.Identities`).
        let prerequisites = inputs.filter { $0 != StandardInput.argument } + options.watchedFolders + Self.selectionFiles(options)
        if options.depfile != nil { try Depfile.check(prerequisites) }
        let identities = options.depfile == nil ? nil : Depfile.Identities.take(prerequisites, walked: Set(options.walkedFolders))
        // Large tables (and in a sharded run, JSON Lines files) in byte ranges (see `IngestUnits`);
        // a sharded run's share of the units, in unit order.
        let allUnits = try IngestUnits.plan(
            inputs: inputs, shards: options.shard.count, sharded: folder != nil, rangeBytes: options.rangeBytes,
            tableRangeBytes: options.tableRangeBytes, maxDocumentBytes: options.maxDocumentBytes)
        let positions = allUnits.indices.filter { folder == nil || options.shard.owns($0) }
        let units = positions.map { allUnits[$0] }
        let rejectsPath = folder.map { "\($0)/rejects.jsonl" } ?? options.rejects
        // Each AtomicOutput first removes what a dead run left of its output.
        let output: any RecordsOutput
        if let folder {
            output = try PartitionedOutput(folder: folder, count: options.shard.count)
        } else {
            output = try AtomicOutput(path: options.output)
        }
        let rejects = try AtomicOutput(path: rejectsPath)
        let workers = max(1, min(options.workers, units.count))
        let chunks = IngestUnits.chunks(units, filesPerChunk: options.filesPerChunk)
        let sink = OrderedSink(output: output, rejects: rejects, count: chunks.count, window: workers * 2)
        let maxDocumentBytes = options.maxDocumentBytes
        let rejectLimit = Self.rejectLimit(inputs: inputs, maxRejectRate: options.maxRejectRate)
        let spillPrefix = output.temporaryPath
        let progress = options.progress
        progress.expect(bytes: units.reduce(0) { total, unit in
            total + (unit.range?.count ?? (inputs[unit.file] == StandardInput.argument ? 0 : FileSystem.size(inputs[unit.file]) ?? 0))
        })
        progress.start()
        defer { progress.finish() }
        let openDataDate = options.openDataDate
        let trace = PhaseTrace(stage: "inat")
        var notices: [String] = []
        let linkPruning = try Self.linkPruning(options, units: options.readsRowFates ? allUnits : nil) { notices.append($0) }
        if linkPruning != nil { trace.mark("the export's pruning plan") }
        // An unsharded run writes a cut table's input record last: the whole file's digest, which
        // its first range owes, is taken once that range's part is handed in, so that the other
        // workers are not held at the window while one hashes the file (by unit index).
        let deferredDigests = Mutex(DeferredDigests())
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            let ingest = FileIngest(maxDocumentBytes: maxDocumentBytes, openDataDate: openDataDate, progress: progress)
            ingest.linkPruning = linkPruning
            defer { ingest.tally.flush() }
            ingest.rejectLimit = rejectLimit
            while let chunk = sink.claim() {
                var index = chunks[chunk].lowerBound
                // gzip members that failed their check, by input: the chunk is read again.
                var failed: [Int: FileIngest.FailedMembers] = [:]
                while true {
                    index = chunks[chunk].lowerBound
                    do {
                        let part = PartBuffer(spillPath: "\(spillPrefix).part-\(chunk)")
                        let rejectsPart = PartBuffer(spillPath: "\(spillPrefix).rejects-\(chunk)")
                        ingest.rejectsPart = rejectsPart
                        var results: [FileIngest.Result] = []
                        while index < chunks[chunk].upperBound {
                            let unit = units[index]
                            let before = rejectsPart.spilled + ingest.rejects.count
                            var result = try unit.range.map { range in
                                try ingest.runRange(
                                    path: inputs[unit.file], index: unit.file, range: range, header: unit.header, output: part,
                                    hashing: folder != nil)
                            } ?? ingest.run(path: inputs[unit.file], index: unit.file, output: part, failed: failed[unit.file])
                            result.rejectsBytes = rejectsPart.spilled + ingest.rejects.count - before
                            // An unsharded run writes a cut table's input record after the run's records.
                            if unit.writesInput && (unit.range == nil || folder != nil) {
                                ingest.extractor.out.buffer.append(Self.header(result, index: unit.file))
                            }
                            if ingest.extractor.satellites.isFull { ingest.extractor.flushSatellites() }
                            if ingest.rejects.count > FileIngest.rejectsSpill { try rejectsPart.spill(&ingest.rejects) }
                            results.append(result)
                            index += 1
                        }
                        ingest.extractor.flushSatellites()
                        try part.finish(&ingest.extractor.out, replacement: sink.spareBuffer())
                        try rejectsPart.finishCopying(&ingest.rejects)
                        sink.submit(chunk, results: results, part: part, rejects: rejectsPart)
                        // A digest that cannot be taken fails the run once every worker is done
                        // (the records are not committed), not at once.
                        for unit in chunks[chunk] where folder == nil && units[unit].range?.lowerBound == 0 {
                            let path = inputs[units[unit].file]
                            do {
                                let digest = try SHA256.hex(ofFile: path)
                                deferredDigests.withLock { $0.digests[unit] = digest }
                            } catch {
                                let failure = error as? FieldpackError ?? FieldpackError(path: path, "\(error)")
                                deferredDigests.withLock { $0.failure = $0.failure ?? failure }
                            }
                        }
                    } catch let members as FileIngest.FailedMembers {
                        ingest.reset()
                        failed[members.index] = members
                        continue
                    } catch let error as FieldpackError {
                        ingest.reset()
                        sink.fail(chunk, error)
                    } catch {
                        ingest.reset()
                        let path = inputs[units[min(index, units.count - 1)].file]
                        sink.fail(chunk, FieldpackError(path: path == StandardInput.argument ? StandardInput.name : path, "\(error)"))
                    }
                    break
                }
            }
        }
        if let failure = sink.failure {
            sink.discardUnwritten()
            throw Self.withOtherForeignInputs(failure.error, inputs: inputs)
        }
        let (digests, digestFailure) = deferredDigests.withLock { ($0.digests, $0.failure) }
        if let digestFailure { throw digestFailure }
        trace.mark("read")

        var summary = Summary()
        summary.notices = notices
        for case let chunk? in sink.results {
            for var result in chunk {
                if let digest = digests[summary.files.count] { (result.sha256, result.bytes) = digest }
                let unit = units[summary.files.count]
                summary.files.append(FileSummary(
                    path: result.path, bytes: result.bytes, sha256: result.sha256, format: result.format,
                    accepted: result.accepted, rejected: result.rejected, salvaged: result.salvaged,
                    range: unit.range, part: unit.part, findings: result.findingCount, rejectsBytes: result.rejectsBytes,
                    stoppedAt: result.stoppedAt, prunedBy: result.prunedBy, prunedLinks: result.prunedLinks,
                    leftOutRows: result.leftOutRows))
                summary.counts += result.counts
                summary.accepted += result.accepted
                summary.rejected += result.rejected
                summary.salvaged += result.salvaged
                summary.findings += result.findings.prefix(FileIngest.sampleLimit - summary.findings.count)
                summary.findingCount += result.findingCount
                if let at = result.stoppedAt { summary.stopped.append((result.path, at)) }
                summary.bytes += result.bytes
                summary.prunedLinks += result.prunedLinks
                summary.leftOutRows += result.leftOutRows
            }
        }
        guard summary.files.count == units.count else { throw FieldpackError("internal error: an input was not processed") }
        // Said, not silent: such a copy and the export's copy of the same observation ship as
        // two rows (docs/dedupe.md), as nothing else ties them.
        if summary.counts.observationsWithoutUUID > 0, summary.files.contains(where: { OpenDataTable.isTableFormat($0.format) }) {
            let count = summary.counts.observationsWithoutUUID
            summary.notices.append(
                "\(count) observation\(count == 1 ? "" : "s") from API pages \(count == 1 ? "has" : "have") no uuid (a request whose fields "
                    + "leave it out, or one that is not a uuid): \(count == 1 ? "it" : "they") cannot merge with the open-data export's copy of "
                    + "the same observation, and both ship; request the uuid with the observations")
        }
        // A request whose fields leave the photo lists out (`/v2/observations` gives only what
        // `fields` names): each such observation's photos are unknown, not none.
        if summary.counts.observationsWithoutPhotoLists > 0 {
            let count = summary.counts.observationsWithoutPhotoLists
            summary.notices.append(
                "\(count) observation\(count == 1 ? "" : "s") from API pages list\(count == 1 ? "s" : "") no photos (neither observation_photos "
                    + "nor photos: a request whose fields leave them out): \(count == 1 ? "its" : "their") photos are unknown, and ship "
                    + "only from another API copy that lists them; request observation_photos with the observations")
        }

        // A request whose fields leave out values a guide needs: filled from another copy that
        // has them (`Winners`), else empty.
        let leftOut = zip(ObservationRecord.fillableFromOtherCopies, summary.counts.observationsLeavingOut).filter { $0.1 > 0 }
        if !leftOut.isEmpty {
            summary.notices.append(
                "observations from API pages leave out "
                    + leftOut.map { "\($0.0.key) (\($0.1) of them)" }.joined(separator: ", ")
                    + " (a request whose fields do not name them): each is taken from another copy of the observation that has it, "
                    + "else ships empty; request them with the observations")
        }

        // Rejects first: they are written, and told, even when the threshold stops the stage.
        try rejects.commit()
        diagnose(summary.findings, summary.findingCount)
        if let folder {
            // A shard judges nothing: the threshold is the whole job's (see `IngestShards.judge`).
            let summaryPath = IngestShardSummary.path(folder: folder)
            // The depfile before the outputs, as for an unsharded run: a shard killed between the
            // two must not leave a summary make takes as up to date whatever its inputs become.
            // Pending until the summary is in place (`Depfile.Identities`), then as it read them.
            if let depfile = options.depfile {
                try Depfile.write(depfile, target: summaryPath, prerequisites: prerequisites, keyed: options.keyed, taken: .pending)
            }
            try output.commit(durable: true)
            var shardSummary = IngestShardSummary(
                origin: Self.origin(options), shard: options.shard, unitCount: allUnits.count,
                inputCount: inputs.count, maxRejectRate: options.maxRejectRate,
                units: summary.files.indices.map { IngestShardSummary.Unit(position: positions[$0], file: units[$0].file, summary.files[$0]) })
            shardSummary.maxRejectRateName = options.maxRejectRateName
            shardSummary.maxRejectRateHint = options.maxRejectRateHint
            try shardSummary.write(to: summaryPath)
            if let depfile = options.depfile {
                try Depfile.write(depfile, target: summaryPath, prerequisites: prerequisites, keyed: options.keyed, taken: identities)
            }
            return summary
        }
        // The input records of the tables read in ranges, with the counts of all their ranges.
        for (file, whole) in Self.rangedFiles(units: units, results: summary.files) {
            try Self.header(whole, index: file).withUnsafeBytes { try output.write($0) }
        }
        // Pending while the threshold is judged and the records put in place: a run stopped
        // before they are runs again, whatever its inputs' times (`Depfile.Identities`).
        if let depfile = options.depfile {
            try Depfile.write(depfile, target: options.output, prerequisites: prerequisites, keyed: options.keyed, taken: .pending)
        }
        do {
            try Self.judge(
                accepted: summary.accepted, rejected: summary.rejected, stopped: summary.stopped, inputCount: inputs.count,
                maxRejectRate: options.maxRejectRate, rejects: options.rejects, unwritten: options.output,
                limitName: options.maxRejectRateName, hint: options.maxRejectRateHint)
        } catch {
            // An earlier run's records are not of these inputs: beside the rejects just written
            // a script that calls the stage took the pair for one run's.
            if FileSystem.isRegularFile(options.output) { FileSystem.remove(options.output) }
            throw error
        }
        try output.commit(durable: true)
        if let depfile = options.depfile {
            try Depfile.write(depfile, target: options.output, prerequisites: prerequisites, keyed: options.keyed, taken: identities)
        }
        return summary
    }

    /// A run stopped on an input that is not iNaturalist's: its error names the others that are
    /// not either, each with what it looks like (a folder with four stray files took four runs to
    /// mend, one error each). Any other error as it is.
    static func withOtherForeignInputs(_ error: FieldpackError, inputs: [String]) -> FieldpackError {
        guard error.message.hasPrefix(FileIngest.foreign), let failed = error.path else { return error }
        let others = inputs.filter { $0 != failed }.compactMap { path in FileIngest.foreignKind(path).map { "\(path) (\($0))" } }
        guard !others.isEmpty else { return error }
        var named = error
        named.message += "; and \(others.count) more input\(others.count == 1 ? " is" : "s are") not iNaturalist's either: "
            + others.prefix(10).joined(separator: ", ") + (others.count > 10 ? ", …" : "")
        return named
    }

    /// The whole-file digests of the tables an unsharded run cut into byte ranges, taken after
    /// their first range (by unit index), and the first failure to take one.
    private struct DeferredDigests {
        var digests: [Int: (digest: String, bytes: Int)] = [:]
        var failure: FieldpackError? = nil
    }

    /// The reject threshold, judged over the whole job: at most `maxRejectRate` of the records
    /// rejected, no file stopped early, at least one record accepted.
    ///
    /// - Throws: naming `rejects`, and saying that `unwritten` was not written.
    static func judge(
        accepted: Int, rejected: Int, stopped: [(path: String, at: String)], inputCount: Int, maxRejectRate: Double,
        rejects: String, unwritten: String, limitName: String = "--max-reject-rate", hint: String? = nil
    ) throws {
        let rate = accepted + rejected == 0 ? 0 : Double(rejected) / Double(accepted + rejected)
        if rate > maxRejectRate || !stopped.isEmpty {
            let stoppedText = stopped.first.map { stop in
                "; stopped reading \(stop.path) early at \(stop.at), where the limit could no longer be met"
                    + (stopped.count > 1 ? " (and \(stopped.count - 1) more file(s))" : "")
            } ?? ""
            throw FieldpackError(
                path: rejects,
                "\(rejected) of \(accepted + rejected) records rejected "
                    + "(\(percent(rate))), over the \(limitName) of \(percent(maxRejectRate))\(stoppedText); "
                    + "\(unwritten) was not written" + (hint.map { "; \($0)" } ?? ""))
        }
        if accepted == 0 {
            throw FieldpackError(
                path: rejects,
                "no record accepted from \(inputCount) input file(s); \(unwritten) was not written")
        }
    }

    /// What a sharded run's parts are made from: the inputs (paths and sizes), the settings that
    /// change its records or its outcome, the shard count and cuts, and the tool's version.
    static func origin(_ options: Options) -> ShardOrigin {
        ShardOrigin(inputs: ShardOrigin.fingerprint(inputs: options.inputs, settings: [
            ("shards", String(options.shard.count)), ("range_bytes", String(options.rangeBytes)),
            ("max_reject_rate", String(options.maxRejectRate)), ("open_data_date", options.openDataDate.map(String.init) ?? "-"),
            ("max_document_bytes", String(options.maxDocumentBytes)),
            // The rules it may prune by (`ExportRules`): the taxon rule's too, as the taxa may decide it.
            ("pruned_by", options.selection.map { $0.dedupeRules(taxaKnown: true).isEmpty ? "-" : $0.dedupeFingerprint(taxaKnown: true) } ?? "-"),
            ("measured_photos", options.measuredPhotos.isEmpty ? "-" : DedupedSelectionRecord.measuredDigest(options.measuredPhotos)),
        ]))
    }

    /// The GeoJSON files the selection's places come from, and the measured sizes: the records
    /// depend on them when the run prunes by them.
    static func selectionFiles(_ options: Options) -> [String] {
        guard let selection = options.selection, !selection.dedupeRules(taxaKnown: true).isEmpty else { return [] }
        return selection.files + (options.measuredSizes.map { [$0] } ?? [])
    }

    /// The export links this run prunes (`ExportLinkPruning`), planned before any record is read.
    /// With `units` (ingest's, `IngestUnits`), the plan reads the plain tables in them and finds
    /// each row's fate (`ExportRowFates`).
    static func linkPruning(_ options: Options, units: [IngestUnit]? = nil, notice: (String) -> Void) throws -> ExportLinkPruning? {
        guard let selection = options.selection else { return nil }
        return try ExportLinkPruning.plan(
            inputs: options.inputs, selection: selection, openDataDate: options.openDataDate,
            measuredPhotos: options.measuredPhotos, filterBytes: options.repeatFilterBytes,
            scratch: options.outputFolder ?? directory(of: options.output), workers: options.workers, units: units,
            notice: notice)
    }

    /// Each file an unsharded run read in byte ranges, as read whole: the whole file's size and
    /// digest (its first range's) with the records, rejects and salvaged parts of all its ranges;
    /// in file order.
    static func rangedFiles(units: [IngestUnit], results: [FileSummary]) -> [(file: Int, whole: FileIngest.Result)] {
        var files: [(file: Int, whole: FileIngest.Result)] = []
        var position = 0
        while position < units.count {
            let file = units[position].file
            var end = position
            while end < units.count && units[end].file == file { end += 1 }
            if units[position].range != nil {
                var whole = FileIngest.Result(path: results[position].path)
                whole.bytes = results[position].bytes
                whole.sha256 = results[position].sha256
                whole.format = results[position].format
                whole.prunedBy = results[position].prunedBy
                for summary in results[position..<end] {
                    whole.prunedLinks += summary.prunedLinks
                    whole.leftOutRows += summary.leftOutRows
                    whole.accepted += summary.accepted
                    whole.rejected += summary.rejected
                    whole.salvaged += summary.salvaged
                }
                files.append((file, whole))
            }
            position = end
        }
        return files
    }

    /// The `input` record written after a file's records: its path, size, SHA-256 and format.
    /// Records name their source as `<index>#<result>` or `<index>:<line>`.
    static func header(_ result: FileIngest.Result, index: Int) -> [UInt8] {
        var header = JSONWriter()
        InputRecord(
            index: index, path: result.path, bytes: result.bytes, sha256: result.sha256, format: result.format,
            records: result.accepted, rejected: result.rejected, salvaged: result.salvaged, pruned: result.prunedBy
        ).encode(into: &header)
        return header.bytes
    }

    /// Rejected records that one file may hold before the run's reject rate can no longer end
    /// at or under `maxRejectRate`, whatever the rest of the inputs hold: the rate is
    /// rejected / (accepted + rejected), and no input can hold more accepted records than its
    /// bytes allow (a record is at least `{"id":1}`, 8 bytes; deflate inflates at most 1032
    /// times). Nil when no count is too many (a rate of 1, or standard input, of no known size).
    static let rejectFloor = 10_000

    static func rejectLimit(inputs: [String], maxRejectRate: Double) -> Int? {
        guard maxRejectRate < 1 else { return nil }
        var accepted = 0.0
        for input in inputs {
            guard input != StandardInput.argument, let size = FileSystem.size(input) else { return nil }
            var magic = [UInt8](repeating: 0, count: 2)
            let got = (try? ReadableFile(path: input)).flatMap { file in
                try? magic.withUnsafeMutableBytes { try file.read(at: 0, count: 2, into: $0) }
            } ?? 0
            let gzip = got == 2 && magic == [0x1F, 0x8B]
            accepted += Double(size) * (gzip ? 1032 : 1) / 8
        }
        // Never fewer than `rejectFloor`: a small file's findings are all listed.
        let limit = max(Double(rejectFloor), (maxRejectRate / (1 - maxRejectRate) * accepted).rounded(.down))
        return limit < Double(Int.max / 2) ? Int(limit) : nil
    }
}
