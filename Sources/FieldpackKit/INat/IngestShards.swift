/// The N ingest shards of one sharded job, read back from their folders under one base
/// (`<base>/shard-I-of-N/`): checked to be one job's, judged against the reject threshold as a
/// whole, and their rejects merged in input order.
public struct IngestShards: Sendable {
    public let base: String
    public let summaries: [IngestShardSummary]
    /// The summaries' paths, by shard.
    public let paths: [String]

    public var origin: ShardOrigin { summaries[0].origin }
    public var count: Int { summaries.count }

    /// Reads the summaries of shards `0..<count`.
    ///
    /// - Throws: when one is missing, belongs to another shard count, or was made from other
    ///   inputs or by another tool version than shard 0's (naming both), or when the shards'
    ///   units do not cover the job's units exactly once.
    public init(base: String, count: Int) throws {
        self.base = base
        // A folder holding no shard at all was given by mistake: say that, not that shard 0's
        // summary (a path the user never wrote) is missing.
        let names = (try? FileSystem.list(base)) ?? []
        if !names.contains(where: { $0.hasPrefix("shard-") && $0.contains("-of-") }) {
            throw FieldpackError(
                path: base,
                "is a folder with no ingest shard in it (shard-K-of-N/, as fieldpack-inat --shard K/N --output-folder writes): give ingest's records file, or the folder its shards wrote")
        }
        var summaries: [IngestShardSummary] = []
        var paths: [String] = []
        for index in 0..<count {
            let shard = try Shard(index: index, count: count)
            let path = IngestShardSummary.path(folder: IngestShardSummary.folder(base: base, shard: shard))
            let summary = try IngestShardSummary.read(path)
            if summary.shard != shard {
                throw FieldpackError(path: path, "is the summary of ingest shard \(summary.shard), not \(shard)")
            }
            if let first = summaries.first {
                try first.origin.requireSame(summary.origin, path: paths[0], otherPath: path)
            }
            summaries.append(summary)
            paths.append(path)
        }
        let units = summaries[0].unitCount
        var seen = [Bool](repeating: false, count: units)
        for (shard, summary) in summaries.enumerated() {
            for unit in summary.units {
                guard unit.position >= 0, unit.position < units, !seen[unit.position] else {
                    throw FieldpackError(path: paths[shard], "unit \(unit.position) is not one of the job's \(units) units, or is read twice")
                }
                seen[unit.position] = true
            }
        }
        if let missing = seen.firstIndex(of: false) {
            throw FieldpackError(path: base, "no ingest shard read unit \(missing) of \(units) (shard \(missing % count)/\(count))")
        }
        self.summaries = summaries
        self.paths = paths
    }

    /// The reject threshold over the whole job, the same rule and message as an unsharded run's
    /// (`INatIngest.judge`), so the outcome does not depend on the shard count. The error names
    /// the rejects file of the shard that rejected the most (the first of those that tie), as an
    /// unsharded run's names its one file (it named a glob, `shard-*-of-4/rejects.jsonl`).
    public func judge(unwritten: String) throws {
        var accepted = 0
        var rejected = 0
        var stopped: [(path: String, at: String)] = []
        for unit in summaries.flatMap(\.units).sorted(by: { $0.position < $1.position }) {
            accepted += unit.accepted
            rejected += unit.rejected
            if let at = unit.stoppedAt { stopped.append((unit.path, at)) }
        }
        var most = 0
        for (index, summary) in summaries.enumerated()
        where summary.units.reduce(0, { $0 + $1.rejected }) > summaries[most].units.reduce(0, { $0 + $1.rejected }) {
            most = index
        }
        let rejects = IngestShardSummary.folder(base: base, shard: summaries[most].shard) + "/rejects.jsonl"
        try INatIngest.judge(
            accepted: accepted, rejected: rejected, stopped: stopped, inputCount: summaries[0].inputCount,
            maxRejectRate: summaries[0].maxRejectRate, rejects: rejects, unwritten: unwritten,
            limitName: summaries[0].maxRejectRateName, hint: summaries[0].maxRejectRateHint)
    }

    /// Partition `part` of every shard: `<base>/shard-I-of-N/part-<part>.jsonl`.
    public func partPaths(_ part: Int) -> [String] {
        summaries.map { PartitionedOutput.partPath(folder: IngestShardSummary.folder(base: base, shard: $0.shard), part: part) }
    }

    /// Fails when a shard's partition `part` is gone although its summary says it was written
    /// (removed by hand or by a clean-up): make, which does not watch the N parts of each
    /// shard (their names grow the Makefile's work with N²), took the shard as up to date, and
    /// every later run failed on the same missing file. The shard's summary is taken back first,
    /// so that the next make runs that ingest shard again.
    public func refuseMissingPart(_ part: Int) throws {
        for (index, path) in partPaths(part).enumerated() where !FileSystem.exists(path) {
            FileSystem.remove(paths[index])
            throw FieldpackError(
                path: path,
                "missing, though ingest shard \(summaries[index].shard.index) of \(count) wrote it (its summary said so): removed since; "
                    + "that shard's summary is taken back (\(paths[index])), so the next make bundle runs the shard again")
        }
    }

    /// Writes every shard's rejects into one file in input order (file, then byte range), the
    /// lines an unsharded run writes.
    public func mergeRejects(to path: String) throws {
        var spans: [(position: Int, file: String, offset: Int, count: Int)] = []
        for summary in summaries {
            let file = "\(IngestShardSummary.folder(base: base, shard: summary.shard))/rejects.jsonl"
            var offset = 0
            for unit in summary.units {
                spans.append((unit.position, file, offset, unit.rejectsBytes))
                offset += unit.rejectsBytes
            }
            let size = FileSystem.size(file) ?? -1
            if size != offset {
                throw FieldpackError(path: file, "holds \(size) bytes, but its shard's summary accounts for \(offset)")
            }
        }
        spans.sort { $0.position < $1.position }
        let output = try AtomicOutput(path: path)
        var readers: [String: ReadableFile] = [:]
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        for span in spans where span.count > 0 {
            if readers[span.file] == nil { readers[span.file] = try ReadableFile(path: span.file) }
            let reader = readers[span.file]!
            var done = 0
            while done < span.count {
                let want = min(buffer.count, span.count - done)
                let got = try buffer.withUnsafeMutableBytes { try reader.read(at: span.offset + done, count: want, into: $0) }
                if got != want { throw FieldpackError(path: span.file, "changed while its rejects were merged") }
                try buffer.withUnsafeBytes { try output.write(UnsafeRawBufferPointer(rebasing: $0[0..<got])) }
                done += got
            }
        }
        try output.commit()
    }
}
