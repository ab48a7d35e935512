import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// The published folder (`fieldpack-manifest`): `manifest.json`, `manifest-sha256.txt`, included
/// files, the whole-folder swap, the BagIt layout's tag files, and `--sha256`.
@Suite struct ManifestTests {
    static let binaries = ProcessInfo.processInfo.environment["FIELDPACK_BIN"]

    private func json(_ path: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
    }

    @Test func manifestJSONGivesEveryDocumentedKeyInOrderWithTheDatabasesValues() throws {
        let directory = try TemporaryDirectory()
        try BundleBuilder(options: try SmallBundle.options(in: directory, name: "small-one")).run()
        // Published without an inputs file.
        try BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("bundle")).publish()
        let path = directory.file("bundle/manifest.json")
        let manifest = try json(path)
        #expect(manifest["format"] as? String == "fieldpack-bundle")
        #expect(manifest["manifest_version"] as? Int == 1)
        #expect(manifest["pipeline"] as? String == "small-one")
        #expect(manifest["tool_version"] as? String == "0.1.0")
        #expect(manifest["build_date"] as? String == SmallBundle.newestUpdate)
        #expect(manifest["schema_version"] as? Int == Migrations.latestVersion)
        #expect(manifest["schema_fingerprint"] as? String == (try SmallBundle.lockedFingerprint()))
        #expect(manifest["application_id"] as? Int == 0x4650_414B)  // "FPAK"
        #expect((manifest["inputs"] as? [Any])?.isEmpty == true)
        let database = try Database(path: directory.file("bundle/content.sqlite"), mode: .immutable)
        var counts: [String: Int] = [:]
        for table in SmallBundle.tables { counts[table] = Int(try database.int("SELECT count(*) FROM \(table)") ?? -1) }
        #expect(manifest["rows"] as? [String: Int] == counts)
        // Keys in the documented order, indented, one file entry.
        let written = try text(path)
        let order = ["format", "manifest_version", "pipeline", "tool_version", "build_date", "schema_version", "schema_fingerprint",
                     "application_id", "files", "rows", "inputs"]
        let offsets = order.map { written.range(of: "\"\($0)\":")?.lowerBound }
        #expect(offsets.allSatisfy { $0 != nil })
        #expect(offsets.compactMap { $0 } == offsets.compactMap { $0 }.sorted())
        #expect(written.hasPrefix("{\n  \"format\": \"fieldpack-bundle\",\n"), "\(written.prefix(80))")
        let size = try FileManager.default.attributesOfItem(atPath: directory.file("bundle/content.sqlite"))[.size] as! Int
        let files = try #require(manifest["files"] as? [[String: Any]])
        #expect(files.count == 1)
        #expect(files.first?["path"] as? String == "content.sqlite")
        #expect(files.first?["bytes"] as? Int == size)
        #expect(files.first?["sha256"] as? String == (try SmallBundle.sha256sum(directory.file("bundle/content.sqlite"))))
    }

    /// `inputs.json` goes into `manifest.json` as it is written: anything but one JSON array
    /// (which could add keys the app reads) is refused naming it, and nothing is published.
    @Test(arguments: [#"[], "schema_version": 8, "rows": {}"#, "", "[{\"path\": \"a\"", #"{"path": "a"}"#, #"[{"path": "a", "path": "b"}]"#])
    func anInputsFileThatIsNotOneJSONArrayIsRefusedNamingIt(inputs: String) throws {
        let directory = try TemporaryDirectory()
        try BundleBuilder(options: try SmallBundle.options(in: directory, name: "small-one")).run()
        let path = try directory.write("inputs.json", inputs + "\n")
        var publisher = BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("bundle"))
        publisher.inputs = path
        let error = try #require(throws: FieldpackError.self) { try publisher.publish() }
        #expect(error.path == path)
        #expect(error.message.hasPrefix("is not the bundle stage's inputs list"), "\(error.message)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("bundle")))
    }

    @Test func theChecksumFileCoversEveryPayloadFileAndTheManifestInByteOrder() throws {
        let directory = try TemporaryDirectory()
        try BundleBuilder(options: try SmallBundle.options(in: directory)).run()
        // Upper case sorts before lower case in byte order.
        let included = [
            try directory.write("reports/b-report.json", "{\"b\": 1}\n"),
            try directory.write("reports/Zeta.json", "{}\n"),
            try directory.write("reports/alpha.json", "[]\n"),
        ]
        let bundle = directory.file("bundle")
        try BundlePublisher(database: directory.file("content.sqlite"), destination: bundle, extraFiles: included).publish()
        let names = ["Zeta.json", "alpha.json", "b-report.json", "content.sqlite", "manifest.json"]
        // sha256sum's own lines, in that order.
        let expected = try run("/usr/bin/sha256sum", names, directory: bundle).stdout
        #expect(try text("\(bundle)/manifest-sha256.txt") == expected)
        #expect(try FileManager.default.contentsOfDirectory(atPath: bundle).sorted()
                == ["Zeta.json", "alpha.json", "b-report.json", "content.sqlite", "manifest-sha256.txt", "manifest.json"])
        // The manifest lists the payload in the same order, each with its size.
        let files = try #require(try json("\(bundle)/manifest.json")["files"] as? [[String: Any]])
        #expect(files.map { $0["path"] as? String } == ["Zeta.json", "alpha.json", "b-report.json", "content.sqlite"])
        #expect(files.first?["bytes"] as? Int == 3)
        #expect(files[2]["bytes"] as? Int == 9)
        #expect(BundleVerifier(directory: bundle).verify() == [])
    }

    /// A hidden file (`.notes.txt`) is never payload (the manifest leaves hidden names out): it
    /// is refused up front with the rule, not published and then failed as "unexpected file".
    @Test func aHiddenFileToIncludeIsRefusedUpFrontWithTheRule() throws {
        let directory = try TemporaryDirectory()
        let bundle = try SmallBundle.publish(in: directory)
        let hidden = try directory.write("elsewhere/.notes.txt", "notes\n")
        let publisher = BundlePublisher(database: directory.file("content.sqlite"), destination: bundle, extraFiles: [hidden])
        let error = try #require(throws: FieldpackError.self) { try publisher.publish() }
        #expect(error.path == hidden)
        #expect(error.message == "cannot publish \".notes.txt\": a bundle's file names are \(Manifest.portableNames)")
        #expect(Manifest.portableNames.contains("not starting with '.'"))
        #expect(BundleVerifier(directory: bundle).verify() == [])
    }

    @Test(arguments: ["content.sqlite", "manifest.json", "manifest-sha256.txt", "manifest.json.sig", "bagit.txt", "data"])
    func aFileNamedLikeTheBundlesOwnFilesOrABagsIsRefusedAndThePublishedFolderStays(name: String) throws {
        let directory = try TemporaryDirectory()
        let bundle = try SmallBundle.publish(in: directory)
        let before = try text("\(bundle)/manifest.json")
        let impostor = try directory.write("elsewhere/\(name)", "not the bundle's\n")
        let publisher = BundlePublisher(database: directory.file("content.sqlite"), destination: bundle, extraFiles: [impostor])
        let error = try #require(throws: FieldpackError.self) { try publisher.publish() }
        #expect(error.path == impostor)
        #expect(error.message.hasPrefix("cannot publish a file named like the bundle's own files or a bag's ("))
        #expect(try text("\(bundle)/manifest.json") == before)
        #expect(BundleVerifier(directory: bundle).verify() == [])
        // No staging folder left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") } == [])
    }

    @Test func republishingSwapsInTheWholeFolderAndLeavesNothingBesideIt() throws {
        let directory = try TemporaryDirectory()
        try BundleBuilder(options: try SmallBundle.options(in: directory)).run()
        let bundle = directory.file("bundle")
        let report = directory.file("costs-report.json")
        try BundlePublisher(database: directory.file("content.sqlite"), destination: bundle, extraFiles: [report]).publish()
        #expect(FileManager.default.fileExists(atPath: "\(bundle)/costs-report.json"))
        let first = try text("\(bundle)/manifest.json")
        // Published again without the report: the old folder's files do not survive.
        try BundlePublisher(database: directory.file("content.sqlite"), destination: bundle).publish()
        #expect(try FileManager.default.contentsOfDirectory(atPath: bundle).sorted() == ["content.sqlite", "manifest-sha256.txt", "manifest.json"])
        #expect(try text("\(bundle)/manifest.json") != first)
        #expect(BundleVerifier(directory: bundle).verify() == [])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") } == [])
        // The same database published twice gives the same manifest bytes.
        let again = directory.file("again")
        try BundlePublisher(database: directory.file("content.sqlite"), destination: again).publish()
        #expect(try text("\(again)/manifest.json") == text("\(bundle)/manifest.json"))
        #expect(try text("\(again)/manifest-sha256.txt") == text("\(bundle)/manifest-sha256.txt"))
    }

    @Test func theBagsTagFilesNameTheAgentTheBuildDayThePipelineAndThePayload() throws {
        let directory = try TemporaryDirectory()
        try BundleBuilder(options: try SmallBundle.options(in: directory, name: "small-bag")).run()
        var publisher = BundlePublisher(
            database: directory.file("content.sqlite"), destination: directory.file("bag"), extraFiles: [directory.file("costs-report.json")])
        publisher.bagIt = true
        try publisher.publish()
        let bag = directory.file("bag")
        func size(_ path: String) throws -> Int { try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int }
        let payload = try size("\(bag)/data/content.sqlite") + size("\(bag)/data/costs-report.json")
        #expect(try text("\(bag)/bag-info.txt") == """
            Bag-Software-Agent: fieldpack 0.1.0
            Bagging-Date: 2024-05-01
            External-Identifier: small-bag
            Payload-Oxum: \(payload).2

            """)
        #expect(try text("\(bag)/manifest-sha256.txt")
                == run("/usr/bin/sha256sum", ["data/content.sqlite", "data/costs-report.json"], directory: bag).stdout)
        #expect(try text("\(bag)/tagmanifest-sha256.txt")
                == run("/usr/bin/sha256sum", ["bag-info.txt", "bagit.txt", "manifest-sha256.txt", "manifest.json"], directory: bag).stdout)
    }

    @Test func aKeyThatIsNotAnEd25519PEMIsRefusedByItsPath() throws {
        let directory = try TemporaryDirectory()
        let notPEM = try directory.write("key.pem", "just text\n")
        let notPEMError = try #require(throws: FieldpackError.self) { try Ed25519Key.privateKey(at: notPEM) }
        #expect(notPEMError.path == notPEM)
        #expect(notPEMError.message == "not a PEM private key")
        let rsa = directory.file("rsa.pem")
        #expect(try run("/usr/bin/openssl", ["genpkey", "-algorithm", "rsa", "-pkeyopt", "rsa_keygen_bits:1024", "-out", rsa]).status == 0)
        let rsaError = try #require(throws: FieldpackError.self) { try Ed25519Key.privateKey(at: rsa) }
        #expect(rsaError.path == rsa)
        #expect(rsaError.message == "not an Ed25519 key (make one with: openssl genpkey -algorithm ed25519)")
        // Encrypted: libcrypto's own callback asked for its pass phrase on the terminal (a batch
        // run waited), or printed its prompt twice and the key was "not a PEM private key".
        let encrypted = directory.file("encrypted.pem")
        let made = try run("/usr/bin/openssl", ["genpkey", "-algorithm", "ed25519", "-aes-256-cbc", "-pass", "pass:secret", "-out", encrypted])
        #expect(made.status == 0, "\(made.stderr)")
        let encryptedError = try #require(throws: FieldpackError.self) { try Ed25519Key.privateKey(at: encrypted) }
        #expect(encryptedError.path == encrypted)
        #expect(encryptedError.message.hasPrefix("is an encrypted private key, and a batch run has no one to type its pass phrase"))
    }

    @Test(.enabled(if: binaries != nil))
    func sha256PrintsWhatSha256sumPrintsAndItsSummaryOnStderr() throws {
        let directory = try TemporaryDirectory()
        try directory.write("empty", "")
        try directory.write("with space.txt", "fieldpack\n")
        // Larger than one read of the hasher's buffer (1 MiB).
        try Data((0..<(3 << 20) + 7).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) })
            .write(to: URL(fileURLWithPath: directory.file("large.bin")))
        let names = ["empty", "with space.txt", "large.bin"]
        let result = try run("\(try #require(Self.binaries))/fieldpack-manifest", ["--sha256"] + names, directory: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == (try run("/usr/bin/sha256sum", names, directory: directory.path).stdout))
        #expect(result.stderr.hasPrefix("fieldpack-manifest: 3 file(s) hashed in "), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test(.enabled(if: binaries != nil))
    func theManifestCommandPublishesTheDatabaseIncludedFilesAndInputs() throws {
        let directory = try TemporaryDirectory()
        try BundleBuilder(options: try SmallBundle.options(in: directory)).run()
        let bundle = directory.file("out/bundle")
        let result = try run("\(try #require(Self.binaries))/fieldpack-manifest", [
            directory.file("content.sqlite"), "--output", bundle, "--inputs", directory.file("inputs.json"),
            "--include", directory.file("costs-report.json"),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("fieldpack-manifest: 2 file(s) hashed in "), "\(result.stderr)")
        #expect(BundleVerifier(directory: bundle).verify() == [])
        let manifest = try json("\(bundle)/manifest.json")
        #expect((manifest["files"] as? [[String: Any]])?.map { $0["path"] as? String } == ["content.sqlite", "costs-report.json"])
        // The inputs are the bundle stage's inputs.json, as written.
        let inputs = try #require(manifest["inputs"] as? [[String: Any]])
        #expect(inputs.map { $0["path"] as? String } == [directory.file("page.json")])
        #expect(inputs.first?["sha256"] as? String == (try SmallBundle.sha256sum(directory.file("page.json"))))
    }
}
