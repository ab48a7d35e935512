import CSQLite3

/// An SQLite failure: the extended result code, SQLite's message, the SQL and the database file.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    public var code: Int32
    public var message: String
    public var sql: String?
    public var path: String

    public var description: String {
        var text = "\(path): error: SQLite \(code): \(message)"
        if let sql { text += "\n  in: \(sql)" }
        return text
    }
}

extension SQLiteError {
    /// The failure as one of building `output` (the file a person asked for), for an error on a
    /// scratch or temp file they never named.
    public func building(_ output: String) -> FieldpackError {
        FieldpackError(path: output, "SQLite \(code): \(message) (while building it)" + (sql.map { "\n  in: \($0)" } ?? ""))
    }

    /// A failure while migrating a copy of `source` to be published at `output`: named by the
    /// output, never the scratch copy it happened in.
    public func migrating(_ output: String, from source: String) -> FieldpackError {
        FieldpackError(path: output, "SQLite \(code): \(message) (while migrating \(source) into it)" + (sql.map { "\n  in: \($0)" } ?? ""))
    }

    /// The failure of a statement run for an input record: names the input's file and line, the
    /// values bound and the SQL, with SQLite's code and message.
    public func inserting(_ values: [SQLValue], from path: String, line: Int?) -> FieldpackError {
        FieldpackError(
            path: path, line: line,
            "SQLite \(code): \(message), binding \(SQLValue.literals(values)) to \(sql ?? "?") in \(self.path)")
    }
}
