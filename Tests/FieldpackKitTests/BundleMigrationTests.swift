import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// Migrating the bundles of every released schema version to the latest one.
///
/// `Fixtures/bundles/v<N>.sqlite` are small bundles as fieldpack wrote them at schema version N
/// (kept like Core Data apps keep every model version). They are written once, when a version is
/// released, by `FIELDPACK_WRITE_BUNDLE_FIXTURES=N swift test --filter BundleMigrationTests`, and
/// never rewritten.
@Suite struct BundleMigrationTests {
    static let fixtures = "\(repositoryRoot)/Tests/FieldpackKitTests/Fixtures/bundles"
    /// The released versions older than the latest, which must migrate.
    static let released = [1, 2, 3, 4, 5, 7, 8]

    /// The rows a bundle of version 1 could hold (every later schema still has these columns).
    static let rows = """
        INSERT INTO users (id, login, name) VALUES (7, 'zoe', 'Zoë Brontë'), (8, 'lukasz', NULL);
        INSERT INTO photos (id, url, license_code, attribution, width, height, photo_type) VALUES
            (10, 'https://inaturalist-open-data.s3.amazonaws.com/photos/10/square.jpg', 'cc-by', '(c) Zoë', 2048, 1536, NULL),
            (11, 'https://static.inaturalist.org/photos/11/square.JPG', NULL, '(c) lukasz, all rights reserved', NULL, NULL, NULL);
        INSERT INTO taxa (id, name, rank, rank_level, ancestry, iconic_taxon_name, preferred_common_name, wikipedia_url,
                          is_active, default_photo_id) VALUES
            (48662, 'Danaus plexippus', 'species', 10, '48460/1', 'Insecta', 'Monarque', 'http://en.wikipedia.org/wiki/Monarch_butterfly', 1, 10);
        INSERT INTO observations (id, uuid, user_id, taxon_id, quality_grade, observed_on, latitude, longitude, updated_at) VALUES
            (1, 'u-1', 7, 48662, 'research', '2024-05-01', 50.5, 4.25, '2024-05-01T10:00:00+02:00'),
            (2, 'u-2', 8, 48662, 'needs_id', '2024-05-02', NULL, NULL, '2024-05-02T10:00:00Z');
        INSERT INTO observation_photos (observation_id, photo_id, position) VALUES (1, 10, 0), (2, 11, 0);
        INSERT INTO taxon_photos (taxon_id, position, photo_id) VALUES (48662, 0, 10);
        """

    /// The version-1 tables and their columns: the data every migration must carry over.
    static let carried: [(table: String, columns: String, order: String)] = [
        ("users", "id, login, name", "id"),
        ("photos", "id, url, license_code, attribution, width, height, photo_type", "id"),
        ("taxa", "id, name, rank, rank_level, ancestry, iconic_taxon_name, preferred_common_name, wikipedia_url, is_active, default_photo_id", "id"),
        ("observations", "id, uuid, user_id, taxon_id, quality_grade, observed_on, latitude, longitude, updated_at", "id"),
        ("observation_photos", "observation_id, photo_id, position", "observation_id, photo_id"),
        ("taxon_photos", "taxon_id, position, photo_id", "taxon_id, position"),
    ]

    @Test(.enabled(if: ProcessInfo.processInfo.environment["FIELDPACK_WRITE_BUNDLE_FIXTURES"] != nil))
    func writeTheFixtureOfANewlyReleasedVersion() throws {
        let version = Int(ProcessInfo.processInfo.environment["FIELDPACK_WRITE_BUNDLE_FIXTURES"]!)!
        let path = "\(Self.fixtures)/v\(version).sqlite"
        #expect(!FileManager.default.fileExists(atPath: path), "a released version's fixture is never rewritten")
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("build.sqlite"))
        try database.execute("PRAGMA application_id = \(Migrations.applicationID)")
        try Migrator().migrate(database, to: version)
        try database.execute(Self.rows)
        // From schema 5 a build fills the search index from the rows, as this fieldpack does it:
        // the index of schema 9 and later (those of 5 to 8 kept their text in `search_entries`,
        // and their fixtures were written by the fieldpack of their day).
        try #require(version >= 9 || version < 5, "the fixtures of schema 5 to 8 exist and are never rewritten")
        if version >= 5 { try database.transaction { try SearchIndex.build(database) } }
        try database.execute("""
            INSERT INTO bundle_info (key, value) VALUES ('schema_version', '\(version)'), ('pipeline', 'fixture'),
                ('tool_version', 'fieldpack fixture of schema \(version)'), ('build_date', '2024-05-02T10:00:00Z'), ('inputs', '[]'),
                ('schema_fingerprint', '\(try SchemaFingerprint.compute(database))'),
                ('rows.users', '2'), ('rows.photos', '2'), ('rows.taxa', '1'), ('rows.observations', '2'),
                ('rows.observation_photos', '2'), ('rows.taxon_photos', '1')
            """)
        try database.execute("PRAGMA page_size = 4096; VACUUM INTO '\(path)'")
    }

    private func sha256(_ path: String) throws -> String { try SHA256.hex(ofFile: path).0 }

    /// Migrating is idempotent: a bundle already at the latest schema is published as it is,
    /// byte for byte, and a migrated one migrated again keeps what it was migrated from.
    @Test func aBundleAtTheLatestSchemaIsPublishedAsItIs() throws {
        let directory = try TemporaryDirectory()
        let once = directory.file("once.sqlite"), twice = directory.file("twice.sqlite")
        try BundleMigration(options: .init(source: "\(Self.fixtures)/v2.sqlite", output: once)).run()
        let summary = try BundleMigration(options: .init(source: once, output: twice)).run()
        #expect(summary.from == Migrations.latestVersion && summary.to == Migrations.latestVersion)
        #expect(try sha256(twice) == sha256(once))
        #expect(try Database(path: twice, mode: .immutable).scalar("SELECT value FROM bundle_info WHERE key = 'migrated_from_schema_version'") == "2")
    }

    /// The output never replaces the source, however its path is written: a published bundle's
    /// database migrated "in place" was replaced, and its bundle no longer verified.
    @Test(arguments: ["same", "dotted"])
    func anOutputThatIsTheSourceIsRefusedAndTheSourceKept(path: String) throws {
        let directory = try TemporaryDirectory()
        let source = directory.file("old/content.sqlite")
        try FileManager.default.createDirectory(atPath: directory.file("old"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(Self.fixtures)/v7.sqlite", toPath: source)
        let before = try sha256(source)
        let output = path == "same" ? source : directory.file("old/./content.sqlite")
        let error = try #require(throws: FieldpackError.self) {
            try BundleMigration(options: .init(source: source, output: output)).run()
        }
        #expect(error.message.contains("is also an input of this run"), "\(error.message)")
        #expect(try sha256(source) == before)
    }

    @Test(arguments: released)
    func everyReleasedVersionMigratesToTheLatestWithTheSameData(version: Int) throws {
        let source = "\(Self.fixtures)/v\(version).sqlite"
        let before = try sha256(source)
        let directory = try TemporaryDirectory()
        let output = directory.file("content.sqlite")
        let summary = try BundleMigration(options: .init(source: source, output: output)).run()
        #expect(summary.from == version && summary.to == Migrations.latestVersion)
        #expect(try sha256(source) == before, "the source was modified")
        let migrated = try Database(path: output, mode: .immutable)
        #expect(try SchemaFingerprint.compute(migrated) == Migrations.goldenFingerprints[Migrations.latestVersion])
        #expect(try migrated.int("PRAGMA user_version") == Int64(Migrations.latestVersion))
        #expect(try migrated.scalar("PRAGMA journal_mode") == "delete")
        let original = try Database(path: source, mode: .immutable)
        for (table, columns, order) in Self.carried {
            let sql = "SELECT \(columns) FROM \(table) ORDER BY \(order)"
            #expect(try migrated.rows(sql) == original.rows(sql), "\(table) changed")
        }
        // The new search index is filled from the carried rows, and merged as a build ships it.
        #expect(try migrated.scalar("SELECT e.name FROM search JOIN search_entries e ON e.id = search.rowid WHERE search MATCH 'monarq*'")
                == "Danaus plexippus")
        #expect(try migrated.rows("SELECT k, v FROM search_config ORDER BY k") == [["automerge", "4"], ["version", "4"]])
        // And the result is a bundle the app accepts.
        try BundlePublisher(database: output, destination: directory.file("bundle")).publish()
        #expect(BundleVerifier(directory: directory.file("bundle")).verify() == [])
    }

    /// Schema 9 keeps no text in the search index: a bundle of 5 to 8, whose entries held their
    /// text (`body`) under an index over it, has them indexed again from that text, and the text
    /// dropped, so its searches find what they found.
    @Test func anEarlierBundlesSearchTextIsIndexedAgainWhenItsStoredCopyGoes() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("v8.sqlite"))
        try Migrator().migrate(database, to: 8)
        try database.execute("""
            INSERT INTO search_entries (kind, ref, name, common_name, body) VALUES
                ('taxon', '48662', 'Danaus plexippus', 'Monarque', NULL),
                ('article', '1', 'Monarch butterfly', NULL, 'It winters in the forests of Michoacán');
            INSERT INTO search(search) VALUES ('rebuild');
            """)
        func found(_ query: String) throws -> [String] {
            try database.rows("""
                SELECT e.name FROM search JOIN search_entries AS e ON e.id = search.rowid WHERE search MATCH ?
                ORDER BY bm25(search, 10.0, 5.0, 1.0), e.id
                """, [.text(query)]).map { $0[0] ?? "" }
        }
        #expect(try found("michoacan") == ["Monarch butterfly"])
        try Migrator().migrate(database)
        #expect(try database.int("PRAGMA user_version") == Int64(Migrations.latestVersion))
        #expect(try found("michoacan") == ["Monarch butterfly"])
        #expect(try found("monarq*") == ["Danaus plexippus"])
        #expect(try found("monarch") == ["Monarch butterfly"])
        #expect(try database.int("SELECT count(*) FROM pragma_table_info('search_entries') WHERE name = 'body'") == 0)
        try database.execute("INSERT INTO search(search, rank) VALUES ('integrity-check', 1)")
    }

    /// A bundle of schema 8 with more text than FTS5 holds in memory before it writes a segment:
    /// migration 9 indexes it again in several segments, and the migrated bundle ships them
    /// merged into one, as a build does.
    @Test func aMigratedBundlesSearchIndexIsMergedIntoOneSegment() throws {
        let directory = try TemporaryDirectory()
        let source = directory.file("v8.sqlite")
        try FileManager.default.copyItem(atPath: "\(Self.fixtures)/v8.sqlite", toPath: source)
        do {
            let database = try Database(path: source)
            try database.execute("""
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000)
                INSERT INTO search_entries (kind, ref, name, common_name, body)
                SELECT 'article', i, 'Article ' || i, NULL,
                       (WITH RECURSIVE m(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM m WHERE j < 120)
                        SELECT group_concat('w' || ((i * 131 + j * 7919) % 1000003), ' ') FROM m)
                FROM n;
                INSERT INTO search(search) VALUES ('rebuild');
                """)
        }
        // Migration 9's SQL alone leaves the text in several segments.
        let sqlOnly = directory.file("sql-only.sqlite")
        try FileManager.default.copyItem(atPath: source, toPath: sqlOnly)
        do {
            let database = try Database(path: sqlOnly)
            try Migrator().migrate(database)
            #expect(try database.int("SELECT count(DISTINCT segid) FROM search_idx") ?? 0 > 1)
        }
        let output = directory.file("content.sqlite")
        try BundleMigration(options: .init(source: source, output: output)).run()
        let migrated = try Database(path: output, mode: .immutable)
        #expect(try migrated.int("SELECT count(*) FROM search_entries") == 4001)
        #expect(try migrated.int("SELECT count(DISTINCT segid) FROM search_idx") == 1)
        #expect(try migrated.scalar("SELECT e.name FROM search JOIN search_entries e ON e.id = search.rowid WHERE search MATCH 'w8050'")
                == "Article 1")  // (1 × 131 + 1 × 7919), its first word
    }

    /// What a team keeps is the published folder, not the database alone (issue 15, item 14):
    /// a folder of every released version verifies as it was shipped, and `fieldpack-bundle
    /// migrate FOLDER` migrates it.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["FIELDPACK_BIN"] != nil), arguments: released)
    func aPublishedFolderOfEveryReleasedVersionVerifiesAndMigrates(version: Int) throws {
        let bin = try #require(ProcessInfo.processInfo.environment["FIELDPACK_BIN"])
        let directory = try TemporaryDirectory()
        let database = directory.file("v\(version).sqlite")
        try FileManager.default.copyItem(atPath: "\(Self.fixtures)/v\(version).sqlite", toPath: database)
        // The fixtures count the version-1 tables only; that version's builder counted every
        // table its schema had, and the manifest lists those.
        do {
            let copy = try Database(path: database)
            for table in BundleBuilder.tables
            where try copy.int("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(table)]) == 1 {
                let count = try copy.int("SELECT count(*) FROM \(table)") ?? 0
                try copy.execute("INSERT OR REPLACE INTO bundle_info (key, value) VALUES ('rows.\(table)', '\(count)')")
            }
        }
        let folder = directory.file("previous")
        try BundlePublisher(database: database, destination: folder).publish()
        #expect(BundleVerifier(directory: folder).verify() == [])

        let output = directory.file("content.sqlite")
        let migrated = try run("\(bin)/fieldpack-bundle", ["migrate", folder, "--output", output])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        #expect(try Database(path: output, mode: .immutable).int("PRAGMA user_version") == Int64(Migrations.latestVersion))
    }

    @Test func aFailureMidMigrationLeavesTheSourceAsItWasAndPublishesNothing() throws {
        let source = "\(Self.fixtures)/v2.sqlite"
        let before = try sha256(source)
        let directory = try TemporaryDirectory()
        var options = BundleMigration.Options(source: source, output: directory.file("content.sqlite"))
        // Migration 3 commits on the copy, then 4 fails in SQLite.
        options.migrations = Array(Migrations.all[0..<3])
            + [Migration(version: 4, name: "broken", sql: "ALTER TABLE no_such_table ADD COLUMN x")]
            + Array(Migrations.all[4...])
        let error = try #require(throws: FieldpackError.self) { try BundleMigration(options: options).run() }
        #expect(error.message.contains("no_such_table") && error.message.contains("ALTER TABLE no_such_table"), "\(error)")
        // Named as the person knows it: the output asked for, never the hidden copy migrated.
        #expect(error.path == directory.file("content.sqlite"))
        #expect(!error.description.contains("migrating-"), "\(error)")
        #expect(try sha256(source) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func aBundleNewerForeignOrEditedByHandIsRefusedWithTheReason() throws {
        let directory = try TemporaryDirectory()
        func copy(_ name: String, _ sql: String) throws -> String {
            let path = directory.file(name)
            try FileManager.default.copyItem(atPath: "\(Self.fixtures)/v2.sqlite", toPath: path)
            try Database(path: path).execute(sql)
            return path
        }
        func reason(_ source: String) throws -> String {
            let error = try #require(throws: FieldpackError.self) {
                try BundleMigration(options: .init(source: source, output: directory.file("out.sqlite"))).run()
            }
            return error.message
        }
        #expect(try reason(copy("newer.sqlite", "PRAGMA user_version = \(Migrations.latestVersion + 1)")).contains("is newer than this fieldpack knows"))
        #expect(try reason(copy("foreign.sqlite", "PRAGMA application_id = 42")).hasPrefix("application_id is 42"))
        #expect(try reason(copy("edited.sqlite", "ALTER TABLE users ADD COLUMN nickname TEXT")).contains("not version 2's golden one"))
        #expect(try reason(copy("unknown.sqlite", "UPDATE schema_migrations SET sql_sha256 = 'x' WHERE version = 2"))
                .contains("is not migration 2 (index-app-queries, SQL"))
        // A record with a gap: migration 1 missing from it.
        #expect(try reason(copy("gap.sqlite", "DELETE FROM schema_migrations WHERE version = 1"))
                .contains("schema_migrations records 1 migration(s), not the 2 of schema version 2"))
        // A change the fingerprint cannot see (a COLLATE) would ship under the latest golden fingerprint.
        let collated = try copy("collate.sqlite", """
            PRAGMA writable_schema = ON;
            UPDATE sqlite_schema SET sql = replace(sql, 'login TEXT', 'login TEXT COLLATE NOCASE') WHERE name = 'users';
            PRAGMA writable_schema = OFF;
            """)
        #expect(try reason(collated).contains("table users is not defined as schema version 2 defines it"))
        // A broken reference in the source is the source's, named so, not blamed on a migration
        // under the scratch copy's name.
        let dangling = try copy("dangling.sqlite", "PRAGMA foreign_keys = OFF; UPDATE observations SET user_id = 999999")
        #expect(try reason(dangling).hasPrefix("2 foreign key violation(s) in the bundle itself; first in observations row"))
        // Not SQLite at all: said once (it named the file twice, through SQLite's own error).
        let records = try directory.write("records.jsonl", "[\"obs\", 1, \"29199f66-0b7d-4d84\"]\n")
        #expect(try reason(records) == "is not a SQLite database (its first 16 bytes are not \"SQLite format 3\" and a NUL)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.sqlite")))
    }
}
