/// A SHA-256 of the database's structural catalogue: tables (with WITHOUT ROWID and STRICT),
/// columns (name, declared type, NOT NULL, default, primary key position, hidden), foreign keys,
/// indexes and their columns, and the whitespace-collapsed SQL of views and triggers. It leaves
/// out `rootpage`, formatting and FTS shadow tables, so a migrated database and a fresh one of the
/// same schema agree. fieldpack's analogue of Core Data's `versionChecksum`.
public enum SchemaFingerprint {
    public static func compute(_ database: Database) throws -> String {
        var lines: [String] = []
        func add(_ parts: [String?]) {
            lines.append(parts.map { $0 ?? "∅" }.joined(separator: "\u{1F}"))
        }
        let tables = try database.rows("""
            SELECT name, type, wr, strict FROM pragma_table_list
            WHERE schema = 'main' AND type IN ('table', 'virtual') AND name NOT GLOB 'sqlite_*'
            ORDER BY name
            """)
        for table in tables {
            guard let name = table[0] else { continue }
            add(["table"] + table)
            for column in try database.rows(
                "SELECT cid, name, type, \"notnull\", dflt_value, pk, hidden FROM pragma_table_xinfo(?) ORDER BY cid",
                [.text(name)])
            {
                add(["column", name] + column)
            }
            for key in try database.rows(
                "SELECT id, seq, \"table\", \"from\", \"to\", on_update, on_delete, \"match\" FROM pragma_foreign_key_list(?) ORDER BY id, seq",
                [.text(name)])
            {
                add(["foreign-key", name] + key)
            }
            for index in try database.rows(
                "SELECT name, \"unique\", origin, partial FROM pragma_index_list(?) ORDER BY name", [.text(name)])
            {
                guard let indexName = index[0] else { continue }
                // Automatic indexes are named by position, which is not structure; key them by table.
                let stableName = indexName.hasPrefix("sqlite_autoindex_") ? "auto(\(name))" : indexName
                add(["index", name, stableName] + index.dropFirst())
                for column in try database.rows(
                    "SELECT seqno, cid, name, \"desc\", coll, key FROM pragma_index_xinfo(?) ORDER BY seqno", [.text(indexName)])
                {
                    add(["index-column", stableName] + column)
                }
            }
        }
        for object in try database.rows(
            "SELECT type, name, sql FROM sqlite_schema WHERE type IN ('view', 'trigger') ORDER BY type, name")
        {
            add(["object", object[0], object[1], object[2].map(collapseWhitespace)])
        }
        return SHA256.hex(of: Array(lines.joined(separator: "\n").utf8))
    }

    static func collapseWhitespace(_ sql: String) -> String {
        sql.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).joined(separator: " ")
    }
}
