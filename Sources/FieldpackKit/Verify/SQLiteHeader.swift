/// What a shipped database's file header must say of its journal: bytes 18 and 19 (the file
/// format's write and read versions) are 1, rollback-journal mode. 2 is WAL mode, which a
/// reader opens only with a `-shm` file it can create beside the database: the app opens its
/// bundle read-only, where it cannot (https://www.sqlite.org/fileformat2.html §1.3.3).
enum SQLiteHeader {
    struct Problem {
        var message: String
        /// Whether the file is SQLite at all: when not, nothing else about it means anything.
        var isSQLite: Bool
    }

    /// The first 16 bytes of every SQLite database file.
    static let magic = Array("SQLite format 3\u{0}".utf8)

    /// The application id in the header of the SQLite file at `path` (bytes 68–71, big-endian:
    /// `PRAGMA application_id`), read without opening it as a database; nil when the file cannot
    /// be read or is not SQLite.
    static func applicationID(of path: String) -> Int32? {
        guard let file = try? ReadableFile(path: path) else { return nil }
        var header = [UInt8](repeating: 0, count: 72)
        guard let got = try? header.withUnsafeMutableBytes({ try file.read(at: 0, count: 72, into: $0) }), got == 72,
              header[0..<16].elementsEqual(magic)
        else { return nil }
        return header[68..<72].reduce(Int32(0)) { $0 << 8 | Int32($1) }
    }

    /// Why the database at `path` cannot ship for its header, nil if it can: too short for a
    /// SQLite file (SQLite would open an empty file as an empty database, whose checks then
    /// speak of its application_id), not SQLite, or not in rollback-journal mode.
    ///
    /// - Throws: when the file cannot be read.
    static func headerProblem(of path: String) throws -> Problem? {
        var header = [UInt8](repeating: 0, count: 20)
        let file = try ReadableFile(path: path)
        let got = try header.withUnsafeMutableBytes { try file.read(at: 0, count: 20, into: $0) }
        guard got == 20 else {
            return Problem(
                message: got == 0 ? "is empty (0 bytes), not a SQLite database" : "is \(got) bytes long, too short for a SQLite database",
                isSQLite: false)
        }
        // Not a database at all (a records file given by mistake): say that, not its bytes 18–19.
        guard header[0..<16].elementsEqual(magic) else {
            return Problem(message: "is not a SQLite database (its first 16 bytes are not \"SQLite format 3\" and a NUL)", isSQLite: false)
        }
        guard header[18] == 1, header[19] == 1 else {
            return Problem(message: header[18] == 2 || header[19] == 2
                ? "is in WAL mode (header bytes 18–19 are \(header[18]), \(header[19])): the app opens its bundle read-only, "
                    + "which a WAL database needs a -shm file beside it for; ship it in rollback-journal mode (PRAGMA journal_mode = DELETE)"
                : "has file format versions \(header[18]), \(header[19]) in its header (bytes 18–19), not 1, 1", isSQLite: true)
        }
        return nil
    }
}
