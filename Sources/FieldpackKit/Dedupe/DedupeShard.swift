/// Dedupe shard J of a sharded job: partition J of every ingest shard (`<inat>/shard-I-of-N/
/// part-J.jsonl`), deduped as one records file. Every copy of a record is in one partition
/// (`RecordKey.partition(of:)`), so its winner is the one an unsharded dedupe picks, and the
/// output is sorted by key like the unsharded one: the bundle k-way merges the N outputs back
/// into the unsharded order (`MergedRecords`).
///
/// Before it reads a record it checks that the ingest shards are one job's (origin, shard count,
/// units) and judges the whole job's reject threshold, so every dedupe shard fails alike when
/// the job is over it, whatever N.
public struct DedupeShard: Sendable {
    public struct Options: Sendable {
        /// The folder holding the ingest shards' folders (`$(OUT)/inat`).
        public var inat: String
        public var shard: Shard
        public var output: String
        public var conflicts: String
        public var examples = Dedupe.defaultExamples
        public var progress = StageProgress.silent("dedupe")
        /// The pipeline's `select` (see `Dedupe.Options.selection`).
        public var selection: Selection? = nil
        /// The photos with measured sizes: a shard writes every photo, but checks that ingest
        /// left rows out under the same ones (`DedupedSelectionRecord.Column.measured`).
        public var measuredPhotos: [Int64] = []

        public init(inat: String, shard: Shard, output: String, conflicts: String) {
            self.inat = inat
            self.shard = shard
            self.output = output
            self.conflicts = conflicts
        }
    }

    public let options: Options

    public init(options: Options) {
        self.options = options
    }

    @discardableResult
    public func run() throws -> Dedupe.Summary {
        // The part's sidecar says which job made it: the old one goes first, and the new one is
        // written once the part is, so that a run that fails leaves no old part stamped as this
        // job's (the bundle refuses a part without one).
        try ShardPartSidecar.remove(beside: options.output)
        let shards = try IngestShards(base: options.inat, count: options.shard.count)
        try shards.judge(unwritten: options.output)
        // The partitions joined into one scratch file beside the output, never published.
        try shards.refuseMissingPart(options.shard.index)
        let joined = try AtomicOutput(path: "\(options.output).joined")
        for part in shards.partPaths(options.shard.index) {
            // May be empty: a shard that read only the middle of files writes no input record.
            try joined.append(contentsOf: part)
        }
        try joined.flush()
        var dedupe = Dedupe.Options(input: joined.temporaryPath, output: options.output, conflicts: options.conflicts)
        dedupe.examples = options.examples
        dedupe.progress = options.progress
        dedupe.selection = options.selection
        dedupe.measuredPhotos = options.measuredPhotos
        dedupe.whole = false  // the other shards' observations may link this shard's photos
        let summary = try Dedupe(options: dedupe).run()
        try ShardPartSidecar(origin: shards.origin, shard: options.shard).write(beside: options.output)
        return summary
    }
}
