#!/usr/bin/env python3
"""The benchmark baseline: fieldpack's ingest + dedupe + bundle done the way a data person
might do it instead, with DuckDB (from PyPI).

Reads the same iNaturalist API v1 page files, unnests each page's `results` array, keeps the
newest copy of every observation (latest `updated_at` per id), of every photo, taxon and user
(per id, the copy seen in the newest observation), and writes tables like the bundle's to a
DuckDB file:

    python3 Tests/Bench/duckdb_baseline.py --input build/bench/input-1000000 --output out.duckdb

Only the fields the bundle keeps are declared, so DuckDB parses nothing else. Timed from the
outside by Tests/Bench/run-bench.sh (GNU time); prints one summary line on stderr.
"""

import argparse
import os
import sys
import time

import duckdb

# The parts of an observation the bundle keeps. A photo is declared once and used both for
# observation photos and for taxon default photos, so the two can be unioned.
PHOTO = "STRUCT(id BIGINT, license_code VARCHAR, url VARCHAR, attribution VARCHAR, original_dimensions STRUCT(width BIGINT, height BIGINT))"
TAXON = (
    "STRUCT(id BIGINT, name VARCHAR, rank VARCHAR, rank_level DOUBLE, ancestry VARCHAR, iconic_taxon_name VARCHAR, "
    f"preferred_common_name VARCHAR, wikipedia_url VARCHAR, is_active BOOLEAN, default_photo {PHOTO})"
)
OBSERVATION = (
    "STRUCT(id BIGINT, uuid VARCHAR, quality_grade VARCHAR, observed_on VARCHAR, time_observed_at VARCHAR, "
    "created_at VARCHAR, updated_at VARCHAR, location VARCHAR, positional_accuracy BIGINT, geoprivacy VARCHAR, "
    "obscured BOOLEAN, place_guess VARCHAR, license_code VARCHAR, "
    f"taxon {TAXON}, \"user\" STRUCT(id BIGINT, login VARCHAR, name VARCHAR), "
    f"observation_photos STRUCT(position BIGINT, photo {PHOTO})[])"
)

STEPS = [
    # Every observation record of every page, one row each, with its update time as a timestamp.
    ("records", f"""
        CREATE TEMP TABLE records AS
        SELECT unnest(r), CAST(r.updated_at AS TIMESTAMPTZ) AS seen
        FROM (SELECT unnest(results) AS r
              FROM read_json(?, columns = {{'results': '{OBSERVATION}[]'}}))
    """),
    # The newest copy of each observation.
    ("winners", """
        CREATE TEMP TABLE winners AS
        SELECT * FROM records
        QUALIFY row_number() OVER (PARTITION BY id ORDER BY seen DESC) = 1
    """),
    ("observations", """
        CREATE TABLE observations AS
        SELECT id, uuid, "user".id AS user_id, taxon.id AS taxon_id, quality_grade, observed_on, time_observed_at,
               CAST(split_part(location, ',', 1) AS DOUBLE) AS latitude,
               CAST(split_part(location, ',', 2) AS DOUBLE) AS longitude,
               positional_accuracy, geoprivacy, obscured, place_guess, lower(license_code) AS license_code,
               created_at, updated_at
        FROM winners ORDER BY id
    """),
    ("observation_photos", """
        CREATE TABLE observation_photos AS
        SELECT id AS observation_id, op.photo.id AS photo_id, op.position AS position
        FROM (SELECT id, unnest(observation_photos) AS op FROM winners)
        ORDER BY observation_id, photo_id
    """),
    # Photos: every occurrence (observation photos and taxon default photos, in all copies);
    # per photo id, the one seen in the newest observation.
    ("photos", """
        CREATE TABLE photos AS
        WITH occurrences AS (
            SELECT op.photo AS p, seen FROM (SELECT unnest(observation_photos) AS op, seen FROM records)
            UNION ALL
            SELECT taxon.default_photo AS p, seen FROM records WHERE taxon.default_photo IS NOT NULL
        ), newest AS (
            SELECT p.id AS id, arg_max(p, seen) AS p FROM occurrences GROUP BY p.id
        )
        SELECT id, p.url AS url, lower(p.license_code) AS license_code, p.attribution AS attribution,
               p.original_dimensions.width AS width, p.original_dimensions.height AS height
        FROM newest ORDER BY id
    """),
    ("taxa", """
        CREATE TABLE taxa AS
        WITH newest AS (SELECT taxon.id AS id, arg_max(taxon, seen) AS t FROM records WHERE taxon IS NOT NULL GROUP BY taxon.id)
        SELECT id, t.name AS name, t.rank AS rank, t.rank_level AS rank_level, t.ancestry AS ancestry,
               t.iconic_taxon_name AS iconic_taxon_name, t.preferred_common_name AS preferred_common_name,
               t.wikipedia_url AS wikipedia_url, t.is_active AS is_active, t.default_photo.id AS default_photo_id
        FROM newest ORDER BY id
    """),
    ("users", """
        CREATE TABLE users AS
        WITH newest AS (SELECT "user".id AS id, arg_max("user", seen) AS u FROM records WHERE "user" IS NOT NULL GROUP BY "user".id)
        SELECT id, u.login AS login, u.name AS name FROM newest ORDER BY id
    """),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", required=True, help="folder of page-*.json files")
    parser.add_argument("--output", required=True, help="DuckDB database file to create")
    parser.add_argument("--threads", type=int, default=None, help="DuckDB threads (default: all cores)")
    parser.add_argument("--memory-limit", default=None, help="DuckDB memory_limit, e.g. 300MB (default: DuckDB's)")
    args = parser.parse_args()

    start = time.monotonic()
    for path in (args.output, args.output + ".wal"):
        if os.path.exists(path):
            os.remove(path)
    con = duckdb.connect(args.output)
    con.execute("SET preserve_insertion_order = false")
    if args.threads:
        con.execute(f"SET threads = {int(args.threads)}")
    if args.memory_limit:
        con.execute("SET memory_limit = ?", [args.memory_limit])

    pages = os.path.join(args.input, "page-*.json")
    for name, sql in STEPS:
        step = time.monotonic()
        con.execute(sql, [pages] if "?" in sql else [])
        print(f"duckdb_baseline: {name} in {time.monotonic() - step:.2f} s", file=sys.stderr)

    counts = {table: con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
              for table in ("users", "photos", "taxa", "observations", "observation_photos")}
    records = con.execute("SELECT count(*) FROM records").fetchone()[0]
    con.execute("CHECKPOINT")
    con.close()
    summary = ", ".join(f"{count} {table}" for table, count in counts.items())
    print(f"duckdb_baseline: {records} records -> {summary} in {time.monotonic() - start:.2f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
