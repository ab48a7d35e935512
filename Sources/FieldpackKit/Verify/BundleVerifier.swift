/// Checks a bundle folder the way the app does before ingesting it: the file set, every
/// checksum, then the database opened read-only: application id, a known schema version whose
/// golden fingerprint matches, integrity, foreign keys, and row counts against the manifest.
///
/// Every problem is collected and named; the bundle is good only if there are none.
public struct BundleVerifier {
    public let directory: String
    /// The publisher's public key: when set, `manifest.json.sig` must be its signature of
    /// manifest.json (checked before anything else is trusted).
    public let publicKey: Ed25519Key?
    /// Files and bytes checksummed, for the progress line.
    public var progress = StageProgress.silent("verify")

    public init(directory: String, publicKey: Ed25519Key? = nil) {
        self.directory = directory
        self.publicKey = publicKey
    }

    /// The problems found, each naming the file and what is wrong; empty means the bundle is good.
    public func verify() -> [String] {
        var problems: [String] = []
        func problem(_ file: String, _ message: String) { problems.append("\(directory)/\(file): error: \(message)") }

        guard FileSystem.isDirectory(directory) else { return ["\(directory): error: not a bundle folder"] }
        let manifestPath = "\(directory)/\(Manifest.jsonName)"
        let checksumPath = "\(directory)/\(Manifest.checksumName)"
        guard let listing = try? FileSystem.list(directory) else { return ["\(directory): error: cannot list the folder"] }

        // 1. manifest-sha256.txt: every line's checksum, and nothing in the folder it does not list.
        var checksumListed: [String: String] = [:]
        if let text = try? ReadableFile.contents(of: checksumPath) {
            for (number, line) in String(decoding: text, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.isEmpty {
                let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, parts[0].count == 64, parts[1].hasPrefix(" ") else {
                    problems.append("\(checksumPath):\(number + 1): error: not a `sha256sum` line")
                    continue
                }
                checksumListed[String(parts[1].dropFirst())] = String(parts[0])
            }
        } else {
            problem(Manifest.checksumName, "missing")
        }

        // 2. manifest.json: parse it.
        var manifestFiles: [String: (bytes: Int, sha256: String)] = [:]
        var manifestRows: [String: Int64] = [:]
        var manifestVersion: Int? = nil
        var manifestFingerprint: String? = nil
        if let bytes = try? ReadableFile.contents(of: manifestPath) {
            let buffer = PaddedBuffer(copying: bytes)
            let parser = JSONParser()
            if let root = try? parser.parse(buffer), root.isObject, root["format"]?.string == Manifest.formatName {
                for file in root["files"].map({ Array($0.elements) }) ?? [] {
                    guard let path = file["path"]?.string, let size = file["bytes"]?.int64, let digest = file["sha256"]?.string else {
                        problem(Manifest.jsonName, "a files entry lacks path, bytes or sha256")
                        continue
                    }
                    manifestFiles[path] = (Int(size), digest)
                }
                if let counts = root["rows"] {
                    for member in counts.members { manifestRows[member.key.string] = member.value.int64 ?? -1 }
                }
                manifestVersion = root["schema_version"]?.int64.map { Int($0) }
                manifestFingerprint = root["schema_fingerprint"]?.string
            } else {
                problem(Manifest.jsonName, "not a fieldpack manifest (invalid JSON or wrong format)")
            }
        } else {
            problem(Manifest.jsonName, "missing")
        }

        // 0. The signature, when the app holds a key: a manifest anyone could have edited is refused.
        if let publicKey, let reason = ManifestSignature.problem(bundle: directory, key: publicKey) {
            problem(ManifestSignature.fileName, reason)
        }

        // 3. The file set: exactly the manifest's files plus the manifest files (and signature).
        var expected = Set(manifestFiles.keys).union([Manifest.jsonName, Manifest.checksumName])
        if publicKey != nil || listing.contains(ManifestSignature.fileName) { expected.insert(ManifestSignature.fileName) }
        for name in listing where !expected.contains(name) { problem(name, "unexpected file: not listed in the manifest") }
        for name in listing where expected.contains(name) && !FileSystem.isRegularFile("\(directory)/\(name)") {
            problem(name, "not a regular file: a bundle holds regular files only, never links or folders")
        }
        for name in expected.sorted()
        where !listing.contains(name) && name != Manifest.jsonName && name != Manifest.checksumName && name != ManifestSignature.fileName {
            problem(name, "missing: listed in the manifest")
        }
        let checksumExpected = Set(manifestFiles.keys).union([Manifest.jsonName])
        if !checksumListed.isEmpty || FileSystem.exists(checksumPath) {
            for name in checksumExpected.sorted() where checksumListed[name] == nil {
                problem(Manifest.checksumName, "does not list \(name)")
            }
            for name in checksumListed.keys.sorted() where !checksumExpected.contains(name) {
                problem(Manifest.checksumName, "lists \(name), which the manifest does not")
            }
        }

        // 4. Every checksum and size.
        var digests: [String: String] = [:]
        let hashed = checksumExpected.sorted().filter { listing.contains($0) }
        progress.expect(bytes: hashed.reduce(0) { $0 + (FileSystem.size("\(directory)/\($1)") ?? 0) })
        progress.start()
        defer { progress.finish() }
        for name in hashed {
            guard let (digest, size) = try? SHA256.hex(ofFile: "\(directory)/\(name)", progress: progress) else {
                problem(name, "cannot be read")
                continue
            }
            digests[name] = digest
            if let listed = checksumListed[name], listed != digest {
                problem(name, "SHA-256 \(digest) does not match \(Manifest.checksumName) (\(listed))")
            }
            if let entry = manifestFiles[name] {
                if entry.sha256 != digest { problem(name, "SHA-256 \(digest) does not match manifest.json (\(entry.sha256))") }
                if entry.bytes != size { problem(name, "size \(size) does not match manifest.json (\(entry.bytes))") }
            }
        }

        // 5. The database, only if its bytes are the ones the manifest vouches for.
        let databaseName = Manifest.databaseName
        guard manifestFiles[databaseName] != nil else {
            problem(Manifest.jsonName, "does not list \(databaseName)")
            return problems
        }
        guard problems.isEmpty else { return problems }
        problems += DatabaseChecks(path: "\(directory)/\(databaseName)", rows: manifestRows,
                                   version: manifestVersion, fingerprint: manifestFingerprint).run()
        return problems
    }
}
