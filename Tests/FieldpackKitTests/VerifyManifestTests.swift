import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// What `fieldpack-verify` trusts of manifest.json and manifest-sha256.txt: the signature over
/// the very bytes it reads, no listed file standing for one of the folder's own, checksum lines
/// naming bundle files byte for byte, and a manifest it cannot read named by its line, alone.
@Suite struct VerifyManifestTests {
    /// A small bundle published into `directory/bundle`, with `extraFiles`, signed with `key`.
    private func bundle(_ directory: TemporaryDirectory, extraFiles: [String] = [], signedWith key: Ed25519Key? = nil) throws -> String {
        try BundleBuilder(options: try SmallBundle.options(in: directory)).run()
        var publisher = BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("bundle"), extraFiles: extraFiles)
        publisher.signingKey = key
        try publisher.publish()
        return directory.file("bundle")
    }

    /// Writes `manifest` as the bundle's manifest.json and its line of manifest-sha256.txt (with
    /// `extraLines`), as someone hiding an edit would.
    private func rewrite(_ bundle: String, manifest: String, extraLines: [String] = []) throws {
        try manifest.write(toFile: "\(bundle)/manifest.json", atomically: true, encoding: .utf8)
        let digest = String(try run("/usr/bin/sha256sum", ["manifest.json"], directory: bundle).stdout.prefix(64))
        let kept = try lines("\(bundle)/manifest-sha256.txt").filter { !$0.hasSuffix("  manifest.json") }
        try (kept + extraLines + ["\(digest)  manifest.json"]).map { $0 + "\n" }.joined()
            .write(toFile: "\(bundle)/manifest-sha256.txt", atomically: true, encoding: .utf8)
    }

    /// manifest.json as JSON objects, `change`d, written back with its checksum line.
    private func edit(_ bundle: String, extraLines: [String] = [], _ change: (inout [String: Any]) -> Void) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(bundle)/manifest.json"))
        var root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        change(&root)
        let text = String(decoding: try JSONSerialization.data(withJSONObject: root, options: [.sortedKeys]), as: UTF8.self)
        try rewrite(bundle, manifest: text, extraLines: extraLines)
    }

    @Test func theSignatureIsCheckedOverTheManifestBytesReadNotTheFileReadAgain() throws {
        let directory = try TemporaryDirectory()
        let keys = try ed25519KeyPair(in: directory)
        let bundle = try bundle(directory, signedWith: keys.privateKey)
        let key = keys.publicKey
        let signed = Array(try Data(contentsOf: URL(fileURLWithPath: "\(bundle)/manifest.json")))
        #expect(ManifestSignature.problem(bundle: bundle, manifest: signed, key: key) == nil)
        // Another manifest.json renamed in after verify read the signed one: the check is of the
        // bytes read, which verify then trusts and hashes, whatever the file is by then.
        let other = signed + Array(" ".utf8)
        try Data(other).write(to: URL(fileURLWithPath: "\(bundle)/manifest.json"))
        #expect(ManifestSignature.problem(bundle: bundle, manifest: signed, key: key) == nil)
        #expect(ManifestSignature.problem(bundle: bundle, manifest: other, key: key)
                == "does not verify: manifest.json is not the one signed with this key")
        #expect(ManifestSignature.problem(bundle: bundle, manifest: nil, key: key) == "no manifest.json to check it against")
    }

    /// Listed, the checks of the file set skipped it as the folder's own file: a signed manifest
    /// listing a `manifest.json.sig` or `manifest-sha256.txt` the folder lacks passed.
    @Test(arguments: ["manifest.json.sig", "manifest-sha256.txt", "bagit.txt", "Manifest.JSON"])
    func aManifestListingOneOfTheBundlesOwnFileNamesIsRefused(name: String) throws {
        let directory = try TemporaryDirectory()
        let bundle = try bundle(directory)
        let digest = String(repeating: "ab", count: 32)
        try edit(bundle, extraLines: ["\(digest)  \(name)"]) { root in
            root["files"] = (root["files"] as! [Any]) + [["path": name, "bytes": 123, "sha256": digest]]
        }
        let problems = BundleVerifier(directory: bundle).verify()
        #expect(problems.contains("\(bundle)/manifest.json: error: lists \(name), a name of the bundle's own files, which no manifest lists"), "\(problems)")
    }

    /// A file beside the database named like its journal is one the publisher never ships: SQLite
    /// plays a hot journal back, or a read-only open fails. Listed and present, it passed verify.
    @Test(arguments: ["content.sqlite-journal", "content.sqlite-wal", "Content.SQLite-shm"])
    func aManifestListingAFileSQLiteTakesForTheDatabasesJournalIsRefused(name: String) throws {
        let directory = try TemporaryDirectory()
        let bundle = try bundle(directory)
        try Data("not a journal\n".utf8).write(to: URL(fileURLWithPath: "\(bundle)/\(name)"))
        let digest = String(try run("/usr/bin/sha256sum", [name], directory: bundle).stdout.prefix(64))
        try edit(bundle, extraLines: ["\(digest)  \(name)"]) { root in
            root["files"] = (root["files"] as! [Any]) + [["path": name, "bytes": 14, "sha256": digest]]
        }
        let problems = BundleVerifier(directory: bundle).verify()
        #expect(problems.contains("\(bundle)/manifest.json: error: lists \(name), which SQLite would take for the database's journal"), "\(problems)")
    }

    /// As Swift strings, KELVIN SIGN + "ite.txt" equals "Kite.txt"; `sha256sum -c` opens another
    /// file. A checksum line names a bundle file by its bytes, ASCII only.
    @Test func aChecksumLineNamingAFileOnlyCanonicallyEquivalentToABundleFileIsRefused() throws {
        let directory = try TemporaryDirectory()
        let kite = try directory.write("Kite.txt", "hello\n")
        let bundle = try bundle(directory, extraFiles: [kite])
        #expect(BundleVerifier(directory: bundle).verify() == [])
        let path = "\(bundle)/manifest-sha256.txt"
        let original = try text(path)
        let kelvin = original.split(separator: "\n").map { $0.hasSuffix("  Kite.txt") ? $0.dropLast(8) + "\u{212A}ite.txt" : $0 }
            .map { $0 + "\n" }.joined()
        // Different bytes, one String to Swift.
        #expect(Array(kelvin.utf8) != Array(original.utf8) && kelvin == original)
        try kelvin.write(toFile: path, atomically: true, encoding: .utf8)
        let problems = BundleVerifier(directory: bundle).verify()
        #expect(problems.contains { $0.hasPrefix("\(path):") && $0.contains("error: lists \"\u{212A}ite.txt\", not a bundle file name") }, "\(problems)")
        #expect(problems.contains("\(path): error: does not list Kite.txt"), "\(problems)")
    }

    /// One problem, where the JSON breaks; not also every file of the folder "not listed".
    @Test func aManifestThatIsNotJSONIsNamedByItsLineAndColumnAlone() throws {
        let directory = try TemporaryDirectory()
        let bundle = try bundle(directory)
        try rewrite(bundle, manifest: "{\n  \"format\": \"fieldpack-bundle\"\n  \"files\": []\n}\n")
        #expect(BundleVerifier(directory: bundle).verify()
                == ["\(bundle)/manifest.json:3:3: error: not a fieldpack manifest, not JSON: expected ',' or '}' after an object's member, found a string (a missing comma?)"])
        try rewrite(bundle, manifest: "[1, 2]\n")
        #expect(BundleVerifier(directory: bundle).verify()
                == ["\(bundle)/manifest.json: error: not a fieldpack manifest (a JSON object whose format is \"fieldpack-bundle\")"])
    }

    /// A link to nothing in its place is one problem, not also "missing".
    @Test func aManifestThatIsALinkToNothingIsOneProblem() throws {
        let directory = try TemporaryDirectory()
        let bundle = try bundle(directory)
        try FileManager.default.removeItem(atPath: "\(bundle)/manifest.json")
        try FileManager.default.createSymbolicLink(atPath: "\(bundle)/manifest.json", withDestinationPath: directory.file("nowhere.json"))
        #expect(BundleVerifier(directory: bundle).verify()
                == ["\(bundle)/manifest.json: error: not a regular file: a bundle holds regular files only, never links or folders"])
    }

    @Test func aFilesEntryOfTheWrongShapeIsNamedByItsIndexAndKeys() throws {
        let directory = try TemporaryDirectory()
        let bundle = try bundle(directory)
        try edit(bundle) { root in
            var files = root["files"] as! [[String: Any]]
            files[0]["bytes"] = "37712"
            files[0].removeValue(forKey: "sha256")
            root["files"] = files + [[Any]()]
        }
        let problems = BundleVerifier(directory: bundle).verify()
        #expect(problems.contains("\(bundle)/manifest.json: error: files[0]: an entry (content.sqlite) with bytes is a string, expected a whole number, no sha256"), "\(problems)")
        #expect(problems.contains("\(bundle)/manifest.json: error: files[1]: is an array, not an object with path, bytes and sha256"), "\(problems)")
    }

    /// `files` as an object of entries (`{"0": {…}}`) is refused, as the app's decoder of an
    /// array refuses it, where its values were read as the list; a manifest without `files` too.
    @Test func aFilesListThatIsAnObjectOrMissingIsRefused() throws {
        let directory = try TemporaryDirectory()
        let bundle = try bundle(directory)
        try edit(bundle) { root in
            let files = root["files"] as! [[String: Any]]
            root["files"] = Dictionary(uniqueKeysWithValues: files.enumerated().map { (String($0.offset), $0.element) })
        }
        #expect(BundleVerifier(directory: bundle).verify().contains("\(bundle)/manifest.json: error: files is not an array of entries"))
        try edit(bundle) { root in root.removeValue(forKey: "files") }
        #expect(BundleVerifier(directory: bundle).verify().contains("\(bundle)/manifest.json: error: has no files list"))
    }

    /// `fieldpack-manifest --sha256` prints names as GNU sha256sum does, so `sha256sum -c` reads
    /// its output back: a backslash, line feed or carriage return escaped after a leading `\`.
    @Test func sha256LinesEscapeNamesAsSha256sumDoesAndCheckBack() throws {
        let directory = try TemporaryDirectory()
        var output = ""
        for name in ["plain.txt", "line\nfeed", "back\\slash", "carriage\rreturn"] {
            let path = try directory.write(name, "x")
            output += ChecksumList.line(digest: try SHA256.hex(ofFile: path).digest, name: name) + "\n"
        }
        #expect(output.hasPrefix("2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881  plain.txt\n\\2d71"))
        #expect(output.contains("  line\\nfeed\n") && output.contains("  back\\\\slash\n") && output.contains("  carriage\\rreturn\n"))
        let sums = try directory.write("sums", output)
        let check = try run("/usr/bin/sha256sum", ["-c", sums], directory: directory.path)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.split(separator: "\n").count == 4)
    }
}
