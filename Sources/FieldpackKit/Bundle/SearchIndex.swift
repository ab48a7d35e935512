/// Fills the offline search index (migration 5) from the loaded rows: one entry per taxon
/// (scientific and common name, its article's summary), per destination (its name, its article's
/// summary) and per article (its title and the blurb's text), in that order; then rebuilds and
/// optimizes the FTS5 index. `check` checks it against its content, once it is committed.
///
/// The app searches with, for example:
/// `SELECT kind, ref, name FROM search JOIN search_entries ON search_entries.id = search.rowid
///  WHERE search MATCH 'robin*' ORDER BY bm25(search, 10.0, 5.0, 1.0)`.
package enum SearchIndex {
    package static func build(_ database: Database, trace: PhaseTrace? = nil) throws {
        try database.execute("""
            INSERT INTO search_entries (kind, ref, name, common_name, body)
            SELECT 'taxon', t.id, t.name, t.preferred_common_name, a.summary
            FROM taxa AS t LEFT JOIN articles AS a ON a.id = t.article_id ORDER BY t.id;
            INSERT INTO search_entries (kind, ref, name, common_name, body)
            SELECT 'destination', d.id, d.name, NULL, a.summary
            FROM destinations AS d LEFT JOIN articles AS a ON a.id = d.article_id ORDER BY d.id;
            """)
        // One article at a time, straight from SQLite's row bytes to the bound text: the blurbs
        // are never all in memory, and never Swift strings.
        let insert = try database.prepare(
            "INSERT INTO search_entries (kind, ref, name, common_name, body) VALUES ('article', ?, ?, NULL, ?)")
        let articles = try database.prepare("SELECT id, title, blurb_html FROM articles ORDER BY id")
        var text: [UInt8] = []
        while try articles.step() {
            for column in 0..<2 {
                try insert.bind(bytes: articles.textBytes(column) ?? UnsafeRawBufferPointer(start: nil, count: 0), at: column + 1)
            }
            PlainText.ofBlurb(articles.textBytes(2) ?? UnsafeRawBufferPointer(start: nil, count: 0), into: &text)
            try text.withUnsafeBytes { try insert.bind(bytes: $0, at: 3) }
            try insert.run()
        }
        trace?.mark("search index: entries")
        try database.execute("INSERT INTO search(search) VALUES ('rebuild')")
        trace?.mark("search index: rebuild")
        try database.execute("INSERT INTO search(search) VALUES ('optimize')")
        trace?.mark("search index: optimize")
    }

    /// FTS5's own check of the index against its content table (every entry tokenized again),
    /// on a connection of its own to the committed database at `path`, while another connection
    /// copies the file (`BuildFiles.compact`'s `VACUUM INTO`). The check is an insert into the
    /// index's command column: its transaction is rolled back, never committed, so it needs no
    /// more than the reserved lock beside the copy's shared one, and the file is left as it was.
    ///
    /// - Throws: `SQLiteError` (`SQLITE_CORRUPT_VTAB`) naming the file when the index and its
    ///   content disagree.
    package static func check(_ path: String) throws {
        let database = try Database(path: path)
        try database.execute("PRAGMA journal_mode = MEMORY")
        try database.execute("BEGIN")
        defer { try? database.execute("ROLLBACK") }
        try database.execute("INSERT INTO search(search, rank) VALUES ('integrity-check', 1)")
    }
}
