/// What changed since the previously shipped bundle, so the app downloads each new photo once
/// and touches nothing that did not change: per kind (photos, taxa, observations, users,
/// articles, destinations: the content the app keeps row by row; the display targets, their
/// costs and tiers and the search index it takes whole), the keys added, changed (any
/// column they share differs, an observation's or taxon's photo list, or the tier a photo is
/// fetched at for a display target) and removed. Written as
/// `delta.json` beside the bundle and counted in `bundle_info`. An article's id follows the
/// titles, so a new article can shift others' ids: those articles, and the taxa and destinations
/// that refer to them by id, are listed as changed.
///
/// Compared in SQL with the previous bundle attached, every column. A previous bundle at an
/// older schema is compared as the migrations make it, as the app holds it when it applies the
/// delta: a column only the newer schema has (what a migration fills in, NULL or computed) and
/// the new bundle gives otherwise is a change, which comparing the columns both schemas have
/// missed (the app applied an empty delta and kept taxa without their species counts, photos
/// without their credits).
struct BundleDelta {
    struct Kind: Sendable {
        var name: String
        var table: String
        /// The identity: the primary key, or the title for articles (their ids follow the titles).
        var key: String
        /// Whether the key is a number (written as one in `delta.json`), not text.
        var numericKey = true
        /// Extra content beyond the row, its photo links, as SQL over the row aliased `row` in
        /// the database `schema` (`main` or `previous`).
        var extra: (@Sendable (_ schema: String, _ row: String) -> String)? = nil
        /// Tables `extra` reads: it is compared only when both bundles have them.
        var extraTables: [String] = []
    }

    static let kinds = [
        // A photo is changed for the app when the size it is fetched at for some display target
        // changed (its tier, chosen by its stored size and the targets, `size_costs`), though its
        // row did not: the app fetches it again at the new size rather than keep the old one.
        // Only the targets both bundles have (by name) are compared: one added or removed changes
        // no photo the app already holds.
        Kind(name: "photos", table: "photos", key: "id", extra: { schema, row in
            let side = "CASE WHEN \(row).width > 0 AND \(row).height > 0 THEN \(row)"
            return """
                (SELECT group_concat(x, ',') FROM (SELECT t.name || ':' || coalesce(c.tier, '') AS x
                 FROM \(schema).size_costs AS c JOIN \(schema).display_targets AS t ON t.id = c.target_id
                 WHERE c.remote = \(row).remote AND c.original_width = \(side).width ELSE 0 END
                   AND c.original_height = \(side).height ELSE 0 END
                   AND t.name IN (SELECT name FROM main.display_targets INTERSECT SELECT name FROM previous.display_targets)
                 ORDER BY t.name))
                """
        }, extraTables: ["size_costs", "display_targets"]),
        Kind(name: "taxa", table: "taxa", key: "id") { schema, row in
            "(SELECT group_concat(x, ',') FROM (SELECT position || ':' || photo_id AS x FROM \(schema).taxon_photos WHERE taxon_id = \(row).id ORDER BY position))"
        },
        Kind(name: "observations", table: "observations", key: "id") { schema, row in
            "(SELECT group_concat(x, ',') FROM (SELECT photo_id || ':' || position AS x FROM \(schema).observation_photos WHERE observation_id = \(row).id ORDER BY photo_id))"
        },
        // An observation's and a photo's credit name their user: an added observation's new
        // user was in no list.
        Kind(name: "users", table: "users", key: "id"),
        Kind(name: "articles", table: "articles", key: "title", numericKey: false),
        Kind(name: "destinations", table: "destinations", key: "id", numericKey: false),
    ]

    struct Changes {
        var added: [String] = []
        var changed: [String] = []
        var removed: [String] = []
    }

    var previousPath: String
    var previousSHA256: String
    var previousVersion: Int
    var previousBuildDate: String?
    var changes: [(kind: String, changes: Changes)] = []

    /// Compares `database` with the bundle at `previous` (its content.sqlite); one at an older
    /// schema is migrated first (`BundleMigration.migratedForComparison`: a copy of its size),
    /// into a scratch folder beside `output`, named after it so that the next run on this host
    /// removes what a run killed meanwhile left, and removed after.
    static func compute(_ database: Database, previous: String, output: String) throws -> BundleDelta {
        let (digest, _) = try SHA256.hex(ofFile: previous)
        let old = try Database(path: previous, mode: .immutable)
        let version = Int(try old.int("PRAGMA user_version") ?? 0)
        guard try old.int("PRAGMA application_id") == Int64(Migrations.applicationID), version >= 1 else {
            throw FieldpackError(path: previous, "the previous bundle is not a fieldpack bundle")
        }
        // A delta goes forward: from a schema this tool does not know, the app would be told to
        // go back to an older one, and the columns compared would not be the ones it knows.
        guard version <= Migrations.latestVersion else {
            throw FieldpackError(
                path: previous,
                "the previous bundle is at schema v\(version), newer than this fieldpack knows (v\(Migrations.latestVersion)): build with a fieldpack that knows it")
        }
        var delta = BundleDelta(
            previousPath: previous, previousSHA256: digest, previousVersion: version,
            previousBuildDate: try old.scalar("SELECT value FROM bundle_info WHERE key = 'build_date'"))
        var compared = previous
        var migratedFolder: String? = nil
        defer {
            if let migratedFolder {
                FileSystem.removeTree(migratedFolder)
                Leftovers.forget(migratedFolder)
            }
        }
        if version < Migrations.latestVersion {
            let folder = try FileSystem.makeUniqueDirectory(in: directory(of: output), prefix: ".\(fileName(of: output)).scratch-")
            migratedFolder = folder
            compared = try FileSystem.createEmptyExclusive(in: folder, prefix: "previous-migrated-")
            try BundleMigration.migratedForComparison(previous, into: compared)
        }
        let attach = try database.prepare("ATTACH DATABASE ? AS previous")
        try attach.bind([.text(Database.uri(compared, mode: .immutable))])
        try attach.run()
        defer { try? database.execute("DETACH DATABASE previous") }
        for kind in kinds {
            let newColumns = try columns(database, "main", kind.table)
            let oldColumns = try columns(database, "previous", kind.table)
            var changes = Changes()
            if oldColumns.isEmpty {
                changes.added = try keys(database, "SELECT \(kind.key) FROM main.\(kind.table) ORDER BY \(kind.key)")
                delta.changes.append((kind.name, changes))
                continue
            }
            let shared = newColumns.filter { oldColumns.contains($0) && $0 != kind.key }
            var differs = shared.map { "NOT (n.\"\($0)\" IS o.\"\($0)\")" }
            var extraReadable = true
            for table in kind.extraTables where try columns(database, "previous", table).isEmpty { extraReadable = false }
            if let extra = kind.extra, extraReadable {
                differs.append("NOT (\(extra("main", "n")) IS \(extra("previous", "o")))")
            }
            let key = kind.key
            changes.added = try keys(database, """
                SELECT n.\(key) FROM main.\(kind.table) AS n
                WHERE NOT EXISTS (SELECT 1 FROM previous.\(kind.table) AS o WHERE o.\(key) = n.\(key)) ORDER BY n.\(key)
                """)
            changes.removed = try keys(database, """
                SELECT o.\(key) FROM previous.\(kind.table) AS o
                WHERE NOT EXISTS (SELECT 1 FROM main.\(kind.table) AS n WHERE n.\(key) = o.\(key)) ORDER BY o.\(key)
                """)
            if !differs.isEmpty {
                changes.changed = try keys(database, """
                    SELECT n.\(key) FROM main.\(kind.table) AS n JOIN previous.\(kind.table) AS o ON o.\(key) = n.\(key)
                    WHERE \(differs.joined(separator: " OR ")) ORDER BY n.\(key)
                    """)
            }
            delta.changes.append((kind.name, changes))
        }
        return delta
    }

    private static func columns(_ database: Database, _ schema: String, _ table: String) throws -> [String] {
        try database.rows("SELECT name FROM pragma_table_info(?, ?) ORDER BY cid", [.text(table), .text(schema)]).compactMap { $0[0] }
    }

    private static func keys(_ database: Database, _ sql: String) throws -> [String] {
        try database.rows(sql).compactMap { $0[0] }
    }

    /// The counts for `bundle_info`: `delta.<kind>.added` and so on, and the previous bundle.
    var bundleInfo: [(key: String, value: String)] {
        var rows: [(key: String, value: String)] = [("delta.previous_sha256", previousSHA256)]
        for (kind, changes) in changes {
            rows.append(("delta.\(kind).added", String(changes.added.count)))
            rows.append(("delta.\(kind).changed", String(changes.changed.count)))
            rows.append(("delta.\(kind).removed", String(changes.removed.count)))
        }
        return rows
    }

    /// `delta.json`: the previous bundle and every kind's keys (numbers for numeric ids).
    var json: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("previous")
        writer.beginObject()
        writer.key("sha256"); writer.string(previousSHA256)
        writer.key("schema_version"); writer.int(previousVersion)
        writer.key("build_date"); writer.string(previousBuildDate)
        writer.endObject()
        for (kind, changes) in changes {
            let numeric = Self.kinds.first { $0.name == kind }?.numericKey ?? false
            writer.key(dynamic: kind)
            writer.beginObject()
            for (name, keys) in [("added", changes.added), ("changed", changes.changed), ("removed", changes.removed)] {
                writer.key(dynamic: name)
                writer.beginArray()
                for key in keys {
                    if numeric, let number = Int64(key) { writer.int(number) } else { writer.string(key) }
                }
                writer.endArray()
            }
            writer.endObject()
        }
        writer.endObject()
        return PrettyJSON.format(writer.bytes)
    }
}
