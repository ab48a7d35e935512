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

    public init(database: String, destination: String, extraFiles: [String] = []) {
        self.database = database
        self.destination = destination
        self.extraFiles = extraFiles
    }

    @discardableResult
    public func publish() throws -> Manifest {
        let parent = directory(of: destination)
        let name = destination.split(separator: "/").last.map(String.init) ?? destination
        let staging = "\(parent)/.\(name).staging-\(getpid())"
        let retired = "\(parent)/.\(name).retired-\(getpid())"
        FileSystem.removeTree(staging)
        try FileSystem.makeDirectories(staging)
        var published = false
        defer { if !published { FileSystem.removeTree(staging) } }

        let staged = "\(staging)/\(Manifest.databaseName)"
        if link(database, staged) != 0 {
            // Another file system: copy instead.
            let output = try AtomicOutput(path: staged)
            try output.append(contentsOf: database)
            try output.commit()
        }
        for file in extraFiles {
            let name = file.split(separator: "/").last.map(String.init) ?? file
            guard name != Manifest.databaseName, name != Manifest.jsonName, name != Manifest.checksumName,
                  name != ManifestSignature.fileName
            else {
                throw FieldpackError(path: file, "cannot publish a file named like the bundle's own files")
            }
            let output = try AtomicOutput(path: "\(staging)/\(name)")
            try output.append(contentsOf: file)
            try output.commit()
        }
        let manifest = try Manifest.describe(bundle: staging, inputs: inputs)
        try manifest.write(to: staging)
        if let signingKey { try ManifestSignature.sign(bundle: staging, with: signingKey) }
        if bagIt { try BagItLayout.arrange(staging: staging, manifest: manifest) }
        try FileSystem.fsyncDirectory(staging)

        if FileSystem.exists(destination) {
            try FileSystem.rename(destination, to: retired)
        }
        try FileSystem.rename(staging, to: destination)
        published = true
        FileSystem.removeTree(retired)
        return manifest
    }
}
