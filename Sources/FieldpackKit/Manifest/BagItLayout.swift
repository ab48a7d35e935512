/// The bundle as a BagIt bag (RFC 8493, version 1.0), for archiving and exchange: the payload
/// (database, reports) under `data/`, `manifest-sha256.txt` over the payload, `bagit.txt`,
/// `bag-info.txt` (no clock: the bagging date is the bundle's build date), fieldpack's
/// `manifest.json` (and its signature) as tag files, and `tagmanifest-sha256.txt` over the tag
/// files. `bagit.py --validate`, `sha256sum -c` and `fieldpack-verify` accept it.
enum BagItLayout {
    /// The bag declaration, whose presence makes a folder a bag.
    static let declarationName = "bagit.txt"
    static let declaration = "BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n"
    static let infoName = "bag-info.txt"
    /// The payload manifest: the same name as the flat folder's checksum file, over `data/…`.
    static let payloadManifestName = Manifest.checksumName
    static let tagManifestName = "tagmanifest-sha256.txt"
    static let payloadFolder = "data"
    /// The tag files, in the order the tag manifest is computed from (each when present).
    static let tagFiles = [declarationName, infoName, payloadManifestName, Manifest.jsonName, ManifestSignature.fileName]
    /// What a bag's top level may hold: its tag files, the tag manifest and the payload folder.
    static let topLevelNames = Set(tagFiles + [tagManifestName, payloadFolder])

    /// Rearranges a staged flat bundle (payload files, manifest.json, optional signature) into a bag.
    static func arrange(staging: String, manifest: Manifest) throws {
        try FileSystem.makeDirectories("\(staging)/\(payloadFolder)")
        for file in manifest.files {
            try FileSystem.rename("\(staging)/\(file.path)", to: "\(staging)/\(payloadFolder)/\(file.path)")
        }
        FileSystem.remove("\(staging)/\(Manifest.checksumName)")
        func sorted(_ lines: [(String, String)]) -> String {
            lines.sorted { Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8)) }.map { "\($0.1)  \($0.0)\n" }.joined()
        }
        try AtomicOutput.write(
            sorted(manifest.files.map { ("\(payloadFolder)/\($0.path)", $0.sha256) }), to: "\(staging)/\(payloadManifestName)")
        try AtomicOutput.write(declaration, to: "\(staging)/\(declarationName)")
        let bytes = manifest.files.reduce(0) { $0 + $1.bytes }
        let info = """
            Bag-Software-Agent: fieldpack \(ToolVersion.version)
            Bagging-Date: \(manifest.buildDate.prefix(10))
            External-Identifier: \(manifest.pipeline)
            Payload-Oxum: \(bytes).\(manifest.files.count)

            """
        try AtomicOutput.write(info, to: "\(staging)/\(infoName)")
        var tags: [(String, String)] = []
        for name in tagFiles where FileSystem.exists("\(staging)/\(name)") {
            tags.append((name, try SHA256.hex(ofFile: "\(staging)/\(name)").digest))
        }
        try AtomicOutput.write(sorted(tags), to: "\(staging)/\(tagManifestName)")
    }
}
