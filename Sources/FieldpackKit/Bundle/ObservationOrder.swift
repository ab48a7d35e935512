/// Puts the observations into their table in id order.
///
/// Observations arrive at the load in their dedupe key's order, the uuid (the export knows an
/// observation only by it), which is a random order of the table's key, the id. Inserted as they
/// came, each row landed on a random page of a table larger than the page cache: on 1M
/// observations, 190k page writes and as many reads of 64 KiB (12 GB each way) through the 64 MiB
/// cache, 20 of the load's 25 seconds. Instead they are appended to a temporary table as they
/// come, and moved into `observations` by one `INSERT … SELECT … ORDER BY id` at the end of the
/// load: SQLite's sorter (within the cache's memory, then its own temp files), then appends in
/// key order. The bundle's bytes do not change: `VACUUM INTO` copies rows by key either way.
enum ObservationOrder {
    /// Where the observation rows go as they arrive (a table of the connection's temp database,
    /// gone with the connection).
    static let arrivalTable = "temp.observations_arriving"

    /// The columns the load binds, in order: the records' bundle columns, then the derived ones.
    static let columns = ObservationRecord.Column.bundleColumns.map { $0.spec.bundleColumn! } + ["coordinates_obscured"]

    /// The INSERT each arriving observation row runs: its columns, then the deduped records line
    /// it comes from (the row's last value, see `RecordParser`), for an error about it.
    static let insertSQL = SQLText.insert(into: arrivalTable, columns: columns + ["line"])

    /// Creates the arrival table, with the columns (and so the affinities) of `observations`, and
    /// the line. It lives in SQLite's temp database: SQLite's temp folder (`SQLITE_TMPDIR`, else
    /// `/var/tmp`, `/usr/tmp`, `/tmp`), in a file SQLite unlinks at once, as its sorter's are.
    static func prepare(_ database: Database) throws {
        try database.execute("""
            CREATE TEMP TABLE observations_arriving AS SELECT \(columns.joined(separator: ", ")), 0 AS line FROM main.observations WHERE 0
            """)
    }

    /// Moves the arrived rows into `observations` in id order and drops the arrival table.
    ///
    /// - Throws: naming the line (in `path`, the deduped records) of an observation whose id an
    ///   earlier line's observation has (the table's key, which the arrival table does not
    ///   enforce), or SQLite's error with the SQL.
    static func move(_ database: Database, path: String) throws {
        let list = columns.joined(separator: ", ")
        do {
            try database.execute("INSERT INTO main.observations (\(list)) SELECT \(list) FROM \(arrivalTable) ORDER BY id")
        } catch let error as SQLiteError {
            let twice = try database.rows("""
                SELECT id, uuid, line FROM \(arrivalTable)
                WHERE id = (SELECT id FROM \(arrivalTable) GROUP BY id HAVING count(*) > 1 ORDER BY id LIMIT 1)
                ORDER BY line LIMIT 2
                """)
            guard twice.count == 2 else { throw FieldpackError(path: path, "putting the observations in id order: \(error)") }
            let (first, second) = (twice[0], twice[1])
            throw FieldpackError(
                path: path, line: second[2].flatMap { Int($0) },
                "observation \(second[1] ?? "?") has the id \(second[0] ?? "?") of observation \(first[1] ?? "?") (line \(first[2] ?? "?")): an id names one observation")
        }
        try database.execute("DROP TABLE \(arrivalTable)")
    }
}
