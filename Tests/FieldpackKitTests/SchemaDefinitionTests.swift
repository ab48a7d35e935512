import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// fieldpack-verify compares the full SQL of every schema object with what the migrations of the
/// bundle's version make (issue 15, item 11): a rewritten generated column, an FTS5 option or a
/// trigger is refused even with the manifest recomputed, which the fingerprint alone let pass.
@Suite struct SchemaDefinitionTests {
    /// A published sample bundle whose schema was edited by `sql` (with writable_schema) and
    /// then published again, so every checksum in the manifest is right.
    private func tamperedBundle(_ sql: String, in directory: TemporaryDirectory) throws -> String {
        let input = try directory.write("page.json", page([observationJSON(id: 1, photos: [(11, "cc-by", 2048)])]))
        let bundle = try buildBundle(inputs: [input], in: directory)
        #expect(BundleVerifier(directory: bundle).verify() == [])
        let database = directory.file("content.sqlite")
        do {
            let edited = try Database(path: database)
            try edited.execute("PRAGMA writable_schema = ON")
            try edited.execute(sql)
            try edited.execute("PRAGMA writable_schema = OFF")
        }
        try BundlePublisher(database: database, destination: bundle).publish()
        return bundle
    }

    @Test(arguments: [
        ("UPDATE sqlite_schema SET sql = replace(sql, '''{size}''', '''{size}.evil.example/''') WHERE name = 'photos'",
         "table photos is not defined as schema version"),
        ("UPDATE sqlite_schema SET sql = replace(sql, 'remove_diacritics 2', 'remove_diacritics 0') WHERE name = 'search'",
         "table search is not defined as schema version"),
    ])
    func aRewrittenDefinitionIsRefusedThoughTheFingerprintMatches(sql: String, problem: String) throws {
        let directory = try TemporaryDirectory()
        let bundle = try tamperedBundle(sql, in: directory)
        // The catalogue summary cannot see it...
        let database = try Database(path: "\(bundle)/content.sqlite", mode: .immutable)
        #expect(try SchemaFingerprint.compute(database) == Migrations.goldenFingerprints[Migrations.latestVersion])
        // ...the full definition does.
        let problems = BundleVerifier(directory: bundle).verify()
        #expect(problems.contains { $0.contains(problem) }, "\(problems)")
    }

    @Test func aTriggerOrAnyObjectTheMigrationsDoNotMakeIsRefused() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write("page.json", page([observationJSON(id: 1, photos: [(11, "cc-by", 2048)])]))
        let bundle = try buildBundle(inputs: [input], in: directory)
        let database = directory.file("content.sqlite")
        try Database(path: database).execute("""
            CREATE TRIGGER rewrite AFTER INSERT ON photos BEGIN UPDATE photos SET url = 'https://evil.example/' WHERE id = new.id; END;
            CREATE TABLE extra (x);
            CREATE TABLE sqlitexstat_evil (x);
            CREATE VIRTUAL TABLE sqlite1stat_fts USING fts5(x);
            """)
        try BundlePublisher(database: database, destination: bundle).publish()
        let problems = BundleVerifier(directory: bundle).verify()
        #expect(problems.contains { $0.hasSuffix("error: trigger rewrite is not in schema version \(Migrations.latestVersion)") }, "\(problems)")
        // `_` is not a wildcard here: only SQLite's own `sqlite_stat*` tables are left out.
        for table in ["extra", "sqlitexstat_evil", "sqlite1stat_fts"] {
            #expect(problems.contains { $0.hasSuffix("error: table \(table) is not in schema version \(Migrations.latestVersion)") }, "\(problems)")
        }
    }

    @Test func aTableWhoseNameOnlyLooksLikeSQLitesOwnChangesTheFingerprint() throws {
        let database = try Database(path: ":memory:")
        try Migrator().migrate(database)
        try database.execute("CREATE TABLE sqlitexstat_evil (x)")
        #expect(try SchemaFingerprint.compute(database) != Migrations.goldenFingerprints[Migrations.latestVersion])
    }

    /// The bundles older releases wrote (kept as fixtures, never rewritten) have exactly the
    /// definitions today's migrations make for their version.
    @Test(arguments: [1, 2, 3, 4, 5, 7, 8, 9])
    func aStoredBundleOfEveryReleasedVersionHasItsVersionsDefinitions(version: Int) throws {
        let path = "\(repositoryRoot)/Tests/FieldpackKitTests/Fixtures/bundles/v\(version).sqlite"
        let database = try Database(path: path, mode: .immutable)
        #expect(try SchemaDefinition.differences(database, version: version) == [])
        // And a version is told from its neighbours.
        if version < Migrations.latestVersion {
            #expect(try !SchemaDefinition.differences(database, version: version + 1).isEmpty)
        }
    }

    @Test func sqlitesStatisticsTablesAreNotSchema() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("v.sqlite"))
        try Migrator().migrate(database)
        try database.execute("ANALYZE")
        #expect(try database.int("SELECT count(*) FROM sqlite_schema WHERE name LIKE 'sqlite_stat%'") ?? 0 > 0)
        #expect(try SchemaDefinition.differences(database, version: Migrations.latestVersion) == [])
    }
}
