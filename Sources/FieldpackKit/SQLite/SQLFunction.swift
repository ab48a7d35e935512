import CSQLite3

/// The arguments of one call of a Swift SQL function; valid only during the call.
public struct SQLArguments {
    let count: Int
    let values: UnsafeMutablePointer<OpaquePointer?>?

    private func value(_ index: Int) -> OpaquePointer? {
        index < count ? values?[index] : nil
    }

    public func isNull(_ index: Int) -> Bool {
        guard let value = value(index) else { return true }
        return sqlite3_value_type(value) == SQLITE_NULL
    }

    /// The argument as a number (nil when NULL).
    public func double(_ index: Int) -> Double? {
        guard !isNull(index), let value = value(index) else { return nil }
        return sqlite3_value_double(value)
    }

    public func int64(_ index: Int) -> Int64? {
        guard !isNull(index), let value = value(index) else { return nil }
        return sqlite3_value_int64(value)
    }

    /// The argument's UTF-8 bytes (nil when NULL); valid only during the call.
    public func bytes(_ index: Int) -> UnsafeRawBufferPointer? {
        guard !isNull(index), let value = value(index), let start = sqlite3_value_text(value) else { return nil }
        return UnsafeRawBufferPointer(start: start, count: Int(sqlite3_value_bytes(value)))
    }
}

/// The Swift closure behind a registered function, owned by SQLite (released by its destructor).
private final class SQLFunctionBody {
    let body: (SQLArguments) -> SQLValue

    init(_ body: @escaping (SQLArguments) -> SQLValue) { self.body = body }
}

extension Database {
    /// Registers a deterministic scalar SQL function of `arity` arguments on this connection,
    /// for SQL that needs a rule SQLite has no expression for (geometry, lineages).
    ///
    /// `body` runs on the connection's thread, during the statement that calls it. Integer,
    /// real and NULL results only.
    public func define(function name: String, arity: Int, _ body: @escaping (SQLArguments) -> SQLValue) throws {
        let box = Unmanaged.passRetained(SQLFunctionBody(body)).toOpaque()
        let status = sqlite3_create_function_v2(
            handle, name, Int32(arity), SQLITE_UTF8 | SQLITE_DETERMINISTIC, box,
            { context, count, values in
                let body = Unmanaged<SQLFunctionBody>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
                switch body.body(SQLArguments(count: Int(count), values: values)) {
                case .null: sqlite3_result_null(context)
                case .integer(let value): sqlite3_result_int64(context, value)
                case .real(let value): sqlite3_result_double(context, value)
                case .text: sqlite3_result_error(context, "a Swift SQL function returned text", -1)
                }
            }, nil, nil,
            { box in if let box { Unmanaged<SQLFunctionBody>.fromOpaque(box).release() } })
        guard status == SQLITE_OK else { throw error(status, sql: "sqlite3_create_function_v2 \(name)") }
    }
}
