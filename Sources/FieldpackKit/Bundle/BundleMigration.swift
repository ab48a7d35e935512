#if canImport(Glibc)
import Glibc
#endif

/// Brings a previously shipped bundle to the latest schema, the way the app once migrated Core
/// Data stores: on a throwaway copy, proved by fingerprints before anything is published.
///
/// 1. The source is checked read-only: fieldpack's `application_id`, a schema version this tool
///    knows (a newer one is refused), `integrity_check`, its migrations recorded with SQL this
///    tool knows, and its structural fingerprint equal to that version's golden one.
/// 2. It is copied (`VACUUM INTO`) to a scratch file; the source is never opened for writing.
/// 3. Each pending migration runs in its own transaction with its `schema_migrations` row and
///    `user_version`, and `foreign_key_check` before commit (`Migrator`); a migration that adds
///    an index fills it from the rows (the search index of schema 5; schema 9's indexes the text
///    the entries of 5 to 8 stored, in its SQL, and is then merged as a build ships it).
/// 4. The copy must pass `integrity_check`, `foreign_key_check`, FTS5's integrity check, and
///    have the latest golden fingerprint.
/// 5. Only then is it published: `VACUUM INTO` a temp file, fsync, rename over the output.
///
/// On any failure the source is untouched and nothing is published. A source already at the
/// latest schema is checked (1) and published as it is.
public struct BundleMigration {
    public struct Options: Sendable {
        public var source: String
        public var output: String
        /// `source` as the previous bundle's checks found it (`BundleVerifier.previousDatabase`):
        /// nothing is published when the file is another by the time it was copied.
        public var vouched: BundleVerifier.VouchedDatabase? = nil
        /// The schema history to migrate with: the shipped one. (Tests pass one with a failing
        /// step, to show that a failure mid-migration leaves the source alone and publishes nothing.)
        package var migrations: [Migration] = Migrations.all

        public init(source: String, output: String) {
            self.source = source
            self.output = output
        }
    }

    public struct Summary: Sendable {
        public var from = 0
        public var to = 0
        public var fingerprint = ""
    }

    public let options: Options

    public init(options: Options) {
        self.options = options
    }

    @discardableResult
    public func run() throws -> Summary {
        var summary = Summary()
        let source = options.source
        // The output replaces what it names: never the source (a published bundle's database).
        try FileSystem.refuseOutputs([options.output], overwriting: [source])
        summary.from = try Self.checkSource(source)
        let files = try BuildFiles(output: options.output, scratchLabel: "migrating")
        defer { files.cleanUp() }
        if summary.from == Migrations.latestVersion {
            // Nothing to migrate: the checked source is the output as it is (its record of what
            // it was migrated from, if anything, kept), so a second pass gives the same bytes.
            // Its bytes, not a VACUUM INTO, which counts up the schema cookie every pass.
            try FileSystem.copyContents(of: source, into: files.publish)
            try options.vouched?.checkUnchanged()
            try files.publishCopy()
            summary.to = summary.from
            // `checkSource` proved the source's fingerprint is its version's golden one.
            summary.fingerprint = Migrations.goldenFingerprints[summary.from] ?? ""
            return summary
        }
        let scratch = files.scratch
        do {
            let original = try Database(path: source, mode: .immutable)
            try original.execute("VACUUM INTO '\(scratch.replacingOccurrences(of: "'", with: "''"))'")
        } catch let error as SQLiteError {
            // Its SQL names the hidden copy: said as the copy of the source it is.
            throw FieldpackError(path: options.output, "SQLite \(error.code): \(error.message) (while copying \(source) to migrate it)")
        }
        try options.vouched?.checkUnchanged()
        do {
            let copy = try Database(path: scratch)
            try copy.execute("PRAGMA journal_mode = DELETE")
            try Migrator(migrations: options.migrations).migrate(copy)
            // Data steps: indexes a migration created empty, and the one migration 9 filled again
            // from the entries' stored text, merged as a build ships it.
            if summary.from < 5 {
                try copy.transaction { try SearchIndex.build(copy) }
            } else if summary.from < 9 {
                try copy.transaction { try SearchIndex.optimize(copy) }
            }
            try Self.checkMigrated(copy, path: options.output)
            summary.fingerprint = try SchemaFingerprint.compute(copy)
            try copy.transaction {
                let set = try copy.prepare("INSERT OR REPLACE INTO bundle_info (key, value) VALUES (?, ?)")
                for (key, value) in [
                    ("schema_version", String(Migrations.latestVersion)), ("schema_fingerprint", summary.fingerprint),
                    ("migrated_from_schema_version", String(summary.from)), ("tool_version", ToolVersion.version),
                ] {
                    try set.bind([.text(key), .text(value)])
                    try set.run()
                }
                for (table, rows) in try BundleBuilder.rowCounts(copy) {
                    try set.bind([.text("rows.\(table)"), .text(String(rows))])
                    try set.run()
                }
            }
            try files.compact(copy)  // FTS5's check ran in `checkMigrated`, before the fingerprint
        } catch let error as SQLiteError {
            throw error.migrating(options.output, from: source)
        } catch let error as FieldpackError where error.path == scratch {
            // A step's own checks (`Migrator`: a foreign key a step broke) name the copy.
            throw FieldpackError(path: options.output, line: error.line, column: error.column, "\(error.message) (while migrating \(source) into it)")
        }
        try files.publishCopy()
        summary.to = Migrations.latestVersion
        return summary
    }

    /// The bundle at `source` as its pending migrations make it, at `path` (an empty file), for a
    /// delta to compare with (`BundleDelta`): a copy of its bytes and the migrations' SQL on it,
    /// nothing more. Not the checks (the previous bundle was checked when it was named: verified,
    /// or its integrity checked), not the search index (a delta takes it whole), not compacted,
    /// not made durable: the copy is thrown away after the comparison.
    static func migratedForComparison(_ source: String, into path: String) throws {
        try FileSystem.copyContents(of: source, into: path)
        let copy = try Database(path: path)
        try copy.execute("PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF")
        try Migrator().migrate(copy)
    }

    /// Checks the source read-only; returns its schema version.
    static func checkSource(_ path: String) throws -> Int {
        guard FileSystem.exists(path) else { throw FieldpackError(path: path, "no such bundle") }
        // Not SQLite at all (a records file given by mistake): said once, not through SQLite's error.
        if let header = try SQLiteHeader.headerProblem(of: path), !header.isSQLite { throw FieldpackError(path: path, header.message) }
        let database: Database
        do {
            database = try Database(path: path, mode: .immutable)
            _ = try database.int("SELECT count(*) FROM sqlite_schema")
        } catch {
            throw FieldpackError(path: path, "not an SQLite database: \(error)")
        }
        let application = try database.int("PRAGMA application_id") ?? 0
        guard application == Int64(Migrations.applicationID) else {
            throw FieldpackError(path: path, "application_id is \(application), not fieldpack's bundle (\(Migrations.applicationID))")
        }
        let version = Int(try database.int("PRAGMA user_version") ?? 0)
        guard version <= Migrations.latestVersion else {
            throw FieldpackError(
                path: path, "schema version \(version) is newer than this fieldpack knows (\(Migrations.latestVersion)); use a newer fieldpack")
        }
        guard version >= 1, let golden = Migrations.goldenFingerprints[version] else {
            throw FieldpackError(path: path, "schema version \(version) is not one fieldpack ever shipped")
        }
        let integrity = try database.rows("PRAGMA integrity_check").compactMap { $0.first ?? nil }
        guard integrity == ["ok"] else {
            throw FieldpackError(path: path, "integrity_check fails: \(integrity.prefix(3).joined(separator: "; "))")
        }
        // The source's own broken references, named as its own: found after a migration they
        // were blamed on it, under the scratch copy's name.
        let violations = try database.rows("PRAGMA foreign_key_check")
        if let first = violations.first {
            throw FieldpackError(
                path: path,
                "\(violations.count) foreign key violation(s) in the bundle itself; first in \(first[0] ?? "?") row \(first[1] ?? "?") (to \(first[2] ?? "?"))")
        }
        // The record of every migration applied, as fieldpack shipped it, with none missing.
        let applied = try database.rows("SELECT version, name, sql_sha256 FROM schema_migrations ORDER BY version")
        if let problem = Migrations.recordProblem(applied, version: version) { throw FieldpackError(path: path, problem) }
        let fingerprint = try SchemaFingerprint.compute(database)
        guard fingerprint == golden else {
            throw FieldpackError(
                path: path, "its schema fingerprint \(fingerprint) is not version \(version)'s golden one (\(golden)): the schema was changed by hand")
        }
        // What the fingerprint cannot see (a COLLATE, a generated column's expression, an FTS5
        // option) would be carried into the migrated copy under the latest golden fingerprint.
        if let difference = try SchemaDefinition.differences(database, version: version).first {
            throw FieldpackError(path: path, "\(difference): the schema was changed by hand")
        }
        return version
    }

    /// The migrated copy's checks, before it may be published.
    static func checkMigrated(_ database: Database, path: String) throws {
        let integrity = try database.rows("PRAGMA integrity_check").compactMap { $0.first ?? nil }
        guard integrity == ["ok"] else { throw FieldpackError(path: path, "migrated copy fails integrity_check: \(integrity.prefix(3))") }
        let violations = try database.rows("PRAGMA foreign_key_check")
        guard violations.isEmpty else {
            throw FieldpackError(path: path, "migrated copy has \(violations.count) foreign key violation(s), first in \(violations[0][0] ?? "?")")
        }
        try database.execute("INSERT INTO search(search, rank) VALUES ('integrity-check', 1)")
        let fingerprint = try SchemaFingerprint.compute(database)
        guard fingerprint == Migrations.goldenFingerprints[Migrations.latestVersion] else {
            throw FieldpackError(path: path, "migrated copy's fingerprint \(fingerprint) is not the latest version's golden one")
        }
        if let difference = try SchemaDefinition.differences(database, version: Migrations.latestVersion).first {
            throw FieldpackError(path: path, "migrated copy: \(difference)")
        }
    }
}
