import CSQLite3
@testable import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// The SQLite wrapper against real database files.
@Suite struct SQLiteTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory("sqlite-tests")
    }

    /// A new database file with table `t(a, b, c, d)` (no column types, so values keep their own).
    private func database(_ name: String = "test.sqlite", unique: Bool = false) throws -> Database {
        let database = try Database(path: directory.file(name))
        try database.execute("CREATE TABLE t (a\(unique ? " UNIQUE" : ""), b, c, d)")
        return database
    }

    /// The error `body` throws, which must be an `SQLiteError`.
    private func sqliteError(_ body: () throws -> Void) throws -> SQLiteError {
        try #require(throws: SQLiteError.self) { try body() }
    }

    // MARK: The library's settings

    /// SQLite's memory statistics are off from the first connection on: no global mutex around
    /// each allocation, which the bundle's load paid for. With them on, a table's thousand rows
    /// make `sqlite3_memory_used` count their pages.
    @Test func sqliteCountsNoMemoryOnceAConnectionOpened() throws {
        let database = try database()
        try database.transaction {
            let insert = try database.prepare("INSERT INTO t (a, b) VALUES (?, ?)")
            for row in 0..<1000 {
                try insert.bind([.integer(Int64(row)), .text(String(repeating: "x", count: 200))])
                try insert.run()
            }
        }
        #expect(try database.int("SELECT count(*) FROM t") == 1000)
        // Made, not refused as too late (SQLite used before the first connection)…
        #expect(Database.configured == SQLITE_OK)
        // …and in effect (a SQLite built with no statistics would pass this alone).
        #expect(sqlite3_memory_used() == 0)
    }

    // MARK: Binding and reading

    @Test func everyValueKindBindsAndReadsBack() throws {
        let database = try database()
        let insert = try database.prepare("INSERT INTO t (a, b, c, d) VALUES (?, ?, ?, ?)")
        try insert.bind([.null, .integer(Int64.min), .real(0.1), .text("Zoë's \"蝶\" 🦋")])
        try insert.run()

        let select = try database.prepare("SELECT a, b, c, d, typeof(a), typeof(b), typeof(c), typeof(d) FROM t")
        #expect(try select.step())
        #expect(select.columnCount == 8)
        #expect(select.isNull(0))
        #expect(select.text(0) == nil)
        #expect(select.int64(1) == Int64.min)
        #expect(select.double(2) == 0.1)
        #expect(select.text(3) == "Zoë's \"蝶\" 🦋")
        #expect((4..<8).map { select.text($0) } == ["null", "integer", "real", "text"])
        #expect(try !select.step())
    }

    @Test func typedBindsAndTheirOptionals() throws {
        let database = try database()
        let insert = try database.prepare("INSERT INTO t (a, b, c, d) VALUES (?, ?, ?, ?)")
        try insert.bind(Int64(7), at: 1)
        try insert.bind(2.5, at: 2)
        try insert.bind("text", at: 3)
        let parser = JSONParser()
        let document = PaddedBuffer(copying: Array(#""from JSON""#.utf8))
        try insert.bind(try parser.parse(document).text, at: 4)
        try insert.run()
        try insert.bind(nil as Int64?, at: 1)
        try insert.bind(nil as Double?, at: 2)
        try insert.bind(nil as String?, at: 3)
        try insert.bind(nil as JSONText?, at: 4)
        try insert.run()
        try insert.bind(Optional(Int64(8)), at: 1)
        try insert.bind(Optional(0.5), at: 2)
        try insert.bind(Optional("x"), at: 3)
        try insert.bindNull(4)
        try insert.run()
        #expect(try database.rows("SELECT a, b, c, d FROM t ORDER BY rowid") == [
            ["7", "2.5", "text", "from JSON"], [nil, nil, nil, nil], ["8", "0.5", "x", nil],
        ])
    }

    @Test func anEmptyStringBindsAsEmptyTextNotNull() throws {
        let database = try database()
        let insert = try database.prepare("INSERT INTO t (a, b) VALUES (?, ?)")
        try insert.bind([.text(""), .null])
        try insert.run()
        #expect(try database.rows("SELECT typeof(a), length(a), typeof(b) FROM t") == [["text", "0", "null"]])
    }

    @Test func queryArgumentsAreBound() throws {
        let database = try database()
        try database.execute("INSERT INTO t (a, b) VALUES (1, 'one'), (2, 'two'), (3, NULL)")
        #expect(try database.rows("SELECT a, b FROM t WHERE a >= ? ORDER BY a", [.integer(2)]) == [["2", "two"], ["3", nil]])
        #expect(try database.scalar("SELECT b FROM t WHERE a = ?", [.integer(1)]) == "one")
        #expect(try database.scalar("SELECT b FROM t WHERE a = ?", [.integer(9)]) == nil)
        #expect(try database.int("SELECT count(*) FROM t WHERE b IS ?", [.null]) == 1)
        #expect(try database.int("SELECT b FROM t WHERE a = 3") == nil)
    }

    @Test(arguments: [
        ("SELECT 1", 0), ("INSERT INTO t (a, b, c) VALUES (?, ?, ?)", 3), ("SELECT ?5", 5),
        ("SELECT :a, :b, :a", 2), ("SELECT ?, ?2", 2),
    ])
    func parameterCountIsTheNumberOfParameters(sql: String, count: Int) throws {
        let database = try database()
        #expect(try database.prepare(sql).parameterCount == count)
    }

    // MARK: Reuse

    @Test func runResetsTheStatementAndClearsItsBindings() throws {
        let database = try database()
        let insert = try database.prepare("INSERT INTO t (a, b) VALUES (?, ?)")
        try insert.bind([.integer(1), .text("a")])
        try insert.run()
        try insert.run()
        try insert.bind([.integer(2), .text("b")])
        try insert.run()
        #expect(try database.rows("SELECT a, b FROM t ORDER BY rowid") == [["1", "a"], [nil, nil], ["2", "b"]])
    }

    /// Borrowed bytes are read where they are when the statement steps, not when bound (what
    /// saves the copy), and `run(binding:)` clears them afterwards, after a failed bind too: the
    /// next run with nothing bound there stores NULL, never the bytes of a buffer gone by then.
    @Test func borrowedTextIsReadWhenTheStatementRunsAndClearedAfter() throws {
        struct Refused: Error {}
        let database = try database()
        let insert = try database.prepare("INSERT INTO t (a, b) VALUES (?, ?)")
        var buffer = Array("first".utf8)
        try buffer.withUnsafeMutableBytes { bytes in
            try insert.run {
                try insert.bind(borrowing: UnsafeRawBufferPointer(bytes), at: 1)
                try insert.bind(Int64(1), at: 2)
                // Changed after the bind, before the run: the row takes what is there then.
                bytes.copyBytes(from: "FIRST".utf8)
            }
        }
        try insert.run { try insert.bind(Int64(2), at: 2) }
        buffer = Array("third".utf8)
        #expect(throws: Refused.self) {
            try buffer.withUnsafeBytes { bytes in
                try insert.run {
                    try insert.bind(borrowing: bytes, at: 1)
                    throw Refused()
                }
            }
        }
        try insert.run { try insert.bind(Int64(3), at: 2) }
        #expect(try database.rows("SELECT a, b, typeof(a) FROM t ORDER BY rowid")
            == [["FIRST", "1", "text"], [nil, "2", "null"], [nil, "3", "null"]])
    }

    @Test func aStatementIsReusableAfterAFailedRun() throws {
        let database = try database(unique: true)
        let insert = try database.prepare("INSERT INTO t (a) VALUES (?)")
        try insert.bind([.integer(1)])
        try insert.run()
        try insert.bind([.integer(1)])
        _ = try sqliteError { try insert.run() }
        try insert.bind([.integer(2)])
        try insert.run()
        #expect(try database.rows("SELECT a FROM t ORDER BY a") == [["1"], ["2"]])
    }

    @Test func resetLetsAQueryRunAgain() throws {
        let database = try database()
        try database.execute("INSERT INTO t (a) VALUES (1), (2)")
        let select = try database.prepare("SELECT a FROM t WHERE a >= ? ORDER BY a")
        try select.bind([.integer(2)])
        #expect(try select.step())
        #expect(select.int64(0) == 2)
        select.reset()
        try select.bind([.integer(1)])
        var seen: [Int64] = []
        while try select.step() { seen.append(select.int64(0)) }
        #expect(seen == [1, 2])
    }

    // MARK: Errors

    @Test func aUniqueViolationCarriesTheExtendedCodeMessageSQLAndPath() throws {
        let database = try database(unique: true)
        let sql = "INSERT INTO t (a) VALUES (?)"
        let insert = try database.prepare(sql)
        try insert.bind([.integer(1)])
        try insert.run()
        try insert.bind([.integer(1)])
        let error = try sqliteError { try insert.run() }
        #expect(error.code == 2067)  // SQLITE_CONSTRAINT_UNIQUE
        #expect(error.message == "UNIQUE constraint failed: t.a")
        #expect(error.sql == sql)
        #expect(error.path == directory.file("test.sqlite"))
        #expect(error.description == "\(directory.file("test.sqlite")): error: SQLite 2067: UNIQUE constraint failed: t.a\n  in: \(sql)")
    }

    @Test func aNotNullViolationHasItsOwnExtendedCode() throws {
        let database = try Database(path: directory.file("test.sqlite"))
        try database.execute("CREATE TABLE n (a NOT NULL)")
        let error = try sqliteError { try database.execute("INSERT INTO n (a) VALUES (NULL)") }
        #expect(error.code == 1299)  // SQLITE_CONSTRAINT_NOTNULL
        #expect(error.sql == "INSERT INTO n (a) VALUES (NULL)")
    }

    @Test func aSyntaxErrorNamesTheSQLItWasIn() throws {
        let database = try database()
        let error = try sqliteError { _ = try database.prepare("SELEC 1") }
        #expect(error.code == 1)  // SQLITE_ERROR
        #expect(error.message.contains("syntax error"))
        #expect(error.sql == "SELEC 1")
        #expect(error.path == directory.file("test.sqlite"))
    }

    @Test func aDatabaseThatCannotBeOpenedNamesItsPath() throws {
        let path = directory.file("missing/none.sqlite")
        let error = try sqliteError { _ = try Database(path: path) }
        #expect(error.code == 14)  // SQLITE_CANTOPEN
        #expect(error.path == path)
        #expect(error.sql == nil)
        #expect(!error.description.contains("in:"))
    }

    @Test func insertingNamesTheInputLineTheValuesAndTheSQL() throws {
        let database = try database(unique: true)
        let sql = "INSERT INTO t (a, b, c, d) VALUES (?, ?, ?, ?)"
        let values: [SQLValue] = [.integer(1), .text("it's"), .null, .real(2.5)]
        let insert = try database.prepare(sql)
        try insert.bind(values)
        try insert.run()
        try insert.bind(values)
        let error = try sqliteError { try insert.run() }

        let failure = error.inserting(values, from: "inat/records.jsonl", line: 42)
        #expect(failure.path == "inat/records.jsonl")
        #expect(failure.line == 42)
        #expect(failure.message == "SQLite 2067: UNIQUE constraint failed: t.a, binding (1, 'it''s', NULL, 2.5) to \(sql) in \(directory.file("test.sqlite"))")
        #expect(failure.description.hasPrefix("inat/records.jsonl:42: error: SQLite 2067"))
        #expect(error.inserting(values, from: "inat/records.jsonl", line: nil).description.hasPrefix("inat/records.jsonl: error: "))
    }

    @Test(arguments: [
        ([SQLValue](), "()"),
        ([.null], "(NULL)"),
        ([.integer(1), .text("it's"), .null], "(1, 'it''s', NULL)"),
        ([.integer(Int64.min), .real(0.5), .real(-1e300)], "(-9223372036854775808, 0.5, -1e+300)"),
        ([.text("''")], "('''''')"),
        ([.text("")], "('')"),
    ])
    func literalsAreAnSQLTuple(values: [SQLValue], expected: String) {
        #expect(SQLValue.literals(values) == expected)
    }

    @Test func literalsCutLongTextsToTheMaximum() {
        let exactly80 = String(repeating: "x", count: 80)
        #expect(SQLValue.literals([.text(exactly80)]) == "('\(exactly80)')")
        #expect(SQLValue.literals([.text(exactly80 + "yz")]) == "('\(exactly80)…')")
        #expect(SQLValue.literals([.text("abcdef"), .text("ab")], maximumText: 3) == "('abc…', 'ab')")
        // Characters, not bytes; quotes are doubled after the cut.
        #expect(SQLValue.literals([.text("蝶蝶蝶")], maximumText: 2) == "('蝶蝶…')")
        #expect(SQLValue.literals([.text("it's long")], maximumText: 3) == "('it''…')")
    }

    // MARK: Transactions

    @Test func aTransactionCommitsAndReturnsTheBodysResult() throws {
        let database = try database()
        let result = try database.transaction {
            try database.execute("INSERT INTO t (a) VALUES (1), (2)")
            return "done"
        }
        #expect(result == "done")
        let other = try Database(path: directory.file("test.sqlite"), mode: .readOnly)
        #expect(try other.int("SELECT count(*) FROM t") == 2)
    }

    private struct Abandon: Error, Equatable {}

    @Test func aTransactionRollsBackWhenTheBodyThrows() throws {
        let database = try database()
        try database.execute("INSERT INTO t (a) VALUES (0)")
        #expect(throws: Abandon()) {
            try database.transaction {
                try database.execute("INSERT INTO t (a) VALUES (1)")
                throw Abandon()
            }
        }
        #expect(try database.rows("SELECT a FROM t") == [["0"]])
        // The rollback ended the transaction: a new one can begin.
        try database.transaction { try database.execute("INSERT INTO t (a) VALUES (2)") }
        #expect(try database.rows("SELECT a FROM t ORDER BY a") == [["0"], ["2"]])
    }

    @Test func aFailedStatementInsideATransactionRollsItBack() throws {
        let database = try database(unique: true)
        let error = try sqliteError {
            try database.transaction {
                try database.execute("INSERT INTO t (a) VALUES (1)")
                try database.execute("INSERT INTO t (a) VALUES (1)")
            }
        }
        #expect(error.code == 2067)
        #expect(try database.int("SELECT count(*) FROM t") == 0)
    }

    // MARK: Modes

    /// A database file with one row, closed again.
    @discardableResult
    private func writtenDatabase(_ name: String) throws -> String {
        let path = directory.file(name)
        let database = try Database(path: path)
        try database.execute("CREATE TABLE t (a); INSERT INTO t (a) VALUES ('kept')")
        return path
    }

    /// `Database.Mode` is not `Sendable`, so the tests take the mode as a flag.
    private static func mode(immutable: Bool) -> Database.Mode { immutable ? .immutable : .readOnly }

    @Test(arguments: [false, true])
    func readOnlyModesReadButRefuseWrites(immutable: Bool) throws {
        let path = try writtenDatabase("test.sqlite")
        let database = try Database(path: path, mode: Self.mode(immutable: immutable))
        #expect(try database.scalar("SELECT a FROM t") == "kept")
        let error = try sqliteError { try database.execute("INSERT INTO t (a) VALUES ('new')") }
        #expect(error.code & 0xFF == 8)  // SQLITE_READONLY
        #expect(error.path == path)
    }

    @Test(arguments: [false, true])
    func readOnlyModesDoNotCreateAMissingFile(immutable: Bool) throws {
        let path = directory.file("missing.sqlite")
        let error = try sqliteError { _ = try Database(path: path, mode: Self.mode(immutable: immutable)) }
        #expect(error.code & 0xFF == 14)  // SQLITE_CANTOPEN
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// `immutable=1` tells SQLite the file cannot change, so it does not look for a write-ahead
    /// log: what a writer left in one is invisible to an immutable reader, and visible to a
    /// read-only one.
    @Test func immutableReadsTheDatabaseFileAloneIgnoringAWriteAheadLog() throws {
        let path = directory.file("wal.sqlite")
        let writer = try Database(path: path)
        try writer.execute("PRAGMA journal_mode = WAL")
        try writer.execute("CREATE TABLE t (a)")
        try writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try writer.execute("INSERT INTO t (a) VALUES (1)")
        let readOnly = try Database(path: path, mode: .readOnly)
        #expect(try readOnly.int("SELECT count(*) FROM t") == 1)
        let immutable = try Database(path: path, mode: .immutable)
        #expect(try immutable.int("SELECT count(*) FROM t") == 0)
        withExtendedLifetime(writer) {}
    }

    static let awkwardNames = [
        "what?.sqlite", "hash#.sqlite", "100%.sqlite", "%41.sqlite", "a&b=c.sqlite", "with  spaces .sqlite",
        "mode=rw.sqlite", "Zoë.sqlite", "蝶 ?#%.sqlite",
    ]

    @Test(arguments: awkwardNames)
    func readOnlyModesOpenPathsWithURICharacters(name: String) throws {
        let path = try writtenDatabase(name)
        for immutable in [false, true] {
            let database = try Database(path: path, mode: Self.mode(immutable: immutable))
            #expect(try database.scalar("SELECT a FROM t") == "kept")
            #expect(database.path == path)
        }
    }

    @Test func uriEscapePercentEncodesTheURIDelimiters() {
        #expect(Database.uriEscape("/data/a?b#c%d&e.sqlite") == "/data/a%3Fb%23c%25d%26e.sqlite")
        #expect(Database.uriEscape("/plain/with space/x.sqlite") == "/plain/with space/x.sqlite")
    }

    /// Decodes `%XX` escapes the way SQLite reads a URI's path.
    private func percentDecoded(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        var bytes = text.utf8.makeIterator()
        while let byte = bytes.next() {
            if byte == UInt8(ascii: "%"), let high = bytes.next(), let low = bytes.next(),
               let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) {
                out.append(value)
            } else {
                out.append(byte)
            }
        }
        return out
    }

    @Test(arguments: awkwardNames)
    func uriEscapeDecodesBackToThePathsBytes(name: String) {
        let path = "/data/\(name)"
        let escaped = Database.uriEscape(path)
        #expect(!escaped.contains("?") && !escaped.contains("#"))
        #expect(percentDecoded(escaped) == Array(path.utf8))
    }
}
