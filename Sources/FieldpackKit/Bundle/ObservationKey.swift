/// How the bundle's schema identifies an observation, read from the schema itself: the
/// `observations` column that `observation_photos` refers to (its primary key, whatever it is
/// called), and the referring column. SQL that selects observations joins through these, so it
/// does not depend on the observations' API id being the key.
struct ObservationKey: Equatable {
    /// The key column of `observations` (`rowid` when the table declares no single-column key).
    var column: String
    /// The column of `observation_photos` that holds it.
    var link: String

    static func read(_ database: Database) throws -> ObservationKey {
        let primary = try database.rows("SELECT name FROM pragma_table_info('observations') WHERE pk > 0 ORDER BY pk")
        let fallback = primary.count == 1 ? primary[0][0]! : "rowid"
        let references = try database.rows(
            "SELECT \"from\", \"to\" FROM pragma_foreign_key_list('observation_photos') WHERE \"table\" = 'observations' ORDER BY id, seq")
        guard references.count == 1, let link = references[0][0] else {
            throw FieldpackError(
                path: database.path, "observation_photos has \(references.count) references to observations; the selection needs exactly one")
        }
        return ObservationKey(column: references[0][1] ?? fallback, link: link)
    }
}
