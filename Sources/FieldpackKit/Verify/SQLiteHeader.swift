/// What a shipped database's file header must say of its journal: bytes 18 and 19 (the file
/// format's write and read versions) are 1, rollback-journal mode. 2 is WAL mode, which a
/// reader opens only with a `-shm` file it can create beside the database: the app opens its
/// bundle read-only, where it cannot (https://www.sqlite.org/fileformat2.html §1.3.3).
enum SQLiteHeader {
    /// Why the database at `path` cannot ship for its journal mode, nil if it can (or if it is
    /// too short to tell: the checks that open it say what is wrong then).
    ///
    /// - Throws: when the file cannot be read.
    static func journalProblem(of path: String) throws -> String? {
        var header = [UInt8](repeating: 0, count: 20)
        let file = try ReadableFile(path: path)
        let got = try header.withUnsafeMutableBytes { try file.read(at: 0, count: 20, into: $0) }
        guard got == 20 else { return nil }
        // Not a database at all (a records file given by mistake): say that, not its bytes 18–19.
        guard header[0..<16].elementsEqual("SQLite format 3\u{0}".utf8) else {
            return "is not a SQLite database (its first 16 bytes are not \"SQLite format 3\" and a NUL)"
        }
        guard header[18] == 1, header[19] == 1 else {
            return header[18] == 2 || header[19] == 2
                ? "is in WAL mode (header bytes 18–19 are \(header[18]), \(header[19])): the app opens its bundle read-only, "
                    + "which a WAL database needs a -shm file beside it for; ship it in rollback-journal mode (PRAGMA journal_mode = DELETE)"
                : "has file format versions \(header[18]), \(header[19]) in its header (bytes 18–19), not 1, 1"
        }
        return nil
    }
}
