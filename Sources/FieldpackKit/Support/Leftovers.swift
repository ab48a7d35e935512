import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The temp files and folders a run makes beside its outputs (`.NAME.tmp-PID-…` and what is
/// derived from it, `NAME.scratch-PID-…`, `.NAME.staging-PID-…`): removed when SIGTERM or SIGINT
/// stops the run, and, when a run was killed harder than that (`kill -9`, a crash, a power cut),
/// by the next run that writes the same output.
public enum Leftovers {
    /// This process's temp paths that may still exist.
    private static let live = Mutex<Set<String>>([])
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    /// The kinds of temp name, after the output's name (each followed by the PID and `-`).
    static let markers = [".tmp-", ".scratch-", ".staging-"]

    static func register(_ path: String) {
        _ = live.withLock { $0.insert(path) }
    }

    /// Runs `make`, which creates a temp file or folder and returns its path, with the signal
    /// handler held off: a signal that arrives meanwhile finds the path registered and removes
    /// it, and once the handler has begun, nothing new is created (it never lets go).
    static func creating<Value: Sendable>(
        _ make: () throws -> (path: String, value: Value)
    ) throws -> (path: String, value: Value) {
        try live.withLock { paths in
            let made = try make()
            paths.insert(made.path)
            return made
        }
    }

    static func forget(_ path: String) {
        _ = live.withLock { $0.remove(path) }
    }

    /// Makes SIGTERM and SIGINT remove this process's temp files and folders, then end the
    /// process as the signal would have (so `make` and shells see the signal). Call once, from
    /// the main thread, before any work.
    public static func removeOnSignals() {
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                // The lock is held to the end: a thread that is creating a temp file finishes
                // and registers it first, and no thread creates another after the removal.
                live.withLock { paths in
                    for path in paths {
                        FileSystem.removeTree(path)
                        FileSystem.remove(path + "-journal")
                    }
                    // libdispatch reads the signal from a signalfd, with it blocked: unblock it
                    // here, with its default action, so it ends the process as it would have.
                    signal(signalNumber, SIG_DFL)
                    var set = sigset_t()
                    sigemptyset(&set)
                    sigaddset(&set, signalNumber)
                    pthread_sigmask(SIG_UNBLOCK, &set, nil)
                    raise(signalNumber)
                    _exit(128 + signalNumber)
                }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Removes the temp files and folders an earlier run writing `output` left behind: only names
    /// of fieldpack's own pattern for that output, and only those whose process is gone (a live
    /// run's, or this run's, are never touched). Links are removed as links.
    public static func removeStale(of output: String) {
        let folder = directory(of: output)
        let name = output.split(separator: "/").last.map(String.init) ?? output
        guard !name.isEmpty, let entries = try? FileSystem.list(folder) else { return }
        for entry in entries {
            guard let pid = ownerPID(entry, output: name), pid != getpid() else { continue }
            if isRunning(pid) { continue }
            FileSystem.removeTree(folder + "/" + entry)
        }
    }

    /// Removes every temp file or folder of fieldpack's pattern in `folder` whose process is
    /// gone, whatever output it was for: for a folder of many small outputs (the run's timings)
    /// where a rerun may not write again the one a killed run was writing.
    public static func removeStale(inFolder folder: String) {
        guard let entries = try? FileSystem.list(folder) else { return }
        for entry in entries where entry.hasPrefix(".") {
            guard let pid = ownerPID(entry), pid != getpid(), !isRunning(pid) else { continue }
            FileSystem.removeTree(folder + "/" + entry)
        }
    }

    /// Whether process `pid` exists and has not ended: a zombie (killed, not yet reaped by its
    /// parent or by an init that does not reap) writes nothing, so its files are stale.
    static func isRunning(_ pid: pid_t) -> Bool {
        if kill(pid, 0) != 0 && errno == ESRCH { return false }
        guard let stat = try? ReadableFile.contents(of: "/proc/\(pid)/stat") else { return true }
        // "PID (command) STATE …": the state follows the last ')'.
        guard let close = stat.lastIndex(of: UInt8(ascii: ")")), close + 2 < stat.count else { return true }
        return stat[close + 2] != UInt8(ascii: "Z")
    }

    /// The PID in a temp name of any output (`.NAME.tmp-PID-…`), or nil if `entry` is not one.
    static func ownerPID(_ entry: String) -> pid_t? {
        let bytes = Array(entry.utf8)
        for marker in markers.map({ Array($0.utf8) }) where bytes.count > marker.count {
            // The last occurrence: an output's own name may hold a marker-like part.
            for start in stride(from: bytes.count - marker.count, through: 1, by: -1)
            where bytes[start..<start + marker.count].elementsEqual(marker) {
                let rest = bytes[(start + marker.count)...]
                let digits = rest.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
                guard !digits.isEmpty, digits.count < 10, rest.dropFirst(digits.count).first == UInt8(ascii: "-"),
                      let pid = pid_t(String(decoding: digits, as: UTF8.self)), pid > 0 else { break }
                return pid
            }
        }
        return nil
    }

    /// The PID in a temp name of `output` (`.output.tmp-PID-…`, `..output.tmp-…` for a temp file
    /// of a temp file, `output.scratch-PID-…`), or nil if `entry` is not one.
    static func ownerPID(_ entry: String, output: String) -> pid_t? {
        var rest = Substring(entry)
        while rest.hasPrefix(".") { rest = rest.dropFirst() }
        guard rest.hasPrefix(output) else { return nil }
        rest = rest.dropFirst(output.count)
        guard let marker = markers.first(where: { rest.hasPrefix($0) }) else { return nil }
        rest = rest.dropFirst(marker.count)
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, rest.dropFirst(digits.count).hasPrefix("-"), let pid = pid_t(digits), pid > 0 else { return nil }
        return pid
    }
}
