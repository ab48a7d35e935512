import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A long stage's progress on stderr: records, MB read of MB total, MB/s and ETA.
///
/// On a terminal the line is redrawn in place (`\r`, clear to the end of the line) at most every
/// `Display.redrawInterval`; anywhere else (a CI log) one plain line every `Display.plainInterval`;
/// with `--quiet`, nothing. The stage's threads only `add` to two relaxed atomic counters (no
/// lock, no clock); a timer on a Dispatch queue reads them and draws. Thread-safe.
public final class StageProgress: Sendable {
    /// Where and how often the line is drawn; injectable for tests (a pipe, a fake clock).
    public struct Display: Sendable {
        /// The file descriptor the line goes to.
        public var descriptor: Int32
        /// Redraw in place (a terminal) or print plain lines (a log).
        public var isTerminal: Bool
        /// Seconds on a monotonic clock.
        public var clock: @Sendable () -> Double
        public var redrawInterval = 0.25
        public var plainInterval = 10.0

        public init(descriptor: Int32, isTerminal: Bool, clock: @escaping @Sendable () -> Double = StageProgress.monotonicSeconds) {
            self.descriptor = descriptor
            self.isTerminal = isTerminal
            self.clock = clock
        }

        /// Standard error, a terminal when `isatty(2)` says so.
        public static var standardError: Display { Display(descriptor: 2, isTerminal: isatty(2) == 1) }
    }

    private struct DrawState: Sendable {
        var started: Double? = nil
        var lastDraw: Double? = nil
        var drewInPlace = false
        var stopped = false
    }

    public let stage: String
    private let display: Display?
    private let records = Atomic<Int>(0)
    private let bytes = Atomic<Int>(0)
    private let totalBytes = Atomic<Int>(-1)
    private let running = Atomic<Bool>(false)
    private let state = Mutex(DrawState())

    /// - Parameters:
    ///   - stage: the stage's short name (`inat`), printed as `fieldpack-inat:`.
    ///   - display: where to draw; nil draws nothing (`--quiet`), the counters still count.
    public init(stage: String, display: Display?) {
        self.stage = stage
        self.display = display
    }

    /// The progress of an executable: standard error, or nothing when `quiet`.
    public static func standardError(stage: String, quiet: Bool) -> StageProgress {
        StageProgress(stage: stage, display: quiet ? nil : .standardError)
    }

    /// A progress that draws nothing: the default of every stage's options.
    public static func silent(_ stage: String = "") -> StageProgress { StageProgress(stage: stage, display: nil) }

    /// Counts work done. Cheap enough for a hot loop: two relaxed atomic adds.
    @inline(__always)
    public func add(records: Int = 0, bytes: Int = 0) {
        if records != 0 { self.records.wrappingAdd(records, ordering: .relaxed) }
        if bytes != 0 { self.bytes.wrappingAdd(bytes, ordering: .relaxed) }
    }

    /// The bytes the stage will read in all, once known (shows "of N MB" and the ETA).
    public func expect(bytes total: Int) {
        totalBytes.store(total, ordering: .relaxed)
    }

    public var recordCount: Int { records.load(ordering: .relaxed) }
    public var byteCount: Int { bytes.load(ordering: .relaxed) }

    /// Starts the clock and the timer that draws (nothing starts when quiet).
    public func start() {
        guard let display else { return }
        let now = display.clock()
        state.withLock { if $0.started == nil { $0.started = now } }
        guard !running.exchange(true, ordering: .relaxed) else { return }
        schedule(after: display.isTerminal ? display.redrawInterval : min(1, display.plainInterval))
    }

    private func schedule(after seconds: Double) {
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + seconds) { [self] in
            guard running.load(ordering: .relaxed) else { return }
            tick()
            schedule(after: seconds)
        }
    }

    /// Draws the line if it is due; the timer calls this, and tests call it with a fake clock.
    public func tick() {
        guard let display else { return }
        let now = display.clock()
        state.withLock { state in
            guard !state.stopped else { return }
            let started = state.started ?? now
            if state.started == nil { state.started = now }
            let interval = display.isTerminal ? display.redrawInterval : display.plainInterval
            guard now - (state.lastDraw ?? started) >= interval else { return }
            state.lastDraw = now
            let text = line(elapsed: now - started)
            if display.isTerminal {
                write(display.descriptor, "\r\u{1B}[K" + text)
                state.drewInPlace = true
            } else {
                write(display.descriptor, text + "\n")
            }
        }
    }

    /// Stops the timer and clears a line drawn in place, so the stage's summary line follows.
    public func finish() {
        running.store(false, ordering: .relaxed)
        guard let display else { return }
        state.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            if state.drewInPlace { write(display.descriptor, "\r\u{1B}[K") }
        }
    }

    /// `fieldpack-inat: 120345 records, 120.3 of 711.0 MB (17%), 45.2 MB/s, ETA 0:13`.
    func line(elapsed: Double) -> String {
        let records = recordCount
        let bytes = byteCount
        let total = totalBytes.load(ordering: .relaxed)
        var parts = ["\(records) records"]
        if bytes > 0 || total > 0 {
            let read = format(Double(bytes) / 1e6, 1)
            if total > 0 {
                let done = min(100, bytes * 100 / total)
                parts.append("\(read) of \(format(Double(total) / 1e6, 1)) MB (\(done)%)")
            } else {
                parts.append("\(read) MB")
            }
            if elapsed > 0 {
                let rate = Double(bytes) / elapsed
                parts.append("\(format(rate / 1e6, 1)) MB/s")
                if total > 0 && rate > 0 && bytes < total {
                    parts.append("ETA \(Self.duration(Double(total - bytes) / rate))")
                }
            }
        } else if elapsed > 0 {
            parts.append("\(format(Double(records) / elapsed, 0)) records/s")
        }
        return "fieldpack-\(stage): " + parts.joined(separator: ", ")
    }

    /// `0:07`, `12:34`, `1:02:03`.
    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        let (hours, minutes, secs) = (whole / 3600, whole / 60 % 60, whole % 60)
        let two = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(secs))" : "\(minutes):\(two(secs))"
    }

    public static let monotonicSeconds: @Sendable () -> Double = {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    private func write(_ descriptor: Int32, _ text: String) {
        var text = text
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let wrote = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if wrote <= 0 { return }
                offset += wrote
            }
        }
    }
}

/// One thread's share of a progress, handed over every 1024 records or 1 MiB, so that threads
/// scanning side by side do not contend on the shared counters per line. Not thread-safe: one
/// per thread; `flush()` at the end.
public struct ProgressTally {
    public let progress: StageProgress
    private var records = 0
    private var bytes = 0

    public init(_ progress: StageProgress) {
        self.progress = progress
    }

    @inline(__always)
    public mutating func add(records: Int = 0, bytes: Int = 0) {
        self.records += records
        self.bytes += bytes
        if self.records >= 1024 || self.bytes >= 1 << 20 { flush() }
    }

    public mutating func flush() {
        progress.add(records: records, bytes: bytes)
        records = 0
        bytes = 0
    }
}
