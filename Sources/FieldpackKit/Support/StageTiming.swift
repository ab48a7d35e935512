/// One stage's run figures (time, records, bytes, peak memory), as `StageReport` prints them:
/// written to `<folder>/<stage>.json` for the run report. Never part of a bundle: they differ
/// from run to run.
public struct StageTiming: Sendable, Equatable {
    public var stage: String
    public var seconds: Double
    public var records: Int?
    public var bytes: Int?
    public var peakResidentBytes: Int

    public init(stage: String, seconds: Double, records: Int?, bytes: Int?, peakResidentBytes: Int) {
        self.stage = stage
        self.seconds = seconds
        self.records = records
        self.bytes = bytes
        self.peakResidentBytes = peakResidentBytes
    }

    public var json: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("stage"); writer.string(stage)
        writer.key("seconds"); writer.double(seconds)
        writer.key("records"); writer.int(records.map(Int64.init))
        writer.key("bytes"); writer.int(bytes.map(Int64.init))
        writer.key("peak_rss_bytes"); writer.int(peakResidentBytes)
        writer.endObject()
        writer.newline()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    public func write(into folder: String) throws {
        try FileSystem.makeDirectories(folder)
        // A stage killed while writing its timing leaves a temp file that its own rerun may
        // never come to (its outputs were already in place): any stage's write clears it.
        Leftovers.removeStale(inFolder: folder)
        try AtomicOutput.write(json, to: "\(folder)/\(stage).json")
    }

    /// Every `<stage>.json` in `folder`, in pipeline order (then by name).
    public static func read(folder: String) throws -> [StageTiming] {
        let order = ["inat", "dedupe", "wiki", "bundle", "report", "manifest", "verify"]
        let names = try FileSystem.list(folder).filter { $0.hasSuffix(".json") }
        var timings: [StageTiming] = []
        let parser = JSONParser()
        for name in names {
            let path = "\(folder)/\(name)"
            let buffer = PaddedBuffer(copying: try ReadableFile.contents(of: path))
            let root: JSONValue
            do { root = try parser.parse(buffer) } catch {
                throw FieldpackError(path: path, "not a stage timing: \(error)")
            }
            guard let stage = root["stage"]?.string, let seconds = root["seconds"]?.double,
                  let peak = root["peak_rss_bytes"]?.int64 else {
                throw FieldpackError(path: path, "not a stage timing (stage, seconds, peak_rss_bytes)")
            }
            timings.append(StageTiming(
                stage: stage, seconds: seconds, records: root["records"]?.int64.map { Int($0) },
                bytes: root["bytes"]?.int64.map { Int($0) }, peakResidentBytes: Int(peak)))
        }
        func rank(_ stage: String) -> Int { order.firstIndex(of: stage) ?? order.count }
        return timings.sorted { (rank($0.stage), $0.stage) < (rank($1.stage), $1.stage) }
    }
}
