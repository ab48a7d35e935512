/// What one ingest shard read, written last into its folder as `summary.json` (the shard's
/// make target): its origin, its units and their counts, so that every dedupe shard judges the
/// whole job's reject threshold (`IngestShards.judge`) and the rejects can be merged in input
/// order (`IngestShards.mergeRejects`).
public struct IngestShardSummary: Sendable {
    public struct Unit: Sendable {
        /// The unit's place in the job's unit list (`IngestUnits.plan`): input order.
        public var position: Int
        public var file: Int
        public var path: String
        public var part: Int
        public var range: Range<Int>?
        public var accepted: Int
        public var rejected: Int
        public var salvaged: Int
        public var findings: Int
        /// Its bytes in the shard's `rejects.jsonl`, which holds the units in order.
        public var rejectsBytes: Int
        public var stoppedAt: String?

        init(position: Int, file: Int, _ summary: INatIngest.FileSummary) {
            self.position = position
            self.file = file
            path = summary.path
            part = summary.part
            range = summary.range
            accepted = summary.accepted
            rejected = summary.rejected
            salvaged = summary.salvaged
            findings = summary.findings
            rejectsBytes = summary.rejectsBytes
            stoppedAt = summary.stoppedAt
        }

        init(position: Int, file: Int, path: String, part: Int, range: Range<Int>?, accepted: Int, rejected: Int,
             salvaged: Int, findings: Int, rejectsBytes: Int, stoppedAt: String?) {
            self.position = position
            self.file = file
            self.path = path
            self.part = part
            self.range = range
            self.accepted = accepted
            self.rejected = rejected
            self.salvaged = salvaged
            self.findings = findings
            self.rejectsBytes = rejectsBytes
            self.stoppedAt = stoppedAt
        }
    }

    public var origin: ShardOrigin
    public var shard: Shard
    /// Units in the whole job, and input files.
    public var unitCount: Int
    public var inputCount: Int
    public var maxRejectRate: Double
    /// What the limit is called where it was set and what to change, for the error over it
    /// (`INatIngest.Options.maxRejectRateName`, `maxRejectRateHint`): the same as an unsharded run's.
    public var maxRejectRateName = "--max-reject-rate"
    public var maxRejectRateHint: String? = nil
    public var units: [Unit]

    /// `<base>/shard-I-of-N`: ingest shard I's folder (and dedupe's, under its own base).
    public static func folder(base: String, shard: Shard) -> String { "\(base)/shard-\(shard.index)-of-\(shard.count)" }

    public static func path(folder: String) -> String { "\(folder)/summary.json" }

    func write(to path: String) throws {
        var out = JSONWriter()
        out.beginObject()
        out.key("made_from"); origin.encode(into: &out)
        out.key("shard"); out.int(shard.index)
        out.key("shards"); out.int(shard.count)
        out.key("units"); out.int(unitCount)
        out.key("inputs"); out.int(inputCount)
        out.key("max_reject_rate"); out.double(maxRejectRate)
        out.key("max_reject_rate_name"); out.string(maxRejectRateName)
        if let maxRejectRateHint { out.key("max_reject_rate_hint"); out.string(maxRejectRateHint) }
        out.key("read")
        out.beginArray()
        for unit in units {
            out.beginObject()
            out.key("unit"); out.int(unit.position)
            out.key("file"); out.int(unit.file)
            out.key("path"); out.string(unit.path)
            out.key("part"); out.int(unit.part)
            out.key("range")
            if let range = unit.range {
                out.beginArray(); out.int(range.lowerBound); out.int(range.upperBound); out.endArray()
            } else {
                out.null()
            }
            out.key("accepted"); out.int(unit.accepted)
            out.key("rejected"); out.int(unit.rejected)
            out.key("salvaged"); out.int(unit.salvaged)
            out.key("findings"); out.int(unit.findings)
            out.key("rejects_bytes"); out.int(unit.rejectsBytes)
            out.key("stopped_at"); out.string(unit.stoppedAt)
            out.endObject()
        }
        out.endArray()
        out.endObject()
        try AtomicOutput.write(PrettyJSON.format(out.bytes), to: path)
    }

    /// Reads a shard's summary.
    ///
    /// - Throws: naming `path` when it is missing (the shard has not run, or failed) or is not a
    ///   summary.
    public static func read(_ path: String) throws -> IngestShardSummary {
        guard FileSystem.exists(path) else {
            throw FieldpackError(path: path, "missing: that ingest shard has not run, or failed (its summary is written last)")
        }
        let parser = JSONParser()
        let root: JSONValue
        do {
            root = try parser.parse(PaddedBuffer(copying: try ReadableFile.contents(of: path)))
        } catch let error as JSONSyntaxError {
            throw FieldpackError(path: path, "not an ingest shard summary: \(error.message)")
        }
        func int(_ value: JSONValue?, _ name: String) throws -> Int {
            guard let number = value?.int64 else { throw FieldpackError(path: path, "not an ingest shard summary: no integer \(name)") }
            return Int(number)
        }
        guard root.isObject, let origin = ShardOrigin(root["made_from"]) else {
            throw FieldpackError(path: path, "not an ingest shard summary (no made_from)")
        }
        let shard: Shard
        do {
            shard = try Shard(index: try int(root["shard"], "shard"), count: try int(root["shards"], "shards"))
        } catch let error as UsageError {
            throw FieldpackError(path: path, error.message)
        }
        guard let rate = root["max_reject_rate"]?.double, let read = root["read"], read.isArray else {
            throw FieldpackError(path: path, "not an ingest shard summary (no max_reject_rate or read)")
        }
        var units: [Unit] = []
        for unit in read.elements {
            var range: Range<Int>? = nil
            if let bounds = unit["range"], bounds.isArray {
                let numbers = bounds.elements.compactMap(\.int64)
                guard numbers.count == 2, numbers[0] <= numbers[1] else { throw FieldpackError(path: path, "a unit's range is not [start, end]") }
                range = Int(numbers[0])..<Int(numbers[1])
            }
            units.append(Unit(
                position: try int(unit["unit"], "unit"), file: try int(unit["file"], "file"),
                path: unit["path"]?.string ?? "", part: try int(unit["part"], "part"), range: range,
                accepted: try int(unit["accepted"], "accepted"), rejected: try int(unit["rejected"], "rejected"),
                salvaged: try int(unit["salvaged"], "salvaged"), findings: try int(unit["findings"], "findings"),
                rejectsBytes: try int(unit["rejects_bytes"], "rejects_bytes"), stoppedAt: unit["stopped_at"]?.string))
        }
        var summary = IngestShardSummary(
            origin: origin, shard: shard, unitCount: try int(root["units"], "units"), inputCount: try int(root["inputs"], "inputs"),
            maxRejectRate: rate, units: units)
        if let name = root["max_reject_rate_name"]?.string { summary.maxRejectRateName = name }
        summary.maxRejectRateHint = root["max_reject_rate_hint"]?.string
        return summary
    }
}
