import Dispatch

/// The database half of `BundleVerifier`: what the app checks after the checksums pass.
package struct DatabaseChecks {
    let path: String
    let rows: [String: Int64]
    let version: Int?
    let fingerprint: String?
    var depth = BundleVerifier.Depth.full
    /// At full depth, the integrity check already run on the bytes this file was copied from
    /// (`IntegrityVerdict`), taken instead of running it again when it stands for them.
    var integrityVerdict: IntegrityVerdict? = nil

    /// Each connection's page cache: 64 MiB instead of SQLite's 2 MB, so that the parents the
    /// foreign key check looks up (users, taxa) and the upper levels of the b-trees the checks
    /// walk stay in memory rather than being read again from the file for every row:
    /// `foreign_key_check` on the benchmark's 1.3 GB bundle took 3.5 s with 2 MB (half of it
    /// the kernel copying pages) and 1.4 s with 64 MiB (sqlite3 3.40.1, by hand);
    /// fieldpack-manifest there 14.5–16.0 → 12.2–13.9 s, fieldpack-verify about 0.4 s less,
    /// each at about 155 MB of peak memory instead of 25 (two connections).
    static let cacheSize = "PRAGMA cache_size = -65536"

    /// The database at `path`, opened read-only for the checks, its schema read (a file that is
    /// not SQLite says so here), with their page cache.
    static func open(_ path: String) throws -> Database {
        let database = try Database(path: path, mode: .immutable)
        _ = try database.int("SELECT count(*) FROM sqlite_schema")
        try database.execute(cacheSize)
        return database
    }

    func run() -> [String] {
        var problems: [String] = []
        func problem(_ message: String) { problems.append("\(path): error: \(message)") }
        let database: Database
        do {
            database = try Self.open(path)
        } catch {
            return ["\(path): error: does not open read-only as SQLite: \(error)"]
        }
        do {
            if let header = try SQLiteHeader.headerProblem(of: path) {
                problem(header.message)
                if !header.isSQLite { return problems }
            }
            let applicationID = try database.int("PRAGMA application_id") ?? 0
            if applicationID != Int64(Migrations.applicationID) {
                problem("application_id is \(applicationID), not fieldpack's \(Migrations.applicationID)")
            }
            // The page size the app's reads and the bundle's size were measured at (SQLITE.md §1).
            let pageSize = try database.int("PRAGMA page_size") ?? 0
            if pageSize != Int64(BundleBuilder.pageSize) { problem("page_size is \(pageSize), not \(BundleBuilder.pageSize)") }
            let userVersion = Int(try database.int("PRAGMA user_version") ?? 0)
            guard Migrations.goldenFingerprints[userVersion] != nil else {
                problem("schema version \(userVersion) is not one this fieldpack knows (1…\(Migrations.latestVersion))")
                return problems
            }
            if let version, version != userVersion {
                problem("user_version \(userVersion) does not match the manifest's schema_version \(version)")
            }
            // The migrations that made it, as fieldpack shipped them (`fieldpack-bundle migrate` reads them).
            let applied = try database.rows("SELECT version, name, sql_sha256 FROM schema_migrations ORDER BY version")
            if let wrong = Migrations.recordProblem(applied, version: userVersion) { problem(wrong) }
            // The integrity check (most of the time on a large bundle) runs on a second connection
            // beside the other checks; its problem keeps its place in the list. The first
            // connection moves to the worker that runs the other checks, and only it uses it.
            // At the app's depth the quick_check is the shorter of the two (on the benchmark's
            // whole-build bundle, 1.1 s against about 2.4 s), so its connection then checks the
            // blurbs, whose problems keep their place among the other checks'. So it does at full
            // depth with an integrity check already run while the file was copied
            // (`integrityVerdict`).
            let verdict = depth == .full ? integrityVerdict : nil
            let blurbsBeside = depth == .app || verdict != nil
            let results = Results<Found>(count: 2)
            let checks = UncheckedBox((self, database))
            DispatchQueue.concurrentPerform(iterations: 2) { task in
                let (checks, database) = checks.value
                results.record(task) {
                    task == 0
                        ? checks.integrityProblems(thenBlurbs: blurbsBeside, userVersion: userVersion, verdict: verdict)
                        : try checks.contentProblems(database, userVersion: userVersion, blurbs: !blurbsBeside)
                }
            }
            let found = try results.values()
            problems += found[0].problems
            if let at = found[1].blurbsAt {
                // As if checked in their place: a blurb check that failed ends the other checks.
                let content = found[1].problems
                problems += content[..<at] + found[0].blurbs + (found[0].blurbsFailed ? [] : content[at...])
            } else {
                // The other checks stopped (failed) before the blurbs' place, or have none.
                problems += found[1].problems
            }
        } catch {
            problem("\(error)")
        }
        return problems
    }

    /// What one of the two connections found: its problems in order; on the integrity check's
    /// connection at the app's depth, also the blurbs' problems it found for the other checks
    /// (`blurbs`, and whether that check failed, which ends them); on the other connection, where
    /// the blurbs' problems go among its own (`blurbsAt`).
    private struct Found {
        var problems: [String] = []
        var blurbs: [String] = []
        var blurbsFailed = false
        var blurbsAt: Int? = nil
    }

    /// `integrity_check` (`quick_check` at the app's depth), on a connection of its own, then
    /// with `thenBlurbs` the rows' and blurbs' checks (`rowProblems`) on it, whatever the integrity check
    /// found. With a `verdict` (full depth), the blurbs first, then the verdict's lines if they
    /// stand for this file's bytes, else `integrity_check` on it after all. A check that cannot
    /// run (a file too damaged for it) is its problem, named, and the other checks' problems are
    /// kept.
    private func integrityProblems(thenBlurbs: Bool, userVersion: Int, verdict: IntegrityVerdict?) -> Found {
        let check = depth.pragma
        var found = Found()
        let database: Database
        do {
            database = try Self.open(path)
        } catch {
            found.problems = ["\(path): error: \(check): \(error)"]
            if thenBlurbs { (found.blurbs, found.blurbsFailed) = (["\(path): error: \(error)"], true) }
            return found
        }
        func checkIntegrity() {
            do {
                let lines = try verdict?.lines() ?? Self.integrityLines(database, depth: depth)
                if lines != ["ok"] { found.problems = ["\(path): error: \(check): \(lines.prefix(3).joined(separator: "; "))"] }
            } catch {
                found.problems = ["\(path): error: \(check): \(error)"]
            }
        }
        func checkBlurbs() {
            guard thenBlurbs else { return }
            do { found.blurbs = try rowProblems(database, userVersion: userVersion) } catch { (found.blurbs, found.blurbsFailed) = (["\(path): error: \(error)"], true) }
        }
        // With a verdict, the blurbs while its check ends on another thread.
        if verdict == nil { checkIntegrity(); checkBlurbs() } else { checkBlurbs(); checkIntegrity() }
        return found
    }

    /// What the integrity check of `depth` (`Depth.pragma`) says of `database`: `["ok"]`, or
    /// its problems.
    static func integrityLines(_ database: Database, depth: BundleVerifier.Depth) throws -> [String] {
        try database.rows("PRAGMA \(depth.pragma)").compactMap { $0.first ?? nil }
    }

    /// `integrityLines` of the database at `path`, opened as the checks open it.
    static func integrityLines(path: String, depth: BundleVerifier.Depth) throws -> [String] {
        try integrityLines(open(path), depth: depth)
    }

    /// Every check but the integrity check, in order; the blurbs' unless another connection
    /// checks them (`blurbs` false), and then where their problems go.
    private func contentProblems(_ database: Database, userVersion: Int, blurbs: Bool) throws -> Found {
        var found = Found()
        var problems: [String] = []
        func problem(_ message: String) { problems.append("\(path): error: \(message)") }
        let golden = Migrations.goldenFingerprints[userVersion]!
        do {
            let violations = try database.rows("PRAGMA foreign_key_check")
            if let first = violations.first {
                problem("\(violations.count) foreign key violation(s); first in \(first[0] ?? "?") row \(first[1] ?? "?")")
            }
            let actual = try SchemaFingerprint.compute(database)
            if actual != golden {
                problem("schema fingerprint \(actual) is not the golden one for version \(userVersion) (\(golden))")
            }
            if let fingerprint, fingerprint != actual {
                problem("schema fingerprint \(actual) does not match the manifest's \(fingerprint)")
            }
            // The full SQL of every object, which the fingerprint does not see (expressions,
            // CHECK, COLLATE, FTS5 options), and no object the migrations do not make (triggers).
            for difference in try SchemaDefinition.differences(database, version: userVersion) { problem(difference) }
            // Bundles built under the shipping rules (a bundle migrated from before schema 3 keeps
            // its photos as they were, and says nothing about licences). A bundle this fieldpack
            // built (at the latest schema, not migrated) always says which licences were allowed:
            // without that row it is refused and checked all the same (a deleted row spared photos
            // without https or credit the checks, and they were signed and published).
            if userVersion >= 3 {
                let allowed = try database.scalar("SELECT value FROM bundle_info WHERE key = 'photos.licenses_allowed'")
                let migrated = try Self.isMigrated(database)
                let builtHere = userVersion == Migrations.latestVersion && !migrated
                if allowed == nil && builtHere {
                    problem("bundle_info gives no photos.licenses_allowed, which a bundle built at schema \(userVersion) always gives")
                }
                if allowed != nil || builtHere { problems += try shippingProblems(database) }
            }
            // The rows' checks and the blurbs', here or on the integrity check's connection
            // (`rowProblems`), their problems in this place either way.
            if blurbs { problems += try rowProblems(database, userVersion: userVersion) } else { found.blurbsAt = problems.count }
            if userVersion >= 5 {
                // FTS5's own integrity-check writes; read-only, compare the index's document
                // count with the search entries (the build ran FTS5's check).
                let entries = try database.int("SELECT count(*) FROM search_entries") ?? -1
                let indexed = try database.int("SELECT count(*) FROM search_docsize") ?? -2
                if entries != indexed {
                    problem("the search index holds \(indexed) documents for \(entries) search entries")
                }
                // The app joins a match's rowid to the entry with that id: the same count is not
                // enough, each entry must be a document of the index.
                let unindexed = try database.rows(
                    "SELECT count(*), min(id) FROM search_entries AS e WHERE NOT EXISTS (SELECT 1 FROM search_docsize AS d WHERE d.id = e.id)")
                if let row = unindexed.first, let count = row[0], count != "0" {
                    problem("\(count) search entries are not documents of the search index (the first: id \(row[1] ?? "?")); a search cannot find them")
                }
                // And the row a result shows must be there (the ids compare as numbers where the
                // table's key is one).
                let dangling = try database.rows("""
                    SELECT kind, count(*), min(ref) FROM search_entries AS e
                    WHERE NOT CASE kind
                        WHEN 'taxon' THEN EXISTS (SELECT 1 FROM taxa AS t WHERE t.id = e.ref)
                        WHEN 'destination' THEN EXISTS (SELECT 1 FROM destinations AS d WHERE d.id = e.ref)
                        WHEN 'article' THEN EXISTS (SELECT 1 FROM articles AS a WHERE a.id = e.ref)
                        ELSE 0 END
                    GROUP BY kind ORDER BY kind
                    """)
                for row in dangling {
                    problem("\(row[1] ?? "?") search entries of kind \(row[0] ?? "NULL") refer to no row (one: ref \(row[2] ?? "NULL"))")
                }
            }
            // Row counts for the bundle tables this schema version has (an older bundle has
            // fewer; the golden fingerprint above vouches for which).
            let present = Set(try database.rows("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { $0[0] })
            let tables = BundleBuilder.tables.filter(present.contains)
            for (table, expected) in rows.sorted(by: { $0.key < $1.key }) {
                guard tables.contains(table) else {
                    problem(present.contains(table)
                        ? "manifest counts rows of table \(table), which is not one of the bundle tables whose rows a manifest counts"
                        : "manifest counts rows of table \(table), which schema version \(userVersion) does not have")
                    continue
                }
                let count = try database.int("SELECT count(*) FROM \(table)") ?? -1
                if count != expected { problem("table \(table) has \(count) rows, the manifest says \(expected)") }
            }
            for table in tables where rows[table] == nil {
                problem("the manifest gives no row count for table \(table)")
            }
        } catch {
            problem("\(error)")
        }
        found.problems = problems
        return found
    }

    /// The checks of what the rows promise the app (`PhotoSizeChecks`, obscured points, uuids,
    /// free pages) and the blurbs' (`blurbProblems`), in that order: on the integrity check's
    /// connection when it has time to spare (the app's depth, or a verdict taken while the file
    /// was copied), else after the shipping checks; their problems are listed in that place
    /// either way. (On the benchmark's 1M-observation bundle the row checks took about 0.6 s,
    /// which at the app's depth the integrity check's connection had to spare.)
    private func rowProblems(_ database: Database, userVersion: Int) throws -> [String] {
        var problems: [String] = []
        func problem(_ message: String) { problems.append("\(path): error: \(message)") }
        if userVersion >= 3 { problems += try PhotoSizeChecks(path: path, database: database).problems() }
        // What the bundle's rows promise the app, checked in SQL (bundle.md): a point the
        // API published obscured is marked so (the app would show a point moved by tens of
        // kilometres as exact), and, in a bundle built here, a uuid in its canonical lower
        // case (the app compares it as text; a migrated bundle keeps its uuids as written).
        if userVersion >= 7 {
            let marked = try database.rows("""
                SELECT count(*), min(id) FROM observations
                WHERE (coordinates_obscured = 0
                       AND (obscured = 1 OR geoprivacy IN ('obscured', 'private') OR taxon_geoprivacy IN ('obscured', 'private')))
                   OR (coordinates_obscured = 1 AND NOT (obscured IS 1 OR ifnull(lower(geoprivacy), '') IN ('obscured', 'private')
                                                         OR ifnull(lower(taxon_geoprivacy), '') IN ('obscured', 'private')))
                """)
            if let row = marked.first, let count = row[0], count != "0" {
                problem("\(count) observation(s) whose coordinates_obscured disagrees with their obscured flag and geoprivacy (the first: id \(row[1] ?? "?"))")
            }
        }
        if userVersion >= 8, try !Self.isMigrated(database) {
            // Over the uuid index, smaller than the table.
            let upper = try database.rows("SELECT count(*), min(id) FROM observations INDEXED BY observations_by_uuid WHERE uuid != lower(uuid)")
            if let row = upper.first, let count = row[0], count != "0" {
                problem("\(count) observation(s) whose uuid is not in lower case, its canonical form (the first: id \(row[1] ?? "?"))")
            }
        }
        // A published bundle is vacuumed: free pages are bytes the app downloads for nothing,
        // and may hold rows deleted since (SQLITE.md §10).
        let free = try database.int("PRAGMA freelist_count") ?? 0
        if free != 0 { problem("the database has \(free) free page(s); a published bundle has none (it is vacuumed)") }
        if userVersion >= 4 { problems += try blurbProblems(database) }
        return problems
    }

    /// Whether the bundle was brought to its schema by `fieldpack-bundle migrate` (rather than built at it).
    private static func isMigrated(_ database: Database) throws -> Bool {
        try database.scalar("SELECT value FROM bundle_info WHERE key = 'migrated_from_schema_version'") != nil
    }

    /// Schema 3 on: every photo may ship (an https URL, a credit, a licence the bundle says was
    /// allowed), and every hero photo is one of them.
    private func shippingProblems(_ database: Database) throws -> [String] {
        var problems: [String] = []
        func check(_ sql: String, _ what: String) throws {
            let ids = try database.rows(sql).compactMap { $0.first ?? nil }
            if let first = ids.first { problems.append("\(path): error: \(ids.count) photo(s) \(what), first id \(first)") }
        }
        try check("SELECT id FROM photos WHERE url NOT LIKE 'https://%' ORDER BY id", "without an https URL")
        // A query (`?1700000000`) changes from build to build and defeats the app's URL cache.
        try check("SELECT id FROM photos WHERE remote = 0 AND (instr(url, '?') > 0 OR instr(url, '#') > 0) ORDER BY id", "whose URL has a query or fragment")
        try check("SELECT id FROM photos WHERE credit IS NULL OR trim(credit) = '' ORDER BY id", "without a credit")
        let allowed = try database.scalar("SELECT value FROM bundle_info WHERE key = 'photos.licenses_allowed'") ?? ""
        let list = allowed.split(separator: ",").map { "'\(String($0).replacingOccurrences(of: "'", with: "''"))'" }
        try check(
            "SELECT id FROM photos WHERE license NOT IN (\(list.joined(separator: ", "))) ORDER BY id",
            "with a licence outside photos.licenses_allowed (\(allowed))")
        try check(
            // The template is generated from the URL and the size's place in it (the golden
            // schema above vouches for its expression): `{size}` is in it whenever it is not NULL.
            // (Asked so, 0.26 s on the benchmark's 513k photos, against 0.62 s searching it.)
            "SELECT id FROM photos WHERE remote = 0 AND url_template IS NULL ORDER BY id",
            "whose URL has no size token")
        // The token marks a tier, right after the photo's own `/photos/{id}/`: the app derives
        // every tier from the template (a size start off by three gave `…/squlargeg`; another
        // photo's URL on the row fetched the wrong picture). Asked of the stored columns, not
        // of the generated template.
        let tiers = PhotoTier.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        try check(
            """
            SELECT id FROM photos WHERE remote = 0 AND url_size_start IS NOT NULL
                AND (substr(url, url_size_start, url_size_length) NOT IN (\(tiers))
                     OR substr(url, url_size_start - length('/photos/' || id || '/'), length('/photos/' || id || '/')) != '/photos/' || id || '/')
            ORDER BY id
            """,
            "whose URL's size token is not a tier, or whose URL is another photo's")
        // The remote flag is what the URL says, by the rule the bundle stage decided it by
        // (`PhotoURL.classify`): a hosted photo flagged remote was fetched at its one URL's size
        // (`square`) for every target, the detail view included; one flagged hosted on another
        // host had its tiers derived where nothing serves them.
        let photos = try database.prepare("SELECT id, url, remote FROM photos ORDER BY id")
        let parser = PhotoURLParser()
        var flagged: (count: Int, first: Int64?) = (0, nil)
        while try photos.step() {
            guard let url = photos.text(1) else { continue }
            let isRemote: Bool
            switch parser.classify(url) {
            case .remote: isRemote = true
            case .inaturalist: isRemote = false
            case .placeholder, .unusable: isRemote = photos.int64(2) == 0  // no shipping URL: counted below as flagged wrong
            }
            if isRemote != (photos.int64(2) != 0) {
                flagged.count += 1
                if flagged.first == nil { flagged.first = photos.int64(0) }
            }
        }
        if let first = flagged.first {
            problems.append("\(path): error: \(flagged.count) photo(s) whose remote flag is not what their URL's host says (iNaturalist's or another), first id \(first)")
        }
        return problems
    }

    /// Schema 4 on: every blurb is safe markup as the app's importer will read it: text and the
    /// tags `<p>`, `</p>`, `<b>`, `</b>`, `<i>`, `</i>`, `<br>` only, balanced, with no `p`
    /// inside another element; every article has a summary.
    private func blurbProblems(_ database: Database) throws -> [String] {
        var problems: [String] = []
        // One article at a time over SQLite's row bytes: the blurbs are never all in memory.
        let articles = try database.prepare("SELECT id, title, blurb_html, summary FROM articles ORDER BY id")
        while try articles.step() {
            guard let html = articles.textBytes(2) else { continue }
            let article = { "article \(articles.text(0) ?? "?") (\(articles.text(1) ?? "?"))" }
            if let reason = Self.blurbDefect(html) {
                problems.append("\(path): error: \(article()): blurb \(reason)")
            }
            if (articles.textBytes(3)?.count ?? 0) == 0 && html.count > 0 {
                problems.append("\(path): error: \(article()) has a blurb but no summary")
            }
        }
        return problems
    }

    /// Why `html` is not a well-formed blurb, or nil. Read over UTF-8 bytes, as the app's
    /// importer reads markup: `<` and `>` are tags' bytes whatever follows them (a combining mark
    /// after `>` is text, not part of the tag, and cannot hide one).
    package static func blurbDefect(_ html: String) -> String? {
        var html = html
        return html.withUTF8 { blurbDefect(UnsafeRawBufferPointer($0)) }
    }

    /// `blurbDefect` over the blurb's UTF-8 bytes.
    package static func blurbDefect(_ bytes: UnsafeRawBufferPointer) -> String? {
        var open: [UInt8] = []
        var index = 0
        // From one `<` or `>` to the next, over the text between them a word at a time.
        while let found = WordBytes.firstIndex(of: UInt8(ascii: "<"), or: UInt8(ascii: ">"), in: bytes, from: index) {
            index = found
            if bytes[index] == UInt8(ascii: ">") { return "has a bare '>'" }
            guard let end = bytes[index...].firstIndex(of: UInt8(ascii: ">")) else { return "has a '<' that opens no tag" }
            let tag = bytes[index...end]
            index = end + 1
            let closing = tag.count == 4 && tag[tag.startIndex + 1] == UInt8(ascii: "/")
            let name = tag[tag.startIndex + (closing ? 2 : 1)]
            let element = name == UInt8(ascii: "p") || name == UInt8(ascii: "b") || name == UInt8(ascii: "i")
            // `<br>`: the tag starts with `<` and ends with `>`.
            if tag.count == 4 && tag[tag.startIndex + 1] == UInt8(ascii: "b") && tag[tag.startIndex + 2] == UInt8(ascii: "r") { continue }
            guard element, tag.count == (closing ? 4 : 3) else {
                return "holds \(String(decoding: tag.prefix(40), as: UTF8.self)), which is not allowed"
            }
            let text = String(UnicodeScalar(name))
            if closing {
                if open.last != name { return "closes </\(text)> out of order" }
                open.removeLast()
            } else if name == UInt8(ascii: "p") {
                if let outer = open.last { return "opens <p> inside <\(String(UnicodeScalar(outer)))>" }
                open.append(name)
            } else {
                if open.contains(name) { return "nests <\(text)> in itself" }
                open.append(name)
            }
        }
        if let last = open.last { return "leaves <\(String(UnicodeScalar(last)))> open" }
        return nil
    }
}
