/// The database half of `BundleVerifier`: what the app checks after the checksums pass.
struct DatabaseChecks {
    let path: String
    let rows: [String: Int64]
    let version: Int?
    let fingerprint: String?

    func run() -> [String] {
        var problems: [String] = []
        func problem(_ message: String) { problems.append("\(path): error: \(message)") }
        let database: Database
        do {
            database = try Database(path: path, mode: .immutable)
            _ = try database.int("SELECT count(*) FROM sqlite_schema")
        } catch {
            return ["\(path): error: does not open read-only as SQLite: \(error)"]
        }
        do {
            let applicationID = try database.int("PRAGMA application_id") ?? 0
            if applicationID != Int64(Migrations.applicationID) {
                problem("application_id is \(applicationID), not fieldpack's \(Migrations.applicationID)")
            }
            let userVersion = Int(try database.int("PRAGMA user_version") ?? 0)
            guard let golden = Migrations.goldenFingerprints[userVersion] else {
                problem("schema version \(userVersion) is not one this fieldpack knows (1…\(Migrations.latestVersion))")
                return problems
            }
            if let version, version != userVersion {
                problem("user_version \(userVersion) does not match the manifest's schema_version \(version)")
            }
            let integrity = try database.rows("PRAGMA integrity_check").compactMap { $0.first ?? nil }
            if integrity != ["ok"] { problem("integrity_check: \(integrity.prefix(3).joined(separator: "; "))") }
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
            for (table, expected) in rows.sorted(by: { $0.key < $1.key }) {
                guard BundleBuilder.tables.contains(table) else {
                    problem("manifest counts rows of unknown table \(table)")
                    continue
                }
                let count = try database.int("SELECT count(*) FROM \(table)") ?? -1
                if count != expected { problem("table \(table) has \(count) rows, the manifest says \(expected)") }
            }
            for table in BundleBuilder.tables where rows[table] == nil {
                problem("the manifest gives no row count for table \(table)")
            }
        } catch {
            problem("\(error)")
        }
        return problems
    }
}
