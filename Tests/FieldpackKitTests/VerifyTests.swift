@testable import FieldpackKit
import FieldpackTestSupport
import Foundation
import Synchronization
import Testing

@Suite struct VerifyTests {
    @discardableResult
    private func freshBundle(_ directory: TemporaryDirectory) throws -> String {
        let inputs = try FileManager.default.contentsOfDirectory(atPath: "\(repositoryRoot)/sample-data/inat")
            .filter { !$0.hasSuffix(".md") }.sorted().map { "\(repositoryRoot)/sample-data/inat/\($0)" }
        return try buildBundle(inputs: inputs, in: directory, name: "sample")
    }

    private func flipByte(_ path: String, at offset: Int) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        let index = offset < 0 ? data.count + offset : offset
        // A hex digit stays one (`a` ^ 1 and `f` ^ 1 are not: a digest's line became no checksum
        // line, and the problem told depended on the database's bytes); any other byte flips.
        let hex = Array("0123456789abcdef".utf8)
        if let digit = hex.firstIndex(of: data[index]) { data[index] = hex[digit ^ 1] } else { data[index] ^= 0x01 }
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// Renames a copy of the bundle's database, the same bytes, over it: another file at its path.
    private func replaceDatabaseByACopy(in bundle: String) throws {
        let database = "\(bundle)/content.sqlite"
        try FileManager.default.copyItem(atPath: database, toPath: "\(database).copy")
        #expect(rename("\(database).copy", database) == 0)
    }

    /// The checksum reads the database by its path and the checks open it by its path again:
    /// another file renamed over it meanwhile (here, a copy of the same bytes, so that only the
    /// file's identity tells) is refused, not taken as the file the checksum vouched for.
    @Test func aDatabaseReplacedWhileItIsVerifiedIsRefused() throws {
        let directory = try TemporaryDirectory()
        let bundle = try freshBundle(directory)
        #expect(BundleVerifier(directory: bundle).verify() == [])
        // The progress starts its clock as the hashing begins: the copy is renamed over the
        // database then, after the verifier looked at the file.
        final class Once: Sendable { let done = Atomic<Bool>(false) }
        let swapped = Once()
        let sink = open("/dev/null", O_WRONLY)
        defer { close(sink) }
        var verifier = BundleVerifier(directory: bundle)
        verifier.progress = StageProgress(
            stage: "verify",
            display: .init(descriptor: sink, isTerminal: false) {
                if !swapped.done.exchange(true, ordering: .relaxed) { try? replaceDatabaseByACopy(in: bundle) }
                return 0
            })
        let problems = verifier.verify()
        let didSwap = swapped.done.load(ordering: .relaxed)
        #expect(didSwap)
        #expect(problems == ["\(bundle)/content.sqlite: error: \(BundleVerifier.VouchedDatabase.changed)"])
        // Verified again, the copy is the file: its bytes are the manifest's.
        #expect(BundleVerifier(directory: bundle).verify() == [])
    }

    /// `migrate` copies the previous bundle's database after verifying it: another file renamed
    /// over it between the two is refused, and nothing is published.
    @Test func aPreviousDatabaseReplacedAfterItsChecksIsNotMigrated() throws {
        let directory = try TemporaryDirectory()
        let bundle = try freshBundle(directory)
        let vouched = try BundleVerifier.previousDatabase(bundle) { Issue.record("a problem: \($0)") }
        #expect(vouched.path == "\(bundle)/content.sqlite")
        try vouched.checkUnchanged()
        try replaceDatabaseByACopy(in: bundle)
        var options = BundleMigration.Options(source: vouched.path, output: directory.file("migrated.sqlite"))
        options.vouched = vouched
        let error = try #require(throws: FieldpackError.self) { try BundleMigration(options: options).run() }
        #expect(error.message == BundleVerifier.VouchedDatabase.changed)
        #expect(!FileManager.default.fileExists(atPath: directory.file("migrated.sqlite")))
        // A name that is nothing is said to be missing, not to have changed.
        let missing = try #require(throws: FieldpackError.self) {
            try BundleVerifier.previousDatabase(directory.file("typo.sqlite"), checksFile: false) { _ in }
        }
        #expect(missing.message == "does not exist: name a bundle folder or its database")
    }

    @Test func aFreshBundlePassesAndItsChecksumFilePassesSha256sum() throws {
        let directory = try TemporaryDirectory()
        let bundle = try freshBundle(directory)
        #expect(BundleVerifier(directory: bundle).verify() == [])
        let check = try run("/usr/bin/sha256sum", ["-c", "manifest-sha256.txt"], directory: bundle)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.contains("content.sqlite: OK"))
        #expect(check.stdout.contains("manifest.json: OK"))
    }

    @Test func anIndexThatDisagreesWithItsTableIsRefusedByTheFullCheckAndPassesTheAppsCheck() throws {
        // Two indexes of the observations swap their b-trees: every page stays well formed and
        // each holds one entry per row (the app's quick_check and the row counts pass), but no
        // index entry matches its row (integrity_check fails).
        let directory = try TemporaryDirectory()
        try freshBundle(directory)
        try swapObservationIndexes(of: directory.file("content.sqlite"))
        try BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("bundle")).publish()
        var verifier = BundleVerifier(directory: directory.file("bundle"))
        verifier.depth = .app
        #expect(verifier.verify() == [])
        verifier.depth = .full
        let problems = verifier.verify()
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("\(directory.file("bundle/content.sqlite")): error: integrity_check: ") ?? false, "\(problems)")
    }

    @Test func aBundleWithAPhotoThatMayNotShipIsRefused() throws {
        // A build that let an uncredited, non-commercial photo through, consistently re-published.
        let directory = try TemporaryDirectory()
        try freshBundle(directory)
        let database = try Database(path: directory.file("content.sqlite"))
        try database.execute("""
            UPDATE photos SET credit = ' ', license_code = 'cc-by-nc' WHERE id = (SELECT min(id) FROM photos);
            UPDATE photos SET url = 'http://static.inaturalist.org/photos/81000007/square.jpg' WHERE id = 81000007
            """)
        let first = try #require(try database.scalar("SELECT min(id) FROM photos"))
        try BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("bundle")).publish()
        let problems = BundleVerifier(directory: directory.file("bundle")).verify()
        let path = directory.file("bundle/content.sqlite")
        #expect(problems == [
            "\(path): error: 1 photo(s) without an https URL, first id 81000007",
            "\(path): error: 1 photo(s) without a credit, first id \(first)",
            "\(path): error: 1 photo(s) with a licence outside photos.licenses_allowed (cc-by,cc-by-sa,cc0,pd), first id \(first)",
            // The URL one character shorter: its size token is no longer where the row says.
            "\(path): error: 1 photo(s) whose URL's size token is not a tier, or whose URL is another photo's, first id 81000007",
        ])
    }

    @Test func aShippedPhotoWhoseURLHasNoSizeTokenIsRefused() throws {
        // Its size unmarked in its URL: the app could not ask for the size it needs.
        let directory = try TemporaryDirectory()
        try freshBundle(directory)
        let database = try Database(path: directory.file("content.sqlite"))
        let ids = try database.rows("SELECT id FROM photos WHERE remote = 0 ORDER BY id LIMIT 2").compactMap { $0[0] }
        try #require(ids.count == 2)
        try database.execute("UPDATE photos SET url_size_start = NULL WHERE id IN (\(ids.joined(separator: ", ")))")
        try BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("bundle")).publish()
        #expect(BundleVerifier(directory: directory.file("bundle")).verify()
                == ["\(directory.file("bundle/content.sqlite")): error: 2 photo(s) whose URL has no size token, first id \(ids[0])"])
    }

    /// A size token moved off its tier (`…/squlargeg` for every tier) or a URL that names
    /// another photo: each passed verify (and the manifest's check) with every checksum right.
    @Test(arguments: ["UPDATE photos SET url_size_start = url_size_start + 3 WHERE id = ?",
                      // The same number of digits, so the size token stays where the row says.
                      "UPDATE photos SET url = replace(url, '/photos/' || id || '/', '/photos/' || (id + 1) || '/') WHERE id = ?"])
    func aShippedPhotoWhoseURLDoesNotGiveItsTiersIsRefused(tamper: String) throws {
        let directory = try TemporaryDirectory()
        try freshBundle(directory)
        let database = try Database(path: directory.file("content.sqlite"))
        let id = try #require(try database.rows("SELECT id FROM photos WHERE remote = 0 AND id % 10 != 9 ORDER BY id LIMIT 1").first?[0])
        try database.execute(tamper.replacingOccurrences(of: "?", with: id))
        try BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("bundle")).publish()
        #expect(BundleVerifier(directory: directory.file("bundle")).verify()
                == ["\(directory.file("bundle/content.sqlite")): error: 1 photo(s) whose URL's size token is not a tier, or whose URL is another photo's, first id \(id)"])
    }

    /// The size the app fetches, as the shipping rules choose it: a cost row moved to another
    /// tier (a 2048 px original for a map pin), one gone (a photo with no URL for a target), a
    /// tier the CDN does not serve, a target's box that is not its points × scale, a URL with a
    /// query that defeats the app's cache. Each passed verify with every checksum right.
    @Test(arguments: [
        ("UPDATE size_costs SET tier = 'original' WHERE remote = 0 AND original_width BETWEEN 1 AND 2048 AND tier != 'original'",
         "size_costs row(s) do not choose the size the shipping rules choose; iNaturalist photos of "),
        ("UPDATE size_costs SET served_width = 1, served_height = 1 WHERE remote = 0 AND original_width > 0",
         "size_costs row(s) do not choose the size the shipping rules choose; iNaturalist photos of "),
        ("DELETE FROM size_costs WHERE target_id = 1 AND remote = 0 AND original_width = (SELECT max(width) FROM photos WHERE remote = 0)",
         "size class and display target pair(s) have no size_costs row, so their photos have no URL to fetch (the first: photo "),
        ("INSERT INTO photo_tiers VALUES ('xlarge', 6, 4096, 0)", "photo_tiers is (square, 0, 75, 1) "),
        ("UPDATE display_targets SET box_width = box_width * 2 WHERE id = 1", "display target 1 ("),
        ("UPDATE photos SET url = url || '?1700000000' WHERE id = (SELECT min(id) FROM photos WHERE remote = 0)",
         "1 photo(s) whose URL has a query or fragment, first id "),
        // A photo of unknown size fetched as `original` by a map pin (it verified: any tier
        // with the assumed-dimensions flag did); its size is the assumed one.
        ("UPDATE size_costs SET tier = 'original', served_width = 2048, served_height = 1536 WHERE original_width = 0 AND remote = 0 AND tier = 'square'",
         "iNaturalist photos of unknown size in map-pin: tier original, served 2048 × 1536, shown 60 × 60, the shipping rules give tier square"),
    ])
    func aBundleThatFetchesAnotherSizeThanTheRulesChooseIsRefused(tamper: String, problem: String) throws {
        try expectOneProblem(after: tamper, containing: problem)
    }

    /// A bundle built before 2026-12-08 chose `square` for any fill box within 75 × 75, square or
    /// not (another crop of the same photo, not another size): it verifies.
    @Test func aSquareForASmallStripByTheOlderRuleVerifies() throws {
        let directory = try TemporaryDirectory()
        try freshBundle(directory)
        let database = try Database(path: directory.file("content.sqlite"))
        // A 60 × 20 fill strip at 1x whose rows say `square`, as the older rule chose.
        try database.execute("""
            INSERT INTO display_targets (id, name, mode, width_points, height_points, scale, box_width, box_height)
                SELECT max(id) + 1, 'strip', 'fill', 60, 20, 1, 60, 20 FROM display_targets;
            INSERT INTO size_costs
                SELECT remote, original_width, original_height, (SELECT max(id) FROM display_targets), tier, served_width, served_height,
                       60, 20, decoded_bytes, transient_bytes, download_bytes, upscaled, assumed_dimensions
                FROM size_costs WHERE target_id = (SELECT min(id) FROM display_targets) AND tier = 'square';
            """)
        try #require(try database.int("SELECT count(*) FROM size_costs WHERE target_id = (SELECT max(id) FROM display_targets)") ?? 0 > 0)
        try BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("bundle")).publish()
        let problems = BundleVerifier(directory: directory.file("bundle")).verify().filter { $0.contains("size_costs row(s) do not choose") }
        #expect(problems.isEmpty, "\(problems)")
    }

    /// A hosted photo flagged remote (every target fetched its one URL, `square`), and a photo on
    /// another host flagged hosted: the remote flag is what the URL's host says.
    @Test func aPhotoWhoseRemoteFlagIsNotWhatItsHostSaysIsRefused() throws {
        for (tamper, name) in [
            ("UPDATE photos SET remote = 1 WHERE id = (SELECT min(id) FROM photos WHERE remote = 0)", "hosted flagged remote"),
            ("UPDATE photos SET url = replace(url, 'https://inaturalist-open-data.s3.amazonaws.com/', 'https://inaturalist-open-data.s3.amazonaws.xyz/') "
                + "WHERE id = (SELECT min(id) FROM photos WHERE remote = 0 AND url LIKE 'https://inaturalist-open-data.s3.amazonaws.com/%')",
             "another host flagged hosted"),
        ] {
            let directory = try TemporaryDirectory()
            try freshBundle(directory)
            let database = try Database(path: directory.file("content.sqlite"))
            try database.execute(tamper)
            try #require(try database.int("SELECT total_changes()") ?? 0 > 0, "\(name): the tamper changed nothing")
            try BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("bundle")).publish()
            let problems = BundleVerifier(directory: directory.file("bundle")).verify()
            #expect(problems.contains { $0.contains("1 photo(s) whose remote flag is not what their URL's host says") }, "\(name): \(problems)")
        }
    }

    /// Publishes the sample bundle with `tamper` run on it (and published again, its checksums
    /// right) and expects verify to find one problem of its database, holding `problem` (a row
    /// added or deleted also leaves the counts the bundle recorded behind: those aside).
    private func expectOneProblem(after tamper: String, containing problem: String) throws {
        let directory = try TemporaryDirectory()
        try freshBundle(directory)
        let database = try Database(path: directory.file("content.sqlite"))
        try #require(try database.int("SELECT count(*) FROM display_targets") ?? 0 > 0)
        try database.execute(tamper)
        try #require(try database.int("SELECT total_changes()") ?? 0 > 0, "the tamper changed nothing")
        try BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("bundle")).publish()
        let problems = BundleVerifier(directory: directory.file("bundle")).verify().filter { !$0.contains("rows, the manifest says") }
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?.hasPrefix("\(directory.file("bundle/content.sqlite")): error: ") ?? false, "\(problems)")
        #expect(problems.first?.contains(problem) ?? false, "\(problems)")
    }

    /// A bundle built before 2026-12-06 fetched `original` for a target no tier covers (the same
    /// pixels as the smaller tier chosen since): it verifies, as does the bundle of today's rule.
    @Test func aTargetNoTierCoversMayFetchAnyTierOfTheLargestPixels() throws {
        let directory = try TemporaryDirectory()
        try freshBundle(directory)
        let database = try Database(path: directory.file("content.sqlite"))
        try database.execute("""
            UPDATE size_costs SET tier = 'original'
            WHERE upscaled = 1 AND remote = 0 AND original_width BETWEEN 1 AND 1024 AND original_height <= 1024 AND tier != 'original'
            """)
        try #require(try database.int("SELECT total_changes()") ?? 0 > 0, "the sample has such a row")
        try BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("bundle")).publish()
        #expect(BundleVerifier(directory: directory.file("bundle")).verify() == [])
    }

    /// Rows that break what the bundle promises the app: an obscured point not marked so (shown
    /// as exact), a uuid not in its canonical lower case (a lookup by text misses it), free pages
    /// (bytes downloaded for nothing, maybe deleted rows). Each passed verify.
    @Test(arguments: [
        ("UPDATE observations SET coordinates_obscured = 0 WHERE coordinates_obscured = 1",
         "observation(s) whose coordinates_obscured disagrees with their obscured flag and geoprivacy (the first: id "),
        ("UPDATE observations SET coordinates_obscured = 1 WHERE id = (SELECT min(id) FROM observations WHERE coordinates_obscured = 0)",
         "1 observation(s) whose coordinates_obscured disagrees with their obscured flag and geoprivacy (the first: id "),
        ("UPDATE observations SET uuid = upper(uuid) WHERE id = (SELECT min(id) FROM observations)",
         "1 observation(s) whose uuid is not in lower case, its canonical form (the first: id "),
        ("CREATE TABLE junk (x); INSERT INTO junk SELECT randomblob(3000) FROM photos; DROP TABLE junk",
         "free page(s); a published bundle has none (it is vacuumed)"),
    ])
    func aBundleWhoseRowsBreakWhatTheyPromiseTheAppIsRefused(tamper: String, problem: String) throws {
        try expectOneProblem(after: tamper, containing: problem)
    }

    /// A fresh bundle built again with one article, as the wiki stage writes it, linked to a
    /// taxon and a destination; its scratch database (`content.sqlite`), opened.
    private func forestBundle(in directory: TemporaryDirectory) throws -> Database {
        try freshBundle(directory)
        try rebuildBundle(in: directory, article: """
            {"title":"Sonian Forest","page_id":1,"revision":2,"modified":"2026-01-01T00:00:00Z","url":"https://en.wikipedia.org/wiki/Sonian_Forest","language":"en","wikidata":"Q1","license":"CC-BY-SA-4.0","taxa":[48662],"destinations":["forest"],"sections":0,"summary":"A forest.","html":"<p>A <b>forest</b>.</p>"}
            """, destinations: [Destination(id: "forest", name: "Sonian Forest", wikipedia: "Sonian Forest", wikidata: nil)])
        return try Database(path: directory.file("content.sqlite"))
    }

    /// The verifier of `directory`'s `bundle/` at the app's depth, at full depth, and at full
    /// depth as fieldpack-manifest runs it, with the integrity check run on the database the
    /// bundle was published from (`content.sqlite`, as if while it was copied).
    private func verifiersAtEveryDepth(_ directory: TemporaryDirectory) throws -> [(name: String, verifier: BundleVerifier)] {
        var verifier = BundleVerifier(directory: directory.file("bundle"))
        verifier.depth = .app
        let app = verifier
        verifier.depth = .full
        let full = verifier
        // Changed just now: known by its times only once they would move again (`FileIdentity`).
        usleep(150_000)
        let verdict = IntegrityVerdict(checking: directory.file("content.sqlite"))
        verdict.copyEnded(sha256: try SHA256.hex(ofFile: directory.file("bundle/content.sqlite")).digest)
        #expect(verdict.lines() != nil, "the verdict stands for the copy")
        verifier.integrityVerdict = verdict
        return [("app", app), ("full", full), ("full, as fieldpack-manifest", verifier)]
    }

    /// At the app's depth (and at full depth with the integrity check run while the database was
    /// copied) the blurbs are checked on the integrity check's connection, at full depth beside
    /// the other checks: either way the same problems, in the same order (a photo's, the
    /// blurb's, then the search index's and the row counts').
    @Test func everyDepthListsTheBlurbsProblemsInTheirPlaceAmongTheOthers() throws {
        let directory = try TemporaryDirectory()
        let database = try forestBundle(in: directory)
        try database.execute("""
            UPDATE photos SET credit = ' ' WHERE id = (SELECT min(id) FROM photos);
            UPDATE observations SET uuid = upper(uuid) WHERE id = (SELECT min(id) FROM observations);
            UPDATE articles SET blurb_html = '<p>A <i>forest</p>';
            DELETE FROM search_entries WHERE id = (SELECT max(id) FROM search_entries)
            """)
        let first = try #require(try database.scalar("SELECT min(id) FROM photos"))
        let observation = try #require(try database.scalar("SELECT min(id) FROM observations"))
        let entries = try #require(try database.int("SELECT count(*) FROM search_entries"))
        try BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("bundle")).publish()
        let path = directory.file("bundle/content.sqlite")
        let expected = [
            "\(path): error: 1 photo(s) without a credit, first id \(first)",
            // The rows' checks go with the blurbs' (`rowProblems`), before them.
            "\(path): error: 1 observation(s) whose uuid is not in lower case, its canonical form (the first: id \(observation))",
            "\(path): error: article 1 (Sonian Forest): blurb closes </p> out of order",
            "\(path): error: the search index holds \(entries + 1) documents for \(entries) search entries",
            "\(path): error: table search_entries has \(entries) rows, the manifest says \(entries + 1)",
        ]
        for (depth, verifier) in try verifiersAtEveryDepth(directory) {
            #expect(verifier.verify() == expected, "\(depth)")
        }
    }

    /// A check that cannot run before the blurbs' (here `foreign_key_check`, on a table whose
    /// foreign key names a column that is not a key) ends the other checks at every depth: the
    /// blurbs, when checked on the other connection, add nothing after it.
    @Test func aCheckThatFailsBeforeTheBlurbsEndsTheChecksAtEveryDepth() throws {
        let directory = try TemporaryDirectory()
        let database = try forestBundle(in: directory)
        try database.execute("""
            UPDATE articles SET blurb_html = '<p>A <i>forest</p>';
            CREATE TABLE notes (photo_credit TEXT REFERENCES photos(credit));
            INSERT INTO notes VALUES ('x')
            """)
        try BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("bundle")).publish()
        for (depth, verifier) in try verifiersAtEveryDepth(directory) {
            let problems = verifier.verify()
            #expect(problems.count == 1, "\(depth): \(problems)")
            #expect(problems.first?.contains("foreign key mismatch") ?? false, "\(depth): \(problems)")
        }
    }

    @Test func aBundleWhoseBlurbIsNotSafeMarkupIsRefused() throws {
        let directory = try TemporaryDirectory()
        let database = try forestBundle(in: directory)
        #expect(try database.rows("SELECT d.id, a.title FROM destinations d JOIN articles a ON a.id = d.article_id") == [["forest", "Sonian Forest"]])
        #expect(try database.scalar("SELECT a.title FROM taxa t JOIN articles a ON a.id = t.article_id WHERE t.id = 48662") == "Sonian Forest")
        try BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("bundle")).publish()
        #expect(BundleVerifier(directory: directory.file("bundle")).verify() == [])
        try database.execute("UPDATE articles SET blurb_html = '<p>A <b>forest<p>x</p></b></p><img src=x onerror=alert(1)>'")
        try BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("bundle")).publish()
        #expect(BundleVerifier(directory: directory.file("bundle")).verify()
                == ["\(directory.file("bundle/content.sqlite")): error: article 1 (Sonian Forest): blurb opens <p> inside <b>"])
    }

    /// An Ed25519 key pair made by the openssl command line, as a publisher would.
    private func keyPair(_ directory: TemporaryDirectory, _ name: String) throws -> (Ed25519Key, Ed25519Key) {
        let pair = try ed25519KeyPair(in: directory, name)
        return (pair.privateKey, pair.publicKey)
    }

    @Test func aSignedManifestVerifiesAndAnyTamperingIsRefused() throws {
        let directory = try TemporaryDirectory()
        try freshBundle(directory)
        let (signer, publicKey) = try keyPair(directory, "publisher")
        let (otherSigner, otherPublic) = try keyPair(directory, "someone-else")
        var publisher = BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("signed"))
        publisher.signingKey = signer
        try publisher.publish()
        let bundle = directory.file("signed")
        let signature = "\(bundle)/manifest.json.sig"
        #expect(BundleVerifier(directory: bundle, publicKey: publicKey).verify() == [])
        // The openssl command line agrees: the signature is plain Ed25519 over manifest.json.
        let raw = directory.file("sig.bin")
        #expect(try run("/bin/sh", ["-c", "base64 -d '\(signature)' > '\(raw)'"]).status == 0)
        #expect(try run("/usr/bin/openssl", [
            "pkeyutl", "-verify", "-pubin", "-inkey", directory.file("publisher.pub.pem"), "-rawin", "-in", "\(bundle)/manifest.json",
            "-sigfile", raw,
        ]).status == 0)
        // Another publisher's key does not verify it.
        #expect(BundleVerifier(directory: bundle, publicKey: otherPublic).verify()
                == ["\(signature): error: does not verify: manifest.json is not the one signed with this key"])
        // A swapped signature (someone else's, over the same manifest) is refused.
        let original = try Data(contentsOf: URL(fileURLWithPath: signature))
        try ManifestSignature.sign(bundle: bundle, with: otherSigner)
        #expect(BundleVerifier(directory: bundle, publicKey: publicKey).verify()
                == ["\(signature): error: does not verify: manifest.json is not the one signed with this key"])
        try original.write(to: URL(fileURLWithPath: signature))
        // An edited manifest, re-hashed so that the checksums pass, is refused by the signature.
        let manifestPath = "\(bundle)/manifest.json"
        try text(manifestPath).replacingOccurrences(of: "\"pipeline\": \"sample\"", with: "\"pipeline\": \"evil\"")
            .write(toFile: manifestPath, atomically: true, encoding: .utf8)
        let (digest, _) = try SHA256.hex(ofFile: manifestPath)
        let checksums = try text("\(bundle)/manifest-sha256.txt").split(separator: "\n").map { line in
            line.hasSuffix("  manifest.json") ? "\(digest)  manifest.json" : String(line)
        }.joined(separator: "\n") + "\n"
        try checksums.write(toFile: "\(bundle)/manifest-sha256.txt", atomically: true, encoding: .utf8)
        #expect(BundleVerifier(directory: bundle).verify() == [])  // without the key, nothing to notice
        #expect(BundleVerifier(directory: bundle, publicKey: publicKey).verify()
                == ["\(signature): error: does not verify: manifest.json is not the one signed with this key"])
        // No signature at all, when the app expects one.
        try FileManager.default.removeItem(atPath: signature)
        #expect(BundleVerifier(directory: bundle, publicKey: publicKey).verify().contains("\(signature): error: missing: the bundle is not signed"))
    }

    @Test func theBagItLayoutIsAValidBag() throws {
        let directory = try TemporaryDirectory()
        try freshBundle(directory)
        var publisher = BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("bag"))
        publisher.bagIt = true
        try publisher.publish()
        let bag = directory.file("bag")
        #expect(try FileManager.default.contentsOfDirectory(atPath: bag).sorted() == [
            "bag-info.txt", "bagit.txt", "data", "manifest-sha256.txt", "manifest.json", "tagmanifest-sha256.txt",
        ])
        #expect(try text("\(bag)/bagit.txt") == "BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n")
        let size = try FileManager.default.attributesOfItem(atPath: "\(bag)/data/content.sqlite")[.size] as! Int
        #expect(try text("\(bag)/bag-info.txt").contains("Payload-Oxum: \(size).1\n"))
        for manifest in ["manifest-sha256.txt", "tagmanifest-sha256.txt"] {
            #expect(try run("/usr/bin/sha256sum", ["-c", manifest], directory: bag).status == 0, "\(manifest)")
        }
        #expect(try text("\(bag)/manifest-sha256.txt").hasSuffix("  data/content.sqlite\n"))
        // The reference implementation agrees (`make test` installs it from PyPI into .build/python).
        let python = ["PYTHONPATH": "\(repositoryRoot)/.build/python"]
        try #require(
            try run("/bin/sh", ["-c", "python3 -c 'import bagit'"], environment: python).status == 0,
            "bagit is missing from .build/python; make test installs it (make test-deps)")
        #expect(try run("/bin/sh", ["-c", "python3 -m bagit --validate '\(bag)'"], environment: python).status == 0)
        try flipByte("\(bag)/data/content.sqlite", at: 200)
        #expect(try run("/bin/sh", ["-c", "python3 -m bagit --validate '\(bag)'"], environment: python).status != 0)
    }

    @Test func manifestListsFilesSchemaRowsAndInputs() throws {
        let directory = try TemporaryDirectory()
        let bundle = try freshBundle(directory)
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(bundle)/manifest.json"))) as! [String: Any]
        #expect(manifest["schema_version"] as? Int == Migrations.latestVersion)
        #expect(manifest["schema_fingerprint"] as? String == Migrations.goldenFingerprints[Migrations.latestVersion])
        let files = try #require(manifest["files"] as? [[String: Any]])
        #expect(files.map { $0["path"] as? String } == ["content.sqlite"])
        let database = try Data(contentsOf: URL(fileURLWithPath: "\(bundle)/content.sqlite"))
        #expect(files[0]["bytes"] as? Int == database.count)
        #expect((manifest["rows"] as? [String: Int])?["photos"] == 22)
        let inputs = try #require(manifest["inputs"] as? [[String: Any]])
        #expect(inputs.count == 8)
        let (digest, _) = try SHA256.hex(ofFile: "\(repositoryRoot)/sample-data/inat/updates.jsonl.gz")
        #expect(inputs.contains { $0["sha256"] as? String == digest })
    }

    /// sha256sum's own reading of a bundle: each file manifest-sha256.txt lists whose bytes no
    /// longer have the listed digest, with its actual and its listed digest.
    private func checksumMismatches(_ bundle: String) throws -> [(name: String, actual: String, listed: String)] {
        try lines("\(bundle)/manifest-sha256.txt").compactMap { line in
            let listed = String(line.prefix(64))
            let name = String(line.dropFirst(66))
            let actual = String(try run("/usr/bin/sha256sum", [name], directory: bundle).stdout.prefix(64))
            return actual == listed ? nil : (name, actual, listed)
        }
    }

    @Test(arguments: ["content.sqlite", "manifest.json", "manifest-sha256.txt"])
    func aFlippedByteInAnyFileIsRefusedNamingTheFileAndTheDigestThatDiffers(file: String) throws {
        let directory = try TemporaryDirectory()
        let bundle = try freshBundle(directory)
        let (original, _) = try SHA256.hex(ofFile: "\(bundle)/content.sqlite")
        try flipByte("\(bundle)/\(file)", at: file == "content.sqlite" ? 5000 : 12)
        let problems = BundleVerifier(directory: bundle).verify()
        // sha256sum finds one listed file whose digest differs: the damaged file, or the file
        // whose line in manifest-sha256.txt was damaged.
        let mismatches = try checksumMismatches(bundle)
        try #require(mismatches.count == 1, "\(mismatches)")
        let mismatch = mismatches[0]
        let checksumProblem = "\(bundle)/\(mismatch.name): error: SHA-256 \(mismatch.actual) does not match manifest-sha256.txt (\(mismatch.listed))"
        switch file {
        case "content.sqlite":
            // Both lists of digests disagree with the database, and it is not opened.
            #expect(mismatch.name == "content.sqlite" && mismatch.listed == original)
            #expect(problems == [checksumProblem,
                                 "\(bundle)/content.sqlite: error: SHA-256 \(mismatch.actual) does not match manifest.json (\(original))"])
        case "manifest-sha256.txt":
            // Its first line's digest is no longer the file's; manifest.json still vouches for it.
            #expect(problems == [checksumProblem])
        default:
            #expect(mismatch.name == "manifest.json")
            #expect(problems.contains(checksumProblem), "\(problems)")
        }
    }

    @Test func aMissingDatabaseIsRefusedByName() throws {
        let directory = try TemporaryDirectory()
        let bundle = try freshBundle(directory)
        try FileManager.default.removeItem(atPath: "\(bundle)/content.sqlite")
        #expect(BundleVerifier(directory: bundle).verify().contains { $0.contains("content.sqlite: error: missing") })
    }

    @Test func anExtraFileIsRefusedByName() throws {
        let directory = try TemporaryDirectory()
        let bundle = try freshBundle(directory)
        try "x".write(toFile: "\(bundle)/content.sqlite-wal", atomically: false, encoding: .utf8)
        #expect(BundleVerifier(directory: bundle).verify().contains { $0.contains("content.sqlite-wal: error: unexpected file") })
    }

    @Test func aTruncatedDatabaseIsRefused() throws {
        let directory = try TemporaryDirectory()
        let bundle = try freshBundle(directory)
        let database = "\(bundle)/content.sqlite"
        let size = try #require(FileSystem.size(database))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: database))
        try handle.truncate(atOffset: 8192)
        try handle.close()
        // Refused by its size, without reading it (a file of another size cannot have the digest).
        let problems = BundleVerifier(directory: bundle).verify()
        #expect(problems == ["\(database): error: size 8192 does not match manifest.json (\(size))"])
    }

    @Test func aConsistentlyRehashedButCorruptedRowCountIsRefused() throws {
        // Someone edits the manifest's row count and re-hashes everything: the checksums pass,
        // but the database disagrees with the manifest.
        let directory = try TemporaryDirectory()
        let bundle = try freshBundle(directory)
        try tamper(bundle, manifest: { $0.replacingOccurrences(of: "\"photos\": 22", with: "\"photos\": 23") })
        let problems = BundleVerifier(directory: bundle).verify()
        #expect(problems == ["\(bundle)/content.sqlite: error: table photos has 22 rows, the manifest says 23"])
    }

    /// A database whose file does not hold all it says is never published: one with a -journal
    /// beside it (a rollback not played back), or in WAL mode, which the app cannot open
    /// read-only from its bundle; nothing reaches the destination.
    @Test func aDatabaseWithAJournalBesideItOrInWALModeIsNeverPublished() throws {
        let directory = try TemporaryDirectory()
        try freshBundle(directory)
        let source = directory.file("content.sqlite")
        try directory.write("content.sqlite-journal", "a rollback journal's bytes")
        let journal = try #require(throws: FieldpackError.self) {
            try BundlePublisher(database: source, destination: directory.file("with-journal")).publish()
        }
        #expect(journal.path == source && journal.message.contains("has a -journal file beside it"), "\(journal.description)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("with-journal")))
        try FileManager.default.removeItem(atPath: directory.file("content.sqlite-journal"))
        do {
            let database = try Database(path: source)
            _ = try database.rows("PRAGMA journal_mode = WAL")
        }
        let wal = try #require(throws: FieldpackError.self) {
            try BundlePublisher(database: source, destination: directory.file("in-wal")).publish()
        }
        #expect(wal.path == source && wal.message.contains("is in WAL mode"), "\(wal.description)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("in-wal")))
        // A records file given by mistake was said to have "file format versions 34, 58".
        let records = try directory.write("records.jsonl", String(repeating: "[\"obs\",1,null,7]\n", count: 4))
        let notDatabase = try #require(throws: FieldpackError.self) {
            try BundlePublisher(database: records, destination: directory.file("not-a-database")).publish()
        }
        #expect(notDatabase.path == records && notDatabase.message == "is not a SQLite database (its first 16 bytes are not \"SQLite format 3\" and a NUL)", "\(notDatabase.description)")
    }

    /// Verify refuses a bundle whose database says WAL mode, even consistently re-hashed.
    @Test func aBundleWhoseDatabaseIsInWALModeIsRefused() throws {
        let directory = try TemporaryDirectory()
        let bundle = try freshBundle(directory)
        let path = "\(bundle)/content.sqlite"
        let (before, _) = try SHA256.hex(ofFile: path)
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        data[18] = 2
        data[19] = 2
        try data.write(to: URL(fileURLWithPath: path))
        let (after, _) = try SHA256.hex(ofFile: path)
        try tamper(bundle, manifest: { $0.replacingOccurrences(of: before, with: after) }, lines: { $0.replacingOccurrences(of: before, with: after) })
        let problems = BundleVerifier(directory: bundle).verify()
        #expect(problems.contains { $0.hasPrefix("\(path): error: is in WAL mode") }, "\(problems)")
    }

    /// Edits manifest.json's text with `change`, then writes manifest-sha256.txt as someone hiding
    /// the edit would: every file's line as `lines` gives it, manifest.json's with its new digest.
    private func tamper(_ bundle: String, manifest change: (String) -> String, lines: (String) -> String = { $0 }) throws {
        try change(try text("\(bundle)/manifest.json")).write(toFile: "\(bundle)/manifest.json", atomically: true, encoding: .utf8)
        let (digest, _) = try SHA256.hex(ofFile: "\(bundle)/manifest.json")
        let kept = try text("\(bundle)/manifest-sha256.txt").split(separator: "\n").filter { !$0.hasSuffix("  manifest.json") }.joined(separator: "\n")
        try (lines(kept) + "\n\(digest)  manifest.json\n").write(toFile: "\(bundle)/manifest-sha256.txt", atomically: true, encoding: .utf8)
    }

    /// A row count that is not a whole number, and a count of a table the schema has but no
    /// manifest counts, are each named for what they are (they were "the manifest says -1" and
    /// "which schema version 9 does not have").
    @Test func aRowCountThatIsNotACountOrOfATableNoManifestCountsIsNamed() throws {
        let directory = try TemporaryDirectory()
        let bundle = try freshBundle(directory)
        try tamper(bundle, manifest: { $0.replacing(#/"users": \d+/#, with: #""users": "10""#) })
        let problems = BundleVerifier(directory: bundle).verify()
        #expect(problems == ["\(bundle)/manifest.json: error: rows.users is not a count of rows (a whole number at least 0)"], "\(problems)")
        let other = try TemporaryDirectory()
        let counted = try freshBundle(other)
        try tamper(counted, manifest: { $0.replacingOccurrences(of: "\"rows\": {", with: "\"rows\": {\n    \"bundle_info\": 5,") })
        #expect(BundleVerifier(directory: counted).verify() == [
            "\(counted)/content.sqlite: error: manifest counts rows of table bundle_info, which is not one of the bundle tables whose rows a manifest counts",
        ])
    }

    /// An empty database file is said to be one, not checked as an empty SQLite database
    /// ("application_id is 0 …, schema version 0 …").
    @Test func anEmptyDatabaseFileIsOneProblemSayingSo() throws {
        let directory = try TemporaryDirectory()
        let bundle = try freshBundle(directory)
        let (before, size) = try SHA256.hex(ofFile: "\(bundle)/content.sqlite")
        try Data().write(to: URL(fileURLWithPath: "\(bundle)/content.sqlite"))
        let (after, _) = try SHA256.hex(ofFile: "\(bundle)/content.sqlite")
        // The manifest made to match, as a broken build step that wrote nothing would.
        try tamper(bundle, manifest: {
            $0.replacingOccurrences(of: before, with: after).replacingOccurrences(of: "\"bytes\": \(size),", with: "\"bytes\": 0,")
        }, lines: { $0.replacingOccurrences(of: before, with: after) })
        #expect(BundleVerifier(directory: bundle).verify() == ["\(bundle)/content.sqlite: error: is empty (0 bytes), not a SQLite database"])
    }

    /// A file listed twice, with two checksums, is refused whichever one the bytes match:
    /// `sha256sum -c` fails the bundle, and an app reading the first entry would too.
    @Test func aFileListedTwiceIsRefused() throws {
        let directory = try TemporaryDirectory()
        let bundle = try freshBundle(directory)
        let bogus = String(repeating: "0", count: 64)
        try tamper(bundle, manifest: { manifest in
            manifest.replacingOccurrences(of: "\"files\": [", with: "\"files\": [{\"path\": \"content.sqlite\", \"bytes\": 1, \"sha256\": \"\(bogus)\"}, ")
        }, lines: { "\(bogus)  content.sqlite\n" + $0 })
        let problems = BundleVerifier(directory: bundle).verify()
        #expect(problems.contains("\(bundle)/manifest.json: error: lists content.sqlite twice"), "\(problems)")
        #expect(problems.contains { $0.hasPrefix("\(bundle)/manifest-sha256.txt:") && $0.hasSuffix("error: lists content.sqlite twice") }, "\(problems)")
    }

    /// A file whose name is the listed one in another Unicode normalisation (a decomposed é
    /// beside a listed composed one) is refused, not taken for it: names are compared as
    /// bytes, and a bundle's names are portable ASCII; publishing refuses a name outside it.
    @Test func aNameOutsideThePortableSetIsRefusedAndNeverTakenForAListedOne() throws {
        let directory = try TemporaryDirectory()
        let bundle = try freshBundle(directory)
        let composed = "caf\u{E9}.txt", decomposed = "cafe\u{301}.txt"
        try directory.write("bundle/\(composed)", "listed")
        let (listed, _) = try SHA256.hex(ofFile: "\(bundle)/\(composed)")
        try tamper(bundle, manifest: { manifest in
            manifest.replacingOccurrences(of: "\"files\": [", with: "\"files\": [{\"path\": \"\(composed)\", \"bytes\": 6, \"sha256\": \"\(listed)\"}, ")
        }, lines: { "\(listed)  \(composed)\n" + $0 })
        try directory.write("bundle/\(decomposed)", "other bytes, never checked")
        let problems = BundleVerifier(directory: bundle).verify()
        #expect(problems.contains { $0.contains(decomposed) && $0.contains("unexpected file: not a bundle file name") }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("\(bundle)/manifest.json: error: lists \"\(composed)\", not a bundle file name") }, "\(problems)")
        let include = try directory.write(composed, "a report")
        var publisher = BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("again"))
        publisher.extraFiles = [include]
        #expect(throws: FieldpackError.self) { try publisher.publish() }
    }

    /// A FIFO in place of a listed file is refused as not a regular file without opening it
    /// (which would wait for a writer forever), and a file of another size than listed is
    /// refused without hashing it.
    @Test(.timeLimit(.minutes(1)))
    func aFIFOOrAFileOfAnotherSizeIsRefusedWithoutReadingIt() throws {
        let directory = try TemporaryDirectory()
        let bundle = try freshBundle(directory)
        try FileManager.default.removeItem(atPath: "\(bundle)/content.sqlite")
        #expect(mkfifo("\(bundle)/content.sqlite", 0o644) == 0)
        try FileManager.default.removeItem(atPath: "\(bundle)/manifest-sha256.txt")
        #expect(mkfifo("\(bundle)/manifest-sha256.txt", 0o644) == 0)
        let problems = BundleVerifier(directory: bundle).verify()
        for name in ["content.sqlite", "manifest-sha256.txt"] {
            #expect(problems.contains("\(bundle)/\(name): error: not a regular file: a bundle holds regular files only, never links or folders"), "\(problems)")
        }
        let third = try TemporaryDirectory()
        let unreadable = try freshBundle(third)
        try FileManager.default.removeItem(atPath: "\(unreadable)/manifest.json")
        #expect(mkfifo("\(unreadable)/manifest.json", 0o644) == 0)
        #expect(BundleVerifier(directory: unreadable).verify().contains(
            "\(unreadable)/manifest.json: error: not a regular file: a bundle holds regular files only, never links or folders"))
        // Signed, with the app's key: the signature's check reads manifest.json, and must not open it.
        try (String(repeating: "A", count: 86) + "==\n").write(toFile: "\(unreadable)/manifest.json.sig", atomically: true, encoding: .utf8)
        let (_, publicKey) = try keyPair(third, "app")
        #expect(BundleVerifier(directory: unreadable, publicKey: publicKey).verify().contains(
            "\(unreadable)/manifest.json: error: not a regular file: a bundle holds regular files only, never links or folders"))
        let other = try TemporaryDirectory()
        let grown = try freshBundle(other)
        let handle = try #require(FileHandle(forWritingAtPath: "\(grown)/content.sqlite"))
        try handle.truncate(atOffset: 1 << 40)  // a terabyte, sparse: hashing it would take hours
        try handle.close()
        let sized = BundleVerifier(directory: grown).verify()
        #expect(sized.contains { $0.hasPrefix("\(grown)/content.sqlite: error: size \(1 << 40) does not match manifest.json") }, "\(sized)")
    }

    /// A manifest without its schema version or fingerprint is refused: the app reads them.
    @Test(arguments: ["schema_version", "schema_fingerprint"])
    func aManifestWithoutItsSchemaIsRefused(key: String) throws {
        let directory = try TemporaryDirectory()
        let bundle = try freshBundle(directory)
        try tamper(bundle, manifest: { $0.replacingOccurrences(of: "\"\(key)\"", with: "\"x_\(key)\"") })
        let problems = BundleVerifier(directory: bundle).verify()
        #expect(problems.contains { $0.hasPrefix("\(bundle)/manifest.json: error: has no \(key)") }, "\(problems)")
    }

    /// schema_migrations must record migrations 1…user_version as fieldpack shipped them: an
    /// edited checksum or a deleted record is refused (`fieldpack-bundle migrate` reads them).
    @Test(arguments: [
        "UPDATE schema_migrations SET sql_sha256 = 'deadbeef' WHERE version = 4",
        "DELETE FROM schema_migrations",
    ])
    func aSchemaMigrationsRecordThatIsNotFieldpacksIsRefused(edit: String) throws {
        let directory = try TemporaryDirectory()
        try freshBundle(directory)
        try Database(path: directory.file("content.sqlite")).execute(edit)
        try BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("republished")).publish()
        let problems = BundleVerifier(directory: directory.file("republished")).verify()
        #expect(problems.contains { $0.contains("schema_migrations") }, "\(problems)")
    }

    /// The manifest's own fields the app reads: its format's version, the application and the
    /// build date. A manifest of another version, app or with no date is refused.
    @Test(arguments: [
        ("\"manifest_version\": 1", "\"manifest_version\": 7", "manifest_version is 7, not 1"),
        ("\"application_id\": \(Migrations.applicationID)", "\"application_id\": 0", "application_id is 0, not fieldpack's"),
        ("\"build_date\": \"", "\"build_date\": \"garbage", "build_date is \"garbage"),
    ])
    func aManifestOfAnotherVersionAppOrWithoutADateIsRefused(from: String, to: String, problem: String) throws {
        let directory = try TemporaryDirectory()
        let bundle = try freshBundle(directory)
        let original = try text("\(bundle)/manifest.json")
        #expect(original.contains(from), "\(original.prefix(400))")
        try tamper(bundle, manifest: { $0.replacingOccurrences(of: from, with: to) })
        let problems = BundleVerifier(directory: bundle).verify()
        #expect(problems.contains { $0.hasPrefix("\(bundle)/manifest.json: error: \(problem)") }, "\(problems)")
    }

    /// The page size the app's reads were measured at: a database rewritten in 64 KiB pages is
    /// refused, though every checksum is right.
    @Test func aDatabaseOfAnotherPageSizeIsRefused() throws {
        let directory = try TemporaryDirectory()
        let bundle = try freshBundle(directory)
        #expect(BundleVerifier(directory: bundle).verify() == [])
        let copy = directory.file("wide.sqlite")
        try FileManager.default.copyItem(atPath: "\(bundle)/content.sqlite", toPath: copy)
        do {
            let database = try Database(path: copy)
            try database.execute("PRAGMA page_size = 65536; VACUUM")
            #expect(try database.int("PRAGMA page_size") == 65536)
        }
        try FileManager.default.removeItem(atPath: "\(bundle)/content.sqlite")
        try FileManager.default.moveItem(atPath: copy, toPath: "\(bundle)/content.sqlite")
        let (digest, size) = try SHA256.hex(ofFile: "\(bundle)/content.sqlite")
        try tamper(bundle, manifest: { manifest in
            let pattern = try! NSRegularExpression(pattern: #""path": "content.sqlite",\s*"bytes": \d+,\s*"sha256": "[0-9a-f]{64}""#)
            return pattern.stringByReplacingMatches(
                in: manifest, range: NSRange(manifest.startIndex..., in: manifest),
                withTemplate: "\"path\": \"content.sqlite\", \"bytes\": \(size), \"sha256\": \"\(digest)\"")
        }, lines: { $0.split(separator: "\n").map { $0.hasSuffix("  content.sqlite") ? "\(digest)  content.sqlite" : String($0) }.joined(separator: "\n") })
        let problems = BundleVerifier(directory: bundle).verify()
        #expect(problems == ["\(bundle)/content.sqlite: error: page_size is 65536, not 4096"], "\(problems)")
    }

    @Test func aDatabaseFromAnotherApplicationIsRefused() throws {
        let directory = try TemporaryDirectory()
        let bundle = try freshBundle(directory)
        let database = try Database(path: "\(bundle)/content.sqlite")
        try database.execute("PRAGMA application_id = 7")
        try BundlePublisher(database: "\(bundle)/content.sqlite", destination: directory.file("republished")).publish()
        let problems = BundleVerifier(directory: directory.file("republished")).verify()
        #expect(problems.contains { $0.contains("application_id is 7") })
    }
}
