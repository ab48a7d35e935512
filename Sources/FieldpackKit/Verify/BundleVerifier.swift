import Dispatch

/// Checks a bundle folder the way the app does before ingesting it: the file set, every
/// checksum, then the database opened read-only: application id, a known schema version whose
/// golden fingerprint matches, integrity (to the `Depth` asked for), foreign keys, and row counts
/// against the manifest.
/// The folder is the flat one the app downloads, or the same bundle as a BagIt bag (a folder
/// with `bagit.txt`): then the bag's own files are checked too (`BagItCheck`), and the payload
/// is read from its `data/`.
///
/// Every problem is collected and named; the bundle is good only if there are none.
public struct BundleVerifier {
    public let directory: String
    /// The publisher's public key: when set, `manifest.json.sig` must be its signature of
    /// manifest.json (checked before anything else is trusted).
    public let publicKey: Ed25519Key?
    /// Files and bytes checksummed, for the progress line.
    public var progress = StageProgress.silent("verify")
    /// How deep the database's integrity is checked: `.full` unless the caller asks for the app's.
    public var depth = Depth.full
    /// Opens the database for its checks while the files are still being hashed, and keeps
    /// their problems only if the checksums then pass: the same problems, sooner. Only for a
    /// folder the caller has just assembled itself (`fieldpack-manifest`'s check before the
    /// swap); the app, and `fieldpack-verify`, never open a database the checksums have not
    /// vouched for.
    public var checksDatabaseWhileHashing = false
    /// At full depth, `PRAGMA integrity_check` as already run on the file the database was
    /// copied from, while it was copied (`IntegrityVerdict`): taken when it stands for the
    /// database's bytes, instead of running it again. Only for a folder the caller has just
    /// assembled itself (`fieldpack-manifest`).
    public var integrityVerdict: IntegrityVerdict? = nil

    /// How deep the database's integrity is checked.
    public enum Depth: Sendable {
        /// What the app runs before it ingests a bundle (docs/bundle.md): `PRAGMA quick_check`,
        /// every page and row well formed, in time linear in the file's size.
        case app
        /// `PRAGMA integrity_check` as well: every index entry matched against its row and every
        /// UNIQUE constraint, in O(N log N) (on 1M observations, most of the check's time). What
        /// `fieldpack-manifest` runs before it publishes, and `fieldpack-verify --full`.
        case full

        /// The pragma that checks to this depth.
        var pragma: String { self == .full ? "integrity_check" : "quick_check" }
    }

    /// The database of a previous bundle named on the command line (`migrate`, `--previous`): a
    /// folder, flat or a BagIt bag, is verified as the app would first (each problem written to
    /// `report`), then its database is the one in it; a file is taken as the database itself,
    /// and passes `integrity_check` first when `checksFile` (`migrate` runs its own).
    ///
    /// - Throws: when the folder does not verify, naming it and the count of problems; when the
    ///   file fails its integrity check, naming it and the first problems.
    public static func previousDatabase(_ path: String, checksFile: Bool = true, report: (String) -> Void) throws -> VouchedDatabase {
        guard FileSystem.isDirectory(path) else {
            // Said as missing, not as changed (its identity is nil).
            guard FileSystem.exists(path) else { throw FieldpackError(path: path, "does not exist: name a bundle folder or its database") }
            let identity = FileIdentity.settled(path: path)
            if checksFile { try checkDatabaseFile(path) }
            let vouched = VouchedDatabase(path: path, identity: identity)
            try vouched.checkUnchanged()
            return vouched
        }
        var identity: FileIdentity? = nil
        let problems = BundleVerifier(directory: path).verify(databaseIdentity: &identity)
        guard problems.isEmpty else {
            for problem in problems { report(problem) }
            throw FieldpackError(path: path, "the previous bundle does not verify: \(problems.count) problem(s)")
        }
        let bag = FileSystem.exists("\(path)/\(BagItLayout.declarationName)")
        let database = bag ? "\(path)/\(BagItLayout.payloadFolder)/\(Manifest.databaseName)" : "\(path)/\(Manifest.databaseName)"
        return VouchedDatabase(path: database, identity: identity)
    }

    /// A previous bundle's database as its checks found it (`previousDatabase`): its path, and
    /// its file's identity when they began (`FileIdentity`: device, inode, size, times). What is
    /// read from it next (a copy, a delta) stands for the checked bytes only while the file at
    /// the path is that file, unchanged: renamed over, or written to, it is refused.
    public struct VouchedDatabase: Sendable {
        public let path: String
        let identity: FileIdentity?

        /// Throws, naming the file, when it is no longer the file its checks read.
        public func checkUnchanged() throws {
            guard let identity, FileIdentity(path: path) == identity else {
                throw FieldpackError(path: path, Self.changed)
            }
        }

        /// Why a database that changed while it was checked or used is refused.
        static let changed =
            "changed while it was checked or read (written to, or another file renamed over it, or still being written): what was checked may not be what is read; run again once nothing writes it"
    }

    /// The bundle folder `path` names, or the one holding the database it names (a flat bundle's
    /// beside its manifest, or a bag's around its `data/`); nil for a database file outside any.
    public static func bundleFolder(of path: String) -> String? {
        if FileSystem.isDirectory(path) { return path }
        // A link to the database: the folder of the file it points at.
        let file = FileSystem.resolvedPath(path) ?? path
        let holder = FieldpackKit.directory(of: file)
        if FileSystem.exists("\(holder)/\(Manifest.jsonName)") { return holder }
        let bag = FieldpackKit.directory(of: holder)
        return fileName(of: holder) == BagItLayout.payloadFolder && FileSystem.exists("\(bag)/\(BagItLayout.declarationName)") ? bag : nil
    }

    /// A previous bundle's database named alone, which has no manifest to verify it by: there,
    /// a SQLite file (not a JSON file named by mistake, nor empty), passing `integrity_check`.
    private static func checkDatabaseFile(_ path: String) throws {
        guard FileSystem.exists(path) else { throw FieldpackError(path: path, "does not exist") }
        // A link to the database file is read as the file (make records what it points at).
        guard FileSystem.isRegularFileFollowingLinks(path) else { throw FieldpackError(path: path, "is neither a bundle folder nor a database file") }
        if let header = try SQLiteHeader.headerProblem(of: path), !header.isSQLite { throw FieldpackError(path: path, header.message) }
        let lines: [String]
        do {
            lines = try DatabaseChecks.integrityLines(path: path, depth: .full)
        } catch {
            // A page so damaged that the check itself stops (`database disk image is malformed`).
            lines = ["\((error as? FieldpackError)?.message ?? "\(error)")"]
        }
        guard lines == ["ok"] else {
            throw FieldpackError(path: path, "the previous bundle's database fails integrity_check: \(lines.prefix(3).joined(separator: "; "))")
        }
    }

    public init(directory: String, publicKey: Ed25519Key? = nil) {
        self.directory = directory
        self.publicKey = publicKey
    }

    /// Whether the folder is a BagIt bag (its declaration is there), not a flat bundle.
    public static func isBag(_ directory: String) -> Bool {
        FileSystem.exists("\(directory)/\(BagItLayout.declarationName)")
    }

    /// The problems found, each naming the file and what is wrong; empty means the bundle is good.
    public func verify() -> [String] {
        var identity: FileIdentity? = nil
        return verify(databaseIdentity: &identity)
    }

    /// `verify()`, giving the database file's identity as its checksum and checks began
    /// (`FileIdentity`): they vouch for those bytes, and are refused when the file was another
    /// by the time they ended (another renamed over it, or a write).
    func verify(databaseIdentity: inout FileIdentity?) -> [String] {
        var problems: [String] = []
        guard FileSystem.exists(directory) else { return ["\(directory): error: does not exist"] }
        guard FileSystem.isDirectory(directory) else { return ["\(directory): error: not a bundle folder"] }
        let bag = Self.isBag(directory)
        // A bag that lost its declaration would be checked as a flat bundle, each of its files a
        // problem of its own: one problem says what it is.
        if !bag, FileSystem.isDirectory("\(directory)/\(BagItLayout.payloadFolder)"),
            let tagFile = [BagItLayout.tagManifestName, BagItLayout.infoName].first(where: { FileSystem.exists("\(directory)/\($0)") })
        {
            return ["\(directory): error: holds \(BagItLayout.payloadFolder)/ and \(tagFile) but no \(BagItLayout.declarationName): a BagIt bag without its declaration, not a bundle"]
        }
        // Where a file named in the manifest is: beside manifest.json, or in a bag's data/.
        // (Not the checksum file: a bag's own is `checksumFile`'s, and one in data/ is a stray.)
        let topLevel: Set<String> = [Manifest.jsonName, ManifestSignature.fileName]
        func place(_ name: String) -> String { bag && !topLevel.contains(name) ? "\(BagItLayout.payloadFolder)/\(name)" : name }
        func path(_ name: String) -> String { "\(directory)/\(place(name))" }
        func problem(_ file: String, _ message: String) { problems.append("\(directory)/\(place(file)): error: \(message)") }
        // Which checksum file lists a file: in a bag, manifest.json is a tag file.
        func checksumFile(_ name: String) -> String {
            bag && name == Manifest.jsonName ? BagItLayout.tagManifestName : Manifest.checksumName
        }

        let manifestPath = "\(directory)/\(Manifest.jsonName)"
        let checksumPath = "\(directory)/\(Manifest.checksumName)"
        let payloadFolder = bag ? "\(directory)/\(BagItLayout.payloadFolder)" : directory
        var listing: [String]
        do { listing = try FileSystem.list(payloadFolder) } catch {
            return ["\(payloadFolder): error: cannot list the folder: \((error as? FieldpackError)?.message ?? "\(error)")"]
        }
        if bag {
            // The bag's top level is checked by BagItCheck; manifest.json and its signature are
            // there, and only there: a file of their names in data/ is not the bag's.
            for name in [Manifest.jsonName, ManifestSignature.fileName] where listing.contains(name) {
                problems.append("\(payloadFolder)/\(name): error: unexpected file: a bag's \(name) is at its top, not in \(BagItLayout.payloadFolder)/")
            }
            listing.removeAll { $0 == Manifest.jsonName || $0 == ManifestSignature.fileName }
            listing += [Manifest.jsonName, ManifestSignature.fileName].filter { FileSystem.exists("\(directory)/\($0)") }
        }

        // 1. The checksum files: every line's checksum, and nothing in the folder they do not list.
        var checksumListed: [String: String] = [:]
        if bag {
            checksumListed = BagItCheck(directory: directory).run(problems: &problems) ?? [:]
        } else if let listed = ChecksumList.read(checksumPath, problems: &problems) {
            checksumListed = listed
        } else if !FileSystem.existsItself(checksumPath) {
            problem(Manifest.checksumName, "missing")
        } else if let reason = ChecksumList.unreadableReason(checksumPath) {
            // There, and not readable: said so, not "missing" (a link or a folder in its place
            // is the file set's "not a regular file" below).
            problem(Manifest.checksumName, reason)
        }

        // 2. manifest.json: parse it. Read once: the bytes whose signature is checked (0) are the
        // ones whose list of files is trusted and whose checksum is compared (4); read again for
        // each, a file renamed over it between the readings passed unsigned.
        var manifestFiles: [String: (bytes: Int, sha256: String)] = [:]
        var manifestRows: [String: Int64] = [:]
        var manifestVersion: Int? = nil
        var manifestFingerprint: String? = nil
        var manifestBytes: [UInt8]? = nil
        if FileSystem.isRegularFile(manifestPath) {
            do { manifestBytes = try ReadableFile.contents(ofRegular: manifestPath) } catch { problem(Manifest.jsonName, Self.unreadable(error)) }
        } else if FileSystem.existsItself(manifestPath) {
            problem(Manifest.jsonName, "not a regular file: a bundle holds regular files only, never links or folders")
        }
        // Whether manifest.json says which files the bundle holds: without it, every file would
        // be a problem of its own ("not listed"), burying the one that matters.
        var manifestRead = false
        if let bytes = manifestBytes {
            let buffer = PaddedBuffer(copying: bytes)
            let parser = JSONParser()
            var parsed: JSONValue? = nil
            do { parsed = try parser.parse(buffer) } catch {
                problems.append(bytes.withUnsafeBytes { FieldpackError.notJSON(manifestPath, $0, "not a fieldpack manifest, not JSON", error) }.description)
            }
            if let root = parsed, root.isObject, root["format"]?.string == Manifest.formatName {
                manifestRead = true
                // A key given twice is read one way here and another by the app's JSON reader (the
                // first schema_version here, the last elsewhere): fieldpack never writes one.
                if root.hasDuplicateKeys { problem(Manifest.jsonName, "an object gives a key twice, which readers take differently") }
                // An array, as the app decodes it: `elements` would also take an object's values.
                var entries: [JSONValue] = []
                if let files = root["files"], files.isArray {
                    entries = Array(files.elements)
                } else {
                    problem(Manifest.jsonName, root["files"] == nil ? "has no files list" : "files is not an array of entries")
                }
                for index in entries.indices {
                    let file = entries[index]
                    guard let path = file["path"]?.string, let size = file["bytes"]?.int64, let digest = file["sha256"]?.string else {
                        problem(Manifest.jsonName, "files[\(index)]: \(Self.entryProblem(file))")
                        continue
                    }
                    if manifestFiles[path] != nil { problem(Manifest.jsonName, "lists \(path) twice") }
                    if !Manifest.isPortableName(path) {
                        problem(Manifest.jsonName, "lists \"\(path)\", not a bundle file name (\(Manifest.portableNames))")
                    } else if Manifest.isReserved(path) {
                        // Skipped by the checks below as the folder's own file, it would pass unread.
                        problem(Manifest.jsonName, "lists \(path), a name of the bundle's own files, which no manifest lists")
                    } else if Manifest.isTakenBySQLite(path) {
                        problem(Manifest.jsonName, "lists \(path), which SQLite would take for the database's journal")
                    }
                    manifestFiles[path] = (Int(size), digest)
                }
                if let counts = root["rows"] {
                    for member in counts.members {
                        guard let count = member.value.int64, count >= 0 else {
                            problem(Manifest.jsonName, "rows.\(member.key.string) is not a count of rows (a whole number at least 0)")
                            continue
                        }
                        manifestRows[member.key.string] = count
                    }
                }
                manifestVersion = root["schema_version"]?.int64.map { Int($0) }
                manifestFingerprint = root["schema_fingerprint"]?.string
                // The app reads the schema from them: a manifest without them is not fieldpack's.
                if manifestVersion == nil { problem(Manifest.jsonName, "has no schema_version (a number)") }
                if manifestFingerprint == nil { problem(Manifest.jsonName, "has no schema_fingerprint (a string)") }
                // What the app reads the manifest with: its format's version, whose app it is for,
                // and when it was built (the app shows it).
                func shown(_ key: StaticString) -> String {
                    guard let value = root[key] else { return "missing" }
                    if let number = value.int64 { return String(number) }
                    if let text = value.string { return "\"\(text)\"" }
                    return RecordError.describe(value.kind)
                }
                if root["manifest_version"]?.int64 != Int64(Manifest.version) {
                    problem(Manifest.jsonName, "manifest_version is \(shown("manifest_version")), not \(Manifest.version), the one this fieldpack reads")
                }
                if root["application_id"]?.int64 != Int64(Migrations.applicationID) {
                    problem(Manifest.jsonName, "application_id is \(shown("application_id")), not fieldpack's \(Migrations.applicationID)")
                }
                if root["build_date"]?.string.flatMap(Timestamp.parse) == nil {
                    problem(Manifest.jsonName, "build_date is \(shown("build_date")), not a date (fieldpack writes YYYY-MM-DDTHH:MM:SSZ)")
                }
            } else if parsed != nil {
                problem(Manifest.jsonName, "not a fieldpack manifest (a JSON object whose format is \"\(Manifest.formatName)\")")
            }
        } else if !FileSystem.existsItself(manifestPath) {
            problem(Manifest.jsonName, "missing")
        }

        // 0. The signature, when the app holds a key: a manifest anyone could have edited is refused.
        let signaturePath = "\(directory)/\(ManifestSignature.fileName)"
        if let publicKey, !FileSystem.exists(signaturePath) || FileSystem.isRegularFile(signaturePath),
           let reason = ManifestSignature.problem(bundle: directory, manifest: manifestBytes, key: publicKey) {
            problem(ManifestSignature.fileName, reason)
        }
        // What is wrong with manifest.json is said above; whether the folder holds what it lists
        // cannot be said.
        guard manifestRead else {
            // Damaged on its way (a flipped byte breaks its JSON): the checksum file says so.
            if let manifestBytes, let listed = checksumListed[Manifest.jsonName], listed != SHA256.hex(of: manifestBytes) {
                problem(Manifest.jsonName, "SHA-256 \(SHA256.hex(of: manifestBytes)) does not match \(checksumFile(Manifest.jsonName)) (\(listed))")
            }
            return problems
        }

        // 3. The file set: exactly the manifest's files plus the manifest files (and signature).
        var expected = Set(manifestFiles.keys).union(bag ? [Manifest.jsonName] : [Manifest.jsonName, Manifest.checksumName])
        if publicKey != nil || listing.contains(ManifestSignature.fileName) { expected.insert(ManifestSignature.fileName) }
        for name in listing {
            // A name outside the portable set is never a bundle's, whatever the manifest lists:
            // Swift's strings (and so the sets here) take a decomposed é for a composed one.
            if !Manifest.isPortableName(name) {
                problem(name, "unexpected file: not a bundle file name (\(Manifest.portableNames))")
            } else if !expected.contains(name) {
                problem(name, "unexpected file: not listed in the manifest")
            }
        }
        // Two names one in another case are one file where the app unpacks it (a volume that
        // ignores case, macOS's default): the bundle holds one of them, not both.
        var byCase: [String: String] = [:]
        for name in (listing + manifestFiles.keys).sorted() where Manifest.isPortableName(name) {
            if let other = byCase.updateValue(name, forKey: name.lowercased()), other != name {
                problem(name, "differs from \(other) only in case: a volume that ignores case holds one of them")
            }
        }
        for name in listing where expected.contains(name) && !FileSystem.isRegularFile(path(name)) {
            problem(name, "not a regular file: a bundle holds regular files only, never links or folders")
        }
        for name in expected.sorted()
        where !listing.contains(name) && name != Manifest.jsonName && name != Manifest.checksumName && name != ManifestSignature.fileName {
            problem(name, "missing: listed in the manifest")
        }
        let checksumExpected = Set(manifestFiles.keys).union([Manifest.jsonName])
        if !checksumListed.isEmpty || FileSystem.exists(checksumPath) {
            for name in checksumExpected.sorted() where checksumListed[name] == nil {
                problems.append("\(directory)/\(checksumFile(name)): error: does not list \(place(name))")
            }
            for name in checksumListed.keys.sorted() where !checksumExpected.contains(name) {
                problems.append("\(directory)/\(checksumFile(name)): error: lists \(place(name)), which the manifest does not")
            }
        }

        // The database is hashed, then opened by its path: both must read one file, unchanged
        // (a file written in its clock's last tick could be written again unseen: waited for).
        let databaseName = Manifest.databaseName
        let identity = FileIdentity.settled(path: path(databaseName))
        databaseIdentity = identity
        func databaseChanged() -> Bool { identity == nil || FileIdentity(path: path(databaseName)) != identity }

        // 5, begun early (`checksDatabaseWhileHashing`): waited for, and kept or not, below.
        let early = DispatchGroup()
        let earlyProblems = Results<[String]>(count: 1)
        // The integrity check run while the database was copied, only for the bytes the manifest
        // lists (and the hashing below must find them in the database).
        let verdict = integrityVerdict.flatMap { verdict in
            verdict.copiedSHA256.map { $0 == manifestFiles[databaseName]?.sha256 } == true ? verdict : nil
        }
        let databaseChecks = DatabaseChecks(path: path(databaseName), rows: manifestRows, version: manifestVersion,
                                            fingerprint: manifestFingerprint, depth: depth, integrityVerdict: verdict)
        // Only when nothing is wrong so far, and the database is a regular file: otherwise its
        // checks would be thrown away, after a wait as long as they take.
        let checkingEarly = checksDatabaseWhileHashing && problems.isEmpty && manifestFiles[databaseName] != nil
            && FileSystem.isRegularFile(path(databaseName))
        if checkingEarly {
            DispatchQueue.global().async(group: early) { earlyProblems.record(0) { databaseChecks.run() } }
        }
        // Never returns before the early checks end: the caller may remove the folder next.
        defer { early.wait() }

        // 4. Every checksum and size.
        var digests: [String: String] = [:]
        // Regular files only (the others are refused above, and a FIFO would block), and only those
        // of the manifest's size: a file of another size is refused without reading it.
        var hashed: [String] = []
        for name in checksumExpected.sorted() where listing.contains(name) && FileSystem.isRegularFile(path(name)) {
            if let entry = manifestFiles[name], let size = FileSystem.size(path(name)), size != entry.bytes {
                problem(name, "size \(size) does not match manifest.json (\(entry.bytes))")
                continue
            }
            hashed.append(name)
        }
        progress.expect(bytes: hashed.reduce(0) { $0 + (FileSystem.size(path($1)) ?? 0) })
        progress.start()
        defer { progress.finish() }
        for name in hashed {
            let digest: String, size: Int
            do {
                // manifest.json: the bytes read in 2, not the file again.
                if name == Manifest.jsonName, let manifestBytes {
                    (digest, size) = (SHA256.hex(of: manifestBytes), manifestBytes.count)
                    progress.add(bytes: size)
                } else {
                    (digest, size) = try SHA256.hex(ofFile: path(name), progress: progress)
                }
            } catch {
                problem(name, Self.unreadable(error))
                continue
            }
            digests[name] = digest
            if let listed = checksumListed[name], listed != digest {
                problem(name, "SHA-256 \(digest) does not match \(checksumFile(name)) (\(listed))")
            }
            if let entry = manifestFiles[name] {
                if entry.sha256 != digest { problem(name, "SHA-256 \(digest) does not match manifest.json (\(entry.sha256))") }
                if entry.bytes != size { problem(name, "size \(size) does not match manifest.json (\(entry.bytes))") }
            }
        }

        // 5. The database, only if its bytes are the ones the manifest vouches for.
        guard manifestFiles[databaseName] != nil else {
            problem(Manifest.jsonName, "does not list \(databaseName)")
            return problems
        }
        guard problems.isEmpty else { return problems }
        if checkingEarly {
            early.wait()
            problems += (try? earlyProblems.values().first) ?? ["\(path(databaseName)): error: the database checks did not finish"]
        } else {
            problems += databaseChecks.run()
        }
        if databaseChanged() { problem(databaseName, VouchedDatabase.changed) }
        return problems
    }

    /// What is wrong with an entry of manifest.json's `files`: each of its keys missing or of
    /// another type, by name.
    static func entryProblem(_ file: JSONValue) -> String {
        guard file.isObject else { return "is \(RecordError.describe(file.kind)), not an object with path, bytes and sha256" }
        var wrong: [String] = []
        func check(_ key: StaticString, _ value: JSONValue?, fits: Bool, _ expected: String) {
            guard !fits else { return }
            wrong.append(value.map { "\(key) is \(RecordError.describe($0.kind)), expected \(expected)" } ?? "no \(key)")
        }
        check("path", file["path"], fits: file["path"]?.string != nil, "a string")
        check("bytes", file["bytes"], fits: file["bytes"]?.int64 != nil, "a whole number")
        check("sha256", file["sha256"], fits: file["sha256"]?.string != nil, "a string")
        let named = file["path"]?.string.map { " (\($0))" } ?? ""
        return "an entry\(named) with \(wrong.joined(separator: ", "))"
    }

    /// A bundle file that cannot be read, and the system's reason.
    static func unreadable(_ error: any Error) -> String {
        "cannot be read: \((error as? FieldpackError)?.message ?? "\(error)")"
    }
}
