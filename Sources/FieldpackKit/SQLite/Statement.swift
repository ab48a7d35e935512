import CSQLite3

/// A value to bind.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}

extension SQLValue {
    /// The values as an SQL tuple, `(1, 'it''s', NULL)`, texts cut to `maximumText` characters,
    /// for error messages.
    public static func literals(_ values: [SQLValue], maximumText: Int = 80) -> String {
        let parts = values.map { value -> String in
            switch value {
            case .null: return "NULL"
            case .integer(let int): return String(int)
            case .real(let double): return String(double)
            case .text(let text):
                let shown = text.count > maximumText ? String(text.prefix(maximumText)) + "…" : text
                return "'" + shown.replacingOccurrences(of: "'", with: "''") + "'"
            }
        }
        return "(" + parts.joined(separator: ", ") + ")"
    }
}

/// A prepared statement, finalized with the object; reuse it with `reset()`.
public final class Statement {
    let handle: OpaquePointer
    unowned let database: Database
    public let sql: String

    init(database: Database, sql: String) throws {
        self.database = database
        self.sql = sql
        var handle: OpaquePointer? = nil
        let status = sqlite3_prepare_v2(database.handle, sql, -1, &handle, nil)
        guard status == SQLITE_OK, let handle else { throw database.error(status, sql: sql) }
        self.handle = handle
    }

    deinit { sqlite3_finalize(handle) }

    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// How many `?` parameters the statement takes.
    public var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    /// Advances; true while there is a row.
    public func step() throws -> Bool {
        let status = sqlite3_step(handle)
        if status == SQLITE_ROW { return true }
        if status == SQLITE_DONE { return false }
        throw database.error(status, sql: sql)
    }

    /// Binds with `bind`, then runs; the statement is reset and its bindings cleared whatever
    /// happens, a failed bind included, so no borrowed bytes (`bind(borrowing:at:)`) stay bound
    /// past the call.
    public func run(binding bind: () throws -> Void) throws {
        do {
            try bind()
        } catch {
            reset()
            throw error
        }
        try run()
    }

    /// Runs a statement that returns no rows, then resets it for reuse.
    public func run() throws {
        defer { reset() }
        _ = try step()
    }

    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    public func bind(_ values: [SQLValue]) throws {
        for (index, value) in values.enumerated() {
            switch value {
            case .null: try bindNull(index + 1)
            case .integer(let int): try bind(int, at: index + 1)
            case .real(let double): try bind(double, at: index + 1)
            case .text(let text): try bind(text, at: index + 1)
            }
        }
    }

    @inline(__always)
    private func check(_ status: Int32) throws {
        if status != SQLITE_OK { throw database.error(status, sql: sql) }
    }

    public func bindNull(_ index: Int) throws { try check(sqlite3_bind_null(handle, Int32(index))) }

    public func bind(_ value: Int64, at index: Int) throws { try check(sqlite3_bind_int64(handle, Int32(index), value)) }

    public func bind(_ value: Int64?, at index: Int) throws {
        if let value { try bind(value, at: index) } else { try bindNull(index) }
    }

    public func bind(_ value: Double, at index: Int) throws { try check(sqlite3_bind_double(handle, Int32(index), value)) }

    public func bind(_ value: Double?, at index: Int) throws {
        if let value { try bind(value, at: index) } else { try bindNull(index) }
    }

    public func bind(_ value: String, at index: Int) throws {
        var value = value
        try value.withUTF8 { bytes in
            try bind(bytes: UnsafeRawBufferPointer(bytes), at: index)
        }
    }

    public func bind(_ value: String?, at index: Int) throws {
        if let value { try bind(value, at: index) } else { try bindNull(index) }
    }

    /// Binds UTF-8 bytes as text; SQLite copies them.
    public func bind(bytes: UnsafeRawBufferPointer, at index: Int) throws {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            return try check("".withCString { fp_sqlite3_bind_text_transient(handle, Int32(index), $0, 0) })
        }
        try check(fp_sqlite3_bind_text_transient(
            handle, Int32(index), base.assumingMemoryBound(to: CChar.self), Int32(bytes.count)))
    }

    /// Binds UTF-8 bytes as text without a copy: SQLite reads them where they are, when the
    /// statement steps, so they must stay valid and unchanged until its bindings are cleared
    /// (`reset()`, which `run()` ends with). Bind them inside `run(binding:)`, in the scope that
    /// keeps them: for the bulk loads, whose values sit in a batch until the row is in.
    public func bind(borrowing bytes: UnsafeRawBufferPointer, at index: Int) throws {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return try bind(bytes: bytes, at: index) }
        try check(fp_sqlite3_bind_text_static(handle, Int32(index), base.assumingMemoryBound(to: CChar.self), Int32(bytes.count)))
    }

    public func bind(_ value: JSONText?, at index: Int) throws {
        if let value { try bind(bytes: value.bytes, at: index) } else { try bindNull(index) }
    }

    public func isNull(_ column: Int) -> Bool { sqlite3_column_type(handle, Int32(column)) == SQLITE_NULL }

    public func int64(_ column: Int) -> Int64 { sqlite3_column_int64(handle, Int32(column)) }

    public func double(_ column: Int) -> Double { sqlite3_column_double(handle, Int32(column)) }

    public func text(_ column: Int) -> String? {
        guard let pointer = sqlite3_column_text(handle, Int32(column)) else { return nil }
        return String(cString: pointer)
    }

    /// The column's text as its UTF-8 bytes, without a copy; nil for NULL. The bytes are valid
    /// until the next `step()`, `reset()` or read of the same column as another type.
    public func textBytes(_ column: Int) -> UnsafeRawBufferPointer? {
        guard let pointer = sqlite3_column_text(handle, Int32(column)) else { return nil }
        return UnsafeRawBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(handle, Int32(column))))
    }
}
