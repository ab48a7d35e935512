#if canImport(Glibc)
import Glibc
#endif

/// What tells, without reading it, that a file at a path is still the file it was, with the
/// same bytes: the same file (device and inode), size, and modification and change times. A
/// write changes the change time, which no one can set back; a file renamed over the path is
/// another inode.
struct FileIdentity: Equatable, Sendable {
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
}
