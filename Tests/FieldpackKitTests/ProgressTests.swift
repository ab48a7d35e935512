import Dispatch
import FieldpackKit
import FieldpackTestSupport
import Foundation
import Synchronization
import Testing

/// The progress line: drawn with a fake clock into a pipe (the terminal decision injected), and
/// one stage run under a real pseudo-terminal (util-linux `script`).
@Suite struct ProgressTests {
    static let binaries = ProcessInfo.processInfo.environment["FIELDPACK_BIN"]

    /// A clock the test moves by hand.
    final class FakeClock: Sendable {
        let now = Mutex(0.0)
        func set(_ seconds: Double) { now.withLock { $0 = seconds } }
        var read: @Sendable () -> Double { { [self] in now.withLock { $0 } } }
    }

    /// A pipe whose write end the progress draws into; `drawn()` closes it and reads it all.
    final class Capture {
        let pipe = Pipe()
        var descriptor: Int32 { pipe.fileHandleForWriting.fileDescriptor }
        func drawn() -> String {
            try? pipe.fileHandleForWriting.close()
            return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
    }

    @Test func aTerminalGetsTheLineRedrawnInPlaceAtMostFourTimesASecond() {
        let clock = FakeClock(), capture = Capture()
        let again = StageProgress(stage: "inat", display: .init(descriptor: capture.descriptor, isTerminal: true, clock: clock.read))
        again.expect(bytes: 200_000_000)
        again.tick()  // t = 0: the clock starts, nothing is due
        for (time, records, bytes) in [(0.1, 10, 1_000_000), (0.3, 20, 1_000_000), (0.4, 30, 1_000_000), (0.6, 40, 2_000_000)] {
            clock.set(time)
            again.add(records: records, bytes: bytes)
            again.tick()
        }
        again.finish()
        let clear = "\r\u{1B}[K"
        #expect(capture.drawn() == clear + "fieldpack-inat: 30 records, 2.0 of 200.0 MB (1%), 6.7 MB/s, ETA 0:30"
                + clear + "fieldpack-inat: 100 records, 5.0 of 200.0 MB (2%), 8.3 MB/s, ETA 0:24" + clear)
    }

    @Test func aLogGetsOnePlainLineEveryTenSecondsAndNoEscapes() {
        let clock = FakeClock(), capture = Capture()
        let progress = StageProgress(stage: "dedupe", display: .init(descriptor: capture.descriptor, isTerminal: false, clock: clock.read))
        progress.tick()
        for second in 1...25 {
            clock.set(Double(second))
            progress.add(records: 1000, bytes: 1_000_000)
            progress.tick()
        }
        progress.finish()
        #expect(capture.drawn() == "fieldpack-dedupe: 10000 records, 10.0 MB, 1.0 MB/s\n"
                + "fieldpack-dedupe: 20000 records, 20.0 MB, 1.0 MB/s\n")
    }

    @Test func withoutBytesTheLineGivesRecordsPerSecond() {
        let clock = FakeClock(), capture = Capture()
        let progress = StageProgress(stage: "verify", display: .init(descriptor: capture.descriptor, isTerminal: false, clock: clock.read))
        progress.tick()
        clock.set(10)
        progress.add(records: 50)
        progress.tick()
        progress.finish()
        #expect(capture.drawn() == "fieldpack-verify: 50 records, 5 records/s\n")
    }

    @Test func quietDrawsNothingAndStillCounts() {
        let progress = StageProgress.standardError(stage: "wiki", quiet: true)
        progress.start()
        progress.add(records: 3, bytes: 7)
        progress.tick()
        progress.finish()
        #expect(progress.recordCount == 3 && progress.byteCount == 7)
    }

    @Test func threadsAddingSideBySideLoseNoCount() {
        let progress = StageProgress.silent("dedupe")
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            var tally = ProgressTally(progress)
            for _ in 0..<100_000 { tally.add(records: 1, bytes: 3) }
            tally.flush()
        }
        #expect(progress.recordCount == 400_000)
        #expect(progress.byteCount == 1_200_000)
    }

    @Test func theETAIsMinutesAndSecondsThenHours() {
        let clock = FakeClock(), capture = Capture()
        let progress = StageProgress(stage: "wiki", display: .init(descriptor: capture.descriptor, isTerminal: false, clock: clock.read))
        progress.expect(bytes: 7_300_000_000)
        progress.tick()
        clock.set(10)
        progress.add(records: 1, bytes: 10_000_000)
        progress.tick()
        progress.finish()
        #expect(capture.drawn() == "fieldpack-wiki: 1 records, 10.0 of 7300.0 MB (0%), 1.0 MB/s, ETA 2:01:30\n")
    }

    /// Ingest reading a slow standard input, its stderr a pseudo-terminal: the line is redrawn
    /// in place, then cleared before the summary line; `--quiet` draws none.
    @Test(.enabled(if: binaries != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/script")), arguments: [false, true])
    func ingestUnderAPseudoTerminalRedrawsItsLineInPlace(quiet: Bool) throws {
        let bin = try #require(Self.binaries)
        let directory = try TemporaryDirectory()
        let input = "\(repositoryRoot)/sample-data/inat/shipping-cases.jsonl"
        let command = "(head -n 3 '\(input)'; sleep 2; tail -n +4 '\(input)') | '\(bin)/fieldpack-inat' - "
            + "--output '\(directory.file("records.jsonl"))' --rejects '\(directory.file("rejects.jsonl"))' --max-reject-rate 1"
            + (quiet ? " --quiet" : "")
        let result = try run("/usr/bin/script", ["-qfec", command, "/dev/null"])
        #expect(result.status == 0, "\(result.stdout)")
        let clear = "\r\u{1B}[K"
        if quiet {
            #expect(!result.stdout.contains(clear), "\(result.stdout.debugDescription)")
        } else {
            #expect(result.stdout.contains(clear + "fieldpack-inat: "), "\(result.stdout.debugDescription)")
            #expect(result.stdout.contains(" MB, "), "\(result.stdout.debugDescription)")
            // The last redraw is cleared, and the summary line follows on a clean line.
            #expect(result.stdout.contains(clear + "fieldpack-inat: 1 files, "), "\(result.stdout.debugDescription)")
        }
        #expect(result.stdout.contains("records/s") && result.stdout.contains("MB/s") && result.stdout.contains("peak RSS"))
    }
}
