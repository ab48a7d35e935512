/// `run-report.html`: one run's time and peak memory per stage (the `StageTiming` files that
/// `FIELDPACK_TIMINGS` collects). Kept beside the bundle, never in it: its figures differ from
/// run to run.
///
/// A sharded stage is shown as one stage (see `StageTotal`) and, in its own section, shard by
/// shard, so an uneven split or one slow machine shows.
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
        // Stages, not timing files: a sharded stage's shards are one stage.
        return StageTotal.group(stages).count
    }

    static func render(_ timings: [StageTiming], pipeline: String) -> [UInt8] {
        let stages = StageTotal.group(timings)
        let total = stages.reduce(0) { $0 + $1.seconds }
        var page = ReportPage(
            title: "Run report: \(pipeline)",
            // make reruns only the stages whose inputs changed: each stage's figures are from the
            // last time it ran, which for some may be an earlier build than the others'.
            subtitle: "time and peak memory of each stage's last run (a build reruns only the stages whose inputs changed), "
                + "\(format(total, 2)) s added up" + (stages.compactMap(\.finishedAt).max().map {
                    "; the last stage finished at \(Self.shown($0)). A build that failed leaves this page as it was: "
                        + "a time before that build's is an earlier run's"
                } ?? ""))
        page.section("time", "Time per stage") { page in
            page.figure(SVGChart.bars(
                "Seconds per stage",
                stages.map { ("fieldpack-\($0.stage)", Int64(($0.seconds * 1000).rounded()), "\(format($0.seconds, 2)) s") }),
                caption: "Wall-clock time of each stage's own work, as its summary line reports it; for a sharded "
                    + "stage, the sum over its shards (the longest shard is in the table below).")
            page.table(
                ["stage", "shards", "seconds", "longest shard", "records", "records/s", "MB read", "MB/s", "peak RSS"],
                stages.map { stage in
                    ["fieldpack-\(stage.stage)", stage.shardsShown, format(stage.seconds, 2), format(stage.longest, 2)]
                        + Self.figures(seconds: stage.seconds, records: stage.records, bytes: stage.bytes, peak: stage.peakResidentBytes)
                }, numeric: [1, 2, 3, 4, 5, 6, 7, 8])
        }
        page.section("memory", "Peak memory per stage") { page in
            page.figure(SVGChart.bars(
                "Peak resident memory per stage",
                stages.map { ("fieldpack-\($0.stage)", Int64($0.peakResidentBytes), ReportNumber.bytes(Int64($0.peakResidentBytes))) },
                color: SVGChart.palette[1]),
                caption: "Peak resident set size (getrusage) of each stage's process; for a sharded stage, its largest shard's.")
        }
        // When each stage's figures were made: a stage make did not rerun, or a build that
        // failed before this page was made again, shows as an earlier time.
        page.section("when", "When each stage finished") { page in
            page.table(
                ["stage", "finished (UTC)"],
                stages.map { ["fieldpack-\($0.stage)", $0.finishedAt.map(Self.shown) ?? "–"] })
        }
        let sharded = stages.filter { !$0.shards.isEmpty }
        if !sharded.isEmpty {
            let shards = sharded.flatMap(\.shards)
            page.section("shards", "Shards of the sharded stages") { page in
                page.figure(SVGChart.bars(
                    "Seconds per shard",
                    shards.map { ("fieldpack-\($0.stage) \($0.shard!)", Int64(($0.seconds * 1000).rounded()), "\(format($0.seconds, 2)) s") },
                    color: SVGChart.palette[2]),
                    caption: "Each shard's own time: with every shard running at once, the longest is the stage's wall time.")
                page.table(
                    ["stage", "shard", "seconds", "records", "records/s", "MB read", "MB/s", "peak RSS"],
                    shards.map { shard in
                        ["fieldpack-\(shard.stage)", shard.shard!.description, format(shard.seconds, 2)]
                            + Self.figures(seconds: shard.seconds, records: shard.records, bytes: shard.bytes, peak: shard.peakResidentBytes)
                    }, numeric: [1, 2, 3, 4, 5, 6, 7])
            }
        }
        return page.finished(footer: "Not part of the bundle: these figures differ from run to run.")
    }

    /// A time as the page shows it: `2026-12-07 01:05:00` (UTC).
    static func shown(_ seconds: Int64) -> String {
        let text = Timestamp.iso8601(seconds: seconds)
        return "\(text.prefix(10)) \(text.dropFirst(11).dropLast())"
    }

    /// The records, records/s, MB read, MB/s and peak RSS cells of a row.
    private static func figures(seconds: Double, records: Int?, bytes: Int?, peak: Int) -> [String] {
        let perSecond = { (value: Int, scale: Double, decimals: Int) in
            seconds > 0 ? format(Double(value) / seconds / scale, decimals) : "–"
        }
        return [records.map { ReportNumber.count($0) } ?? "–", records.map { perSecond($0, 1, 0) } ?? "–",
                bytes.map { format(Double($0) / 1e6, 1) } ?? "–", bytes.map { perSecond($0, 1e6, 1) } ?? "–",
                ReportNumber.bytes(Int64(peak))]
    }
}

/// A stage's figures in the run report: a whole run's as they are, or a sharded stage's shards
/// taken together. The shards' seconds are summed (the stage's work: what one machine running
/// them one after another would take, and what records/s and MB/s are figured against, so they
/// compare with an unsharded run's), their records and bytes summed, and their peak memory is the
/// largest shard's (each shard is its own process); `longest` is the slowest shard's seconds (the
/// stage's wall time when every shard runs at once).
struct StageTotal: Equatable {
    var stage: String
    /// The shards' own figures, in shard order; empty for a whole run.
    var shards: [StageTiming]
    var seconds: Double
    var longest: Double
    var records: Int?
    var bytes: Int?
    var peakResidentBytes: Int
    /// When its run (its last shard) ended, if its timings say.
    var finishedAt: Int64? = nil

    var shardCount: Int { shards.first?.shard?.count ?? 1 }

    /// The shard count, or "3 of 4" when a shard's timing is missing (it failed, or ran where its
    /// timing was not kept): the sums then leave it out.
    var shardsShown: String {
        shards.isEmpty || shards.count == shardCount ? String(shardCount) : "\(shards.count) of \(shardCount)"
    }

    /// One total per stage and shard count, in the order of `timings` (as `StageTiming.read`
    /// gives them: pipeline order, then by shard).
    static func group(_ timings: [StageTiming]) -> [StageTotal] {
        var totals: [StageTotal] = []
        for timing in timings {
            if let last = totals.last, let shard = timing.shard, last.stage == timing.stage, last.shardCount == shard.count,
               !last.shards.isEmpty {
                totals[totals.count - 1].add(timing)
            } else {
                totals.append(StageTotal(
                    stage: timing.stage, shards: timing.shard == nil ? [] : [timing], seconds: timing.seconds,
                    longest: timing.seconds, records: timing.records, bytes: timing.bytes,
                    peakResidentBytes: timing.peakResidentBytes, finishedAt: timing.finishedAt))
            }
        }
        return totals
    }

    private mutating func add(_ shard: StageTiming) {
        shards.append(shard)
        seconds += shard.seconds
        longest = max(longest, shard.seconds)
        records = Self.sum(records, shard.records)
        bytes = Self.sum(bytes, shard.bytes)
        peakResidentBytes = max(peakResidentBytes, shard.peakResidentBytes)
        if let end = shard.finishedAt { finishedAt = max(finishedAt ?? end, end) }
    }

    private static func sum(_ a: Int?, _ b: Int?) -> Int? {
        a == nil && b == nil ? nil : (a ?? 0) + (b ?? 0)
    }
}
