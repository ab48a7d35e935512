import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import CLinux
import Dispatch

/// A file opened for reading; the descriptor closes with the object.
public final class ReadableFile {
    public let path: String
    let descriptor: Int32

    public init(path: String) throws {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            let error = errno
            // A link whose target is gone: "No such file" alone sent people looking for the link.
            var info = stat()
            if error == ENOENT, lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK {
                var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
                let count = readlink(path, &target, Int(PATH_MAX))
                let name = count > 0 ? String(decoding: target[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
                throw FieldpackError(path: path, "cannot open: it is a link to \(name), which does not exist")
            }
            errno = error
            throw FieldpackError(path: path, "cannot open: \(systemError())")
        }
        // A folder opens, and its first read fails with EISDIR: say so here, by name.
        var info = stat()
        // (The descriptor closes with the object, in deinit, which runs for a throw here too: a
        // close here as well would close whatever file took the number meanwhile.)
        if fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
            throw FieldpackError(path: path, "is a folder, expected a file")
        }
    }

    /// Standard input, read through a descriptor of its own, and named `path` in errors.
    public init(standardInputNamed path: String) throws {
        self.path = path
        descriptor = dup(STDIN_FILENO)
        if descriptor < 0 { throw FieldpackError(path: path, "cannot read standard input: \(systemError())") }
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Reads up to `buffer.count` bytes; 0 means end of file.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw FieldpackError(path: path, "read failed: \(systemError())")
        }
    }

    /// Reads exactly `count` bytes at `offset` (fewer only at end of file).
    public func read(at offset: Int, count: Int, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var done = 0
        while done < count {
            let got = pread(descriptor, buffer.baseAddress! + done, count - done, off_t(offset + done))
            if got < 0 {
                if errno == EINTR { continue }
                throw FieldpackError(path: path, "read failed: \(systemError())")
            }
            if got == 0 { break }
            done += got
        }
        return done
    }

    /// Opens a records file a stage reads after another wrote it, refusing an empty one: every
    /// input fieldpack-inat read leaves at least its `input` line, so an empty file is never a
    /// run's output (it is a failed or wrong one) and must not become an empty result.
    public static func nonEmpty(_ path: String, writtenBy writer: String) throws -> ReadableFile {
        let file = try ReadableFile(path: path)
        var info = stat()
        if fstat(file.descriptor, &info) == 0 && info.st_size == 0 && (info.st_mode & S_IFMT) == S_IFREG {
            throw FieldpackError(path: path, "is empty: expected the records \(writer) writes (each of its inputs gives at least one line)")
        }
        return file
    }

    /// `contents(of:)` of a regular file, nil for anything else: opening a FIFO would wait for a
    /// writer for ever (what a bundle's checks read is only ever a regular file; the others are
    /// refused by name).
    public static func contents(ofRegular path: String) throws -> [UInt8]? {
        FileSystem.isRegularFile(path) ? try contents(of: path) : nil
    }

    /// The whole file as bytes; for small files (pipeline definitions, reports).
    public static func contents(of path: String) throws -> [UInt8] {
        let file = try ReadableFile(path: path)
        var result = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = try chunk.withUnsafeMutableBytes { try file.read(into: $0) }
            if count == 0 { break }
            result.append(contentsOf: chunk[0..<count])
        }
        return result
    }
}

/// An output published atomically: bytes go to a hidden temp file beside the destination, which
/// is fsynced and renamed over it by `commit()`. Without `commit()` the temp file is removed, so a
/// half-written output is never visible under its real name.
public final class AtomicOutput {
    public let path: String
    /// When true, `commit()` leaves a file already at `path` that holds exactly the new bytes as
    /// it is, its modification time included, and removes the temp file instead: make's
    /// "restat" idiom, so a stage rerun that changes nothing leaves the stages after it up to date.
    public let keepsIdenticalFile: Bool
    /// Set by `commit()` when `keepsIdenticalFile` left the file at `path` as it was.
    public private(set) var keptIdenticalFile = false
    let temporaryPath: String
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    private var committed = false
    private static let flushThreshold = 1 << 20

    public init(path: String, keepsIdenticalFile: Bool = false) throws {
        self.path = path
        self.keepsIdenticalFile = keepsIdenticalFile
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        try FileSystem.makeDirectories(directory)
        try FileSystem.refuseNonRegularOutput(path)
        // What a run killed while writing this output left (its process gone) goes first (the
        // folder is listed once per run, not once per output: see `Leftovers.removeStale(of:)`).
        Leftovers.removeStale(of: path)
        (temporaryPath, descriptor) = try FileSystem.createExclusive(in: directory, prefix: ".\(name).tmp-", for: path)
        buffer.reserveCapacity(Self.flushThreshold + 4096)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if !committed { unlink(temporaryPath) }
        Leftovers.forget(temporaryPath)
    }

    public func write(_ bytes: [UInt8]) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.flushThreshold { try flush() }
    }

    public func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.flushThreshold { try flush() }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        if bytes.count >= Self.flushThreshold {
            // Large blocks go straight to the file, without a copy into the buffer.
            try flush()
            try writeAll(bytes)
            return
        }
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.flushThreshold { try flush() }
    }

    /// Appends another file's bytes (used to join per-file parts in order).
    public func append(contentsOf other: String) throws {
        try flush()
        let source = try ReadableFile(path: other)
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
            if count == 0 { break }
            try chunk.withUnsafeBytes { try writeAll(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
    }

    /// Appends another file's bytes and returns their SHA-256 and count, hashed from the very
    /// bytes written: each 4 MiB read is written on this thread while another thread hashes it,
    /// so the hash no longer follows the copy (the manifest's copy of the database).
    ///
    /// `progress` counts the bytes (and the file, as a record) as they are hashed.
    public func appendHashing(contentsOf other: String, progress: StageProgress? = nil) throws -> (digest: String, bytes: Int) {
        try flush()
        let source = try ReadableFile(path: other)
        let hasher = SHA256()
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 4 << 20, alignment: 64)
        defer { chunk.deallocate() }
        var total = 0
        while true {
            let count = try source.read(into: chunk)
            if count == 0 { break }
            let shared = UncheckedBox((self, hasher, UnsafeRawBufferPointer(rebasing: chunk[0..<count])))
            let results = Results<Void>(count: 2)
            DispatchQueue.concurrentPerform(iterations: 2) { task in
                let (output, hasher, bytes) = shared.value
                results.record(task) { if task == 0 { try output.writeAll(bytes) } else { hasher.update(bytes) } }
            }
            _ = try results.values()
            total += count
            progress?.add(bytes: count)
        }
        progress?.add(records: 1)
        return (hasher.finalizeHex(), total)
    }

    public func flush() throws {
        try buffer.withUnsafeBytes { try writeAll($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        // Named by the output's own name: its temp file's is hidden and gone after the failure.
        try FileSystem.writeAll(bytes, to: descriptor, path: path)
    }

    /// Flushes, fsyncs and renames the temp file over `path`, then fsyncs the directory (or,
    /// with `keepsIdenticalFile`, leaves an identical file as it was: `keptIdenticalFile`).
    ///
    /// - Parameter durable: false skips the fsyncs, for scratch files that never get published.
    public func commit(durable: Bool = true) throws {
        try flush()
        if keepsIdenticalFile, try FileSystem.sameBytes(temporaryPath, path) {
            close(descriptor)
            descriptor = -1
            unlink(temporaryPath)
            committed = true
            keptIdenticalFile = true
            return
        }
        if durable && fsync(descriptor) != 0 {
            throw FieldpackError(path: path, "fsync failed: \(systemError())")
        }
        close(descriptor)
        descriptor = -1
        if durable {
            try FileSystem.rename(temporaryPath, to: path)
        } else if Glibc.rename(temporaryPath, path) != 0 {
            throw FieldpackError(path: path, "cannot rename \(temporaryPath) into place: \(systemError())")
        }
        committed = true
    }

    /// Flushes and fsyncs the temp file, without putting it in place: what can fail in writing
    /// it (a full disk, an I/O error) fails here.
    public func prepare() throws {
        try flush()
        if fsync(descriptor) != 0 { throw FieldpackError(path: path, "fsync failed: \(systemError())") }
    }

    /// Commits a stage's outputs together, as far as files allow: every one is written out
    /// first (`prepare`), so that a full disk or a failing write fails the stage with every
    /// output as it was, and only then is each renamed into place. (Committed one after the
    /// other, a run that failed on the last output had already replaced the others: a new
    /// conflicts report beside the previous records.) A process killed between the renames may
    /// still leave some replaced.
    public static func commitAll(_ outputs: [AtomicOutput]) throws {
        for output in outputs { try output.prepare() }
        for output in outputs { try output.commit() }
    }

    /// Writes a whole small file atomically; returns false when `keepsIdenticalFile` left the
    /// file as it was.
    @discardableResult
    public static func write(_ text: String, to path: String, keepsIdenticalFile: Bool = false) throws -> Bool {
        let output = try AtomicOutput(path: path, keepsIdenticalFile: keepsIdenticalFile)
        try output.write(text)
        try output.commit()
        return !output.keptIdenticalFile
    }
}

/// File-system operations the stages need, with errors that name the path.
public enum FileSystem {
    /// Whether the file at `other` exists and holds exactly the bytes of the file at `path`.
    /// A read error is an error, never a difference.
    public static func sameBytes(_ path: String, _ other: String) throws -> Bool {
        var mine = stat()
        var theirs = stat()
        guard stat(path, &mine) == 0 else { throw FieldpackError(path: path, "cannot stat: \(systemError())") }
        // Not followed: a symbolic link at `other` is replaced by the file, as a rename does.
        guard lstat(other, &theirs) == 0 else {
            if errno == ENOENT { return false }
            throw FieldpackError(path: other, "cannot stat: \(systemError())")
        }
        guard (theirs.st_mode & S_IFMT) == S_IFREG, mine.st_size == theirs.st_size else { return false }
        let first = try ReadableFile(path: path)
        let second = try ReadableFile(path: other)
        let size = 1 << 20
        let a = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        let b = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer {
            a.deallocate()
            b.deallocate()
        }
        var offset = 0
        while true {
            let count = try first.read(at: offset, count: size, into: a)
            let otherCount = try second.read(at: offset, count: size, into: b)
            if count != otherCount { return false }
            if count == 0 { return true }
            if memcmp(a.baseAddress!, b.baseAddress!, count) != 0 { return false }
            offset += count
        }
    }

    /// Copies the bytes of the file at `source` into the existing file `destination` (emptied
    /// first), a MiB at a time. A read error is an error, never the end of the copy.
    static func copyContents(of source: String, into destination: String) throws {
        let input = try ReadableFile(path: source)
        let descriptor = open(destination, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { throw FieldpackError(path: destination, "cannot open for writing: \(systemError())") }
        defer { close(descriptor) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = try input.read(into: buffer)
            if count == 0 { return }
            try writeAll(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), to: descriptor, path: destination)
        }
    }

    /// Writes every byte to an open descriptor, retrying short and interrupted writes; a
    /// failure names `path`.
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, path: String) throws {
        var done = 0
        while done < bytes.count {
            let count = Glibc.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if count < 0 {
                if errno == EINTR { continue }
                throw FieldpackError(path: path, "write failed: \(systemError())")
            }
            done += count
        }
    }

    public static func makeDirectories(_ path: String) throws {
        if path.isEmpty || path == "." || path == "/" { return }
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/\(component)"
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                throw FieldpackError(path: current, "cannot create directory: \(systemError())")
            }
        }
    }

    /// The file's modification time in nanoseconds since the epoch, or nil if it has none.
    public static func modificationTime(_ path: String) -> Int? { FileIdentity(path: path)?.modified }

    /// Sets the file's modification (and access) time, in nanoseconds since the epoch.
    public static func setModificationTime(_ path: String, _ nanoseconds: Int) throws {
        let time = timespec(tv_sec: nanoseconds / 1_000_000_000, tv_nsec: nanoseconds % 1_000_000_000)
        let times = [time, time]
        if utimensat(AT_FDCWD, path, times, 0) != 0 {
            throw FieldpackError(path: path, "cannot set its modification time: \(systemError())")
        }
    }

    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Whether there is anything at `path` itself (a link counts, whatever it points to).
    public static func existsItself(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Whether `path` is itself a directory (a link to one is not).
    public static func isDirectoryItself(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Whether `path` (followed if a link) is a named pipe, a socket or a device: a reader
    /// opening one waits for a writer, or reads without end.
    public static func isSpecialFile(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        let kind = info.st_mode & S_IFMT
        return kind == S_IFIFO || kind == S_IFSOCK || kind == S_IFCHR || kind == S_IFBLK
    }

    public static func size(_ path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : nil
    }

    /// Entries of a directory (not `.`/`..`), sorted by their UTF-8 bytes.
    ///
    /// - Parameter refusingUndecodable: whether a name that is not UTF-8 (a Latin-1 name from an
    ///   old archive) is one the caller reads (given the name decoded, U+FFFD for the bytes
    ///   that are not UTF-8): if so it is an error naming it, byte by byte, since as a Swift
    ///   string its bytes are lost and the file cannot be opened by that name ("No such file").
    public static func list(_ path: String, refusingUndecodable: (String) -> Bool = { _ in false }) throws -> [String] {
        guard let directory = opendir(path) else {
            throw FieldpackError(path: path, "cannot list directory: \(systemError())")
        }
        defer { closedir(directory) }
        var names: [String] = []
        while true {
            // readdir returns NULL at the end and on an error (EIO, ESTALE on NFS): only errno
            // tells them apart, so a folder whose listing breaks is never taken as one with fewer
            // files.
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { throw FieldpackError(path: path, "cannot list directory: \(systemError())") }
                break
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if refusingUndecodable(name) {
                let raw = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
                if String(validating: raw, as: UTF8.self) == nil {
                    let shown = raw.map { $0 < 0x80 && $0 >= 0x20 ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16, uppercase: true) }.joined()
                    throw FieldpackError(
                        path: path,
                        "holds a file whose name is not UTF-8 (\"\(shown)\"), which cannot be opened by its name here: rename it (convmv -f latin1 -t utf8)")
                }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }

    /// Renames and fsyncs the destination's directory so the rename survives a crash.
    public static func rename(_ from: String, to: String) throws {
        if Glibc.rename(from, to) != 0 {
            throw FieldpackError(path: to, "cannot rename \(from) into place: \(systemError())")
        }
        let slash = to.lastIndex(of: "/")
        let directory = slash.map { String(to[..<$0]) } ?? "."
        let fd = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }

    public static func fsyncDirectory(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd < 0 { throw FieldpackError(path: path, "cannot open directory to sync: \(systemError())") }
        defer { close(fd) }
        fsync(fd)
    }

    public static func remove(_ path: String) {
        unlink(path)
    }

    /// Whether `path` is inside `folder` (below it, at any depth), by where their folders really
    /// are (links resolved; of folders not made yet, the nearest that exists): false when
    /// `folder` does not exist.
    public static func isInside(_ path: String, folder: String) -> Bool {
        guard let outer = resolvedPath(folder), let resolved = placeOfFolder(directory(of: path)) else { return false }
        return resolved == outer || resolved.hasPrefix(outer == "/" ? "/" : outer + "/")
    }

    /// Where `folder` is, or will be once a stage makes it: its nearest part that exists with
    /// its links resolved, then the folders not made yet as written (they are no links, so
    /// their `..` is read as written: `new/../../prev`). Nil when no part of it exists.
    static func placeOfFolder(_ folder: String) -> String? {
        var nearest = folder
        var rest: [Substring] = []  // the folders below `nearest` not made yet, outermost first
        while resolvedPath(nearest) == nil {
            let up = directory(of: nearest)
            if up == nearest { return nil }
            rest.insert(Substring(fileName(of: nearest)), at: 0)
            nearest = up
        }
        guard let real = resolvedPath(nearest) else { return nil }
        var inner = real.split(separator: "/")
        for part in rest where part != "." {
            if part == ".." { _ = inner.popLast() } else { inner.append(part) }
        }
        return "/" + inner.joined(separator: "/")
    }

    /// Where `path` really is (links resolved, `realpath`); nil when it does not exist.
    public static func resolvedPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Refuses an output whose name holds a device, a FIFO or a folder: the rename that publishes
    /// it would replace that (as root, `--output /dev/null` replaced the device with a file).
    static func refuseNonRegularOutput(_ path: String) throws {
        // `-` is standard input where an input is named: as an output it made a file named `-`.
        if path == StandardInput.argument {
            throw FieldpackError(path: path, "names standard input or output, and an output is a file: name one (./- for a file named -)")
        }
        if path.hasSuffix("/") {
            throw FieldpackError(path: path, "names a folder (it ends in '/'): an output is a file; name one")
        }
        var info = stat()
        if stat(path, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG {
            throw FieldpackError(
                path: path,
                "is not a regular file (a device, a FIFO or a folder): an output is written to a temp file and renamed over its name, which would replace it; name a file")
        }
    }

    /// Refuses outputs that would replace an input of the same run, or name one file twice: the
    /// rename that publishes an output lost the input for good (`fieldpack-inat a.jsonl --output
    /// a.jsonl`), and of two outputs under one name only the last was kept, silently. Names are
    /// compared as directory entries (the folder by its identity, however the path writes it,
    /// and the file name): an output that is a link to an input replaces only the link. Asked
    /// before a stage reads or writes anything.
    ///
    /// Each output `refuseNonRegularOutput` refuses is refused here too, so a run never gets as
    /// far as publishing its first outputs before it refuses a later one.
    ///
    /// An output inside one of `folders` (a folder the run reads: a sharded ingest's parts, a
    /// folder of wiki parts, the timings) is refused too, by where the folders really are: one
    /// look per output, not one per file in them (a million part files at 1000 shards).
    public static func refuseOutputs(_ outputs: [String?], overwriting inputs: [String], insideFolders folders: [String] = []) throws {
        for output in outputs.compactMap({ $0 }) {
            if let folder = folders.first(where: { isDirectory($0) && isInside(output, folder: $0) }) {
                throw FieldpackError(path: output, "is inside \(folder), which this run reads: the output could replace one of its files; name another output")
            }
        }
        func entry(_ path: String) -> [String] {
            let name = fileName(of: path)
            let folder = directory(of: path)
            if let identity = FileIdentity(path: folder) { return [String(identity.device), String(identity.inode), name] }
            // A folder not made yet: where it will be (`new/../a.json` is `./a.json`, which an
            // output so named replaced, its input included), by that folder's identity if it is
            // there; by its path if it is not (no input can be in it).
            guard let place = placeOfFolder(folder) else { return [folder, name] }
            return FileIdentity(path: place).map { [String($0.device), String($0.inode), name] } ?? [place, name]
        }
        // An input's entry as written and the one its links resolve to: an output named like the
        // file a linked input points at replaced the input's data (`link.jsonl → real.jsonl`,
        // `--output real.jsonl`).
        var inputEntries = Set<[String]>()
        for input in inputs where FileSystem.exists(input) {
            inputEntries.insert(entry(input))
            if let resolved = resolvedPath(input) { inputEntries.insert(entry(resolved)) }
        }
        var seen: [[String]: String] = [:]
        for output in outputs.compactMap({ $0 }) {
            try refuseNonRegularOutput(output)
            let place = entry(output)
            if inputEntries.contains(place) {
                throw FieldpackError(path: output, "is also an input of this run: the output would replace it; name another output")
            }
            if let other = seen[place] {
                throw FieldpackError(path: output, "is named by two outputs of this run (\(other) and \(output)): name each its own file")
            }
            seen[place] = output
        }
    }

    /// The 1-based line holding byte `offset` of the file at `path` (newlines before it, plus
    /// one); nil when the file cannot be read that far. For error messages: it reads the file.
    static func lineNumber(ofByte offset: Int, in path: String) -> Int? {
        guard let file = try? ReadableFile(path: path) else { return nil }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var position = 0
        var line = 1
        while position < offset {
            let count = (try? buffer.withUnsafeMutableBytes { try file.read(at: position, count: min($0.count, offset - position), into: $0) }) ?? 0
            guard count > 0 else { return nil }
            line += buffer.withUnsafeBytes { chunk in
                var lines = LineLocator(UnsafeRawBufferPointer(rebasing: chunk[..<count]))
                return lines.line(of: count) - 1
            }
            position += count
        }
        return line
    }

    /// Whether `path` is a regular file, or a link to one.
    public static func isRegularFileFollowingLinks(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Whether `path` is itself a regular file (a link to one is not).
    public static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Removes a directory tree (scratch, staging and retired folders). A symbolic link inside
    /// it is removed as a link: what it points at is never entered or touched.
    public static func removeTree(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            for name in (try? list(path)) ?? [] { removeTree("\(path)/\(name)") }
            rmdir(path)
        } else {
            unlink(path)
        }
    }

    /// Creates a new file `<directory>/<prefix><pid>@<host>-<random>` that did not exist before
    /// (`O_EXCL`, `O_NOFOLLOW`): a file or link planted at a predictable name is never written
    /// through. The process id and host stay in the name, so a leftover says whose it was.
    /// `output`, given, is the file the temp file stands for: an error that only its long name
    /// causes names it, not the hidden temp file.
    static func createExclusive(
        in directory: String, prefix: String, readable: Bool = false, for output: String? = nil
    ) throws -> (path: String, descriptor: Int32) {
        let made = try Leftovers.creating {
            var generator = SystemRandomNumberGenerator()
            for _ in 0..<100 {
                let suffix = String(generator.next() & 0xFFFF_FFFF, radix: 36)
                let path = "\(directory)/\(prefix)\(Leftovers.ownerTag())-\(suffix)"
                let access = readable ? O_RDWR : O_WRONLY
                let descriptor = open(path, access | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
                if descriptor >= 0 { return (path, descriptor) }
                let temp = path.split(separator: "/").last.map(String.init) ?? path
                // The temp file's own name past the limit (not the whole path past PATH_MAX).
                if errno == ENAMETOOLONG, let output, temp.utf8.count > Self.longestName(in: directory) {
                    let name = output.split(separator: "/").last.map(String.init) ?? output
                    throw FieldpackError(
                        path: output,
                        "its name is \(name.utf8.count) bytes: the temp file written beside it first adds \(temp.utf8.count - name.utf8.count), past the file system's limit on a name (\(systemError())); give a shorter name")
                }
                if errno != EEXIST {
                    // The output it is for, not its hidden temp file (a name the user never gave).
                    if let output { throw FieldpackError(path: output, "cannot write it: its temp file cannot be created in \(directory) (\(systemError()))") }
                    throw FieldpackError(path: directory, "cannot create a scratch file in this folder: \(systemError())")
                }
            }
            throw FieldpackError(path: "\(directory)/\(prefix)\(Leftovers.ownerTag())-*", "cannot create: every name tried exists")
        }
        return (made.path, made.value)
    }

    /// The longest file name the file system of `directory` takes (eCryptfs takes 143 bytes).
    static func longestName(in directory: String) -> Int {
        let limit = pathconf(directory, Int32(_PC_NAME_MAX))
        return limit > 0 ? limit : Int(NAME_MAX)
    }

    /// `createExclusive`, closed: an empty file for a library that opens the path itself.
    static func createEmptyExclusive(in directory: String, prefix: String, for output: String? = nil) throws -> String {
        let (path, descriptor) = try createExclusive(in: directory, prefix: prefix, for: output)
        close(descriptor)
        return path
    }

    /// Creates a new, empty folder `<parent>/<prefix><pid>@<host>-XXXXXX` (mkdtemp: never an existing
    /// folder or link).
    public static func makeUniqueDirectory(in parent: String, prefix: String) throws -> String {
        try makeDirectories(parent)
        return try Leftovers.creating {
            var template = Array("\(parent)/\(prefix)\(Leftovers.ownerTag())-XXXXXX".utf8CString)
            guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
                throw FieldpackError(path: "\(parent)/\(prefix)\(Leftovers.ownerTag())-XXXXXX", "cannot create directory: \(systemError())")
            }
            return (String(cString: made), ())
        }.path
    }

    /// Puts `from` at `to` in one step, whether or not `to` exists: an existing `to` is swapped
    /// out (renameat2 RENAME_EXCHANGE) and left at `from`, so `to` is never absent. Returns
    /// whether something was swapped out (and so now sits at `from`). The parent is fsynced.
    ///
    /// On a file system without renameat2's flags (EINVAL, ENOSYS: some NFS and FUSE mounts)
    /// it falls back to three renames, and `to` is briefly absent.
    public static func exchange(_ from: String, into to: String) throws -> Bool {
        while true {
            if fp_rename_exchange(from, to) == 0 {
                try fsyncParent(of: to)
                return true
            }
            if errno == EINVAL || errno == ENOSYS { return try exchangeByRenames(from, into: to) }
            guard errno == ENOENT, exists(from) else {
                throw FieldpackError(path: to, "cannot swap \(from) into place: \(systemError())")
            }
            // Nothing at `to` yet: a rename that refuses to replace, in case another run
            // published meanwhile (then swap with that).
            if fp_rename_noreplace(from, to) == 0 {
                try fsyncParent(of: to)
                return false
            }
            guard errno == EEXIST else {
                throw FieldpackError(path: to, "cannot rename \(from) into place: \(systemError())")
            }
        }
    }

    /// `exchange` where the file system has no atomic swap: `to` aside, `from` in, the old one
    /// to `from`. When `from` cannot be put in, the old one goes back; after a crash between the
    /// two, the next run writing `to` puts it back (`Leftovers.removeStale`, by `parkedSuffix`).
    private static func exchangeByRenames(_ from: String, into to: String) throws -> Bool {
        var info = stat()
        let had = lstat(to, &info) == 0
        let aside = from + Leftovers.parkedSuffix
        if had { try rename(to, to: aside) }
        do {
            try rename(from, to: to)
        } catch {
            if had && lstat(to, &info) != 0 { try? rename(aside, to: to) }
            throw error
        }
        if had { try rename(aside, to: from) }
        return had
    }

    private static func fsyncParent(of path: String) throws {
        try fsyncDirectory(directory(of: path))
    }

    /// fsyncs a file that another library wrote (SQLite's `VACUUM INTO` does not sync).
    public static func fsyncFile(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw FieldpackError(path: path, "cannot open to sync: \(systemError())") }
        defer { close(fd) }
        if fsync(fd) != 0 { throw FieldpackError(path: path, "fsync failed: \(systemError())") }
    }

    /// glob's error callback is a C function, which captures nothing: it leaves the folder it
    /// could not read here, for the caller holding `globbing`.
    nonisolated(unsafe) private static var globFailure: (path: String, code: Int32)? = nil
    private static let globbing = Mutex<Void>(())

    /// Expands a shell glob pattern, sorted; no match gives no paths.
    ///
    /// - Throws: naming the folder it could not read (`EACCES`, `EIO`) and the pipeline: one
    ///   skipped in silence left its dumps out of the build, where a walked folder's read error
    ///   fails it. A matched name that is not a folder, or a link to nothing, is no error.
    public static func glob(_ pattern: String, pipelinePath: String, place: String = "") throws -> [String] {
        var result = glob_t()
        defer { globfree(&result) }
        let (status, failure) = globbing.withLock { _ in
            FileSystem.globFailure = nil
            let status = Glibc.glob(pattern, 0, { path, code in
                guard code != ENOENT && code != ENOTDIR else { return 0 }
                FileSystem.globFailure = (path.map { String(cString: $0) } ?? "?", code)
                return 1
            }, &result)
            return (status, FileSystem.globFailure)
        }
        if status == GLOB_ABORTED {
            let (folder, code) = failure ?? (pattern, errno)
            throw FieldpackError(
                path: pipelinePath, "\(place)\"\(pattern)\": cannot read the folder \"\(folder)\": \(String(cString: strerror(code)))")
        }
        if status == GLOB_NOSPACE { throw FieldpackError(path: pipelinePath, "\(place)\"\(pattern)\": out of memory expanding the pattern") }
        guard status == 0 else { return [] }
        var paths: [String] = []
        for index in 0..<Int(result.gl_pathc) {
            if let path = result.gl_pathv[index] { paths.append(String(cString: path)) }
        }
        return paths.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }
}
