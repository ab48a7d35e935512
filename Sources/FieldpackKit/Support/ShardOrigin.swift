#if canImport(Glibc)
import Glibc
#endif

/// What a shard's output was made from: the stage's inputs and settings (their fingerprint) and
/// the tool's version. A stage that merges parts refuses parts of different origins, naming both.
/// The one record of it for every sharded stage: an ingest shard's `summary.json`, a dedupe
/// part's `.made-from.json` and a wiki part's report all hold it as `made_from`.
public struct ShardOrigin: Sendable, Equatable {
    /// SHA-256 of the input list (each path and size) and the settings that change the part
    /// (`fingerprint(inputs:settings:)`).
    public var inputs: String
    /// `ToolVersion.description` of the tool that wrote the part.
    public var tool: String

    public init(inputs: String, tool: String = ToolVersion.description) {
        self.inputs = inputs
        self.tool = tool
    }

    /// The fingerprint of `inputs` (in order, with their sizes) and `settings` (name, value; in
    /// the order given, so a stage lists them in a fixed order).
    public static func fingerprint(inputs: [String], settings: [(String, String)]) -> String {
        var text = ""
        for input in inputs { text += "input\t\(input)\t\(FileSystem.size(input).map(String.init) ?? "-")\n" }
        for (name, value) in settings { text += "\(name)\t\(value)\n" }
        return SHA256.hex(of: Array(text.utf8))
    }

    public func encode(into out: inout JSONWriter) {
        out.beginObject()
        out.key("inputs"); out.string(inputs)
        out.key("tool"); out.string(tool)
        out.endObject()
    }

    /// Reads `{"inputs": …, "tool": …}`; nil if `value` is not one.
    public init?(_ value: JSONValue?) {
        guard let value, value.isObject, let inputs = value["inputs"]?.string, let tool = value["tool"]?.string else {
            return nil
        }
        self.init(inputs: inputs, tool: tool)
    }

    /// Throws unless `other` (read from `otherPath`) has this origin (read from `path`).
    ///
    /// - Parameter covered: what the fingerprint covers, for the message (what may differ).
    public func requireSame(
        _ other: ShardOrigin, path: String, otherPath: String,
        covered: String = "the input files or the settings that change records"
    ) throws {
        if other.inputs != inputs {
            throw FieldpackError(
                path: otherPath,
                "made from other inputs (fingerprint \(other.inputs)) than \(path) (fingerprint \(inputs)): \(covered) differ; "
                    + "parts of different builds cannot be merged; rerun the shards of one build")
        }
        if other.tool != tool {
            throw FieldpackError(
                path: otherPath,
                "made by fieldpack \(other.tool), but \(path) by fieldpack \(tool): "
                    + "parts of different tool versions cannot be merged; rerun the shards with one version")
        }
    }
}

/// The sidecar beside a sharded stage's part (`<part>.made-from.json`): the part's origin and
/// which shard of how many wrote it, for the stage that merges the parts.
public struct ShardPartSidecar: Sendable, Equatable {
    public var origin: ShardOrigin
    public var shard: Shard

    public init(origin: ShardOrigin, shard: Shard) {
        self.origin = origin
        self.shard = shard
    }

    public static func path(of part: String) -> String { "\(part).made-from.json" }

    public func write(beside part: String) throws {
        var out = JSONWriter()
        out.beginObject()
        out.key("made_from"); origin.encode(into: &out)
        out.key("shard"); out.int(shard.index)
        out.key("shards"); out.int(shard.count)
        out.endObject()
        try AtomicOutput.write(PrettyJSON.format(out.bytes), to: Self.path(of: part))
    }

    /// Removes the sidecar of `part`, if it has one: a stage about to write `part` again does,
    /// so that until the new part is written no sidecar says the old one is the new job's.
    ///
    /// - Throws: naming the sidecar when it is there and cannot be removed.
    public static func remove(beside part: String) throws {
        let path = Self.path(of: part)
        if unlink(path) != 0 && errno != ENOENT {
            throw FieldpackError(path: path, "cannot remove the sidecar of a part about to be written again: \(systemError())")
        }
    }

    /// The sidecar of `part`.
    ///
    /// - Throws: naming the sidecar when it is missing or unreadable.
    public static func read(beside part: String) throws -> ShardPartSidecar {
        let path = Self.path(of: part)
        guard FileSystem.exists(path) else {
            throw FieldpackError(path: part, "is not a shard's part: \(path), what it was made from, is missing")
        }
        let parser = JSONParser()
        let root: JSONValue
        do {
            root = try parser.parse(PaddedBuffer(copying: try ReadableFile.contents(of: path)))
        } catch let error as JSONSyntaxError {
            throw FieldpackError(path: path, "not a part's sidecar: \(error.message)")
        }
        guard root.isObject, let origin = ShardOrigin(root["made_from"]),
              let index = root["shard"]?.int64, let count = root["shards"]?.int64 else {
            throw FieldpackError(path: path, "not a part's sidecar (made_from, shard, shards)")
        }
        do {
            return ShardPartSidecar(origin: origin, shard: try Shard(index: Int(index), count: Int(count)))
        } catch let error as UsageError {
            throw FieldpackError(path: path, error.message)
        }
    }

    /// The sidecars of `parts`, checked to be shards `0..<parts.count` of one job, once each.
    ///
    /// - Throws: naming both parts when two differ in origin, or the part whose shard does not fit.
    public static func requireOneJob(_ parts: [String]) throws -> [ShardPartSidecar] {
        let sidecars = try parts.map { try read(beside: $0) }
        var seen = [String?](repeating: nil, count: parts.count)
        for (part, sidecar) in zip(parts, sidecars) {
            try sidecars[0].origin.requireSame(sidecar.origin, path: path(of: parts[0]), otherPath: path(of: part))
            guard sidecar.shard.count == parts.count else {
                throw FieldpackError(
                    path: part, "is shard \(sidecar.shard) of a \(sidecar.shard.count)-shard job, but \(parts.count) parts were given")
            }
            if let other = seen[sidecar.shard.index] {
                throw FieldpackError(path: part, "is shard \(sidecar.shard), as \(other) is: give each shard's part once")
            }
            seen[sidecar.shard.index] = part
        }
        return sidecars
    }
}
