import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What a stage's inputs were when it read them, kept in its depfile, and the check make runs
/// before it decides anything (`fieldpack-pipeline changed-inputs`).
///
/// make compares modification times alone, and a dump put in an input's place with an older time
/// is taken as read already: `cp -p` or `rsync -a --inplace` of a new monthly dump (its time the
/// day it was published, before the last build), or a link such as `current -> 2024-11/` turned
/// to `2024-12/`, whose files are older than the last build. make said "Nothing to be done" and
/// the last guide was shipped again. So each input's identity as the stage found it (its size,
/// modification and change times, following links as make does) is written into the depfile as
/// comments, and a target whose inputs are no longer those files is made again. The change time
/// is the kernel's and no one can set it back: another file put in the place, or the file
/// rewritten, has another. Not the inode nor the device number, which are not the same from
/// node to node or from mount to mount on some network file systems (FUSE mounts such as sshfs,
/// CIFS without server inode numbers), where Slurm's tasks and a login node's make read them.
///
/// A stage writes its depfile before it runs with identities that match no file (`pending`), so
/// that a run that fails or is killed is run again whatever its inputs' times say, and again
/// once its outputs are in place with the identities taken before it read anything.
extension Depfile {
    /// The inputs' identities, taken before the stage reads them: a file changed while it read
    /// it is then told as changed at the next make.
    public struct Identities: Sendable {
        fileprivate let byPath: [String: String]
        /// Whether these are the identities no file has, of a stage that has not ended.
        let isPending: Bool

        /// The identities of `paths` now, or as they were when the stage first read them (a
        /// pipeline's settings files, read as it is loaded: `noteReading`).
        ///
        /// - Parameter walked: the folders among them that were walked for inputs, whose notes
        ///   and hidden files are not read (the others, a glob's, are kept by all their names).
        public static func take(_ paths: [String], walked: Set<String> = []) -> Identities {
            let read = Depfile.read.withLock { $0 }
            var byPath = [String: String]()
            for path in paths where byPath[path] == nil { byPath[path] = read[path] ?? Depfile.identity(path, walked: walked.contains(path)) }
            return Identities(byPath: byPath, isPending: false)
        }

        /// Identities that match no file: what a depfile says while its stage runs.
        public static let pending = Identities(byPath: [:], isPending: true)
    }

    /// What a stage read of a file that it names by that alone (`write(…keyed:)`): the reader
    /// (`kind`, a word) and the digest of what it read, which `changedTargets` asks again of the
    /// file as it is now. Its line: `#@\tkeys\t<kind>\t<digest>\t<path>`.
    public struct Keyed: Sendable, Equatable {
        public var kind: String
        public var digest: String

        public init(kind: String, digest: String) {
            self.kind = kind
            self.digest = digest
        }
    }

    /// How a keyed identity starts.
    static let keyedMark = "keys\t"

    /// Notes the identity of a file about to be read whose identity a depfile will give (a
    /// pipeline's GeoJSON and measured sizes files, read before the stage takes the rest): the
    /// first reading's, whatever happens to the file after it.
    public static func noteReading(_ path: String) {
        let identity = identity(path)
        read.withLock { if $0[path] == nil { $0[path] = identity } }
    }

    private static let read = Mutex<[String: String]>([:])

    /// How a line of identity starts, after which come the size, modification and change times
    /// (nanoseconds), or a folder's listing, and the path, separated by tabs (a path never holds
    /// one: `check`).
    static let identityMark = "#@\t"

    /// What a pending identity says: no file's.
    static let pendingIdentity = "?\t?\t?"

    /// A path's identity as a depfile keeps it: a file's size and times; a folder's listing
    /// (`walked` or `folder`, the number of names and their digest); `-` fields for one that
    /// cannot be looked at.
    static func identity(_ path: String, walked: Bool = false) -> String {
        if FileSystem.isDirectory(path) { return listing(path, walked: walked) ?? "unlisted\t-\t-" }
        guard let file = FileIdentity(path: path) else { return "-\t-\t-" }
        return "\(file.size)\t\(file.modified)\t\(file.changed)"
    }

    /// A folder's identity: its names that are not hidden, each marked a file or a folder,
    /// counted and digested in byte order; of a folder `walked` for inputs, only those a walk
    /// reads or enters (`WalkedNames`: not a note either). Not its times, which move when a
    /// note or a hidden file (an editor's, a sync's temporary file) is added beside the dumps
    /// and reran every stage; a dump added, removed or renamed there changes it, and so does a
    /// file that becomes a folder (a glob's `dumps/*/page.json` then matches in it). A glob's
    /// folder keeps every name, its notes too: `dumps/*.txt` reads them. Nil when it cannot be
    /// listed (told as changed).
    private static func listing(_ path: String, walked: Bool) -> String? {
        guard let directory = opendir(path) else { return nil }
        defer { closedir(directory) }
        var read: [String] = []
        while true {
            // NULL at the end and on an error (EIO, ESTALE on NFS): only errno tells them apart,
            // and a listing cut short is no listing (told as changed).
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { return nil }
                break
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard !name.hasPrefix(".") else { continue }
            // The entry's type as the listing gives it; a link, or a file system that does not
            // say (DT_UNKNOWN), looked at (a link to a folder is a folder, as the walk takes it).
            let type = entry.pointee.d_type
            let isFolder = type == UInt8(DT_DIR)
                || ((type == UInt8(DT_LNK) || type == UInt8(DT_UNKNOWN)) && FileSystem.isDirectory(path.hasSuffix("/") ? path + name : "\(path)/\(name)"))
            if !walked || isFolder || WalkedNames.isRead(name) { read.append(isFolder ? name + "/" : name) }
        }
        read.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let digest = SHA256()
        for name in read { digest.update(Array(name.utf8) + [0x0A]) }
        return "\(walked ? "walked" : "folder")\t\(read.count)\t\(digest.finalizeHex())"
    }

    /// The lines of identity for `prerequisites`: as `taken` says, or now.
    static func identityLines(_ prerequisites: [String], taken: Identities?) -> String {
        var text = "# The inputs as they were read (a file's size, modified and changed in ns; a folder's names; what was read of a keyed file), for fieldpack-pipeline changed-inputs:\n"
        for path in prerequisites {
            let kept = taken.map { $0.isPending ? pendingIdentity : $0.byPath[path] ?? identity(path) } ?? identity(path)
            text += "\(identityMark)\(kept)\t\(path)\n"
        }
        return text
    }

    /// The lines of the keyed files (`Keyed`), pending while the stage runs.
    static func keyedLines(_ keyed: [(path: String, read: Keyed)], pending: Bool) -> String {
        keyed.map { "\(identityMark)\(pending ? pendingIdentity : "\(keyedMark)\($0.read.kind)\t\($0.read.digest)")\t\($0.path)\n" }.joined()
    }

    /// The depfiles of a pipeline's build folder: `*.d` in it and in its folders two deep (a
    /// stage's, a shard's), hidden names left out, in byte order. Listed by the tool, not named
    /// by make, whose one command line could not hold a thousand shards' depfiles (Linux takes
    /// 128 KiB an argument); read with `readdir` alone, no string made for the other names (an
    /// ingest shard's folder holds a part per shard: a million names at 1,000 shards).
    ///
    /// - Parameter shards: the build's shard count (nil: not sharded): the folders of another
    ///   count's shards (`shard-I-of-M`, left by an earlier build) are passed over, whose
    ///   depfiles each name every input and no target of this build.
    public static func depfiles(under folder: String, shards: Int? = nil) -> [String] {
        var found: [String] = []
        func walk(_ path: String, depth: Int) {
            guard let directory = opendir(path) else { return }
            defer { closedir(directory) }
            while let entry = readdir(directory) {
                let type = entry.pointee.d_type
                let isFolder = type == UInt8(DT_DIR) || type == UInt8(DT_UNKNOWN)
                let name: String? = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    let length = raw.firstIndex(of: 0) ?? raw.count
                    guard length > 0, raw[0] != UInt8(ascii: ".") else { return nil }
                    let isDepfile = length > 2 && raw[length - 2] == UInt8(ascii: ".") && raw[length - 1] == UInt8(ascii: "d")
                    return isDepfile || (isFolder && depth < 2) ? String(decoding: raw[0..<length], as: UTF8.self) : nil
                }
                guard let name else { continue }
                let child = "\(path)/\(name)"
                let parts = name.split(separator: "-", omittingEmptySubsequences: false)
                if isFolder, parts.count == 4, parts[0] == "shard", parts[2] == "of", Int(parts[3]) != shards { continue }
                if depth < 2 && isFolder && FileSystem.isDirectoryItself(child) {
                    walk(child, depth: depth + 1)
                } else if name.hasSuffix(".d") && FileSystem.isRegularFile(child) {
                    found.append(child)
                }
            }
        }
        walk(folder, depth: 0)
        return found.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The targets, as make spells them in a rule, of those `depfiles` that name an input that
    /// is no longer the file the stage read (another size or time), or whose stage has not ended
    /// (`Identities.pending`). A depfile that is not there, or was written without identities,
    /// names none (make's own rules stand).
    ///
    /// Read as bytes, each path looked at once however many depfiles name it: every make runs
    /// it, and a sharded build's depfiles each name every input (64 depfiles of 5,051 inputs
    /// each, by hand: 2.8 s split into strings, 0.21 s so).
    ///
    /// - Parameter keyed: the digest of what a reader of that kind reads of a keyed file now
    ///   (`Keyed`; nil: it cannot be read, told as changed), asked once per file and kind.
    public static func changedTargets(_ depfiles: [String], keyed: (_ path: String, _ kind: String) -> String? = { _, _ in nil }) -> [String] {
        let keyedMark = Array(Self.keyedMark.utf8)
        let mark = Array(identityMark.utf8)
        var now = [String: [UInt8]]()
        var targets = [String]()
        for depfile in depfiles {
            guard let bytes = try? ReadableFile.contents(ofRegular: depfile) else { continue }
            // The rule's first line: the target, its colon and, with prerequisites, " \\".
            var first = bytes.prefix { $0 != 0x0A }
            if first.count >= 2 && first.suffix(2).elementsEqual(" \\".utf8) { first.removeLast(2) }
            guard first.last == UInt8(ascii: ":") else { continue }
            let target = String(decoding: first.dropLast(), as: UTF8.self)
            var changed = false
            var start = first.endIndex
            while start < bytes.endIndex && !changed {
                let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.endIndex
                defer { start = end + 1 }
                let line = bytes[start..<end]
                guard line.starts(with: mark) else { continue }
                // The size and times, then the path (which may hold no tab).
                var tabs = 0
                guard let pathStart = line.dropFirst(mark.count).firstIndex(where: {
                    if $0 == 0x09 { tabs += 1 }
                    return tabs == 3
                }) else { continue }
                let path = String(decoding: line[(pathStart + 1)...], as: UTF8.self)
                let kept = line[(line.startIndex + mark.count)..<pathStart]
                // A walked folder is looked at as it was kept (the kind its identity names); a
                // keyed file by what its reader reads of it.
                let walked = kept.starts(with: "walked\t".utf8)
                let readBy: String? = kept.starts(with: keyedMark)
                    ? kept.dropFirst(keyedMark.count).split(separator: 0x09, maxSplits: 1).first.map { String(decoding: $0, as: UTF8.self) }
                    : nil
                let key = readBy.map { Self.keyedMark + $0 + "\t" + path } ?? (walked ? "walked\t" + path : path)
                let current: [UInt8]
                if let known = now[key] {
                    current = known
                } else {
                    if let readBy {
                        current = Array("\(Self.keyedMark)\(readBy)\t\(keyed(path, readBy) ?? "-")".utf8)
                    } else {
                        current = Array(identity(path, walked: walked).utf8)
                    }
                    now[key] = current
                }
                changed = !kept.elementsEqual(current)
            }
            if changed { targets.append(target) }
        }
        return targets
    }
}
