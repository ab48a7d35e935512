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
        public var findings: [Finding] = []
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
    @discardableResult
    public func run() throws -> Summary {
        let inputs = options.inputs
        if inputs.isEmpty { throw FieldpackError("no input files") }
        let output = try AtomicOutput(path: options.output)
        let workers = max(1, min(options.workers, inputs.count))
        // Fixed runs of files: the unit of work, and of satellite collapsing (see `Satellites`).
        let size = max(1, options.filesPerChunk)
        let chunks = stride(from: 0, to: inputs.count, by: size).map { $0..<min($0 + size, inputs.count) }
        let sink = OrderedSink(output: output, count: chunks.count, window: workers * 2)
        let maxDocumentBytes = options.maxDocumentBytes
        let spillPrefix = output.temporaryPath
        let progress = options.progress
        progress.expect(bytes: inputs.reduce(0) { $0 + ($1 == StandardInput.argument ? 0 : FileSystem.size($1) ?? 0) })
        progress.start()
        defer { progress.finish() }
        let openDataDate = options.openDataDate
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            let ingest = FileIngest(maxDocumentBytes: maxDocumentBytes, openDataDate: openDataDate, progress: progress)
            defer { ingest.tally.flush() }
            while let chunk = sink.claim() {
                var index = chunks[chunk].lowerBound
                do {
                    let part = PartBuffer(spillPath: "\(spillPrefix).part-\(chunk)")
                    var results: [FileIngest.Result] = []
                    while index < chunks[chunk].upperBound {
                        let result = try ingest.run(path: inputs[index], index: index, output: part)
                        ingest.extractor.out.buffer.append(Self.header(result, index: index))
                        if ingest.extractor.satellites.isFull { ingest.extractor.flushSatellites() }
                        results.append(result)
                        index += 1
                    }
                    ingest.extractor.flushSatellites()
                    try part.finish(&ingest.extractor.out, replacement: sink.spareBuffer())
                    sink.submit(chunk, results: results, part: part)
                } catch let error as FieldpackError {
                    ingest.reset()
                    sink.fail(chunk, error)
                } catch {
                    ingest.reset()
                    sink.fail(chunk, FieldpackError(
                        path: inputs[index] == StandardInput.argument ? StandardInput.name : inputs[index], "\(error)"))
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
                summary.findings += result.findings
                summary.bytes += result.bytes
            }
        }
        guard summary.files.count == inputs.count else { throw FieldpackError("internal error: an input was not processed") }

        try writeRejects(summary.findings)
        if let depfile = options.depfile {
            try Depfile.write(
                depfile, target: options.output,
                prerequisites: inputs.filter { $0 != StandardInput.argument } + options.watchedFolders)
        }
        if summary.rejectRate > options.maxRejectRate {
            throw FieldpackError(
                path: options.rejects,
                "\(summary.rejected) of \(summary.accepted + summary.rejected) records rejected "
                    + "(\(percent(summary.rejectRate))), over the --max-reject-rate of \(percent(options.maxRejectRate)); "
                    + "\(options.output) was not written")
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

    private func writeRejects(_ findings: [Finding]) throws {
        let rejects = try AtomicOutput(path: options.rejects)
        var writer = JSONWriter()
        for finding in findings {
            writer.beginObject()
            writer.key("file"); writer.string(finding.path)
            writer.key("line"); writer.int(finding.line.map(Int64.init))
            writer.key("offset"); writer.int(finding.offset.map(Int64.init))
            writer.key("record"); writer.string(finding.record)
            writer.key("path"); writer.string(finding.jsonPath)
            writer.key("outcome"); writer.string(finding.outcome.rawValue)
            writer.key("reason"); writer.string(finding.reason)
            writer.endObject()
            writer.newline()
        }
        try rejects.write(writer.bytes)
        try rejects.commit()
    }
}
