import Dispatch

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
        public var workers = 2
        public var maxDocumentBytes = 256 << 20
        public var depfile: String? = nil
        /// Folders and globs the inputs came from, for the depfile (a new file changes a folder).
        public var watchedFolders: [String] = []
        /// Input files per unit of work and of satellite collapsing (see `Satellites`).
        public var filesPerChunk = 32
        /// Records and raw bytes read, for the progress line.
        public var progress = StageProgress.silent("inat")
        /// The date of loose open-data tables (Unix ms at 00:00 UTC; the pipeline's
        /// `open_data_date`), when their names do not carry it (see `OpenDataDate`).
        public var openDataDate: Int64? = nil

        public init(inputs: [String], output: String, rejects: String) {
            self.inputs = inputs
            self.output = output
            self.rejects = rejects
        }
    }

    public struct Summary: Sendable {
        public var files: [FileSummary] = []
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

        public var rejectRate: Double {
            accepted + rejected == 0 ? 0 : Double(rejected) / Double(accepted + rejected)
        }
    }

    public struct FileSummary: Sendable {
        public var path: String
        public var bytes: Int
        public var sha256: String
        public var format: String
        public var accepted: Int
        public var rejected: Int
        public var salvaged: Int
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
        Leftovers.removeStale(of: options.output)
        Leftovers.removeStale(of: options.rejects)
        let output = try AtomicOutput(path: options.output)
        let rejects = try AtomicOutput(path: options.rejects)
        let workers = max(1, min(options.workers, inputs.count))
        // Fixed runs of files: the unit of work, and of satellite collapsing (see `Satellites`).
        let size = max(1, options.filesPerChunk)
        let chunks = stride(from: 0, to: inputs.count, by: size).map { $0..<min($0 + size, inputs.count) }
        let sink = OrderedSink(output: output, rejects: rejects, count: chunks.count, window: workers * 2)
        let maxDocumentBytes = options.maxDocumentBytes
        let rejectLimit = Self.rejectLimit(inputs: inputs, maxRejectRate: options.maxRejectRate)
        let spillPrefix = output.temporaryPath
        let progress = options.progress
        progress.expect(bytes: inputs.reduce(0) { $0 + ($1 == StandardInput.argument ? 0 : FileSystem.size($1) ?? 0) })
        progress.start()
        defer { progress.finish() }
        let openDataDate = options.openDataDate
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            let ingest = FileIngest(maxDocumentBytes: maxDocumentBytes, openDataDate: openDataDate, progress: progress)
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
                            let result = try ingest.run(path: inputs[index], index: index, output: part, failed: failed[index])
                            ingest.extractor.out.buffer.append(Self.header(result, index: index))
                            if ingest.extractor.satellites.isFull { ingest.extractor.flushSatellites() }
                            if ingest.rejects.count > FileIngest.rejectsSpill { try rejectsPart.spill(&ingest.rejects) }
                            results.append(result)
                            index += 1
                        }
                        ingest.extractor.flushSatellites()
                        try part.finish(&ingest.extractor.out, replacement: sink.spareBuffer())
                        try rejectsPart.finish(&ingest.rejects, replacement: nil)
                        sink.submit(chunk, results: results, part: part, rejects: rejectsPart)
                    } catch let members as FileIngest.FailedMembers {
                        ingest.reset()
                        failed[members.index] = members
                        continue
                    } catch let error as FieldpackError {
                        ingest.reset()
                        sink.fail(chunk, error)
                    } catch {
                        ingest.reset()
                        sink.fail(chunk, FieldpackError(
                            path: inputs[index] == StandardInput.argument ? StandardInput.name : inputs[index], "\(error)"))
                    }
                    break
                }
            }
        }
        if let failure = sink.failure { throw failure.error }

        var summary = Summary()
        for case let chunk? in sink.results {
            for result in chunk {
                summary.files.append(FileSummary(
                    path: result.path, bytes: result.bytes, sha256: result.sha256, format: result.format,
                    accepted: result.accepted, rejected: result.rejected, salvaged: result.salvaged))
                summary.counts += result.counts
                summary.accepted += result.accepted
                summary.rejected += result.rejected
                summary.salvaged += result.salvaged
                summary.findings += result.findings.prefix(FileIngest.sampleLimit - summary.findings.count)
                summary.findingCount += result.findingCount
                if let at = result.stoppedAt { summary.stopped.append((result.path, at)) }
                summary.bytes += result.bytes
            }
        }
        guard summary.files.count == inputs.count else { throw FieldpackError("internal error: an input was not processed") }

        // Rejects first: they are written, and told, even when the threshold stops the stage.
        try rejects.commit()
        diagnose(summary.findings, summary.findingCount)
        if let depfile = options.depfile {
            try Depfile.write(
                depfile, target: options.output,
                prerequisites: inputs.filter { $0 != StandardInput.argument } + options.watchedFolders)
        }
        if summary.rejectRate > options.maxRejectRate || !summary.stopped.isEmpty {
            let stopped = summary.stopped.first.map { stop in
                "; stopped reading \(stop.path) early at \(stop.at), where the limit could no longer be met"
                    + (summary.stopped.count > 1 ? " (and \(summary.stopped.count - 1) more file(s))" : "")
            } ?? ""
            throw FieldpackError(
                path: options.rejects,
                "\(summary.rejected) of \(summary.accepted + summary.rejected) records rejected "
                    + "(\(percent(summary.rejectRate))), over the --max-reject-rate of \(percent(options.maxRejectRate))\(stopped); "
                    + "\(options.output) was not written")
        }
        if summary.accepted == 0 {
            throw FieldpackError(
                path: options.rejects,
                "no record accepted from \(inputs.count) input file(s); \(options.output) was not written")
        }
        try output.commit()
        return summary
    }

    /// The `input` record written after a file's records: its path, size, SHA-256 and format.
    /// Records name their source as `<index>#<result>` or `<index>:<line>`.
    static func header(_ result: FileIngest.Result, index: Int) -> [UInt8] {
        var header = JSONWriter()
        InputRecord(
            index: index, path: result.path, bytes: result.bytes, sha256: result.sha256, format: result.format,
            records: result.accepted, rejected: result.rejected, salvaged: result.salvaged
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
