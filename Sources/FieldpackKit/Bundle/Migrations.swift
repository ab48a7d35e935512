/// One step of the bundle schema. Once a migration has shipped it is never edited: the schema
/// changes by appending a new one.
public struct Migration: Sendable {
    /// The schema version this migration produces (`PRAGMA user_version` after it).
    public var version: Int
    public var name: String
    public var sql: String

    /// SHA-256 of the SQL with CRLF normalised to LF; recorded in `schema_migrations`.
    public var sqlSHA256: String {
        SHA256.hex(of: Array(sql.replacingOccurrences(of: "\r\n", with: "\n").utf8))
    }
}

/// The bundle's schema history, oldest first. Append only.
public enum Migrations {
    /// `PRAGMA application_id`: "FPAK", so tools (and the app) can tell a fieldpack bundle from any
    /// other SQLite file by reading 4 header bytes.
    public static let applicationID: Int32 = 0x4650_414B

    public static let all: [Migration] = [
        Migration(version: 1, name: "create-inat-tables", sql: """
            CREATE TABLE bundle_info (
                key TEXT NOT NULL PRIMARY KEY,
                value TEXT NOT NULL
            ) WITHOUT ROWID;

            CREATE TABLE users (
                id INTEGER PRIMARY KEY,
                login TEXT,
                name TEXT
            );

            CREATE TABLE photos (
                id INTEGER PRIMARY KEY,
                url TEXT NOT NULL,
                license_code TEXT,
                attribution TEXT,
                width INTEGER,
                height INTEGER,
                photo_type TEXT
            );

            CREATE TABLE taxa (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                rank TEXT,
                rank_level REAL,
                ancestry TEXT,
                iconic_taxon_name TEXT,
                preferred_common_name TEXT,
                wikipedia_url TEXT,
                is_active INTEGER,
                default_photo_id INTEGER REFERENCES photos(id)
            );

            CREATE TABLE observations (
                id INTEGER PRIMARY KEY,
                uuid TEXT,
                user_id INTEGER REFERENCES users(id),
                taxon_id INTEGER REFERENCES taxa(id),
                quality_grade TEXT,
                observed_on TEXT,
                time_observed_at TEXT,
                latitude REAL,
                longitude REAL,
                positional_accuracy INTEGER,
                geoprivacy TEXT,
                obscured INTEGER,
                place_guess TEXT,
                license_code TEXT,
                created_at TEXT,
                updated_at TEXT
            );

            CREATE TABLE observation_photos (
                observation_id INTEGER NOT NULL REFERENCES observations(id),
                photo_id INTEGER NOT NULL REFERENCES photos(id),
                position INTEGER NOT NULL,
                PRIMARY KEY (observation_id, photo_id)
            ) WITHOUT ROWID;

            CREATE TABLE taxon_photos (
                taxon_id INTEGER NOT NULL REFERENCES taxa(id),
                position INTEGER NOT NULL,
                photo_id INTEGER NOT NULL REFERENCES photos(id),
                PRIMARY KEY (taxon_id, position)
            ) WITHOUT ROWID;
            """),
        Migration(version: 2, name: "index-app-queries", sql: """
            CREATE INDEX observations_by_taxon ON observations(taxon_id, quality_grade);
            CREATE INDEX observations_by_user ON observations(user_id);
            CREATE INDEX observation_photos_by_photo ON observation_photos(photo_id);
            CREATE INDEX taxon_photos_by_photo ON taxon_photos(photo_id);
            """),
    ]

    /// The schema version this build of fieldpack writes.
    public static var latestVersion: Int { all.last?.version ?? 0 }

    /// The structural fingerprint (see `SchemaFingerprint`) of each schema version, as built
    /// from scratch. A test rebuilds every version and compares; never edit a shipped value.
    public static let goldenFingerprints: [Int: String] = [
        1: "e23a19099857b8af7a1f3e73a7623eefbc6174046a11beaef9a510c6b64c430a",
        2: "6ce674422624bc31445b933577cc9014a6faed70bb3b6b6bfa6654a24ec24c2b",
    ]
}
