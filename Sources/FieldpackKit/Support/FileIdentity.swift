#if canImport(Glibc)
import Glibc
#endif

/// What tells, without reading it, that a file at a path is still the file it was, with the
/// same bytes: the same file (device and inode), size, and modification and change times. A
/// write moves the change time, which no one can set back, to the file system's clock; a file
/// renamed over the path is another inode. The clock moves in ticks (a few milliseconds, a
/// second or two on some file systems): a write in the tick of the last one leaves the times
/// as they were, so a file changed that recently is not yet known by them (`isSettled`).
struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let modified: Int
    let changed: Int

    /// The identity of the file at `path` now; nil when it cannot be looked at.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec)
        changed = Int(info.st_ctim.tv_sec) * 1_000_000_000 + Int(info.st_ctim.tv_nsec)
    }

    init(device: UInt64, inode: UInt64, size: Int64, modified: Int, changed: Int) {
        (self.device, self.inode, self.size, self.modified, self.changed) = (device, inode, size, modified, changed)
    }

    /// Whether the file's last change is far enough in the past (by the clock now) that any
    /// later write moves its change time: more than 100 ms (a kernel's coarse clock ticks every
    /// 1 to 10 ms), or 2 s on a file system that keeps whole seconds (its times have no
    /// nanoseconds).
    var isSettled: Bool {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let margin = changed % 1_000_000_000 == 0 ? 2_000_000_000 : Self.settling
        return Int(now.tv_sec) * 1_000_000_000 + Int(now.tv_nsec) - changed > margin
    }

    /// How long ago a file must have last changed to be settled (`isSettled`), in nanoseconds.
    static let settling = 100_000_000

    /// The identity of the file at `path` once it has settled (`isSettled`): a file changed too
    /// lately is waited for, the rest of the margin (at most 100 ms, or 2 s on a file system of
    /// whole seconds), up to three times; then its identity as it is (a change time ahead of
    /// this clock, as on a file server whose clock runs ahead, never settles, and a file that
    /// keeps changing is told by the later comparison). Nil only when it cannot be looked at.
    static func settled(path: String) -> FileIdentity? {
        for _ in 0..<3 {
            guard let identity = FileIdentity(path: path) else { return nil }
            if identity.isSettled { return identity }
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let margin = identity.changed % 1_000_000_000 == 0 ? 2_000_000_000 : settling
            let left = identity.changed + margin - (Int(now.tv_sec) * 1_000_000_000 + Int(now.tv_nsec))
            if left > 0 { usleep(useconds_t(min(left / 1000 + 1000, 2_001_000))) }
        }
        return FileIdentity(path: path)
    }
}
