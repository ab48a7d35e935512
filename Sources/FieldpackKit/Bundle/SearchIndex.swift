import Dispatch

/// Fills the offline search index (migrations 5 and 9) from the loaded rows: one entry per taxon
/// (scientific and common name, its article's summary), per destination (its name, its article's
/// summary) and per article (its title and the blurb's text), in that order, each indexed as it
/// is written; then optimizes the FTS5 index. The index is contentless: the text is tokenized,
/// never stored (an entry keeps what a result shows). `check` checks it once it is committed.
///
/// The app searches with, for example:
/// `SELECT kind, ref, name FROM search JOIN search_entries ON search_entries.id = search.rowid
///  WHERE search MATCH 'robin*' ORDER BY bm25(search, 10.0, 5.0, 1.0)`.
package enum SearchIndex {
    /// `batchBytes`: about how many bytes of blurbs each of the two article batches holds (tests
    /// pass one, for a batch per article).
    package static func build(_ database: Database, trace: PhaseTrace? = nil, batchBytes: Int = 1 << 20) throws {
        let entry = try database.prepare(
            "INSERT INTO search_entries (id, kind, ref, name, common_name) VALUES (?, ?, ?, ?, ?)")
        let index = try database.prepare("INSERT INTO search (rowid, name, common_name, body) VALUES (?, ?, ?, ?)")
        var id: Int64 = 0
        // One entry and its document in the index, each value bound where it lies (nil: NULL).
        func write(
            _ kind: String, ref: UnsafeRawBufferPointer?, name: UnsafeRawBufferPointer?,
            commonName: UnsafeRawBufferPointer?, text: UnsafeRawBufferPointer?
        ) throws {
            id += 1
            try entry.run {
                try entry.bind(id, at: 1)
                try entry.bind(kind, at: 2)
                for (value, column) in [(ref, 3), (name, 4), (commonName, 5)] {
                    if let value { try entry.bind(borrowing: value, at: column) }
                }
            }
            try index.run {
                try index.bind(id, at: 1)
                for (value, column) in [(name, 2), (commonName, 3), (text, 4)] {
                    if let value { try index.bind(borrowing: value, at: column) }
                }
            }
        }
        // No merges while it fills: `optimize` merges every segment into one at the end, and
        // FTS5's incremental merges (automerge, 4 by default) only did part of that work on the
        // way (the benchmark's 16,065 articles: 5.8 s instead of 6.4 s, by hand). Its default is
        // put back after (`optimize`).
        try database.execute("INSERT INTO search(search, rank) VALUES ('automerge', 0)")
        // Taxa and destinations: each row is `ref, name, common_name, text`, each read as text
        // straight from SQLite's row bytes (a taxon's id as the text `ref` holds), never as
        // Swift strings.
        for (kind, sql) in [
            ("taxon", """
                SELECT t.id, t.name, t.preferred_common_name, a.summary
                FROM taxa AS t LEFT JOIN articles AS a ON a.id = t.article_id ORDER BY t.id
                """),
            ("destination", """
                SELECT d.id, d.name, NULL, a.summary
                FROM destinations AS d LEFT JOIN articles AS a ON a.id = d.article_id ORDER BY d.id
                """),
        ] {
            let rows = try database.prepare(sql)
            while try rows.step() {
                try write(kind, ref: rows.textBytes(0), name: rows.textBytes(1), commonName: rows.textBytes(2), text: rows.textBytes(3))
            }
        }
        // The articles: their blurbs' plain text is made on another thread, a batch ahead of
        // the entries written here (on the benchmark's 16,065 articles, by hand, this phase took
        // 0.8 to 1.2 s less, of 5.8 to 7.0 s). Two batches of about a MiB of blurbs each.
        let articles = try database.prepare("SELECT id, title, blurb_html FROM articles ORDER BY id")
        var (ready, filling) = (BlurbTextBatch(blurbBytes: batchBytes), BlurbTextBatch(blurbBytes: batchBytes))
        var ended = try ready.fill(from: articles)
        ready.makeTexts()
        while !ready.isEmpty {
            if ended { filling.clear() } else { ended = try filling.fill(from: articles) }
            let making = DispatchGroup()
            if !filling.isEmpty {
                let next = filling
                DispatchQueue.global().async(group: making) { next.makeTexts() }
            }
            // Never leaves while the other thread still reads the batch.
            defer { making.wait() }
            try ready.forEach { ref, title, text in
                try write("article", ref: ref, name: title, commonName: nil, text: text)
            }
            making.wait()
            swap(&ready, &filling)
        }
        trace?.mark("search index: entries")
        try optimize(database)
        trace?.mark("search index: optimize")
    }

    /// Merges the index's segments into one, as it ships, and puts FTS5's default merging
    /// (automerge 4) back for any later writer, which can only add entries to it (a contentless
    /// index takes no update or delete before SQLite 3.43). Also what a bundle of schema 5 to 8
    /// needs after migration 9 indexed its stored text again.
    package static func optimize(_ database: Database) throws {
        try database.execute("INSERT INTO search(search) VALUES ('optimize')")
        try database.execute("INSERT INTO search(search, rank) VALUES ('automerge', 4)")
    }

    /// FTS5's own check of the index (its segments, their terms and the documents they list
    /// agree with one another; a contentless index has no stored text to tokenize again), on a
    /// connection of its own to the committed database at `path`, while another connection
    /// copies the file (`BuildFiles.compact`'s `VACUUM INTO`). The check is an insert into the
    /// index's command column: its transaction is rolled back, never committed, so it needs no
    /// more than the reserved lock beside the copy's shared one, and the file is left as it was.
    ///
    /// - Throws: `SQLiteError` (`SQLITE_CORRUPT_VTAB` or `SQLITE_CORRUPT`) naming the file when
    ///   the index is damaged.
    package static func check(_ path: String) throws {
        let database = try Database(path: path)
        try database.execute("PRAGMA journal_mode = MEMORY")
        try database.execute("BEGIN")
        defer { try? database.execute("ROLLBACK") }
        try database.execute("INSERT INTO search(search, rank) VALUES ('integrity-check', 1)")
    }
}
