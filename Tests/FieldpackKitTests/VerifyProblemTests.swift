import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// The problems `fieldpack-verify` names that VerifyTests does not reach: a path that is not a
/// bundle, a damaged checksum file, a manifest that is not fieldpack's, and databases that pass
/// their checksums but not the app's checks; and the executable's streams.
@Suite struct VerifyProblemTests {
    static let binaries = ProcessInfo.processInfo.environment["FIELDPACK_BIN"]

    /// Edits the small bundle's database (hard-linked into `bundle/`) and publishes it again,
    /// consistently, into `republished/`.
    private func republished(_ directory: TemporaryDirectory, after sql: String) throws -> String {
        try SmallBundle.publish(in: directory)
        do {
            let database = try Database(path: directory.file("content.sqlite"))
            try database.execute(sql)
        }
        try BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("republished")).publish()
        return directory.file("republished")
    }

    @Test func aPathThatIsNotAFolderIsNotABundleAndOneThatIsNothingDoesNotExist() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("content.sqlite", "x")
        #expect(BundleVerifier(directory: file).verify() == ["\(file): error: not a bundle folder"])
        let missing = directory.file("nowhere")
        #expect(BundleVerifier(directory: missing).verify() == ["\(missing): error: does not exist"])
    }

    @Test func aChecksumLineNotInSha256sumFormatIsNamedByItsLineNumber() throws {
        let directory = try TemporaryDirectory()
        let bundle = try SmallBundle.publish(in: directory)
        let path = "\(bundle)/manifest-sha256.txt"
        #expect(try lines(path).count == 2)
        try (try text(path) + "d41d8cd98f00b204e9800998ecf8427e  short-digest.txt\n").write(toFile: path, atomically: true, encoding: .utf8)
        #expect(BundleVerifier(directory: bundle).verify() == ["\(path):3: error: not a checksum line (64 hex digits, whitespace, a path)"])
    }

    /// What RFC 8493 and `sha256sum -c` accept is accepted: one space or a tab, `sha256sum -b`'s
    /// ` *`, upper-case hex, CRLF line ends. The same digests, written another way.
    @Test(arguments: ["one space", "tab", "binary", "upper case", "crlf"])
    func aChecksumLineWrittenAsRFC8493AllowsIsRead(variant: String) throws {
        let directory = try TemporaryDirectory()
        let bundle = try SmallBundle.publish(in: directory)
        let path = "\(bundle)/manifest-sha256.txt"
        let rewritten = try lines(path).map { line -> String in
            let digest = String(line.prefix(64)), name = String(line.dropFirst(66))
            switch variant {
            case "one space": return "\(digest) \(name)"
            case "tab": return "\(digest)\t\(name)"
            case "binary": return "\(digest) *\(name)"
            case "upper case": return "\(digest.uppercased())  \(name)"
            default: return "\(digest)  \(name)\r"
            }
        }
        try (rewritten.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        #expect(BundleVerifier(directory: bundle).verify() == [])
    }

    @Test func aChecksumFileThatIsMissingOmitsOrAddsAFileIsRefused() throws {
        let directory = try TemporaryDirectory()
        let bundle = try SmallBundle.publish(in: directory)
        let path = "\(bundle)/manifest-sha256.txt"
        let original = try text(path)
        try FileManager.default.removeItem(atPath: path)
        #expect(BundleVerifier(directory: bundle).verify() == ["\(path): error: missing"])
        // A link in its place is said to be one, not also "missing".
        let elsewhere = try directory.write("elsewhere-sha256.txt", original)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: elsewhere)
        let linked = BundleVerifier(directory: bundle).verify()
        #expect(linked.contains { $0.hasPrefix("\(path): error: not a regular file") } && !linked.contains("\(path): error: missing"), "\(linked)")
        try FileManager.default.removeItem(atPath: path)
        try original.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(BundleVerifier(directory: bundle).verify() == [])
        let kept = try lines(path).filter { $0.hasSuffix("  manifest.json") }
        try #require(kept.count == 1)
        try (kept + [String(repeating: "0", count: 64) + "  ghost.txt"]).map { $0 + "\n" }.joined()
            .write(toFile: path, atomically: true, encoding: .utf8)
        #expect(BundleVerifier(directory: bundle).verify() == [
            "\(path): error: does not list content.sqlite",
            "\(path): error: lists ghost.txt, which the manifest does not",
        ])
    }

    @Test func aManifestThatIsNotFieldpacksIsRefusedAndNothingIsTrustedFromIt() throws {
        let directory = try TemporaryDirectory()
        let bundle = try SmallBundle.publish(in: directory)
        let manifest = "\(bundle)/manifest.json"
        try "{\"format\": \"someone-else\", \"files\": []}\n".write(toFile: manifest, atomically: true, encoding: .utf8)
        // Its checksum line made right, so that only the content is wrong.
        let checksums = "\(bundle)/manifest-sha256.txt"
        let digest = try SmallBundle.sha256sum(manifest)
        try (try lines(checksums).map { $0.hasSuffix("  manifest.json") ? "\(digest)  manifest.json" : $0 }.map { $0 + "\n" }.joined())
            .write(toFile: checksums, atomically: true, encoding: .utf8)
        // One problem: which files the folder should hold is not known, and each would be one more.
        #expect(BundleVerifier(directory: bundle).verify() == [
            "\(manifest): error: not a fieldpack manifest (a JSON object whose format is \"fieldpack-bundle\")",
        ])
    }

    /// The manifest's check opens the database while the files are hashed
    /// (`checksDatabaseWhileHashing`): it finds what checking the database after the checksums
    /// finds, and tells none of the database's problems when a checksum fails.
    @Test func checkingTheDatabaseWhileTheFilesAreHashedFindsTheSameProblems() throws {
        func early(_ bundle: String) -> [String] {
            var verifier = BundleVerifier(directory: bundle)
            verifier.checksDatabaseWhileHashing = true
            return verifier.verify()
        }
        let goodFolder = try TemporaryDirectory()
        let good = try SmallBundle.publish(in: goodFolder)
        #expect(early(good) == [])
        let directory = try TemporaryDirectory()
        let bundle = try republished(directory, after: "PRAGMA user_version = 99")
        let problems = BundleVerifier(directory: bundle).verify()
        #expect(problems.count == 1 && problems[0].contains("schema version 99"))
        #expect(early(bundle) == problems)
        // The database's header made to say schema 99 in the good bundle: now its checksum fails
        // first, and the database, which the checksums no longer vouch for, is not reported on.
        let database = "\(good)/content.sqlite"
        let handle = try #require(FileHandle(forUpdatingAtPath: database))
        try handle.seek(toOffset: 60)
        try handle.write(contentsOf: Data([0, 0, 0, 99]))
        try handle.close()
        let tampered = BundleVerifier(directory: good).verify()
        #expect(!tampered.isEmpty && tampered.allSatisfy { $0.contains("SHA-256") })
        #expect(early(good) == tampered)
        withExtendedLifetime(goodFolder) {}
    }

    @Test func aDatabaseOfASchemaVersionThisToolDoesNotKnowIsRefused() throws {
        let directory = try TemporaryDirectory()
        let bundle = try republished(directory, after: "PRAGMA user_version = 99")
        #expect(BundleVerifier(directory: bundle).verify()
                == ["\(bundle)/content.sqlite: error: schema version 99 is not one this fieldpack knows (1…\(Migrations.latestVersion))"])
    }

    @Test func aSchemaEditedByHandIsRefusedByItsFingerprint() throws {
        let directory = try TemporaryDirectory()
        let bundle = try republished(directory, after: "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
        let golden = try SmallBundle.lockedFingerprint()
        let actual = try SchemaFingerprint.compute(try Database(path: "\(bundle)/content.sqlite", mode: .immutable))
        #expect(actual != golden)
        #expect(BundleVerifier(directory: bundle).verify() == [
            "\(bundle)/content.sqlite: error: schema fingerprint \(actual) is not the golden one for version \(Migrations.latestVersion) (\(golden))",
            "\(bundle)/content.sqlite: error: schema fingerprint \(actual) does not match the manifest's \(golden)",
            "\(bundle)/content.sqlite: error: table notes is not in schema version \(Migrations.latestVersion)",
        ])
    }

    /// A bundle this fieldpack built always says which licences it allowed: with that one row
    /// deleted, every photo check was skipped, and photos without https or a credit verified.
    @Test func aBundleBuiltHereWithoutItsAllowedLicencesIsRefusedAndItsPhotosStillChecked() throws {
        let directory = try TemporaryDirectory()
        let bundle = try republished(directory, after: """
            DELETE FROM bundle_info WHERE key = 'photos.licenses_allowed';
            UPDATE photos SET url = replace(url, 'https://', 'http://'), credit = NULL
            """)
        let problems = BundleVerifier(directory: bundle).verify()
        #expect(problems.contains("\(bundle)/content.sqlite: error: bundle_info gives no photos.licenses_allowed, which a bundle built at schema \(Migrations.latestVersion) always gives"), "\(problems)")
        #expect(problems.contains { $0.contains("photo(s) without an https URL") } && problems.contains { $0.contains("photo(s) without a credit") }, "\(problems)")
    }

    /// SQLite makes `sqlite_stat1` and `sqlite_stat4`; any other `sqlite_stat…` table is one
    /// the migrations do not make (a table of anything under that name passed every check).
    @Test func aTableNamedLikeSQLitesStatisticsIsRefused() throws {
        let directory = try TemporaryDirectory()
        let bundle = try republished(directory, after: """
            CREATE TABLE zz(payload); INSERT INTO zz VALUES (randomblob(1000));
            PRAGMA writable_schema = ON;
            UPDATE sqlite_schema SET name = 'sqlite_stat9', tbl_name = 'sqlite_stat9', sql = 'CREATE TABLE sqlite_stat9(payload)' WHERE name = 'zz';
            PRAGMA writable_schema = OFF;
            """)
        #expect(BundleVerifier(directory: bundle).verify().contains("\(bundle)/content.sqlite: error: table sqlite_stat9 is not in schema version \(Migrations.latestVersion)"))
    }

    /// A key given twice in manifest.json is read one way here and another by the app's reader
    /// (the first schema_version here, the last in most readers): refused.
    @Test func aManifestGivingAKeyTwiceIsRefused() throws {
        let directory = try TemporaryDirectory()
        let bundle = try SmallBundle.publish(in: directory)
        let manifest = "\(bundle)/manifest.json"
        let edited = try text(manifest).replacingOccurrences(
            of: "\"schema_version\": \(Migrations.latestVersion),", with: "\"schema_version\": \(Migrations.latestVersion),\n  \"schema_version\": 8,")
        #expect(edited != (try text(manifest)))
        try edited.write(toFile: manifest, atomically: true, encoding: .utf8)
        let checksums = "\(bundle)/manifest-sha256.txt"
        let digest = try SmallBundle.sha256sum(manifest)
        try (try lines(checksums).map { $0.hasSuffix("  manifest.json") ? "\(digest)  manifest.json" : $0 }.map { $0 + "\n" }.joined())
            .write(toFile: checksums, atomically: true, encoding: .utf8)
        #expect(BundleVerifier(directory: bundle).verify() == ["\(manifest): error: an object gives a key twice, which readers take differently"])
    }

    /// Two names one in another case are one file on a volume that ignores case (macOS's
    /// default): publishing refuses them, and verify refuses a bundle holding them.
    @Test func namesThatDifferOnlyInCaseAreNeitherPublishedNorVerified() throws {
        let directory = try TemporaryDirectory()
        let bundle = try SmallBundle.publish(in: directory)
        let upper = try directory.write("extra/Manifest.json", "{}\n")
        let error = try #require(throws: FieldpackError.self) {
            try BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("other"), extraFiles: [upper]).publish()
        }
        #expect(error.path == upper && error.message.hasPrefix("cannot publish a file named like the bundle's own files"), "\(error)")
        let pair = [try directory.write("a/notes.txt", "a\n"), try directory.write("b/NOTES.txt", "b\n")]
        let both = try #require(throws: FieldpackError.self) {
            try BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("other"), extraFiles: pair).publish()
        }
        #expect(both.path == pair[1] && both.message == "cannot publish both notes.txt and NOTES.txt: a volume that ignores case holds one")
        #expect(!FileManager.default.fileExists(atPath: directory.file("other")))
        // A file beside the database under its name in another case.
        try "x\n".write(toFile: "\(bundle)/CONTENT.SQLITE", atomically: true, encoding: .utf8)
        #expect(BundleVerifier(directory: bundle).verify().contains("\(bundle)/content.sqlite: error: differs from CONTENT.SQLITE only in case: a volume that ignores case holds one of them"))
    }

    @Test func aForeignKeyViolationIsRefusedNamingTheTableAndRow() throws {
        let directory = try TemporaryDirectory()
        // Observation 2's observer removed, and the row count made to agree.
        let bundle = try republished(directory, after: """
            PRAGMA foreign_keys = OFF;
            DELETE FROM users WHERE id = 8;
            UPDATE bundle_info SET value = '1' WHERE key = 'rows.users'
            """)
        #expect(BundleVerifier(directory: bundle).verify()
                == ["\(bundle)/content.sqlite: error: 1 foreign key violation(s); first in observations row 2"])
    }

    @Test func aSearchIndexOutOfStepWithItsEntriesIsRefused() throws {
        let directory = try TemporaryDirectory()
        // An entry added behind the index's back (nothing indexes it), and the row count made to
        // agree.
        let bundle = try republished(directory, after: """
            INSERT INTO search_entries (kind, ref, name) VALUES ('taxon', '999', 'Ghost');
            UPDATE bundle_info SET value = (SELECT count(*) FROM search_entries) WHERE key = 'rows.search_entries'
            """)
        let entries = try #require(try Database(path: "\(bundle)/content.sqlite", mode: .immutable).int("SELECT count(*) FROM search_entries"))
        // The taxon's entry and the ghost.
        #expect(entries == 2)
        #expect(BundleVerifier(directory: bundle).verify() == [
            "\(bundle)/content.sqlite: error: the search index holds 1 documents for 2 search entries",
            "\(bundle)/content.sqlite: error: 1 search entries are not documents of the search index (the first: id 2); a search cannot find them",
            "\(bundle)/content.sqlite: error: 1 search entries of kind taxon refer to no row (one: ref 999)",
        ])
    }

    /// As many documents as entries, but not theirs: the app joins a match's rowid to the entry
    /// with that id, and found nothing (or another entry). And an entry whose row is gone.
    @Test func searchEntriesThatAreNotTheIndexsDocumentsOrReferToNoRowAreRefused() throws {
        let (first, second) = (try TemporaryDirectory(), try TemporaryDirectory())
        let moved = try republished(first, after: "UPDATE search_entries SET id = id + 1000")
        #expect(BundleVerifier(directory: moved).verify()
                == ["\(moved)/content.sqlite: error: 1 search entries are not documents of the search index (the first: id 1001); a search cannot find them"])
        let dangling = try republished(second, after: "UPDATE search_entries SET ref = '424242' WHERE kind = 'taxon'")
        #expect(BundleVerifier(directory: dangling).verify()
                == ["\(dangling)/content.sqlite: error: 1 search entries of kind taxon refer to no row (one: ref 424242)"])
        withExtendedLifetime((first, second)) {}
    }

    @Test(.enabled(if: binaries != nil))
    func theCommandSaysOkOrNamesEveryProblemThenRefusesWithExit1() throws {
        let verify = "\(try #require(Self.binaries))/fieldpack-verify"
        let directory = try TemporaryDirectory()
        let bundle = try SmallBundle.publish(in: directory)
        let good = try run(verify, [bundle])
        #expect(good.status == 0)
        #expect(good.stdout == "")
        #expect(good.stderr.hasPrefix("fieldpack-verify: \(bundle): ok, "), "\(good.stderr)")

        try "x".write(toFile: "\(bundle)/content.sqlite-wal", atomically: false, encoding: .utf8)
        try FileManager.default.removeItem(atPath: "\(bundle)/manifest-sha256.txt")
        let bad = try run(verify, [bundle])
        #expect(bad.status == 1)
        #expect(bad.stdout == "")
        #expect(bad.stderr == """
            \(bundle)/manifest-sha256.txt: error: missing
            \(bundle)/content.sqlite-wal: error: unexpected file: not listed in the manifest
            \(bundle): error: bundle refused: 2 problem(s)

            """)
    }
}
