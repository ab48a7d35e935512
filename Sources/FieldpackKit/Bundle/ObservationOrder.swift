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

    /// The INSERT each arriving observation row runs.
    static let insertSQL = SQLText.insert(into: arrivalTable, columns: columns)

    /// Creates the arrival table, with the columns (and so the affinities) of `observations`.
    static func prepare(_ database: Database) throws {
        try database.execute(
            "CREATE TEMP TABLE observations_arriving AS SELECT \(columns.joined(separator: ", ")) FROM main.observations WHERE 0")
    }

    /// Moves the arrived rows into `observations` in id order and drops the arrival table.
    ///
    /// - Throws: naming the observations by uuid when two of them have one id (the table's key,
    ///   which the arrival table does not enforce), or SQLite's error.
    static func move(_ database: Database, path: String) throws {
        let list = columns.joined(separator: ", ")
        do {
            try database.execute("INSERT INTO main.observations (\(list)) SELECT \(list) FROM \(arrivalTable) ORDER BY id")
        } catch let error as SQLiteError {
            let duplicate = try database.rows("""
                SELECT id, group_concat(uuid, ', ') FROM (SELECT id, uuid FROM \(arrivalTable) ORDER BY uuid)
                GROUP BY id HAVING count(*) > 1 ORDER BY id LIMIT 1
                """).first
            guard let duplicate else { throw error }
            throw FieldpackError(
                path: path, "the observations with the uuids \(duplicate[1] ?? "?") have the same id \(duplicate[0] ?? "?"): an id names one observation")
        }
        try database.execute("DROP TABLE \(arrivalTable)")
    }
}
