/// The conflicts report an unsharded dedupe writes, made from those of a sharded dedupe's parts:
/// shard J reports the photo ids of its partition, so the counts add up, and the examples are the
/// first of all by id (a shard's first by id hold every one of them), as `ConflictReport` keeps
/// them. `make bundle SHARDS=N` writes `dedupe/conflicts.json` so.
public enum ConflictMerge {
    /// - Parameter parts: the N parts' records files (`dedupe/shard-J-of-N/records.jsonl`), one
    ///   job's, each with its `conflicts.json` beside it.
    public static func merge(parts: [String], examples: Int, to output: String) throws {
        _ = try ShardPartSidecar.requireOneJob(parts)
        try FileSystem.refuseOutputs([output], overwriting: parts + parts.map(report(beside:)))
        var merged = ConflictReport(examples: examples, sourceNames: [:])
        for part in parts {
            merged.mergeInterleaved(try read(report(beside: part), examples: examples))
        }
        try merged.write(to: output)
    }

    static func report(beside part: String) -> String { "\(directory(of: part))/conflicts.json" }

    /// One part's report: its counts and its examples as the writer gave them.
    private static func read(_ path: String, examples: Int) throws -> ConflictReport {
        let parser = JSONParser()
        let buffer = PaddedBuffer(copying: try ReadableFile.contents(of: path))
        return try withExtendedLifetime((parser, buffer)) {
            let root: JSONValue
            do { root = try parser.parse(buffer) } catch { throw FieldpackError.notJSON(path, buffer.bytes, "conflicts report is not valid JSON", error) }
            func count(_ key: StaticString) throws -> Int {
                guard let value = root[key]?.int64, value >= 0 else {
                    throw FieldpackError(path: path, "not a conflicts report: \"\(key)\" is not a count")
                }
                return Int(value)
            }
            var counts = Dedupe.ConflictCounts()
            counts.ids = try count("photos_with_conflicts")
            counts.license = try count("license")
            counts.attribution = try count("attribution")
            counts.url = try count("url")
            guard let list = root["examples"], list.isArray else { throw FieldpackError(path: path, "not a conflicts report: no \"examples\" list") }
            var shown: [(id: Int64, example: [UInt8])] = []
            for (index, example) in list.elements.enumerated() {
                guard let id = example["id"]?.int64 else { throw FieldpackError(path: path, "examples[\(index)] has no photo id") }
                var writer = JSONWriter()
                writer.value(example)
                shown.append((id, writer.bytes))
            }
            // A part written with fewer examples than asked for cannot say which come first.
            guard shown.count >= min(examples, counts.ids) else {
                throw FieldpackError(
                    path: path,
                    "shows \(shown.count) of its \(counts.ids) photos in conflict, fewer than the \(examples) examples asked for: give the --examples its dedupe was run with")
            }
            return ConflictReport(examples: examples, counts: counts, shown: shown)
        }
    }
}
