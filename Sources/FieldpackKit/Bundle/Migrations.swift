/// One step of the bundle schema. Once a migration has shipped it is never edited: the schema
/// changes by appending a new one.
public struct Migration: Sendable {
    /// The schema version this migration produces (`PRAGMA user_version` after it).
    public var version: Int
    public var name: String
    public var sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

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

    /// Why `rows` (`schema_migrations`' version, name and sql_sha256, in version order) are not
    /// the record of this fieldpack's migrations 1…`version` as it shipped them (or of
    /// `migrations`), nil if they are.
    public static func recordProblem(_ rows: [[String?]], version: Int, migrations: [Migration] = all) -> String? {
        guard rows.count == version, version <= migrations.count else {
            return "schema_migrations records \(rows.count) migration(s), not the \(version) of schema version \(version)"
        }
        for (migration, row) in zip(migrations, rows)
        where row.count != 3 || row[0] != String(migration.version) || row[1] != migration.name || row[2] != migration.sqlSHA256 {
            return "schema_migrations' row (\(row.map { $0 ?? "NULL" }.joined(separator: ", "))) is not migration \(migration.version) "
                + "(\(migration.name), SQL \(migration.sqlSHA256)) as fieldpack shipped it"
        }
        return nil
    }

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
        Migration(version: 3, name: "photo-shipping-and-costs", sql: """
            -- Every photo row may ship: its own licence is allowed, its URL is https, it has a credit.
            -- url is the photo's own tier URL, as https and without the cache-busting query.
            ALTER TABLE photos ADD COLUMN remote INTEGER NOT NULL DEFAULT 0;  -- 1: a third-party URL, no tiers
            ALTER TABLE photos ADD COLUMN credit TEXT;  -- the attribution line the app shows
            -- Where url's size token is (1-based, in characters; NULL when remote), so that:
            ALTER TABLE photos ADD COLUMN url_size_start INTEGER;
            ALTER TABLE photos ADD COLUMN url_size_length INTEGER;
            -- Derived by SQLite from the stored columns (no bytes in the file): url with '{size}'
            -- in place of its size token, and the licence code normalised.
            ALTER TABLE photos ADD COLUMN url_template TEXT GENERATED ALWAYS AS (
                substr(url, 1, url_size_start - 1) || '{size}' || substr(url, url_size_start + url_size_length)
            ) VIRTUAL;
            ALTER TABLE photos ADD COLUMN license TEXT GENERATED ALWAYS AS (
                CASE WHEN license_code IS NULL OR license_code = '' THEN 'all-rights-reserved' ELSE lower(license_code) END
            ) VIRTUAL;
            ALTER TABLE taxa ADD COLUMN hero_photo_id INTEGER REFERENCES photos(id);

            -- iNaturalist's CDN sizes: square is a 75 x 75 crop; the others fit inside bound px.
            CREATE TABLE photo_tiers (
                name TEXT NOT NULL PRIMARY KEY,
                ordinal INTEGER NOT NULL UNIQUE,
                bound INTEGER NOT NULL,
                cropped INTEGER NOT NULL
            ) WITHOUT ROWID;
            INSERT INTO photo_tiers (name, ordinal, bound, cropped) VALUES
                ('square', 0, 75, 1), ('thumb', 1, 100, 0), ('small', 2, 240, 0),
                ('medium', 3, 500, 0), ('large', 4, 1024, 0), ('original', 5, 2048, 0);

            -- Where the app shows photos (from the pipeline file); id is the pipeline's order.
            CREATE TABLE display_targets (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE,
                width_points REAL NOT NULL,
                height_points REAL NOT NULL,
                scale REAL NOT NULL,
                mode TEXT NOT NULL,
                box_width INTEGER NOT NULL,
                box_height INTEGER NOT NULL
            );

            -- A photo's costs depend only on whether it is remote and its stored size (0 x 0 when
            -- unknown), so they are stored once per such size class and target.
            CREATE TABLE size_costs (
                remote INTEGER NOT NULL,
                original_width INTEGER NOT NULL,
                original_height INTEGER NOT NULL,
                target_id INTEGER NOT NULL REFERENCES display_targets(id),
                tier TEXT REFERENCES photo_tiers(name),  -- NULL: a remote photo's own URL
                served_width INTEGER NOT NULL,
                served_height INTEGER NOT NULL,
                display_width INTEGER NOT NULL,
                display_height INTEGER NOT NULL,
                decoded_bytes INTEGER NOT NULL,
                transient_bytes INTEGER NOT NULL,
                download_bytes INTEGER NOT NULL,
                upscaled INTEGER NOT NULL,
                assumed_dimensions INTEGER NOT NULL,
                PRIMARY KEY (remote, original_width, original_height, target_id)
            ) WITHOUT ROWID;

            -- One row per photo and target.
            CREATE VIEW photo_costs AS
            SELECT p.id AS photo_id, t.id AS target_id, t.name AS target, c.tier,
                   CASE WHEN c.tier IS NULL THEN p.url ELSE replace(p.url_template, '{size}', c.tier) END AS url,
                   c.served_width, c.served_height, c.display_width, c.display_height,
                   c.decoded_bytes, c.transient_bytes, c.download_bytes, c.upscaled, c.assumed_dimensions
            FROM photos AS p
            JOIN size_costs AS c
              ON c.remote = p.remote
             AND c.original_width = CASE WHEN p.width > 0 AND p.height > 0 THEN p.width ELSE 0 END
             AND c.original_height = CASE WHEN p.width > 0 AND p.height > 0 THEN p.height ELSE 0 END
            JOIN display_targets AS t ON t.id = c.target_id;

            -- One row per photo and tier (a remote photo: one row, tier NULL, its own URL).
            CREATE VIEW photo_urls AS
            SELECT p.id AS photo_id, t.name AS tier, replace(p.url_template, '{size}', t.name) AS url
            FROM photos AS p JOIN photo_tiers AS t
            WHERE p.url_template IS NOT NULL
            UNION ALL
            SELECT p.id, NULL, p.url FROM photos AS p WHERE p.url_template IS NULL;
            """),
        Migration(version: 4, name: "wikipedia-articles", sql: """
            -- One Wikipedia article per row: its safe blurb (text and p, b, i, br only) and summary,
            -- and what the app's credits need. id follows the titles' order.
            CREATE TABLE articles (
                id INTEGER PRIMARY KEY,
                title TEXT NOT NULL UNIQUE,
                language TEXT NOT NULL,
                url TEXT NOT NULL,
                page_id INTEGER,
                revision INTEGER,
                modified TEXT,
                wikidata_id TEXT,
                license TEXT NOT NULL,
                sections INTEGER NOT NULL,
                summary TEXT NOT NULL,
                blurb_html TEXT NOT NULL
            );

            -- The taxon's article, from its wikipedia_url (redirects followed).
            ALTER TABLE taxa ADD COLUMN article_id INTEGER REFERENCES articles(id);

            -- The places the app describes, from the pipeline, with their article if found.
            CREATE TABLE destinations (
                id TEXT NOT NULL PRIMARY KEY,
                name TEXT NOT NULL,
                wikipedia_title TEXT,
                wikidata_id TEXT,
                article_id INTEGER REFERENCES articles(id)
            ) WITHOUT ROWID;

            CREATE INDEX taxa_by_article ON taxa(article_id);
            """),
        Migration(version: 5, name: "offline-search", sql: """
            -- What the app searches offline: taxa (scientific and common names), destinations and
            -- articles, with the article text. search is an FTS5 index over it (external content:
            -- the text is stored once); diacritics are folded, prefixes of 2 and 3 characters indexed.
            CREATE TABLE search_entries (
                id INTEGER PRIMARY KEY,
                kind TEXT NOT NULL,  -- 'taxon', 'destination' or 'article'
                ref TEXT NOT NULL,   -- the taxon's id, the destination's id or the article's id
                name TEXT NOT NULL,
                common_name TEXT,
                body TEXT
            );
            CREATE VIRTUAL TABLE search USING fts5(
                name, common_name, body,
                content='search_entries', content_rowid='id',
                tokenize='unicode61 remove_diacritics 2', prefix='2 3'
            );
            """),
        Migration(version: 6, name: "taxon-species-counts", sql: """
            -- Observations counted for the taxon by /v1/observations/species_counts pages (a place's
            -- or a project's species list); the largest count any page gives. NULL: no page lists it.
            ALTER TABLE taxa ADD COLUMN species_count INTEGER;
            """),
        Migration(version: 7, name: "observation-obscured", sql: """
            -- Which observations have obscured coordinates: their obscured flag, or their own or
            -- their taxon's geoprivacy 'obscured' or 'private'. Their latitude and longitude are
            -- then a public point iNaturalist randomised within a cell of about 0.2 degrees (none
            -- when private), and positional_accuracy is the public accuracy, never the private one.
            ALTER TABLE observations ADD COLUMN taxon_geoprivacy TEXT;
            ALTER TABLE observations ADD COLUMN coordinates_obscured INTEGER NOT NULL DEFAULT 0;
            -- A bundle built before this schema (fieldpack-bundle migrate): its rows say what they
            -- can (they do not know the taxon's geoprivacy), and the accuracy they may hold for an
            -- obscured point is the private one, so it goes. A new bundle's rows are loaded after
            -- this, by ObservationRecord.isObscured.
            UPDATE observations SET coordinates_obscured = 1, positional_accuracy = NULL
            WHERE obscured = 1 OR geoprivacy IN ('obscured', 'private');
            """),
        Migration(version: 8, name: "observations-by-uuid", sql: """
            -- Observations from API pages (an id and a uuid) and from the open-data export (a uuid
            -- only) are one table, one row per uuid. An observation known only from the export has
            -- a negative id, a hash of its uuid (the same in every bundle): inaturalist_id is NULL
            -- for it, and the app addresses it by uuid, as iNaturalist's site and API accept
            -- (/observations/<uuid>). observation_photos refer to observations by id either way.
            ALTER TABLE observations ADD COLUMN inaturalist_id INTEGER
                GENERATED ALWAYS AS (CASE WHEN id > 0 THEN id END) VIRTUAL;
            CREATE UNIQUE INDEX observations_by_uuid ON observations(uuid);
            """),
        Migration(version: 9, name: "search-contentless", sql: """
            -- The search index keeps none of the text it indexes (contentless FTS5). An entry's
            -- text was stored twice, in search_entries.body and in the index: an article's body is
            -- its blurb's plain text, so it was a quarter of a bundle with full articles. The app
            -- shows a result from search_entries (kind, ref, name, common_name) and the row it
            -- refers to; bm25 ranks from the index alone. The text is the blurb's, or the taxon's or
            -- destination's article summary: a later index can be made again from those.
            DROP TABLE search;
            CREATE VIRTUAL TABLE search USING fts5(
                name, common_name, body,
                content='', tokenize='unicode61 remove_diacritics 2', prefix='2 3'
            );
            -- A bundle of an earlier schema (fieldpack-bundle migrate): its entries indexed again,
            -- from the text they held.
            INSERT INTO search (rowid, name, common_name, body)
            SELECT id, name, common_name, body FROM search_entries ORDER BY id;
            ALTER TABLE search_entries DROP COLUMN body;
            """),
    ]

    /// The schema version this build of fieldpack writes.
    public static var latestVersion: Int { all.last?.version ?? 0 }

    /// The structural fingerprint (see `SchemaFingerprint`) of each schema version, as built
    /// from scratch. A test rebuilds every version and compares; never edit a shipped value.
    public static let goldenFingerprints: [Int: String] = [
        1: "e23a19099857b8af7a1f3e73a7623eefbc6174046a11beaef9a510c6b64c430a",
        2: "6ce674422624bc31445b933577cc9014a6faed70bb3b6b6bfa6654a24ec24c2b",
        3: "18f823ec6ac844ba6edea20e3d3e5ba8f0274cf7d0e781c8c153c7af27f181b9",
        4: "aac70373f451f2c909c66fe21abb984d687a127791c7adc5f9f1577df3e87508",
        5: "cf093e369a89e4a9ecf76a5ef609434bc9f7e1dc5a0bd2b2fdac3ec5756817b7",
        6: "17154408a9e3523141f4cee97e1d98b136cd38ad767c02739f8cd41df5180f76",
        7: "8ee3a85f7429fa32f91af5e765c2ac1274759db7f5701e2c86cb6dc2defde6e6",
        8: "51fcbad274808d5430bbb3b310541fee678d4b057492be91dcb37f664c64d2cf",
        9: "b8531754004714765e5b19326042ed4fa3ded87894b3fdce861f1ed5b615ee21",
    ]
}
