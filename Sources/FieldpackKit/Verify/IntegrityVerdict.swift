import Dispatch

/// `PRAGMA integrity_check` of the database a bundle is being copied from, run while it is
/// copied (`BundlePublisher.checksIntegrityWhileCopying`), so that the check of the staged copy
/// takes its answer instead of running it again on the same bytes after the copy. On the
/// benchmark's 986 MB bundle the integrity check takes about 4.5 s, and fieldpack-manifest took
/// 5.39–6.56 s before, 4.87–5.33 s after (by hand, four interleaved pairs).
///
/// The answer stands for the copy only when the copy is those bytes:
/// - the copy's SHA-256 (`copyEnded(sha256:)`), computed from the bytes the copy read, is the
///   one the staged manifest lists for its database (`BundleVerifier` takes the verdict only
///   then), and the check of the staged folder hashes the staged database again and keeps the
///   database's checks only when it matches;
/// - the file the check read is the file the copy read, unchanged (`stands`): the same
///   `FileIdentity` before either began, after the check ended and after the copy ended, and
///   settled before they began (a file written in the clock's last tick could be written again
///   without its times moving).
/// Otherwise (a file written to or replaced meanwhile, or too lately; a check that could not
/// run) `lines()` is nil, and the staged copy is checked itself.
///
/// Only the full depth's `integrity_check`: the app's `quick_check` is run on the copy as the
/// app runs it.
public final class IntegrityVerdict: @unchecked Sendable {
    /// The database checked.
    public let path: String
    /// The file's identity before the check and the copy began; nil when it had not settled.
    private let before: FileIdentity?
    // The state below, under `lock`; the check's worker broadcasts when it ends.
    private let lock = ConditionLock()
    private var finished = false
    /// The check's lines and the file's identity after it; nil when the check could not run.
    private var checked: (lines: [String], after: FileIdentity?)? = nil
    /// The file's identity once the copy had read it all, and the SHA-256 of what it read
    /// (`copyEnded`).
    private var copied: (identity: FileIdentity?, sha256: String)? = nil

    /// Starts the check of the database at `path`, on a worker of Dispatch's global queue (it
    /// waits on nothing, so whoever waits for it is only delayed); not for a file that has not
    /// settled, whose verdict could not stand (the copy is then checked itself, once).
    public init(checking path: String) {
        self.path = path
        before = FileIdentity(path: path).flatMap { $0.isSettled ? $0 : nil }
        guard before != nil else {
            finished = true
            return
        }
        DispatchQueue.global().async { [self] in
            let lines = try? DatabaseChecks.integrityLines(path: path, depth: .full)
            let after = FileIdentity(path: path)
            lock.withLock {
                checked = lines.map { ($0, after) }
                finished = true
                lock.broadcast()
            }
        }
    }

    /// Says that the copy has read the whole file, whose bytes' SHA-256 was `sha256` (the
    /// publisher calls it when the copy ends).
    public func copyEnded(sha256: String) {
        let identity = FileIdentity(path: path)
        lock.withLock { copied = (identity, sha256) }
    }

    /// The SHA-256 of the bytes the copy read, once it ended.
    var copiedSHA256: String? { lock.withLock { copied?.sha256 } }

    /// Waits for the check to end.
    public func wait() {
        lock.withLock { while !finished { lock.wait() } }
    }

    /// Waits for the check; its lines (`["ok"]` for a sound file) when they stand for the
    /// copy's bytes, else nil.
    func lines() -> [String]? {
        lock.withLock {
            while !finished { lock.wait() }
            guard let checked, Self.stands(before: before, checkEnded: checked.after, copyEnded: copied?.identity) else { return nil }
            return checked.lines
        }
    }

    /// Whether the check and the copy read the same bytes: the file (settled, `before`) is the
    /// same file with the same size and times after each of them.
    static func stands(before: FileIdentity?, checkEnded: FileIdentity?, copyEnded: FileIdentity?) -> Bool {
        guard let before else { return false }
        return checkEnded == before && copyEnded == before
    }
}
