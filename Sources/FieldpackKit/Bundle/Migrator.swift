/// Applies the ordered migrations to a database, each in its own transaction together with its
/// record in `schema_migrations` and the new `user_version`, checking foreign keys before commit.
public struct Migrator {
    public let migrations: [Migration]

    public init(migrations: [Migration] = Migrations.all) {
        self.migrations = migrations
        var seen = Set<Int>()
        for (index, migration) in migrations.enumerated() {
            precondition(migration.version == index + 1, "migration versions must be 1, 2, 3, … in order")
            precondition(seen.insert(migration.version).inserted, "duplicate migration version")
        }
    }

    static let bookkeeping = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            version INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            sql_sha256 TEXT NOT NULL
        )
        """

    /// Brings `database` from its `user_version` up to `target` (default: the latest).
    ///
    /// - Throws: `FieldpackError` if the database is newer than this tool or was migrated with
    ///   SQL this tool does not know; `SQLiteError` if a migration fails (that migration is rolled
    ///   back, earlier ones stay committed).
    public func migrate(_ database: Database, to target: Int? = nil) throws {
        let target = target ?? migrations.count
        let current = Int(try database.int("PRAGMA user_version") ?? 0)
        if current > migrations.count {
            throw FieldpackError(
                path: database.path,
                "schema version \(current) is newer than this fieldpack knows (\(migrations.count)); use a newer fieldpack")
        }
        if current > 0 {
            // Every migration 1…current, each with the name and SQL it shipped with (a record
            // with one missing, or renamed, was migrated on as if whole: `--previous` compared
            // such a file where `migrate` refused it).
            let applied = try database.rows("SELECT version, name, sql_sha256 FROM schema_migrations ORDER BY version")
            if let problem = Migrations.recordProblem(applied, version: current, migrations: migrations) {
                throw FieldpackError(path: database.path, problem)
            }
        }
        try database.execute("PRAGMA foreign_keys = OFF")
        defer { try? database.execute("PRAGMA foreign_keys = ON") }
        for migration in migrations where migration.version > current && migration.version <= target {
            try database.transaction {
                try database.execute(Self.bookkeeping)
                try database.execute(migration.sql)
                let record = try database.prepare("INSERT INTO schema_migrations (version, name, sql_sha256) VALUES (?, ?, ?)")
                try record.bind([.integer(Int64(migration.version)), .text(migration.name), .text(migration.sqlSHA256)])
                try record.run()
                try database.execute("PRAGMA user_version = \(migration.version)")
                let violations = try database.rows("PRAGMA foreign_key_check")
                if let first = violations.first {
                    throw FieldpackError(
                        path: database.path,
                        "migration \(migration.version) (\(migration.name)) leaves \(violations.count) foreign key violation(s), "
                            + "first in table \(first[0] ?? "?") rowid \(first[1] ?? "?") referencing \(first[2] ?? "?")")
                }
            }
        }
    }
}
