/// `run-report.html`: one run's time and peak memory per stage (the `StageTiming` files that
/// `FIELDPACK_TIMINGS` collects). Kept beside the bundle, never in it: its figures differ from
/// run to run.
public struct RunReport {
    public var timings: String
    public var output: String
    public var pipeline: String

    public init(timings: String, output: String, pipeline: String) {
        self.timings = timings
        self.output = output
        self.pipeline = pipeline
    }

    @discardableResult
    public func run() throws -> Int {
        let stages = try StageTiming.read(folder: timings)
        if stages.isEmpty { throw FieldpackError(path: timings, "holds no stage timings (<stage>.json)") }
        let bytes = Self.render(stages, pipeline: pipeline)
        try AtomicOutput.write(String(decoding: bytes, as: UTF8.self), to: output)
        return stages.count
    }

    static func render(_ stages: [StageTiming], pipeline: String) -> [UInt8] {
        let total = stages.reduce(0) { $0 + $1.seconds }
        var page = ReportPage(
            title: "Run report: \(pipeline)",
            subtitle: "time and peak memory per stage of the last run, \(format(total, 2)) s in all")
        page.section("time", "Time per stage") { page in
            page.figure(SVGChart.bars(
                "Seconds per stage",
                stages.map { ("fieldpack-\($0.stage)", Int64(($0.seconds * 1000).rounded()), "\(format($0.seconds, 2)) s") }),
                caption: "Wall-clock time of each stage's own work, as its summary line reports it.")
        }
        page.section("memory", "Peak memory per stage") { page in
            page.figure(SVGChart.bars(
                "Peak resident memory per stage",
                stages.map { ("fieldpack-\($0.stage)", Int64($0.peakResidentBytes), ReportNumber.bytes(Int64($0.peakResidentBytes))) },
                color: SVGChart.palette[1]),
                caption: "Peak resident set size (getrusage) of each stage's process.")
            page.table(
                ["stage", "seconds", "records", "records/s", "MB read", "MB/s", "peak RSS"],
                stages.map { stage in
                    let rate = { (value: Int?) in value.map { stage.seconds > 0 ? format(Double($0) / stage.seconds, 0) : "–" } ?? "–" }
                    return ["fieldpack-\(stage.stage)", format(stage.seconds, 2), stage.records.map { ReportNumber.count($0) } ?? "–",
                            rate(stage.records), stage.bytes.map { format(Double($0) / 1e6, 1) } ?? "–",
                            stage.bytes.map { stage.seconds > 0 ? format(Double($0) / stage.seconds / 1e6, 1) : "–" } ?? "–",
                            ReportNumber.bytes(Int64(stage.peakResidentBytes))]
                }, numeric: [1, 2, 3, 4, 5, 6])
        }
        return page.finished(footer: "Not part of the bundle: these figures differ from run to run.")
    }
}
