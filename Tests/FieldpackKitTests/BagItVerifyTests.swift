import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// `fieldpack-verify` on a BagIt bag (`fieldpack-manifest --bagit`): the app may download the bag
/// as well as the flat folder, so the bag gets the flat folder's checks, read from its `data/`,
/// plus the bag's own (declaration, tag manifest, payload manifest, Payload-Oxum).
@Suite struct BagItVerifyTests {
    /// A small bundle (database and costs report) published as a bag into `directory/bag`.
    private func bag(_ directory: TemporaryDirectory, signedWith key: Ed25519Key? = nil) throws -> String {
        try BundleBuilder(options: try SmallBundle.options(in: directory, name: "small-bag")).run()
        var publisher = BundlePublisher(
            database: directory.file("content.sqlite"), destination: directory.file("bag"),
            extraFiles: [directory.file("costs-report.json")])
        publisher.bagIt = true
        publisher.signingKey = key
        try publisher.publish()
        return directory.file("bag")
    }

    private func edit(_ path: String, _ change: (inout Data) -> Void) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        change(&data)
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// Rewrites the tag manifest's line for `name` with its current checksum, as someone hiding
    /// an edit would.
    private func rehashTag(_ name: String, in bag: String) throws {
        let digest = try run("/usr/bin/sha256sum", [name], directory: bag).stdout
        let lines = try lines("\(bag)/tagmanifest-sha256.txt").filter { !$0.hasSuffix("  \(name)") } + [String(digest.dropLast())]
        try lines.sorted { $0.dropFirst(66) < $1.dropFirst(66) }.map { $0 + "\n" }.joined()
            .write(toFile: "\(bag)/tagmanifest-sha256.txt", atomically: true, encoding: .utf8)
    }

    @Test func aBagOfAGoodBundleVerifiesWithAndWithoutItsSignature() throws {
        let directory = try TemporaryDirectory()
        let keys = try ed25519KeyPair(in: directory)
        let bag = try bag(directory, signedWith: keys.privateKey)
        #expect(FileManager.default.fileExists(atPath: "\(bag)/bagit.txt"))
        #expect(FileManager.default.fileExists(atPath: "\(bag)/manifest.json.sig"))
        #expect(BundleVerifier(directory: bag).verify() == [])
        #expect(BundleVerifier(directory: bag, publicKey: keys.publicKey).verify() == [])
    }

    @Test func aChangedPayloadByteIsNamedByItsPathInTheBag() throws {
        let directory = try TemporaryDirectory()
        let bag = try bag(directory)
        try edit("\(bag)/data/content.sqlite") { $0[200] ^= 0x01 }
        let problems = BundleVerifier(directory: bag).verify()
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.allSatisfy { $0.hasPrefix("\(bag)/data/content.sqlite: error: SHA-256 ") }, "\(problems)")
        #expect(problems.contains { $0.contains("does not match manifest-sha256.txt") })
        #expect(problems.contains { $0.contains("does not match manifest.json") })
    }

    @Test func aFileTheBagDoesNotListIsRefusedInDataAndAtTheTop() throws {
        let directory = try TemporaryDirectory()
        let bag = try bag(directory)
        try "x".write(toFile: "\(bag)/data/extra.json", atomically: true, encoding: .utf8)
        try "x".write(toFile: "\(bag)/notes.txt", atomically: true, encoding: .utf8)
        let problems = BundleVerifier(directory: bag).verify()
        #expect(problems.contains("\(bag)/data/extra.json: error: unexpected file: not listed in the manifest"), "\(problems)")
        #expect(problems.contains("\(bag)/notes.txt: error: unexpected file: not part of a fieldpack bag"), "\(problems)")
    }

    /// A stray file in data/ named as the bag's payload manifest is named by its path in data/,
    /// not as the bag's own manifest-sha256.txt beside it.
    @Test func aStrayChecksumFileInDataIsNamedInData() throws {
        let directory = try TemporaryDirectory()
        let bag = try bag(directory)
        try "x".write(toFile: "\(bag)/data/manifest-sha256.txt", atomically: true, encoding: .utf8)
        let problems = BundleVerifier(directory: bag).verify()
        #expect(problems.contains("\(bag)/data/manifest-sha256.txt: error: unexpected file: not listed in the manifest"), "\(problems)")
        #expect(!problems.contains { $0.hasPrefix("\(bag)/manifest-sha256.txt:") }, "\(problems)")
    }

    @Test func anEditedManifestOrTagFileIsRefusedByTheTagManifest() throws {
        let directory = try TemporaryDirectory()
        let bag = try bag(directory)
        try edit("\(bag)/manifest.json") { $0.append(contentsOf: Array(" ".utf8)) }
        try edit("\(bag)/bag-info.txt") { $0.append(contentsOf: Array("Contact-Name: someone\n".utf8)) }
        let problems = BundleVerifier(directory: bag).verify()
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("\(bag)/manifest.json: error: SHA-256 ") && $0.contains("tagmanifest-sha256.txt") }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("\(bag)/bag-info.txt: error: SHA-256 ") && $0.contains("tagmanifest-sha256.txt") }, "\(problems)")
    }

    @Test func aPayloadOxumThatDoesNotMatchThePayloadIsRefused() throws {
        let directory = try TemporaryDirectory()
        let bag = try bag(directory)
        let info = try text("\(bag)/bag-info.txt")
        let oxum = try #require(info.split(separator: "\n").first { $0.hasPrefix("Payload-Oxum: ") })
        try info.replacingOccurrences(of: String(oxum), with: "Payload-Oxum: 10.1")
            .write(toFile: "\(bag)/bag-info.txt", atomically: true, encoding: .utf8)
        try rehashTag("bag-info.txt", in: bag)
        #expect(BundleVerifier(directory: bag).verify()
                == ["\(bag)/bag-info.txt: error: Payload-Oxum 10.1 does not match the payload (\(oxum.dropFirst("Payload-Oxum: ".count)))"])
    }

    /// `fieldpack-verify` on `bag` with the files `unreadable` (paths in it) made unreadable, run
    /// as a user who may not read them (as root, through setpriv as nobody: root reads any file).
    private func verifyAsAnotherUser(_ bag: String, in directory: TemporaryDirectory, unreadable: [String]) throws -> ProcessResult {
        let bin = try #require(ProcessInfo.processInfo.environment["FIELDPACK_BIN"])
        // The other user must reach the bag (the temporary folder is private to its owner).
        #expect(chmod(directory.path, 0o755) == 0)
        #expect(try run("/bin/chmod", ["-R", "a+rX", bag]).status == 0)
        for path in unreadable { #expect(chmod("\(bag)/\(path)", 0) == 0) }
        let verify = "\(bin)/fieldpack-verify"
        return getuid() == 0
            ? try run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", verify, bag])
            : try run(verify, [bag])
    }

    /// A tag file that cannot be read is a problem, never a pass, and a payload file that cannot
    /// be read is one that says why. The verifier runs as a user who may not read them (as
    /// root, through setpriv as nobody: root reads any file).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["FIELDPACK_BIN"] != nil))
    func aTagFileThatCannotBeReadFailsTheBag() throws {
        let directory = try TemporaryDirectory()
        let bag = try bag(directory)
        let result = try verifyAsAnotherUser(bag, in: directory, unreadable: ["bag-info.txt", "data/costs-report.json"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("\(bag)/bag-info.txt: error: cannot be read"), "\(result.stderr)")
        // With the system's reason.
        #expect(result.stderr.contains("costs-report.json: error: cannot be read: ") && result.stderr.contains("Permission denied"), "\(result.stderr)")
    }

    /// The bag's two checksum files, unreadable, are said so with the system's reason: the payload
    /// manifest was "missing", and the tag manifest's checks were skipped without a word.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["FIELDPACK_BIN"] != nil))
    func aChecksumFileOfTheBagThatCannotBeReadIsSaidSoWithTheReason() throws {
        let directory = try TemporaryDirectory()
        let bag = try bag(directory)
        let result = try verifyAsAnotherUser(bag, in: directory, unreadable: ["tagmanifest-sha256.txt", "manifest-sha256.txt"])
        #expect(result.status == 1, "\(result.stderr)")
        for name in ["tagmanifest-sha256.txt", "manifest-sha256.txt"] {
            #expect(result.stderr.contains("\(bag)/\(name): error: cannot be read: ") && result.stderr.contains("Permission denied"), "\(result.stderr)")
        }
        #expect(!result.stderr.contains("manifest-sha256.txt: error: missing"), "\(result.stderr)")
    }

    /// A manifest.json in data/ (the bag's is at its top) is refused by name, even with the
    /// optional Payload-Oxum taken out and the tag manifest re-hashed; and data/ must be a folder,
    /// never a link to one.
    @Test func aManifestInDataOrADataFolderThatIsALinkIsRefused() throws {
        let directory = try TemporaryDirectory()
        let bag = try bag(directory)
        try "{}".write(toFile: "\(bag)/data/manifest.json", atomically: true, encoding: .utf8)
        let info = try text("\(bag)/bag-info.txt").split(separator: "\n").filter { !$0.hasPrefix("Payload-Oxum:") }.joined(separator: "\n") + "\n"
        try info.write(toFile: "\(bag)/bag-info.txt", atomically: true, encoding: .utf8)
        try rehashTag("bag-info.txt", in: bag)
        #expect(BundleVerifier(directory: bag).verify().contains("\(bag)/data/manifest.json: error: unexpected file: a bag's manifest.json is at its top, not in data/"))

        let linked = try TemporaryDirectory()
        let other = try self.bag(linked)
        try FileManager.default.moveItem(atPath: "\(other)/data", toPath: linked.file("payload"))
        try FileManager.default.createSymbolicLink(atPath: "\(other)/data", withDestinationPath: linked.file("payload"))
        #expect(BundleVerifier(directory: other).verify().contains("\(other)/data: error: not a folder: a bag's payload folder is a folder, never a link"))
    }

    /// A FIFO in place of a bag's declaration or its bag-info.txt is refused without being
    /// opened (the open would wait for a writer for ever).
    @Test(.timeLimit(.minutes(1)))
    func aFIFOForABagsOwnFileIsRefusedWithoutOpeningIt() throws {
        let directory = try TemporaryDirectory()
        let bag = try bag(directory)
        for name in ["bagit.txt", "bag-info.txt"] {
            try FileManager.default.removeItem(atPath: "\(bag)/\(name)")
            #expect(mkfifo("\(bag)/\(name)", 0o644) == 0)
        }
        let problems = BundleVerifier(directory: bag).verify()
        #expect(problems.contains { $0.hasPrefix("\(bag)/bag-info.txt: error: not a regular file") }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("\(bag)/bagit.txt: error: not") }, "\(problems)")
    }

    @Test func aBagOfAnotherVersionOrAPayloadManifestOutsideDataIsRefused() throws {
        let directory = try TemporaryDirectory()
        let bag = try bag(directory)
        try "BagIt-Version: 0.97\nTag-File-Character-Encoding: UTF-8\n".write(toFile: "\(bag)/bagit.txt", atomically: true, encoding: .utf8)
        try rehashTag("bagit.txt", in: bag)
        try (text("\(bag)/manifest-sha256.txt") + String(repeating: "0", count: 64) + "  ../outside.txt\n")
            .write(toFile: "\(bag)/manifest-sha256.txt", atomically: true, encoding: .utf8)
        try rehashTag("manifest-sha256.txt", in: bag)
        let problems = BundleVerifier(directory: bag).verify()
        #expect(problems.contains { $0.hasPrefix("\(bag)/bagit.txt: error: not a BagIt 1.0 declaration") }, "\(problems)")
        #expect(problems.contains("\(bag)/manifest-sha256.txt: error: lists ../outside.txt, which is not a payload file under data/"), "\(problems)")
    }

    /// A bag whose declaration was lost is one problem that says so, not a dozen problems of a
    /// flat bundle (`content.sqlite: missing`, `data: unexpected file`, …).
    @Test func aBagWithoutItsDeclarationIsOneProblemNamingIt() throws {
        let directory = try TemporaryDirectory()
        let bag = try bag(directory)
        try FileManager.default.removeItem(atPath: "\(bag)/bagit.txt")
        #expect(BundleVerifier(directory: bag).verify()
                == ["\(bag): error: holds data/ and tagmanifest-sha256.txt but no bagit.txt: a BagIt bag without its declaration, not a bundle"])
    }

    /// The flat folder is still the flat folder: a bag's files left in one do not make it a bag.
    @Test func aFlatFolderWithoutBagitTxtIsCheckedAsAFlatFolder() throws {
        let directory = try TemporaryDirectory()
        try BundleBuilder(options: try SmallBundle.options(in: directory, name: "small")).run()
        let flat = directory.file("flat")
        try BundlePublisher(database: directory.file("content.sqlite"), destination: flat).publish()
        #expect(BundleVerifier(directory: flat).verify() == [])
        try "x".write(toFile: "\(flat)/tagmanifest-sha256.txt", atomically: true, encoding: .utf8)
        #expect(BundleVerifier(directory: flat).verify()
                == ["\(flat)/tagmanifest-sha256.txt: error: unexpected file: not listed in the manifest"])
    }
}
