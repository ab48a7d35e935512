import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The temp files and folders a run makes beside its outputs (`.NAME.tmp-PID@HOST-…` and what
/// is derived from it, `NAME.scratch-PID@HOST-…` and `NAME.migrating-PID@HOST-…` with their
/// journals, `.NAME.staging-PID@HOST-…`): removed when
/// SIGTERM or SIGINT stops the run, and, when a run was killed harder than that (`kill -9`, a
/// crash, a power cut), by the next run on the same host that writes the same output.
public enum Leftovers {
    /// This process's temp paths that may still exist.
    private static let live = Mutex<Set<String>>([])
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    /// The kinds of temp name, after the output's name (each followed by `PID@HOST-`).
    static let markers = [".tmp-", ".scratch-", ".staging-", ".migrating-"]

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

    /// Runs `body` with the signal handler held off: a step that must not overlap the removal of
    /// this process's temp paths, such as swapping a staged folder into place (the handler,
    /// removing the staging folder file by file while it was swapped in, published what was left
    /// of it). A signal during `body` is handled after it; one already being handled ends the
    /// process before `body` starts.
    static func holdingOffRemoval(_ body: () throws -> Bool) throws -> Bool {
        try live.withLock { _ in try body() }
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
    /// of fieldpack's own pattern for that output, and only those of a dead run (see `isDead`; a
    /// live run's, another host's, or this run's are never touched). Links are removed as links.
    ///
    /// The folder is listed once per process (the first output there): a dead run makes no new
    /// temp files, so what it left is known from that one listing.
    public static func removeStale(of output: String) {
        let folder = directory(of: output)
        let name = output.split(separator: "/").last.map(String.init) ?? output
        guard !name.isEmpty else { return }
        let stale: [String] = deadByFolder.withLock { cache in
            if cache[folder] == nil {
                let entries = (try? FileSystem.list(folder)) ?? []
                cache[folder] = entries.filter { entry in owner(entry).map(isDead) ?? false }
            }
            let mine = cache[folder]!.filter { owner($0, output: name) != nil }
            cache[folder]!.removeAll { mine.contains($0) }
            return mine
        }
        for entry in stale {
            // A published output a killed run had set aside to swap its new one in
            // (`FileSystem.exchange` without an atomic swap), with nothing in its place: put
            // back, never removed.
            if entry.hasSuffix(parkedSuffix) && !FileSystem.existsItself(output),
               (try? FileSystem.rename(folder + "/" + entry, to: output)) != nil {
                continue
            }
            FileSystem.removeTree(folder + "/" + entry)
        }
    }

    /// What a published output set aside during a swap by renames is named by, after the temp
    /// name of the folder swapped in (`FileSystem.exchange`).
    static let parkedSuffix = ".swapped-out"

    /// Per folder, the temp names of dead runs its one listing found and not yet removed.
    private static let deadByFolder = Mutex<[String: [String]]>([:])

    /// Removes every temp file or folder of fieldpack's pattern in `folder` of a dead run,
    /// whatever output it was for: for a folder of many small outputs (the run's timings)
    /// where a rerun may not write again the one a killed run was writing.
    public static func removeStale(inFolder folder: String) {
        guard let entries = try? FileSystem.list(folder) else { return }
        for entry in entries where entry.hasPrefix(".") {
            guard let writer = owner(entry), isDead(writer) else { continue }
            FileSystem.removeTree(folder + "/" + entry)
        }
    }

    /// The writer a temp name names: its process and the host it ran on.
    struct Owner: Equatable {
        var pid: pid_t
        var host: Substring
    }

    /// This machine's name as temp names carry it: `gethostname`, with every byte other than an
    /// ASCII letter, digit or `.` made `_` (so a name reads back unambiguously up to its `-`),
    /// at most 64 bytes.
    public static let host: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        let name = gethostname(&buffer, buffer.count - 1) == 0 ? String(cString: buffer) : ""
        let kept = name.utf8.prefix(64).map { byte -> Character in
            let ascii = Character(Unicode.Scalar(byte))
            return byte < 0x80 && (ascii.isLetter || ascii.isNumber || ascii == ".") ? ascii : "_"
        }
        return kept.isEmpty ? "_" : String(kept)
    }()

    /// What a temp name carries of its writer, after its marker: `PID@HOST`. A temp file on a
    /// shared folder (a cluster's build folder) says which machine's process made it.
    public static func ownerTag(pid: pid_t = getpid()) -> String { "\(pid)@\(host)" }

    /// Whether a temp file's writer is gone for certain: made on this host by a process that is
    /// not running (and is not this one). Another host's PIDs cannot be checked from here, so
    /// its temp files are never taken as dead; nor are names without a host (older versions').
    static func isDead(_ owner: Owner) -> Bool {
        owner.host == host && owner.pid != getpid() && !isRunning(owner.pid)
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

    /// The writer in a temp name of any output (`.NAME.tmp-PID@HOST-…`), or nil if `entry` is
    /// not one.
    static func owner(_ entry: String) -> Owner? {
        let bytes = Array(entry.utf8)
        for marker in markers.map({ Array($0.utf8) }) where bytes.count > marker.count {
            // The last occurrence: an output's own name may hold a marker-like part.
            for start in stride(from: bytes.count - marker.count, through: 1, by: -1)
            where bytes[start..<start + marker.count].elementsEqual(marker) {
                let after = entry.utf8.index(entry.utf8.startIndex, offsetBy: start + marker.count)
                if let found = owner(after: entry[after...]) { return found }
                break
            }
        }
        return nil
    }

    /// The writer in a temp name of `output` (`.output.tmp-PID@HOST-…`, `..output.tmp-…` for a
    /// temp file of a temp file, `output.scratch-PID@HOST-…`), or nil if `entry` is not one.
    static func owner(_ entry: String, output: String) -> Owner? {
        var rest = Substring(entry)
        while rest.hasPrefix(".") { rest = rest.dropFirst() }
        guard rest.hasPrefix(output) else { return nil }
        rest = rest.dropFirst(output.count)
        guard let marker = markers.first(where: { rest.hasPrefix($0) }) else { return nil }
        return owner(after: rest.dropFirst(marker.count))
    }

    /// `PID@HOST-` at the start of `text` (what follows a marker), as an owner.
    private static func owner(after text: Substring) -> Owner? {
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count < 10, let pid = pid_t(digits), pid > 0 else { return nil }
        var rest = text.dropFirst(digits.count)
        guard rest.hasPrefix("@") else { return nil }
        rest = rest.dropFirst()
        let host = rest.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "_") }
        guard !host.isEmpty, rest.dropFirst(host.count).hasPrefix("-") else { return nil }
        return Owner(pid: pid, host: host)
    }
}
