#if canImport(Glibc)
import Glibc
#endif

/// Wall-clock time of a stage, for its progress line (never written into any output).
public struct StageClock {
    let start: timespec

    public init() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        start = now
    }

    public var seconds: Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec - start.tv_sec) + Double(now.tv_nsec - start.tv_nsec) / 1e9
    }
}

/// The one summary line a stage prints to stderr: what it did, how fast, and its peak memory.
public struct StageReport {
    public let stage: String
    public let clock: StageClock
    /// The name its timing is written under (`StageTiming.stage`): the stage's, or one of its
    /// own for a second run of the stage in one build (the bag's publishing and check, beside
    /// the bundle's: `manifest-bag`, `verify-bag`), which would replace the first's.
    public var timingStage: String

    public init(stage: String, clock: StageClock, timingStage: String? = nil) {
        self.stage = stage
        self.clock = clock
        self.timingStage = timingStage ?? stage
    }

    /// Peak resident set size of this process, in bytes.
    public static var peakResidentBytes: Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss) * 1024
    }

    /// Prints the summary line; with `FIELDPACK_TIMINGS=DIR` (as `make bundle` sets it) also
    /// writes the figures to `DIR/<timingStage>.json` (a shard's to `DIR/<timingStage>.shard-I-of-N.json`)
    /// for the run report (never part of a bundle).
    ///
    /// - Parameters:
    ///   - records: the records (or files) the stage handled, for records/s.
    ///   - bytes: the bytes it read, for MB/s.
    ///   - shard: the shard this run is of a sharded stage; nil (or 0/1) for the whole job.
    public func print(_ what: String, records: Int? = nil, bytes: Int? = nil, shard: Shard? = nil) {
        let seconds = clock.seconds
        let peak = Self.peakResidentBytes
        var line = "fieldpack-\(stage): \(what) in \(format(seconds, 2)) s"
        if let records, seconds > 0 { line += ", \(format(Double(records) / seconds, 0)) records/s" }
        if let bytes, seconds > 0 { line += ", \(format(Double(bytes) / seconds / 1e6, 1)) MB/s" }
        line += ", peak RSS \(peak >> 20) MiB"
        StandardError.write(line)
        if let folder = environment("FIELDPACK_TIMINGS"), !folder.isEmpty {
            let timing = StageTiming(
                stage: timingStage, shard: shard, seconds: seconds, records: records, bytes: bytes, peakResidentBytes: peak,
                finishedAt: Int64(time(nil)))
            do {
                try timing.write(into: folder)
            } catch {
                StandardError.write("fieldpack-\(stage): warning: the run's timings were not written: \(error)")
            }
        }
    }
}

func format(_ value: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    if decimals == 0 { return String(Int64(rounded)) }
    var text = String(rounded)
    if let dot = text.firstIndex(of: ".") {
        let have = text.distance(from: dot, to: text.endIndex) - 1
        if have < decimals { text += String(repeating: "0", count: decimals - have) }
    }
    return text
}

/// Phase timings on stderr when `FIELDPACK_TRACE=1`; for finding where a stage spends its time.
public final class PhaseTrace {
    let stage: String
    let enabled: Bool
    var clock = StageClock()

    public init(stage: String) {
        self.stage = stage
        enabled = environment("FIELDPACK_TRACE") == "1"
    }

    public func mark(_ phase: String) {
        guard enabled else { return }
        StandardError.write("fieldpack-\(stage): \(phase): \(format(clock.seconds, 2)) s, peak RSS \(StageReport.peakResidentBytes >> 20) MiB")
        clock = StageClock()
    }
}

/// A rate as a percentage with at most two decimals: `0.0123` → `1.23%`.
func percent(_ rate: Double) -> String {
    // `+ 0` turns a negative zero (`--max-reject-rate -0`) into 0: "-0.0%" read as a bug.
    let scaled = (rate * 10000).rounded() / 100 + 0
    return "\(scaled)%"
}
