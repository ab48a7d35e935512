#!/usr/bin/env python3
"""The benchmark's baseline for the open-data export path: what fieldpack-inat, -dedupe and
-bundle do with an export and a `select` (a polygon and a taxon subtree), done the way a good
DuckDB user would (DuckDB 1.5.5 with its spatial and sqlite extensions, from PyPI).

    opendata_baseline.py --input DIR --select select.json --output out.sqlite [--counts counts.json]

How DuckDB is used:
- each table is read with `read_csv` as the export is written: tab delimiter, no quote or
  escape character (`'` and `"` are data), a header row, explicit column types, and
  `ignore_errors = true`, so a row that does not fit its columns (a field short, a tab inside a
  field) is skipped rather than failing the query;
- the same dedupe as fieldpack's: one observation per uuid (case-insensitive), one photo per
  `photo_id` (the repeated photo rows of a photo in two observations: the row at the lowest
  position wins, `QUALIFY row_number()`), one link per (`photo_id`, `observation_uuid`), one
  taxon and one observer per id; a taxon without a name (empty or `None`) is dropped as
  fieldpack rejects it;
- the same shipping rule on this data: a photo ships when its licence (lower-cased) is one the
  pipeline allows; only links to shipped photos are kept;
- the same selection: the polygon (holes included, its boundary inside) with the spatial
  extension's `ST_Intersects(polygon, ST_Point(longitude, latitude))`, an observation without
  coordinates outside; the taxon rule as fieldpack's (`TaxonRule`: the nearest taxon of the
  lineage named in `include` or `exclude` decides) with DuckDB's list functions on `ancestry`;
  then the taxa of the kept observations and all their ancestors, the photos their links keep,
  and their observers;
- the tables go to SQLite through the sqlite extension (`ATTACH … (TYPE sqlite)`) from one
  in-memory DuckDB connection with every core and DuckDB's own memory limit.

The spatial and sqlite extensions install offline from their PyPI wheels
(`duckdb-extension-spatial`, `duckdb-extension-sqlite`) with `duckdb_extensions.import_extension`,
into an extension folder beside the interpreter. Timed from the outside (GNU time); prints one
summary line on stderr.
"""

import argparse
import json
import os
import sys
import time

import duckdb

TYPES = {
    "observations": {"observation_uuid": "VARCHAR", "observer_id": "BIGINT", "latitude": "DOUBLE", "longitude": "DOUBLE",
                     "positional_accuracy": "BIGINT", "taxon_id": "BIGINT", "quality_grade": "VARCHAR",
                     "observed_on": "VARCHAR", "anomaly_score": "DOUBLE"},
    "photos": {"photo_uuid": "VARCHAR", "photo_id": "BIGINT", "observation_uuid": "VARCHAR", "observer_id": "BIGINT",
               "extension": "VARCHAR", "license": "VARCHAR", "width": "BIGINT", "height": "BIGINT", "position": "BIGINT"},
    "taxa": {"taxon_id": "BIGINT", "ancestry": "VARCHAR", "rank_level": "DOUBLE", "rank": "VARCHAR", "name": "VARCHAR",
             "active": "BOOLEAN"},
    "observers": {"observer_id": "BIGINT", "login": "VARCHAR", "name": "VARCHAR"},
}

DEFAULT_LICENSES = ["cc0", "pd", "cc-by", "cc-by-sa"]
UUID = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"

STEPS = [
    # One observation per uuid (the export has no other key); a row without a uuid has no identity.
    ("observations", """
        CREATE TEMP TABLE observations AS
        SELECT lower(observation_uuid) AS uuid, observer_id, taxon_id, quality_grade, observed_on,
               latitude, longitude, positional_accuracy
        FROM read_csv($observations, delim = '\t', quote = '', escape = '', header = true,
                      columns = $observation_types, ignore_errors = true)
        WHERE regexp_full_match(observation_uuid, $uuid)
        QUALIFY row_number() OVER (PARTITION BY lower(observation_uuid) ORDER BY observation_uuid) = 1
    """),
    ("photo_rows", """
        CREATE TEMP TABLE photo_rows AS
        SELECT photo_id, lower(observation_uuid) AS uuid, extension, lower(license) AS license, width, height,
               coalesce(position, 0) AS position
        FROM read_csv($photos, delim = '\t', quote = '', escape = '', header = true,
                      columns = $photo_types, ignore_errors = true)
        WHERE photo_id > 0
    """),
    ("taxa", """
        CREATE TEMP TABLE taxa AS
        SELECT taxon_id AS id, name, rank, rank_level, ancestry, active AS is_active
        FROM read_csv($taxa, delim = '\t', quote = '', escape = '', header = true,
                      columns = $taxon_types, ignore_errors = true)
        WHERE taxon_id > 0 AND name IS NOT NULL AND name <> 'None'
        QUALIFY row_number() OVER (PARTITION BY taxon_id) = 1
    """),
    ("users", """
        CREATE TEMP TABLE users AS
        SELECT observer_id AS id, login, CASE WHEN name = 'None' THEN NULL ELSE name END AS name
        FROM read_csv($observers, delim = '\t', quote = '', escape = '', header = true,
                      columns = $observer_types, ignore_errors = true)
        WHERE observer_id > 0
        QUALIFY row_number() OVER (PARTITION BY observer_id) = 1
    """),
    # Per photo id, the row at the lowest position wins (a photo in k observations has k rows);
    # it ships when its licence is allowed.
    ("shipped_photos", """
        CREATE TEMP TABLE shipped_photos AS
        SELECT photo_id AS id,
               'https://inaturalist-open-data.s3.amazonaws.com/photos/' || photo_id || '/square.' || extension AS url,
               license, coalesce(width, any_width) AS width, coalesce(height, any_height) AS height
        FROM (SELECT *, max(width) OVER (PARTITION BY photo_id) AS any_width,
                        max(height) OVER (PARTITION BY photo_id) AS any_height
              FROM photo_rows
              QUALIFY row_number() OVER (PARTITION BY photo_id ORDER BY position) = 1)
        WHERE list_contains($licenses, license)
    """),
    # The selection: inside the polygon, and a taxon the rule keeps (nearest named ancestor decides).
    ("kept", """
        CREATE TEMP TABLE kept AS
        SELECT o.* FROM observations AS o JOIN taxa AS t ON t.id = o.taxon_id
        WHERE o.latitude IS NOT NULL AND o.longitude IS NOT NULL
          AND ST_Intersects(ST_GeomFromGeoJSON($polygon), ST_Point(o.longitude, o.latitude))
          AND CASE
                WHEN list_contains($include, t.id) THEN true
                WHEN list_contains($exclude, t.id) THEN false
                ELSE coalesce(list_contains($include,
                        list_filter(list_reverse(CAST(string_split(coalesce(t.ancestry, ''), '/') AS VARCHAR[])),
                                    x -> list_contains(list_concat($include, $exclude), TRY_CAST(x AS BIGINT)))[1]::BIGINT),
                        len($include) = 0)
              END
    """),
    # Links of kept observations to shipped photos, each (observation, photo) once at its lowest position.
    ("links", """
        CREATE TEMP TABLE links AS
        SELECT l.uuid AS observation_uuid, l.photo_id, min(l.position) AS position
        FROM photo_rows AS l SEMI JOIN kept AS k ON k.uuid = l.uuid SEMI JOIN shipped_photos AS s ON s.id = l.photo_id
        GROUP BY l.uuid, l.photo_id
    """),
    ("kept_taxa", """
        CREATE TEMP TABLE kept_taxa AS
        SELECT t.* FROM taxa AS t WHERE t.id IN (
            SELECT taxon_id FROM kept
            UNION SELECT TRY_CAST(unnest(string_split(t2.ancestry, '/')) AS BIGINT)
                  FROM taxa AS t2 SEMI JOIN kept AS k ON k.taxon_id = t2.id WHERE t2.ancestry IS NOT NULL)
    """),
]

OUTPUTS = {
    "observations": "SELECT * FROM kept ORDER BY uuid",
    "photos": "SELECT * FROM shipped_photos WHERE id IN (SELECT photo_id FROM links) ORDER BY id",
    "taxa": "SELECT * FROM kept_taxa ORDER BY id",
    "users": "SELECT * FROM users WHERE id IN (SELECT observer_id FROM kept) ORDER BY id",
    "observation_photos": "SELECT * FROM links ORDER BY observation_uuid, photo_id",
}


def load_extension(con, name):
    """Installs an extension from its PyPI wheel (offline) and loads it."""
    from duckdb_extensions import import_extension

    import_extension(name, con=con)
    con.execute(f"LOAD {name}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", required=True, help="folder of the export's loose tables (observations.csv or .csv.gz, …)")
    parser.add_argument("--select", required=True, help="the pipeline's select as JSON: geojson (one Polygon), taxa")
    parser.add_argument("--output", required=True, help="SQLite file to create")
    parser.add_argument("--licenses", default=",".join(DEFAULT_LICENSES), help="licence codes that ship")
    parser.add_argument("--counts", help="write the row counts here as JSON")
    parser.add_argument("--memory-limit", default=None, help="DuckDB memory_limit (default: DuckDB's)")
    args = parser.parse_args()

    start = time.monotonic()
    if os.path.exists(args.output):
        os.remove(args.output)
    with open(args.select, encoding="utf-8") as handle:
        select = json.load(handle)
    taxa_rule = select.get("taxa", {})
    con = duckdb.connect()
    con.execute("SET preserve_insertion_order = false")
    con.execute("SET temp_directory = '{}'".format((args.output + ".tmp").replace("'", "''")))
    con.execute("SET extension_directory = '{}'".format(os.path.join(sys.prefix, "duckdb-extensions").replace("'", "''")))
    if args.memory_limit:
        con.execute(f"SET memory_limit = '{args.memory_limit}'")
    load_extension(con, "spatial")
    load_extension(con, "sqlite")

    def table(name):
        """The table's file in the folder: `name.csv`, or as published, `name.csv.gz` (which
        read_csv inflates, told by its extension)."""
        plain = os.path.join(args.input, f"{name}.csv")
        return plain if os.path.exists(plain) else plain + ".gz"

    parameters = {
        "observations": table("observations"),
        "photos": table("photos"),
        "taxa": table("taxa"),
        "observers": table("observers"),
        "observation_types": TYPES["observations"], "photo_types": TYPES["photos"],
        "taxon_types": TYPES["taxa"], "observer_types": TYPES["observers"],
        "uuid": UUID,
        "licenses": [code.strip().lower() for code in args.licenses.split(",") if code.strip()],
        "polygon": json.dumps(select["geojson"]),
        "include": [int(i) for i in taxa_rule.get("include", [])],
        "exclude": [int(i) for i in taxa_rule.get("exclude", [])],
    }
    for name, sql in STEPS:
        step = time.monotonic()
        con.execute(sql, {key: value for key, value in parameters.items() if f"${key}" in sql})
        print(f"opendata_baseline: {name} in {time.monotonic() - step:.2f} s", file=sys.stderr)

    step = time.monotonic()
    con.execute("ATTACH '{}' AS bundle (TYPE sqlite)".format(args.output.replace("'", "''")))
    con.execute("BEGIN")
    for table, sql in OUTPUTS.items():
        con.execute(f"CREATE TABLE bundle.{table} AS {sql}")
    con.execute("COMMIT")
    con.execute("DETACH bundle")
    print(f"opendata_baseline: written as sqlite in {time.monotonic() - step:.2f} s", file=sys.stderr)

    counts = {table: con.execute(f"SELECT count(*) FROM ({sql})").fetchone()[0] for table, sql in OUTPUTS.items()}
    read = con.execute("SELECT count(*) FROM observations").fetchone()[0]
    con.close()
    if args.counts:
        with open(args.counts, "w", encoding="utf-8") as handle:
            json.dump(counts, handle, sort_keys=True)
            handle.write("\n")
    summary = ", ".join(f"{count} {table}" for table, count in counts.items())
    print(f"opendata_baseline: DuckDB {duckdb.__version__}: {read} observations read -> {summary} "
          f"in {time.monotonic() - start:.2f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
