import CSQLite3

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
        _ = Self.configured
        var handle: OpaquePointer? = nil
        // Every connection is opened by URI (so ATTACH takes URIs too), built in one place.
        let flags: Int32
        switch mode {
        case .readOnly, .immutable: flags = SQLITE_OPEN_READONLY
        case .readWriteCreate: flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        }
        let status = sqlite3_open_v2(Self.uri(path, mode: mode), &handle, flags | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let handle { sqlite3_close_v2(handle) }
            throw SQLiteError(code: status, message: message, sql: nil, path: path)
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit { sqlite3_close_v2(handle) }

    /// SQLite's process-wide settings, made once before the first connection opens: no memory
    /// statistics (a global mutex taken around every allocation of every connection; the bundle
    /// stage's load spent about 3% of its samples in it). SQLite's answer: `SQLITE_OK`, or
    /// `SQLITE_MISUSE` had SQLite been used before (then the setting is not made; the tests check
    /// it was).
    package static let configured: Int32 = fp_sqlite3_config_memstatus_off()

    /// The `file:` URI SQLite opens `path` by in `mode`: the only place a path becomes a URI
    /// (connections here, `ATTACH` in the bundle delta).
    package static func uri(_ path: String, mode: Mode) -> String {
        switch mode {
        case .readOnly: "file:\(uriEscape(path))?mode=ro"
        case .immutable: "file:\(uriEscape(path))?mode=ro&immutable=1"
        case .readWriteCreate: "file:\(uriEscape(path))"
        }
    }

    package static func uriEscape(_ path: String) -> String {
        var bytes = path.utf8[...]
        var out = ""
        // "file://x" would name a host: a path that starts with two slashes keeps them as path.
        if path.hasPrefix("//") {
            out = "/%2F"
            bytes = bytes.dropFirst(2)
        }
        for byte in bytes {
            switch byte {
            // URI delimiters, and every byte of a non-ASCII letter (SQLite decodes %XX to bytes).
            case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "&"), 0x80...0xFF:
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
