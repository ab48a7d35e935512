#if canImport(Glibc)
import Glibc
#endif

/// The checks a bag (`BagItLayout`) needs beyond the flat folder's: the declaration, nothing at
/// the top but the bag's own files and `data/`, every tag file's checksum, the payload manifest
/// naming only `data/` files, and the `Payload-Oxum`. What it reads from the payload manifest
/// (and manifest.json's digest from the tag manifest) goes to `BundleVerifier`'s common checks.
struct BagItCheck {
    let directory: String

    /// The payload files' digests by their bundle name (`data/` taken off) and manifest.json's,
    /// or nil when there is no payload manifest; the problems found on the way.
    func run(problems: inout [String]) -> [String: String]? {
        func problem(_ file: String, _ message: String) { problems.append("\(directory)/\(file): error: \(message)") }

        // The declaration: fieldpack writes BagIt 1.0 in UTF-8, and reads only that.
        // Only a regular file is read (a FIFO would block the open; it is refused below).
        let declaration = try? ReadableFile.contents(ofRegular: "\(directory)/\(BagItLayout.declarationName)")
        if declaration != Array(BagItLayout.declaration.utf8) {
            problem(BagItLayout.declarationName, "not a BagIt 1.0 declaration in UTF-8 (\"BagIt-Version: 1.0\", \"Tag-File-Character-Encoding: UTF-8\")")
        }

        // The top level: the tag files and data/, nothing else.
        let listing = (try? FileSystem.list(directory)) ?? []
        for name in listing where !BagItLayout.topLevelNames.contains(name) {
            problem(name, "unexpected file: not part of a fieldpack bag")
        }
        for name in BagItLayout.tagFiles + [BagItLayout.tagManifestName] where listing.contains(name) {
            if !FileSystem.isRegularFile("\(directory)/\(name)") { problem(name, "not a regular file: a bag's tag files are regular files, never links or folders") }
        }
        // The payload folder itself, never a link to one (lstat: `isDirectory` follows links).
        var payload = stat()
        let payloadPath = "\(directory)/\(BagItLayout.payloadFolder)"
        if lstat(payloadPath, &payload) != 0 {
            problem(BagItLayout.payloadFolder, "missing: a bag's payload folder")
        } else if (payload.st_mode & S_IFMT) != S_IFDIR {
            problem(BagItLayout.payloadFolder, "not a folder: a bag's payload folder is a folder, never a link")
        }
        for name in [BagItLayout.infoName, BagItLayout.tagManifestName] where !listing.contains(name) { problem(name, "missing") }

        // The tag manifest: every tag file present, with its checksum; manifest.json's is checked
        // with the payload's.
        var digests: [String: String] = [:]
        let tagManifest = "\(directory)/\(BagItLayout.tagManifestName)"
        // One that cannot be read is said so, with the reason: its tag files' checks were
        // skipped without a word.
        if let reason = ChecksumList.unreadableReason(tagManifest) { problem(BagItLayout.tagManifestName, reason) }
        if let tags = ChecksumList.read(tagManifest, problems: &problems) {
            for name in BagItLayout.tagFiles where listing.contains(name) && tags[name] == nil && name != Manifest.jsonName {
                problem(BagItLayout.tagManifestName, "does not list \(name)")
            }
            for (name, listed) in tags.sorted(by: { $0.key < $1.key }) {
                guard BagItLayout.tagFiles.contains(name), listing.contains(name) else {
                    problem(BagItLayout.tagManifestName, "lists \(name), which is not a tag file of this bag")
                    continue
                }
                if name == Manifest.jsonName {
                    digests[name] = listed
                    continue
                }
                // A tag file that cannot be read is a problem, never a match (one that is not a
                // regular file is refused above, and is not opened: a FIFO would block).
                guard FileSystem.isRegularFile("\(directory)/\(name)") else { continue }
                do {
                    let (digest, _) = try SHA256.hex(ofFile: "\(directory)/\(name)")
                    if digest != listed { problem(name, "SHA-256 \(digest) does not match \(BagItLayout.tagManifestName) (\(listed))") }
                } catch {
                    problem(name, BundleVerifier.unreadable(error))
                }
            }
        }

        // The payload manifest lists data/NAME: fieldpack's payload is flat.
        let payloadManifest = "\(directory)/\(BagItLayout.payloadManifestName)"
        guard let payload = ChecksumList.read(payloadManifest, problems: &problems) else {
            problem(BagItLayout.payloadManifestName, ChecksumList.unreadableReason(payloadManifest) ?? "missing")
            return nil
        }
        let prefix = "\(BagItLayout.payloadFolder)/"
        for (path, listed) in payload.sorted(by: { $0.key < $1.key }) {
            let name = String(path.dropFirst(prefix.count))
            guard path.hasPrefix(prefix), !name.isEmpty, !name.contains("/"), name != Manifest.jsonName else {
                problem(BagItLayout.payloadManifestName, "lists \(path), which is not a payload file under \(prefix)")
                continue
            }
            digests[name] = listed
        }

        // Payload-Oxum: the payload's octets and file count, as bagit.py checks them (a bag-info.txt
        // that cannot be read is a problem; one without the line, which BagIt leaves optional, is not).
        let info: [UInt8]?
        do {
            info = listing.contains(BagItLayout.infoName) ? try ReadableFile.contents(ofRegular: "\(directory)/\(BagItLayout.infoName)") : nil
        } catch {
            info = nil
            problem(BagItLayout.infoName, BundleVerifier.unreadable(error))
        }
        if let info, let line = String(decoding: info, as: UTF8.self).split(separator: "\n").first(where: { $0.hasPrefix("Payload-Oxum:") }) {
            let files = (try? FileSystem.list("\(directory)/\(BagItLayout.payloadFolder)")) ?? []
            let octets = files.reduce(0) { $0 + (FileSystem.size("\(directory)/\(BagItLayout.payloadFolder)/\($1)") ?? 0) }
            let stated = String(line.dropFirst("Payload-Oxum:".count).trimmingSpaces)
            if stated != "\(octets).\(files.count)" {
                problem(BagItLayout.infoName, "Payload-Oxum \(stated) does not match the payload (\(octets).\(files.count))")
            }
        }
        return digests
    }
}

