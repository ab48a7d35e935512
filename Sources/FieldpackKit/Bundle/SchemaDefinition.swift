/// The full SQL of every schema object, compared with what the ordered migrations give.
///
/// `SchemaFingerprint` is the catalogue's summary (what the app records per version); it cannot
/// see a generated column's expression, a CHECK, a COLLATE or an FTS5 option. This check can:
/// every table, index, view, trigger and virtual table of the bundle must be one the migrations
/// of its version create, with the same SQL (whitespace collapsed), and nothing else may exist.
/// SQLite's own statistics tables (`sqlite_stat1` and `sqlite_stat4`, written by ANALYZE) are not
/// schema; any other `sqlite_stat…` name is (SQLite makes no other: one was a table of anything).
public enum SchemaDefinition {
    /// `"<type> <name>"` → the object's SQL, whitespace collapsed (nil SQL for automatic indexes).
    public static func objects(_ database: Database) throws -> [String: String] {
        var objects: [String: String] = [:]
        for row in try database.rows("SELECT type, name, sql FROM sqlite_schema WHERE name NOT IN ('sqlite_stat1', 'sqlite_stat4')") {
            objects["\(row[0] ?? "?") \(row[1] ?? "?")"] = row[2].map(SchemaFingerprint.collapseWhitespace) ?? ""
        }
        return objects
    }

    /// The objects a database at `version` has when the migrations built it: applied to an
    /// empty in-memory database.
    public static func expected(version: Int, migrations: [Migration] = Migrations.all) throws -> [String: String] {
        let reference = try Database(path: ":memory:")
        try Migrator(migrations: migrations).migrate(reference, to: version)
        return try objects(reference)
    }

    /// What differs from the schema of `version`, one line per object, in name order.
    public static func differences(_ database: Database, version: Int) throws -> [String] {
        let actual = try objects(database)
        let wanted = try expected(version: version)
        var problems: [String] = []
        for key in Set(actual.keys).union(wanted.keys).sorted() {
            switch (actual[key], wanted[key]) {
            case (_?, nil): problems.append("\(key) is not in schema version \(version)")
            case (nil, _?): problems.append("\(key) of schema version \(version) is missing")
            case let (found?, want?) where found != want:
                problems.append("\(key) is not defined as schema version \(version) defines it: \(found.prefix(200))")
            default: break
            }
        }
        return problems
    }
}
