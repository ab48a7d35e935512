#!/usr/bin/env python3
"""The benchmark baseline: fieldpack's ingest + dedupe + bundle done the way a good DuckDB user
would do it instead (DuckDB 1.5.5 and its sqlite extension, from PyPI).

    duckdb_baseline.py --input build/bench/input-1000000 --format sqlite --output out.sqlite
    duckdb_baseline.py --input build/bench/input-1000000 --format parquet --output out-parquet/

How DuckDB is used (the configuration a careful user would pick for this job):
- every page file is one line of NDJSON; `read_json(format = 'newline_delimited',
  ignore_errors = true)` reads each page's `results` as a list of JSON values, so a page that is
  not valid JSON (a truncated download) is skipped instead of aborting the query;
- `json_transform` (not `_strict`) turns each result into a typed struct declaring only the
  fields the bundle keeps: a value of the wrong type (`photos: "n/a"`, dimensions as text, a
  non-numeric id) becomes NULL instead of failing the query, and a record whose id is NULL has
  no identity and is dropped, as fieldpack rejects it;
- the winner rules are fieldpack's, as `QUALIFY row_number() OVER (...) = 1`: the newest
  `updated_at` per observation; per photo the newest occurrence, then the higher observation id,
  an observation photo before a taxon photo, the lower position; taxa and users as seen in the
  newest observation carrying them. An observation's photos are its `observation_photos` and
  `photos` lists together, as fieldpack reads them;
- the shipping rule that decides which photos reach the bundle on this data (the licence
  allow-list; the synthetic photos have no placeholders, hidden photos or remote http URLs) is a
  WHERE clause; only the links to shipped photos are kept, as in the bundle;
- the tables go to SQLite through DuckDB's sqlite extension (`ATTACH … (TYPE sqlite)`), or to one
  Parquet file per table (`COPY … (FORMAT parquet)`), from one in-memory DuckDB connection with
  every core and DuckDB's own memory limit.

The sqlite extension is installed offline from the PyPI wheel `duckdb-extension-sqlite` (built
for DuckDB 1.5.5 only) with `duckdb_extensions.import_extension("sqlite")`, into an extension
folder beside the interpreter (not the home folder).

`--extra FILE` reads more page files with the dump (the benchmark's untimed count check adds the
records a salvaging reader keeps from the truncated page). `--counts FILE` writes the row counts
as JSON. Timed from the outside by Tests/Bench/run-bench.sh (GNU time); prints one summary line
on stderr.
"""

import argparse
import json
import os
import shutil
import sys
import time

import duckdb

# The parts of an observation the bundle keeps, as json_transform structures. A photo is
# declared once and used for observation photos, the photos list and taxon default photos.
PHOTO = {"id": "BIGINT", "license_code": "VARCHAR", "url": "VARCHAR", "attribution": "VARCHAR",
         "original_dimensions": {"width": "BIGINT", "height": "BIGINT"}}
TAXON = {"id": "BIGINT", "name": "VARCHAR", "rank": "VARCHAR", "rank_level": "DOUBLE", "ancestry": "VARCHAR",
         "iconic_taxon_name": "VARCHAR", "preferred_common_name": "VARCHAR", "wikipedia_url": "VARCHAR",
         "is_active": "BOOLEAN", "default_photo": PHOTO}
OBSERVATION = {
    "id": "BIGINT", "uuid": "VARCHAR", "quality_grade": "VARCHAR", "observed_on": "VARCHAR",
    "time_observed_at": "VARCHAR", "created_at": "VARCHAR", "updated_at": "VARCHAR", "location": "VARCHAR",
    "positional_accuracy": "BIGINT", "geoprivacy": "VARCHAR", "obscured": "BOOLEAN", "place_guess": "VARCHAR",
    "license_code": "VARCHAR", "taxon": TAXON, "user": {"id": "BIGINT", "login": "VARCHAR", "name": "VARCHAR"},
    "observation_photos": [{"position": "BIGINT", "photo": PHOTO}], "photos": [PHOTO],
}

# The licences the bench pipeline ships (fieldpack's default: those that permit commercial use).
DEFAULT_LICENSES = ["cc0", "pd", "cc-by", "cc-by-sa"]

STEPS = [
    # Every observation record with an identity, one row each, its update time as a timestamp.
    ("records", """
        CREATE TEMP TABLE records AS
        SELECT unnest(o), TRY_CAST(o.updated_at AS TIMESTAMPTZ) AS seen
        FROM (SELECT json_transform(r, $structure) AS o
              FROM (SELECT unnest(results) AS r
                    FROM read_json($pages, format = 'newline_delimited', columns = {'results': 'JSON[]'},
                                   ignore_errors = true)))
        WHERE o.id IS NOT NULL
    """),
    # The newest copy of each observation.
    ("winners", """
        CREATE TEMP TABLE winners AS
        SELECT * FROM records
        QUALIFY row_number() OVER (PARTITION BY id ORDER BY seen DESC NULLS LAST) = 1
    """),
    # Every photo occurrence: observation photos (both lists) and taxon default photos, in all copies.
    ("occurrences", """
        CREATE TEMP TABLE occurrences AS
        SELECT op.photo AS p, id AS observation_id, seen, 0 AS kind, op.position AS position
        FROM (SELECT id, seen, unnest(observation_photos) AS op FROM records)
        WHERE op.photo.id IS NOT NULL
        UNION ALL
        SELECT p, id, seen, 0, NULL FROM (SELECT id, seen, unnest(photos) AS p FROM records) WHERE p.id IS NOT NULL
        UNION ALL
        SELECT taxon.default_photo, id, seen, 1, NULL FROM records WHERE taxon.default_photo.id IS NOT NULL
    """),
    # Per photo id, the winning occurrence; dimensions from any occurrence when it has none. Only
    # photos whose own licence is allowed and who have someone to credit (an observation photo) ship.
    ("shipped_photos", """
        CREATE TEMP TABLE shipped_photos AS
        SELECT id, url, license_code, attribution, coalesce(width, any_width) AS width,
               coalesce(height, any_height) AS height
        FROM (SELECT p.id AS id, regexp_replace(p.url, '\\?.*$', '') AS url, lower(p.license_code) AS license_code,
                     p.attribution AS attribution, p.original_dimensions.width AS width,
                     p.original_dimensions.height AS height,
                     max(p.original_dimensions.width) OVER (PARTITION BY p.id) AS any_width,
                     max(p.original_dimensions.height) OVER (PARTITION BY p.id) AS any_height,
                     min(kind) OVER (PARTITION BY p.id) AS best_kind
              FROM occurrences
              QUALIFY row_number() OVER (PARTITION BY p.id
                                         ORDER BY seen DESC NULLS LAST, observation_id DESC, kind, position NULLS LAST) = 1)
        WHERE best_kind = 0 AND list_contains($licenses, license_code)
    """),
    ("links", """
        CREATE TEMP TABLE links AS
        SELECT DISTINCT observation_id, photo_id, position FROM (
            SELECT w.id AS observation_id, op.photo.id AS photo_id, op.position AS position
            FROM (SELECT id, unnest(observation_photos) AS op FROM winners) w
            UNION ALL
            SELECT id, p.id, NULL FROM (SELECT id, unnest(photos) AS p FROM winners)
        ) l SEMI JOIN shipped_photos s ON s.id = l.photo_id
        QUALIFY row_number() OVER (PARTITION BY observation_id, photo_id ORDER BY position NULLS LAST) = 1
    """),
    ("taxa", """
        CREATE TEMP TABLE taxa AS
        SELECT t.id AS id, t.name AS name, t.rank AS rank, t.rank_level AS rank_level, t.ancestry AS ancestry,
               t.iconic_taxon_name AS iconic_taxon_name, t.preferred_common_name AS preferred_common_name,
               t.wikipedia_url AS wikipedia_url, t.is_active AS is_active,
               CASE WHEN t.default_photo.id IN (SELECT id FROM shipped_photos) THEN t.default_photo.id END AS default_photo_id
        FROM (SELECT taxon AS t, seen, id AS observation_id FROM records WHERE taxon.id IS NOT NULL AND taxon.name IS NOT NULL)
        QUALIFY row_number() OVER (PARTITION BY t.id ORDER BY seen DESC NULLS LAST, observation_id DESC) = 1
    """),
    ("users", """
        CREATE TEMP TABLE users AS
        SELECT u.id AS id, u.login AS login, u.name AS name
        FROM (SELECT "user" AS u, seen, id AS observation_id FROM records WHERE "user".id IS NOT NULL)
        QUALIFY row_number() OVER (PARTITION BY u.id ORDER BY seen DESC NULLS LAST, observation_id DESC) = 1
    """),
]

# What is written, in the bundle's table names and key order.
OUTPUTS = {
    "users": "SELECT * FROM users ORDER BY id",
    "taxa": "SELECT * FROM taxa ORDER BY id",
    "observations": """
        SELECT id, uuid, "user".id AS user_id, taxon.id AS taxon_id, quality_grade, observed_on, time_observed_at,
               TRY_CAST(split_part(location, ',', 1) AS DOUBLE) AS latitude,
               TRY_CAST(split_part(location, ',', 2) AS DOUBLE) AS longitude,
               positional_accuracy, geoprivacy, obscured, place_guess, lower(license_code) AS license_code,
               created_at, updated_at
        FROM winners ORDER BY id
    """,
    "photos": "SELECT * FROM shipped_photos ORDER BY id",
    "observation_photos": "SELECT * FROM links ORDER BY observation_id, photo_id",
}


def load_sqlite_extension(con):
    """Installs the sqlite extension from its PyPI wheel (offline) and loads it."""
    from duckdb_extensions import import_extension

    folder = os.path.join(sys.prefix, "duckdb-extensions")
    con.execute(f"SET extension_directory = '{folder}'")
    import_extension("sqlite", con=con)
    con.execute("LOAD sqlite")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", required=True, help="folder of page-*.json files")
    parser.add_argument("--format", choices=["sqlite", "parquet"], required=True)
    parser.add_argument("--output", required=True, help="SQLite file, or folder of Parquet files, to create")
    parser.add_argument("--extra", action="append", default=[], help="another page file to read with the dump")
    parser.add_argument("--licenses", default=",".join(DEFAULT_LICENSES), help="licence codes that ship")
    parser.add_argument("--counts", help="write the row counts here as JSON")
    parser.add_argument("--threads", type=int, default=None, help="DuckDB threads (default: all cores)")
    parser.add_argument("--memory-limit", default=None, help="DuckDB memory_limit, e.g. 300MB (default: DuckDB's)")
    parser.add_argument("--temp-directory", default=None, help="where DuckDB spills (default: beside the output)")
    args = parser.parse_args()

    start = time.monotonic()
    if os.path.isdir(args.output):
        shutil.rmtree(args.output)
    elif os.path.exists(args.output):
        os.remove(args.output)
    con = duckdb.connect()
    con.execute("SET preserve_insertion_order = false")
    temp = (args.temp_directory or args.output + ".tmp").replace("'", "''")
    con.execute(f"SET temp_directory = '{temp}'")
    if args.threads:
        con.execute(f"SET threads = {int(args.threads)}")
    if args.memory_limit:
        con.execute(f"SET memory_limit = '{args.memory_limit}'")
    if args.format == "sqlite":
        load_sqlite_extension(con)

    parameters = {
        "pages": [os.path.join(args.input, "page-*.json")] + args.extra,
        "structure": json.dumps(OBSERVATION),
        "licenses": [code.strip().lower() for code in args.licenses.split(",") if code.strip()],
    }
    for name, sql in STEPS:
        step = time.monotonic()
        con.execute(sql, {key: value for key, value in parameters.items() if f"${key}" in sql})
        print(f"duckdb_baseline: {name} in {time.monotonic() - step:.2f} s", file=sys.stderr)

    step = time.monotonic()
    if args.format == "sqlite":
        con.execute("ATTACH '{}' AS bundle (TYPE sqlite)".format(args.output.replace("'", "''")))
        con.execute("BEGIN")
        for table, sql in OUTPUTS.items():
            con.execute(f"CREATE TABLE bundle.{table} AS {sql}")
        con.execute("COMMIT")
        con.execute("DETACH bundle")
    else:
        os.makedirs(args.output)
        for table, sql in OUTPUTS.items():
            con.execute(f"COPY ({sql}) TO '{os.path.join(args.output, table + '.parquet')}' (FORMAT parquet)")
    print(f"duckdb_baseline: written as {args.format} in {time.monotonic() - step:.2f} s", file=sys.stderr)

    counts = {table: con.execute(f"SELECT count(*) FROM ({sql})").fetchone()[0] for table, sql in OUTPUTS.items()}
    records = con.execute("SELECT count(*) FROM records").fetchone()[0]
    con.close()
    if args.counts:
        with open(args.counts, "w", encoding="utf-8") as handle:
            json.dump(counts, handle, sort_keys=True)
            handle.write("\n")
    summary = ", ".join(f"{count} {table}" for table, count in counts.items())
    print(f"duckdb_baseline: DuckDB {duckdb.__version__}, {args.format}: {records} records -> {summary} "
          f"in {time.monotonic() - start:.2f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
