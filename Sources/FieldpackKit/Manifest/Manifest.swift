/// The bundle's manifest: `manifest.json` (every file's size and SHA-256, the schema version and
/// fingerprint, row counts, the pipeline, every input's SHA-256, tool version, build date) and
/// `manifest-sha256.txt`, which `sha256sum -c` accepts in the bundle folder.
public struct Manifest: Sendable, Equatable {
    public static let jsonName = "manifest.json"

    /// A bundle's file names: ASCII letters, digits, `.`, `_` and `-`, not starting with `.`
    /// (a hidden name is never payload, nor `.` or `..`), so that a name is the same bytes on
    /// every file system, and none is another in another Unicode normalisation or case-folding
    /// (APFS) or a path.
    public static func isPortableName(_ name: String) -> Bool {
        !name.hasPrefix(".") && !name.isEmpty && name.utf8.allSatisfy(isPortableByte)
    }

    /// A byte a portable name may hold (`isPortableName`).
    static func isPortableByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2E || byte == 0x5F || byte == 0x2D
    }

    /// `isPortableName`'s rule, as the errors say it.
    public static let portableNames = "ASCII letters, digits, '.', '_' and '-', not starting with '.'"
    public static let checksumName = "manifest-sha256.txt"
    public static let databaseName = "content.sqlite"
    public static let formatName = "fieldpack-bundle"

    public var pipeline: String
    public var toolVersion: String
    public var buildDate: String
    public var schemaVersion: Int
    public var schemaFingerprint: String
    public var applicationID: Int64
    public var files: [FileEntry]
    public var rows: [(table: String, count: Int64)]
    public var inputsJSON: String

    public static func == (lhs: Manifest, rhs: Manifest) -> Bool {
        lhs.json == rhs.json
    }

    /// Reads what the manifest says about the database from the database itself, and hashes
    /// every payload file of the bundle folder but those already `hashed`.
    /// - Parameter inputs: the bundle stage's `inputs.json`; without it, the `inputs` that bundles
    ///   before schema 5 kept in `bundle_info`, else none.
    /// - Parameter progress: counts the payload files and bytes as they are hashed.
    /// - Parameter hashed: files already hashed as they were written into the folder
    ///   (`AtomicOutput.appendHashing`): each keeps its digest while its size is the one hashed.
    public static func describe(
        bundle directory: String, inputs: String? = nil, progress: StageProgress? = nil, hashed: [FileEntry] = []
    ) throws -> Manifest {
        let databasePath = "\(directory)/\(databaseName)"
        guard FileSystem.exists(databasePath) else {
            throw FieldpackError(path: databasePath, "bundle has no \(databaseName)")
        }
        // Immutable: the staged copy is never written, and a read-only open of a WAL database
        // would create its -shm and -wal files in the bundle (a publish refuses one, `checkJournal`).
        let database = try Database(path: databasePath, mode: .immutable)
        var info: [String: String] = [:]
        for row in try database.rows("SELECT key, value FROM bundle_info ORDER BY key") {
            if let key = row[0], let value = row[1] { info[key] = value }
        }
        func required(_ key: String) throws -> String {
            guard let value = info[key] else { throw FieldpackError(path: databasePath, "bundle_info has no \(key)") }
            return value
        }
        var rows: [(String, Int64)] = []
        for key in info.keys.sorted() where key.hasPrefix("rows.") {
            rows.append((String(key.dropFirst(5)), Int64(info[key]!) ?? 0))
        }
        var files: [FileEntry] = []
        let names = try payloadFiles(in: directory)
        // Each file's size, once, and its entry when it was hashed as it was written.
        let sizes = names.map { FileSystem.size("\(directory)/\($0)") }
        let known = zip(names, sizes).map { name, size in hashed.first { $0.path == name && $0.bytes == size } }
        // After what was hashed as it was written (counted already).
        progress?.expect(bytes: (progress?.byteCount ?? 0) + zip(sizes, known).reduce(0) { $0 + ($1.1 == nil ? $1.0 ?? 0 : 0) })
        progress?.start()
        defer { progress?.finish() }
        for (name, entry) in zip(names, known) {
            if let entry {
                files.append(entry)
                continue
            }
            let (digest, bytes) = try SHA256.hex(ofFile: "\(directory)/\(name)", progress: progress)
            files.append(FileEntry(path: name, bytes: bytes, sha256: digest))
        }
        return Manifest(
            pipeline: try required("pipeline"), toolVersion: try required("tool_version"),
            buildDate: try required("build_date"), schemaVersion: Int(try required("schema_version")) ?? 0,
            schemaFingerprint: try required("schema_fingerprint"),
            applicationID: try database.int("PRAGMA application_id") ?? 0, files: files, rows: rows,
            inputsJSON: try inputs.map(inputsList(from:)) ?? info["inputs"] ?? "[]")
    }

    /// The bundle stage's `inputs.json`, checked: it goes into `manifest.json` as it is written, so
    /// it must be one JSON array and nothing after it (`[], "schema_version": 8` would add keys the
    /// app reads), with no key given twice.
    static func inputsList(from path: String) throws -> String {
        let bytes = try ReadableFile.contents(of: path)
        // The parsed value lives in the parser's document and reads the buffer: both kept to the end.
        let parser = JSONParser()
        let buffer = PaddedBuffer(copying: bytes)
        let problem: String? = withExtendedLifetime((parser, buffer)) {
            do {
                let value = try parser.parse(buffer)
                if !value.isArray { return "not a JSON array" }
                if value.hasDuplicateKeys { return "an object gives a key twice" }
                return nil
            } catch {
                return "not one JSON value: \(error)"
            }
        }
        if let problem { throw FieldpackError(path: path, "is not the bundle stage's inputs list (one JSON array): \(problem)") }
        return String(decoding: bytes, as: UTF8.self).trimmingNewline
    }

    /// The manifest files themselves: what a bundle folder holds besides the files they list.
    static let ownFiles: Set<String> = [jsonName, checksumName, ManifestSignature.fileName]

    /// The names no file the manifest lists may take, in any case: the manifest files and what
    /// a bag's top level holds. fieldpack-manifest refuses to publish such a file, and verify a
    /// manifest that lists one (it would stand for a file the folder holds as its own).
    static let reservedNames: Set<String> = BagItLayout.topLevelNames.union(ownFiles)

    /// Whether `name` is one of `reservedNames`, in any case.
    static func isReserved(_ name: String) -> Bool { reservedNames.contains { $0.lowercased() == name.lowercased() } }

    /// Whether SQLite would take a file of this name beside the database for the database's own
    /// (`content.sqlite-journal`, `-wal`, `-shm`): a hot journal shipped there is played back,
    /// or the read-only open fails. fieldpack-manifest publishes none, and verify refuses a
    /// manifest that lists one.
    static func isTakenBySQLite(_ name: String) -> Bool { name.lowercased().hasPrefix("\(databaseName)-") }

    /// The files a manifest covers: everything in the folder except the manifest files themselves.
    public static func payloadFiles(in directory: String) throws -> [String] {
        try FileSystem.list(directory).filter { !ownFiles.contains($0) && !$0.hasPrefix(".") }
    }

    /// The manifest format's version, which verify reads and no other.
    public static let version = 1

    public var json: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("format"); writer.string(Self.formatName)
        writer.key("manifest_version"); writer.int(Int64(Self.version))
        writer.key("pipeline"); writer.string(pipeline)
        writer.key("tool_version"); writer.string(toolVersion)
        writer.key("build_date"); writer.string(buildDate)
        writer.key("schema_version"); writer.int(schemaVersion)
        writer.key("schema_fingerprint"); writer.string(schemaFingerprint)
        writer.key("application_id"); writer.int(applicationID)
        writer.key("files")
        FileEntry.write(files, into: &writer)
        writer.key("rows")
        writer.beginObject()
        for (table, count) in rows {
            writer.key(dynamic: table); writer.int(count)
        }
        writer.endObject()
        writer.key("inputs"); writer.raw(Array(inputsJSON.utf8))
        writer.endObject()
        return PrettyJSON.format(writer.bytes)
    }

    /// Writes `manifest.json`, then `manifest-sha256.txt` covering it and every payload file,
    /// each atomically.
    public func write(to directory: String) throws {
        let jsonPath = "\(directory)/\(Self.jsonName)"
        try AtomicOutput.write(json, to: jsonPath)
        let (jsonDigest, _) = try SHA256.hex(ofFile: jsonPath)
        var lines = files.map { ($0.path, $0.sha256) } + [(Self.jsonName, jsonDigest)]
        lines.sort { Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8)) }
        let text = lines.map { "\($0.1)  \($0.0)\n" }.joined()
        try AtomicOutput.write(text, to: "\(directory)/\(Self.checksumName)")
    }
}

extension String {
    fileprivate var trimmingNewline: String {
        var text = self
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}
