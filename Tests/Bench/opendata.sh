#!/usr/bin/env bash
# The open-data export path of the benchmark (issue 13): an export of BENCH_OPEN_DATA_N
# observations from fieldpack-synth --open-data (loose tables), with a `select` of a polygon
# (with a hole) and a taxon subtree (Animalia without one genus), through fieldpack-inat,
# -dedupe and -bundle, side by side with DuckDB doing the same reading, dedupe and selection
# into SQLite (Tests/Bench/opendata_baseline.py). See docs/benchmark.md.
#
# Run by Tests/Bench/run-bench.sh (make bench) after its own runs, or alone:
#   BENCH_OPEN_DATA_N=20000 BENCH_DIR=/tmp/bench BIN=.build/debug Tests/Bench/opendata.sh
#
# Each of BENCH_RUNS runs times, as whole processes: fieldpack's three stages one after the
# other, then DuckDB. Run 1 first checks that the two agree: the row count of every table, and
# the very uuids of the kept observations and ids of the kept photos; a mismatch fails the
# benchmark before any time is compared. BENCH_SCALE=1 runs fieldpack's stages once more at
# F x BENCH_OPEN_DATA_N (F: BENCH_OPEN_DATA_SCALE, default 10; 70 at N = 1M is iNaturalist's
# export, INAT.md section 5) and records each stage's peak RSS at both sizes, and once more at F x
# with the polygon's area 1/F (a guide of about N's size: information, not the test). The figures go to
# $BENCH_DIR/logs/od-*.time (GNU time: wall_s peak_rss_kib user_s system_s), the section of the
# results to $BENCH_DIR/opendata-results.md (Tests/Bench/opendata_report.py; report.py adds the
# same section to results.md).
#
# Environment: BENCH_OPEN_DATA_N (BENCH_N, else 1000000), BENCH_RUNS (3), BENCH_SEED (1),
# BENCH_SCALE (0), BENCH_OPEN_DATA_SCALE (10), BENCH_DIR (build/bench), BIN (.build/release),
# BENCH_DUCKDB_MEMORY.
set -euo pipefail

BENCH_OPEN_DATA_N=${BENCH_OPEN_DATA_N:-${BENCH_N:-1000000}}
BENCH_RUNS=${BENCH_RUNS:-3}
BENCH_SEED=${BENCH_SEED:-1}
BENCH_SCALE=${BENCH_SCALE:-0}
BENCH_OPEN_DATA_SCALE=${BENCH_OPEN_DATA_SCALE:-10}
BENCH_DIR=${BENCH_DIR:-build/bench}
BIN=${BIN:-.build/release}

fail() {
  echo "opendata: $*" >&2
  exit 1
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[[ $BENCH_OPEN_DATA_N =~ ^[1-9][0-9]*$ ]] || fail "BENCH_OPEN_DATA_N must be a positive integer, not '$BENCH_OPEN_DATA_N'"
[[ $BENCH_RUNS =~ ^[1-9][0-9]*$ ]] || fail "BENCH_RUNS must be a positive integer, not '$BENCH_RUNS'"
[[ $BENCH_OPEN_DATA_SCALE =~ ^[1-9][0-9]*$ && $BENCH_OPEN_DATA_SCALE -ge 2 ]] \
  || fail "BENCH_OPEN_DATA_SCALE must be an integer of at least 2, not '$BENCH_OPEN_DATA_SCALE'"
for tool in fieldpack-synth fieldpack-inat fieldpack-dedupe fieldpack-bundle; do
  [[ -x $BIN/$tool ]] || fail "$BIN/$tool is missing; build the tools first (make tools)"
done
[[ -x /usr/bin/time ]] || fail "needs GNU time (/usr/bin/time): run make bench-deps"
command -v sqlite3 >/dev/null || fail "needs sqlite3: run make bench-deps"
mkdir -p "$BENCH_DIR"
BENCH_DIR=$(cd "$BENCH_DIR" && pwd)
BIN=$(cd "$BIN" && pwd)
logs="$BENCH_DIR/logs"
out="$BENCH_DIR/od-out"
mkdir -p "$logs"
rm -f "$logs"/od-*

bench_tool=opendata
source "$here/common.sh"   # measure, bench_venv, $venv, $py

# The baselines' virtual environment: run-bench.sh's, installed the same way when run alone.
bench_venv
"$py" -c 'import duckdb, duckdb_extensions, duckdb_extension_spatial, duckdb_extension_sqlite' 2>"$logs/od-venv.log" \
  || fail "DuckDB and its spatial and sqlite extensions do not import from $venv: $(tail -n 1 "$logs/od-venv.log")"

# The selection both sides apply: a polygon around Europe with a hole (its boundary inside, as
# fieldpack's rule and ST_Intersects both have it), and Animalia (1) without the genus 200003.
select_json="$BENCH_DIR/opendata-select.json"
cat >"$select_json" <<'EOF'
{"geojson": {"type": "Polygon", "coordinates": [
   [[-20, 30], [40, 25], [60, 60], [10, 72], [-25, 60], [-20, 30]],
   [[0, 40], [20, 40], [20, 50], [0, 50], [0, 40]]]},
 "taxa": {"include": [1], "exclude": [200003]}}
EOF

# synth N: the export's loose tables (reused when already written with these settings).
synth() {
  local n=$1 folder="$BENCH_DIR/open-data-$1"
  if [[ $(cat "$folder/.settings" 2>/dev/null) != "$n $BENCH_SEED" ]]; then
    rm -rf "$folder"
    measure "od-synth-$n" "$BIN/fieldpack-synth" --open-data "$n" --seed "$BENCH_SEED" --output "$folder"
    tail -n 1 "$logs/od-synth-$n.log" >"$folder/.synth.txt"   # hidden files are no input
    echo "$n $BENCH_SEED" >"$folder/.settings"
    sync
  fi
  echo "$folder"
}

# published FOLDER: the export of FOLDER's tables as iNaturalist publishes it (INAT.md §4), kept
# beside it and reused: each table gzipped (`gzip -6`, the bucket's `observations.csv.gz`, …),
# in FOLDER-published/tables, and the bundle, FOLDER-published/inaturalist-open-data-20241127.tar.gz,
# holding the folder inaturalist-open-data-20241127/ with the tables uncompressed. Which order
# iNaturalist packs the members in could not be checked offline, so there are two bundles, each
# in an order of its own (not the file system's): observers, taxa, photos, observations; and
# in FOLDER-published/name-order/, the order of a name-sorted tar, its taxa last.
# The members' orders: the benchmark's, and a name-sorted tar's (the taxa last).
members=(observers taxa photos observations)
name_order=(observations observers photos taxa)
published() {
  local folder=$1 target="$1-published" export=inaturalist-open-data-20241127
  local settings="$(cat "$folder/.settings") members: ${members[*]}; ${name_order[*]}"
  if [[ $(cat "$target/.settings" 2>/dev/null) != "$settings" ]]; then
    rm -rf "$target"
    mkdir -p "$target/tables" "$target/name-order"
    for table in observations photos taxa observers; do
      gzip -6 -c "$folder/$table.csv" >"$target/tables/$table.csv.gz"
    done
    pack "$folder" "$target/$export.tar.gz" "${members[@]}"
    pack "$folder" "$target/name-order/$export.tar.gz" "${name_order[@]}"
    echo "$settings" >"$target/.settings"
    sync
  fi
  echo "$target"
}

# pack FOLDER ARCHIVE TABLE...: the bundle of FOLDER's tables, the folder
# inaturalist-open-data-20241127/ holding them uncompressed, its members in the order given.
pack() {
  local folder=$1 archive=$2 export=inaturalist-open-data-20241127 staging
  shift 2
  staging=$(mktemp -d "$BENCH_DIR/od-staging.XXXXXX")
  mkdir -p "$staging/$export"
  for table in "$@"; do ln -s "$folder/$table.csv" "$staging/$export/$table.csv"; done
  tar -czhf "$archive" -C "$staging" $(for table in "$@"; do echo "$export/$table.csv"; done)
  rm -rf "$staging"
}

# pipeline NAME FOLDER [SCALE]: the bench pipeline (the app's display targets, the default
# licences); with SCALE, the polygon's rings scaled by SCALE about the outer ring's centre (its
# area by SCALE squared: the synthetic points are uniform, so it keeps about that share of them).
pipeline() {
  python3 - "$1" "$2" "$select_json" "${3:-1}" <<'EOF'
import json, sys
path, folder, select_path, scale = sys.argv[1:5]
select = json.load(open(select_path, encoding="utf-8"))
scale = float(scale)
if scale != 1:
    rings = select["geojson"]["coordinates"]
    outer = rings[0][:-1]
    cx, cy = sum(p[0] for p in outer) / len(outer), sum(p[1] for p in outer) / len(outer)
    select["geojson"]["coordinates"] = [[[round(cx + (x - cx) * scale, 6), round(cy + (y - cy) * scale, 6)] for x, y in ring]
                                        for ring in rings]
targets = [{"name": "map-pin", "width": 20, "height": 20, "scale": 3, "mode": "fill"},
           {"name": "list-cell", "width": 60, "height": 60, "scale": 3, "mode": "fill"},
           {"name": "detail", "width": 390, "height": 260, "scale": 3, "mode": "fit"}]
json.dump({"name": "bench-open-data", "inat": [folder], "open_data_date": "2024-11-27", "targets": targets,
           "memory_budget_bytes": 52428800, "select": select},
          open(path, "w", encoding="utf-8"))
EOF
}

# fieldpack PIPELINE SUFFIX: the three stages, timed as od-ingest SUFFIX, od-dedupe…, od-bundle….
fieldpack() {
  local pipeline=$1 suffix=$2
  rm -rf "$out"
  mkdir -p "$out"
  measure "od-ingest$suffix" "$BIN/fieldpack-inat" --pipeline "$pipeline" \
    --output "$out/inat/records.jsonl" --rejects "$out/inat/rejects.jsonl"
  measure "od-dedupe$suffix" "$BIN/fieldpack-dedupe" "$out/inat/records.jsonl" --pipeline "$pipeline" \
    --output "$out/dedupe/records.jsonl" --conflicts "$out/dedupe/conflicts.json"
  measure "od-bundle$suffix" "$BIN/fieldpack-bundle" "$out/dedupe/records.jsonl" \
    --pipeline "$pipeline" --output "$out/content.sqlite" --costs-report "$out/costs-report.json"
  rm -rf "$out/inat" "$out/dedupe"
}

counts() { # DATABASE: the five tables' row counts as JSON
  printf '{"observations": %s, "photos": %s, "taxa": %s, "users": %s, "observation_photos": %s}\n' \
    $(for table in observations photos taxa users observation_photos; do
        sqlite3 "file:$1?mode=ro&immutable=1" "SELECT count(*) FROM $table"
      done)
}

input=$(synth "$BENCH_OPEN_DATA_N")
pipeline "$BENCH_DIR/bench-open-data.json" "$input"
# As published: the gzipped tables, and the .tar.gz (dated by its name: no open_data_date needed,
# the pipeline's is the same day).
as_published=$(published "$input")
pipeline "$BENCH_DIR/bench-open-data-gz.json" "$as_published/tables"
pipeline "$BENCH_DIR/bench-open-data-tar.json" "$as_published/inaturalist-open-data-20241127.tar.gz"
pipeline "$BENCH_DIR/bench-open-data-tar-last.json" "$as_published/name-order/inaturalist-open-data-20241127.tar.gz"
unpacked="$BENCH_DIR/od-unpacked"
duckdb_memory=(${BENCH_DUCKDB_MEMORY:+--memory-limit "$BENCH_DUCKDB_MEMORY"})
for run in $(seq 1 "$BENCH_RUNS"); do
  echo "=== open-data export path: run $run of $BENCH_RUNS" >&2
  fieldpack "$BENCH_DIR/bench-open-data.json" ".r$run"
  measure "od-duckdb.r$run" "$py" "$here/opendata_baseline.py" --input "$input" --select "$select_json" \
    --output "$out/duckdb.sqlite" --counts "$logs/od-duckdb.r$run.counts.json" "${duckdb_memory[@]}"
  if [[ $run == 1 ]]; then
    # The same job, or no comparison: the counts, then the kept observations and photos themselves.
    counts "$out/content.sqlite" >"$logs/od-fieldpack.counts.json"
    ours="file:$out/content.sqlite?mode=ro&immutable=1"
    theirs="file:$out/duckdb.sqlite?mode=ro&immutable=1"
    if ! cmp -s <(sqlite3 "$ours" "SELECT lower(uuid) FROM observations ORDER BY 1") \
                <(sqlite3 "$theirs" "SELECT uuid FROM observations ORDER BY 1") \
       || ! cmp -s <(sqlite3 "$ours" "SELECT id FROM photos ORDER BY 1") <(sqlite3 "$theirs" "SELECT id FROM photos ORDER BY 1"); then
      echo "different" >"$logs/od-same-rows.txt"
    else
      echo "same" >"$logs/od-same-rows.txt"
    fi
    python3 "$here/opendata_report.py" --logs "$logs" --runs 1 --check-only \
      || fail "fieldpack and DuckDB do not keep the same rows (above): the timings would not compare the same job"
  fi
  rm -rf "$out/duckdb.sqlite" "$out/duckdb.sqlite.tmp"
  # The export as published. The gzipped tables: DuckDB's read_csv reads them as they are. The
  # .tar.gz: DuckDB cannot read a tar, so its user unpacks it first (tar -xzf, timed with it).
  fieldpack "$BENCH_DIR/bench-open-data-gz.json" ".gz.r$run"
  [[ $run == 1 ]] && counts "$out/content.sqlite" >"$logs/od-fieldpack-gz.counts.json"
  measure "od-duckdb-gz.r$run" "$py" "$here/opendata_baseline.py" --input "$as_published/tables" --select "$select_json" \
    --output "$out/duckdb.sqlite" --counts "$logs/od-duckdb-gz.r$run.counts.json" "${duckdb_memory[@]}"
  rm -rf "$out/duckdb.sqlite" "$out/duckdb.sqlite.tmp"
  # Each bundle: its members in the benchmark's order, and in name order (the taxa last).
  for form in tar tar-last; do
    archive="$as_published/inaturalist-open-data-20241127.tar.gz"
    [[ $form == tar-last ]] && archive="$as_published/name-order/inaturalist-open-data-20241127.tar.gz"
    fieldpack "$BENCH_DIR/bench-open-data-$form.json" ".$form.r$run"
    [[ $run == 1 ]] && counts "$out/content.sqlite" >"$logs/od-fieldpack-$form.counts.json"
    rm -rf "$unpacked"
    mkdir -p "$unpacked" "$out"
    measure "od-duckdb-$form.r$run" bash -c 'tar -xzf "$1" -C "$2" && shift 2 && exec "$@"' unpack \
      "$archive" "$unpacked" \
      "$py" "$here/opendata_baseline.py" --input "$unpacked/inaturalist-open-data-20241127" --select "$select_json" \
      --output "$out/duckdb.sqlite" --counts "$logs/od-duckdb-$form.r$run.counts.json" "${duckdb_memory[@]}"
    rm -rf "$unpacked" "$out/duckdb.sqlite" "$out/duckdb.sqlite.tmp"
  done
  if [[ $run == 1 ]]; then
    # The same rows from every form of the export, or no comparison.
    python3 "$here/opendata_report.py" --logs "$logs" --runs 1 --check-only \
      || fail "the export as published does not give the loose tables' rows (above): the timings would not compare the same job"
  fi
done
# The synthetic export's shape, for the report.
cp "$input/.synth.txt" "$logs/od-input.txt"

if [[ $BENCH_SCALE != 0 ]]; then
  factor=$BENCH_OPEN_DATA_SCALE
  echo "$factor" >"$logs/od-scale-factor.txt"
  scale_n=$((BENCH_OPEN_DATA_N * factor))
  scale_input=$(synth "$scale_n")
  pipeline "$BENCH_DIR/bench-open-data-scale.json" "$scale_input"
  fieldpack "$BENCH_DIR/bench-open-data-scale.json" ".scale"
  counts "$out/content.sqlite" >"$logs/od-scale.counts.json"
  # Information beside the test (not its verdict): the same export at F x N with a guide of
  # about N's size, the polygon's area 1/F, so that what grows is the export alone.
  pipeline "$BENCH_DIR/bench-open-data-scale-guide.json" "$scale_input" "$(python3 -c "print(1 / $factor ** 0.5)")"
  fieldpack "$BENCH_DIR/bench-open-data-scale-guide.json" ".scale-guide"
  counts "$out/content.sqlite" >"$logs/od-scale-guide.counts.json"
  # Information beside the test too: the same export at F x N as one .tar.gz (the benchmark's
  # member order), the form iNaturalist publishes, read whole as one input (kept and reused).
  scale_tar="$scale_input-tar/inaturalist-open-data-20241127.tar.gz"
  scale_settings="$(cat "$scale_input/.settings") members: ${members[*]}"
  if [[ $(cat "$scale_input-tar/.settings" 2>/dev/null) != "$scale_settings" ]]; then
    rm -rf "$scale_input-tar"
    mkdir -p "$scale_input-tar"
    pack "$scale_input" "$scale_tar" "${members[@]}"
    echo "$scale_settings" >"$scale_input-tar/.settings"
    sync
  fi
  pipeline "$BENCH_DIR/bench-open-data-scale-tar.json" "$scale_tar"
  fieldpack "$BENCH_DIR/bench-open-data-scale-tar.json" ".scale-tar"
  counts "$out/content.sqlite" >"$logs/od-scale-tar.counts.json"
  cp "$scale_input/.synth.txt" "$logs/od-scale-input.txt"
fi
rm -rf "$out"

python3 "$here/opendata_report.py" --logs "$logs" --runs "$BENCH_RUNS" --scale "$BENCH_SCALE" \
  --results "$BENCH_DIR/opendata-results.md"
