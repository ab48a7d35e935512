#if canImport(Glibc)
import Glibc
#endif

/// Assembles a bundle folder (database + manifest) in a hidden staging folder beside the
/// destination and swaps it in, so the destination never holds a database with a stale or
/// half-written manifest.
public struct BundlePublisher {
    public var database: String
    public var destination: String
    /// Other files published beside the database (reports), listed in the manifest like it.
    public var extraFiles: [String]
    /// Signs manifest.json (`manifest.json.sig`) when set.
    public var signingKey: Ed25519Key? = nil
    /// Publishes a BagIt bag (RFC 8493) instead of the flat folder the app downloads.
    public var bagIt = false
    /// The bundle stage's `inputs.json`, listed in the manifest.
    public var inputs: String? = nil
    /// Files and bytes hashed, for the progress line.
    public var progress = StageProgress.silent("manifest")

    public init(database: String, destination: String, extraFiles: [String] = []) {
        self.database = database
        // `bundle/` is the folder `bundle`: with the slash, the folder it is assembled in
        // would be made inside it, and the swap of a folder with its own parent fails.
        var folder = Substring(destination)
        while folder.count > 1 && folder.hasSuffix("/") { folder = folder.dropLast() }
        self.destination = String(folder)
        self.extraFiles = extraFiles
    }

    /// Checks the assembled folder before it is swapped in (the app's verification, run by the
    /// executable), given the integrity check run while the database was copied, with
    /// `checksIntegrityWhileCopying`; a failure leaves the previous bundle in place, untouched.
    public var check: ((_ staged: String, _ integrity: IntegrityVerdict?) throws -> Void)? = nil
    /// Runs `PRAGMA integrity_check` on the database while it is copied (`IntegrityVerdict`),
    /// for `check` to take instead of running it on the staged copy.
    public var checksIntegrityWhileCopying = false

    @discardableResult
    public func publish() throws -> Manifest {
        try Self.checkDestination(destination)
        try Self.checkJournal(of: database)
        try Self.checkNames(of: extraFiles)
        let parent = directory(of: destination)
        let name = destination.split(separator: "/").last.map(String.init) ?? destination
        Leftovers.removeStale(of: destination)
        let staging: String
        do {
            staging = try FileSystem.makeUniqueDirectory(in: parent, prefix: ".\(name).staging-")
        } catch let error as FieldpackError {
            throw FieldpackError(path: destination, "cannot make the folder it is assembled in beside it (\(error.message)); nothing published")
        }
        chmod(staging, 0o755)  // mkdtemp makes it 0700; the bundle is read by others
        // Until the swap this is the new bundle; after it, the previous one (or nothing).
        // Removed whatever happens, but for something of the user's that could not be put back.
        var keepStaging = false
        defer {
            if !keepStaging { FileSystem.removeTree(staging) }
            Leftovers.forget(staging)
        }
        do {
            return try assemble(in: staging, trace: PhaseTrace(stage: "manifest"), keepStaging: &keepStaging)
        } catch let error as FieldpackError where error.path?.hasPrefix(staging) ?? false {
            // Named by the bundle and the file, never by the hidden folder it was assembled in.
            let file = error.path.map { String($0.dropFirst(staging.count)).drop { $0 == "/" } } ?? ""
            throw FieldpackError(
                path: destination, line: error.line, column: error.column,
                "\(file.isEmpty ? "" : "\(file): ")\(error.message); nothing published (a bundle already there is kept)")
        }
    }

    /// Refuses, before anything is copied, files that cannot be published beside the database:
    /// two under one name, one named like the bundle's own files or a bag's (a flat bundle with
    /// a `bagit.txt` is read as a bag), a name SQLite takes for the database's journal, a name
    /// that is not portable.
    static func checkNames(of extraFiles: [String]) throws {
        // Names compare without their case (they are ASCII): on a volume that ignores it (macOS's
        // default) `Manifest.json` would be the manifest and `CONTENT.SQLITE` the database.
        let ownNames = Manifest.reservedNames.union([Manifest.databaseName])
        var published: [String: String] = [:]
        for file in extraFiles {
            let name = fileName(of: file)
            if let earlier = published.updateValue(name, forKey: name.lowercased()) {
                throw FieldpackError(path: file, earlier == name ? "cannot publish two files named \(name)" : "cannot publish both \(earlier) and \(name): a volume that ignores case holds one")
            }
            guard !ownNames.contains(where: { $0.lowercased() == name.lowercased() }) else {
                throw FieldpackError(path: file, "cannot publish a file named like the bundle's own files or a bag's (\(ownNames.sorted().joined(separator: ", ")))")
            }
            guard !Manifest.isTakenBySQLite(name) else {
                throw FieldpackError(path: file, "cannot publish \"\(name)\": SQLite would take it for the database's journal")
            }
            guard Manifest.isPortableName(name) else {
                throw FieldpackError(path: file, "cannot publish \"\(name)\": a bundle's file names are \(Manifest.portableNames)")
            }
        }
    }

    /// Fills `staging` with the bundle, checks it and swaps it in; sets `keepStaging` when what
    /// `staging` then holds is the user's and could not be put back.
    private func assemble(in staging: String, trace: PhaseTrace, keepStaging: inout Bool) throws -> Manifest {

        // A copy, never a hard link: the published database is its own file, so a later build
        // (or anything else writing the build folder's copy) cannot change a published bundle.
        let staged = "\(staging)/\(Manifest.databaseName)"
        let output = try AtomicOutput(path: staged)
        progress.expect(bytes: ([database] + extraFiles).reduce(0) { $0 + (FileSystem.size($1) ?? 0) })
        progress.start()
        defer { progress.finish() }
        let integrity = checksIntegrityWhileCopying && check != nil ? IntegrityVerdict(checking: database) : nil
        // Nothing of it outlives the publishing, whatever happens.
        defer { integrity?.wait() }
        // Hashed from the bytes written, as they are written; the check below (the app's) hashes
        // the staged file again from the disk.
        let (digest, bytes) = try output.appendHashing(contentsOf: database, progress: progress)
        integrity?.copyEnded(sha256: digest)
        try output.commit()
        trace.mark("copy the database, hashing it")
        for file in extraFiles {
            let output = try AtomicOutput(path: "\(staging)/\(fileName(of: file))")
            try output.append(contentsOf: file)
            try output.commit()
        }
        let manifest = try Manifest.describe(
            bundle: staging, inputs: inputs, progress: progress,
            hashed: [FileEntry(path: Manifest.databaseName, bytes: bytes, sha256: digest)])
        try manifest.write(to: staging)
        if let signingKey { try ManifestSignature.sign(bundle: staging, with: signingKey) }
        if bagIt { try BagItLayout.arrange(staging: staging, manifest: manifest) }
        // The same modes whatever the caller's umask: the bundle is read by others.
        try Self.setModes(in: staging)
        try FileSystem.fsyncDirectory(staging)
        trace.mark("the other files, manifest.json")
        try check?(staging, integrity)
        // Whether the check could take the integrity check run while copying (FIELDPACK_TRACE).
        trace.mark(integrity.map { $0.lines() != nil ? "check, the integrity check's from the copy's source" : "check, the copy's own integrity check" } ?? "check")

        // One step: the destination holds the previous bundle or the new one, never neither. A
        // SIGTERM meanwhile waits for it (`Leftovers`), then removes what sits at `staging`.
        // What was swapped out is looked at, and put back when it is not a bundle (something
        // else was put there after the first look), within the same hold: a signal in between
        // would have removed it from `staging`.
        var stranded: (any Error)? = nil
        let putBack = try Leftovers.holdingOffRemoval { () -> Bool in
            guard try FileSystem.exchange(staging, into: destination), (try? Self.checkDestination(staging)) == nil else { return false }
            do {
                _ = try FileSystem.exchange(staging, into: destination)
            } catch {
                stranded = error
            }
            return true
        }
        if let stranded {
            // It stays where it is, never removed with the staging folder: say where.
            keepStaging = true
            throw FieldpackError(
                path: destination, "was replaced while publishing by something that is not a bundle, left at \(staging): \(stranded)")
        }
        if putBack {
            throw FieldpackError(
                path: destination, "was replaced while publishing by something that is not a bundle: put back, nothing published")
        }
        trace.mark("swap")
        return manifest
    }

    /// Files 0644, folders 0755, under `folder` (a bag's `data/` too).
    private static func setModes(in folder: String) throws {
        for name in try FileSystem.list(folder) {
            let path = "\(folder)/\(name)"
            if FileSystem.isDirectory(path) {
                chmod(path, 0o755)
                try setModes(in: path)
            } else {
                chmod(path, 0o644)
            }
        }
    }

    /// Refuses a database whose file does not hold all it says: one with a `-wal` or a `-journal`
    /// beside it (transactions committed to the WAL and not checkpointed, or a rollback not yet
    /// played back: the copy would ship stale or never-committed rows), or one in WAL mode
    /// (`SQLiteHeader`), which the app cannot open read-only from its own bundle.
    static func checkJournal(of database: String) throws {
        for suffix in ["-wal", "-journal"] where (FileSystem.size(database + suffix) ?? 0) > 0 {
            throw FieldpackError(
                path: database,
                "has a \(suffix) file beside it: its last transactions (or a rollback) are not in the file. "
                    + "Open it once with sqlite3 to checkpoint or roll back, or build it again, then publish")
        }
        if let problem = try SQLiteHeader.headerProblem(of: database) { throw FieldpackError(path: database, problem.message) }
    }

    /// Refuses to replace anything but a bundle: the destination may be missing, an empty
    /// folder, or a bundle (flat or BagIt): a folder whose `manifest.json` is fieldpack's (its
    /// `format`) and which holds nothing but what a bundle holds (the files that manifest lists,
    /// the bundle's own files, a bag's). A file, a link or another folder is never deleted, nor
    /// is a folder of the user's that happens to hold a `manifest.json` (a web app's).
    static func checkDestination(_ destination: String) throws {
        var info = stat()
        guard lstat(destination, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw FieldpackError(path: destination, "exists and is not a bundle folder: refusing to replace it")
        }
        let entries = try FileSystem.list(destination)
        if entries.isEmpty { return }
        // Without its manifest.json (removed by hand, as the docs say any published file may
        // be, to have it published again), a folder whose checksum file lists fieldpack's
        // database is a bundle too (`checksummedFiles`), if it lists every file there (below).
        let manifest = "\(destination)/\(Manifest.jsonName)"
        let listed = FileSystem.exists(manifest) ? try bundleFiles(listedIn: manifest) : checksummedFiles(in: destination, entries: entries)
        guard let listed else {
            throw FieldpackError(
                path: destination,
                "is a folder without fieldpack's \(Manifest.jsonName) (one whose format is \"\(Manifest.formatName)\"), not a bundle: refusing to replace it")
        }
        // A desktop's litter is not the user's work; a bag's payload folder must hold only what
        // the manifest lists too.
        // A folder under a listed or a litter name is the user's (a bundle holds files only, and
        // its bag's payload folder): it was deleted with the bundle it was swapped out with.
        let bag = entries.contains(BagItLayout.declarationName)
        func isFolder(_ name: String) -> Bool { FileSystem.isDirectoryItself("\(destination)/\(name)") }
        var strangers = entries.filter {
            let known = isDesktopLitter($0) || listed.contains($0) || Manifest.ownFiles.contains($0) || (bag && BagItLayout.topLevelNames.contains($0))
            return !known || (isFolder($0) && !(bag && $0 == BagItLayout.payloadFolder))
        }
        if bag, FileSystem.isDirectoryItself("\(destination)/\(BagItLayout.payloadFolder)") {
            strangers += try FileSystem.list("\(destination)/\(BagItLayout.payloadFolder)").map { "\(BagItLayout.payloadFolder)/\($0)" }
                .filter { name in
                    let file = String(name.dropFirst(BagItLayout.payloadFolder.count + 1))
                    return !(isDesktopLitter(file) || listed.contains(file)) || isFolder(name)
                }
        }
        if let stranger = strangers.sorted().first {
            throw FieldpackError(
                path: destination, "holds \(stranger), which no bundle holds: not a bundle, or one with a file of yours in it: refusing to replace it")
        }
    }

    /// What a file manager leaves in a folder it shows: macOS's `.DS_Store` and AppleDouble
    /// `._` files, KDE's `.directory`. Any other hidden name (`.git`, `.notes`) is the user's.
    static func isDesktopLitter(_ name: String) -> Bool {
        name == ".DS_Store" || name == ".directory" || (name.hasPrefix("._") && name.count > 2)
    }

    /// The files the checksum file of the folder at `destination` lists (a bag's payload as its
    /// payload folder holds them), when that folder is a fieldpack bundle without its
    /// `manifest.json`: the checksum file reads as one and lists the database, a SQLite file
    /// with fieldpack's application id (a folder of checksums of the user's own files, or another
    /// tool's bag, is none); else nil. That it lists every file the folder holds is
    /// `checkDestination`'s check, as for a bundle with its manifest.
    private static func checksummedFiles(in destination: String, entries: [String]) -> Set<String>? {
        var problems: [String] = []
        guard let listed = ChecksumList.read("\(destination)/\(Manifest.checksumName)", problems: &problems), problems.isEmpty
        else { return nil }
        let payload = "\(BagItLayout.payloadFolder)/"
        let bag = entries.contains(BagItLayout.declarationName)
        let names = Set(listed.keys.map { bag && $0.hasPrefix(payload) ? String($0.dropFirst(payload.count)) : $0 })
        let database = bag ? "\(destination)/\(payload)\(Manifest.databaseName)" : "\(destination)/\(Manifest.databaseName)"
        guard names.contains(Manifest.databaseName), SQLiteHeader.applicationID(of: database) == Migrations.applicationID else { return nil }
        return names
    }

    /// The files a fieldpack `manifest.json` lists; nil when the file is missing, not a regular
    /// file, or not fieldpack's manifest.
    private static func bundleFiles(listedIn path: String) throws -> Set<String>? {
        guard let bytes = try ReadableFile.contents(ofRegular: path) else { return nil }
        // The parsed values live in the parser's document: it is kept to the end.
        let parser = JSONParser()
        let buffer = PaddedBuffer(copying: bytes)
        return withExtendedLifetime((parser, buffer)) { () -> Set<String>? in
            guard let root = try? parser.parse(buffer), root.isObject, root["format"]?.string == Manifest.formatName else { return nil }
            guard let files = root["files"], files.isArray else { return nil }
            var names: Set<String> = []
            for file in files.elements {
                if let name = file["path"]?.string { names.insert(name) }
            }
            return names
        }
    }
}
