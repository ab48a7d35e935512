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

/// An open SQLite connection; closed when the object goes away.
///
/// Not thread-safe: one connection per thread.
public final class Database {
    let handle: OpaquePointer
    public let path: String

    public enum Mode {
        case readOnly
        /// Read-only and immutable (`immutable=1`): how the app opens a shipped bundle.
        case immutable
        case readWriteCreate
    }

    public init(path: String, mode: Mode = .readWriteCreate) throws {
        self.path = path
        var handle: OpaquePointer? = nil
        let flags: Int32
        var name = path
        switch mode {
        case .readOnly: flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
            name = "file:\(Self.uriEscape(path))?mode=ro"
        case .immutable: flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
            name = "file:\(Self.uriEscape(path))?mode=ro&immutable=1"
        case .readWriteCreate: flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        }
        let status = sqlite3_open_v2(name, &handle, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let handle { sqlite3_close_v2(handle) }
            throw SQLiteError(code: status, message: message, sql: nil, path: path)
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit { sqlite3_close_v2(handle) }

    static func uriEscape(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "&"):
                out += "%" + String(byte, radix: 16, uppercase: true)
            default: out += String(UnicodeScalar(byte))
            }
        }
        return out
    }

    func error(_ code: Int32, sql: String?) -> SQLiteError {
        SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql, path: path)
    }

    /// Runs one or more statements that return no rows of interest.
    public func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>? = nil
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        if status != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteError(code: status, message: text, sql: sql, path: path)
        }
    }

    public func prepare(_ sql: String) throws -> Statement {
        try Statement(database: self, sql: sql)
    }

    /// All rows of a query, each as its columns' text (NULL as nil).
    public func rows(_ sql: String, _ arguments: [SQLValue] = []) throws -> [[String?]] {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        var rows: [[String?]] = []
        while try statement.step() {
            rows.append((0..<statement.columnCount).map { statement.text($0) })
        }
        return rows
    }

    /// The first column of the first row, as text.
    public func scalar(_ sql: String, _ arguments: [SQLValue] = []) throws -> String? {
        try rows(sql, arguments).first?.first ?? nil
    }

    public func int(_ sql: String, _ arguments: [SQLValue] = []) throws -> Int64? {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        guard try statement.step(), !statement.isNull(0) else { return nil }
        return statement.int64(0)
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`; rolls back if it throws.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }
}

/// A value to bind.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
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

    /// Advances; true while there is a row.
    public func step() throws -> Bool {
        let status = sqlite3_step(handle)
        if status == SQLITE_ROW { return true }
        if status == SQLITE_DONE { return false }
        throw database.error(status, sql: sql)
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
}
