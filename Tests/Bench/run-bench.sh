#!/usr/bin/env bash
# Benchmarks the fieldpack pipeline on a synthetic iNaturalist dump, and DuckDB on the same files.
#
# Run by `make bench` from the repository root, after the tools are built:
#   BENCH_N=1000000 BENCH_DIR=build/bench BIN=.build/release Tests/Bench/run-bench.sh
#
# Steps:
#   1. fieldpack-synth writes BENCH_N observations into $BENCH_DIR/input-$BENCH_N (kept and reused
#      while its synth.txt marker says it holds the same N, seed and format);
#   2. ingest, dedupe and bundle run one after the other, each timed by GNU time for wall
#      seconds and peak RSS;
#   3. Tests/Bench/duckdb_baseline.py does the same job with DuckDB (what a user might pick
#      instead), timed the same way; skipped if DuckDB cannot be installed;
#   2b. the wiki stage on BENCH_WIKI_N synthetic Enterprise articles (fieldpack-synth --wiki-articles),
#      and lxml + nh3 (PyPI) doing the lead only on 2 processes, unless BENCH_WIKI_BASELINE=0;
#   2c. SHA-256 of a 1 GiB file by fieldpack (libcrypto), openssl dgst and sha256sum;
#   4. a table compares them against the target: ingest+dedupe+bundle under 20 s wall, every
#      stage under 300 MB peak RSS; and what cost estimation adds: the bundle stage run again
#      without display targets (and once more with every licence allowed, so every photo ships).
#
# Environment: BENCH_N (default 1000000), BENCH_DIR (default build/bench), BIN (default
# .build/release), BENCH_SEED (default 1), BENCH_DUCKDB=0 to skip the DuckDB baseline,
# BENCH_WIKI_N (default 2000 articles), BENCH_WIKI_BASELINE=0 to skip the lxml + nh3 baseline,
# BENCH_DUCKDB_MEMORY (e.g. 300MB) to cap DuckDB's memory, BENCH_PYTHON (default python3): the
# Python with duckdb, lxml and nh3 (`make bench` passes the benchmark's own virtual environment,
# which `make bench-deps` fills). A baseline that is not turned off and cannot run stops the
# benchmark: nothing is skipped without being asked.
set -euo pipefail

BENCH_N=${BENCH_N:-1000000}
BENCH_DIR=${BENCH_DIR:-build/bench}
BIN=${BIN:-.build/release}
BENCH_SEED=${BENCH_SEED:-1}
BENCH_DUCKDB=${BENCH_DUCKDB:-1}
BENCH_WIKI_N=${BENCH_WIKI_N:-2000}
BENCH_WIKI_BASELINE=${BENCH_WIKI_BASELINE:-1}
BENCH_PYTHON=${BENCH_PYTHON:-python3}
TARGET_WIKI_MBS=100   # MB/s of article HTML turned into full blurbs, 2 cores
TARGET_WIKI_RSS=100   # MB
TARGET_WALL=20      # seconds, ingest + dedupe + bundle
TARGET_RSS=300      # MB, every stage
# Stages that support it log the time of each of their phases (into $BENCH_DIR/logs).
export FIELDPACK_TRACE=${FIELDPACK_TRACE:-1}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ ! -d $BIN ]]; then
  echo "run-bench: BIN=$BIN is not a folder; build the tools first (make tools)" >&2
  exit 1
fi
mkdir -p "$BENCH_DIR"
BENCH_DIR=$(cd "$BENCH_DIR" && pwd)   # absolute, so the pipeline file works from anywhere
BIN=$(cd "$BIN" && pwd)
input="$BENCH_DIR/input-$BENCH_N"
out="$BENCH_DIR/out"
logs="$BENCH_DIR/logs"

for tool in fieldpack-synth fieldpack-inat fieldpack-dedupe fieldpack-bundle fieldpack-wiki; do
  if [[ ! -x "$BIN/$tool" ]]; then
    echo "run-bench: $BIN/$tool is missing; build the tools first (make tools)" >&2
    exit 1
  fi
done

# --- GNU time: wall seconds and peak RSS of each command -------------------------------------
if [[ ! -x /usr/bin/time ]]; then
  echo "run-bench: needs GNU time (/usr/bin/time): run make bench-deps (or apt-get install -y time)" >&2
  exit 1
fi
# needs_python MODULES WHAT: stops unless $BENCH_PYTHON imports MODULES (for the baseline WHAT).
needs_python() {
  if ! "$BENCH_PYTHON" -c "import $1" 2>/dev/null; then
    echo "run-bench: $2 needs $1 in $BENCH_PYTHON: run make bench-deps (or turn it off with $3=0)" >&2
    exit 1
  fi
}
if [[ $BENCH_DUCKDB != 0 ]]; then needs_python duckdb "the DuckDB baseline" BENCH_DUCKDB; fi
if [[ $BENCH_WIKI_BASELINE != 0 ]]; then needs_python "lxml, nh3" "the lxml + nh3 baseline" BENCH_WIKI_BASELINE; fi

# measure NAME COMMAND...: runs COMMAND with its stderr in $logs/NAME.log, prints the tool's
# own summary line, and records "wall_s peak_rss_kb user_s system_s" in $logs/NAME.time.
# Stops the benchmark, showing the log, if the command fails.
measure() {
  local name=$1
  shift
  echo "== $name: $*" >&2
  if ! /usr/bin/time -f "%e %M %U %S" -o "$logs/$name.time" "$@" 2>"$logs/$name.log"; then
    echo "run-bench: $name failed; its stderr ($logs/$name.log):" >&2
    tail -n 30 "$logs/$name.log" >&2
    exit 1
  fi
  tail -n 1 "$logs/$name.log" >&2
}

# Table rows, filled as stages finish: "name records input_bytes".
rows=()
row() { rows+=("$1 $2 $3"); }

file_bytes() { stat -c %s "$1"; }

# --- 1. The synthetic dump -------------------------------------------------------------------
mkdir -p "$logs"
measure synth "$BIN/fieldpack-synth" --observations "$BENCH_N" --seed "$BENCH_SEED" --output "$input" --reuse
# synth.txt's second line: pages=… records=… older_copies=… bytes=…
stats=$(sed -n 2p "$input/synth.txt")
input_records=$(sed -E 's/.*records=([0-9]+).*/\1/' <<<"$stats")
input_bytes=$(sed -E 's/.*bytes=([0-9]+).*/\1/' <<<"$stats")
echo "input: $input ($stats)" >&2
if grep -q "already holds this dump" "$logs/synth.log"; then
  synth_note="reused"
else
  synth_note=$(awk -v b="$input_bytes" '{ printf "generated in %.2f s, %.0f MB/s", $1, b / ($1 > 0 ? $1 : 0.01) / 1e6 }' "$logs/synth.time")
  # Write the fresh dump out now, so its writeback does not slow the timed stages down.
  sync
fi

# The bench pipeline: the app's three display targets and the default (commercial) licences.
# Two variants measure issue 4's photo rules: no display targets (no cost estimation at all),
# and every licence allowed (every photo ships: the most work per photo).
targets='[{"name":"map-pin","width":20,"height":20,"scale":3,"mode":"fill"},
  {"name":"list-cell","width":60,"height":60,"scale":3,"mode":"fill"},
  {"name":"detail","width":390,"height":260,"scale":3,"mode":"fit"}]'
every_licence='["cc0","pd","cc-by","cc-by-sa","cc-by-nd","cc-by-nc","cc-by-nc-sa","cc-by-nc-nd","gfdl","all-rights-reserved"]'
cat >"$BENCH_DIR/bench.json" <<EOF
{"name":"bench","inat":["$input"],"targets":$targets,"memory_budget_bytes":52428800}
EOF
cat >"$BENCH_DIR/bench-no-targets.json" <<EOF
{"name":"bench","inat":["$input"],"targets":[]}
EOF
cat >"$BENCH_DIR/bench-every-licence.json" <<EOF
{"name":"bench","inat":["$input"],"targets":$targets,"licenses":$every_licence}
EOF

# --- 2. The pipeline -------------------------------------------------------------------------
rm -rf "$out"
mkdir -p "$out"

measure ingest "$BIN/fieldpack-inat" --pipeline "$BENCH_DIR/bench.json" \
  --output "$out/inat/records.jsonl" --rejects "$out/inat/rejects.jsonl"
row ingest "$input_records" "$input_bytes"

# Dedupe's input is ingest's records file: one line per normalized record.
measure dedupe "$BIN/fieldpack-dedupe" "$out/inat/records.jsonl" \
  --output "$out/dedupe/records.jsonl" --conflicts "$out/dedupe/conflicts.json"
row dedupe "$(wc -l <"$out/inat/records.jsonl")" "$(file_bytes "$out/inat/records.jsonl")"

measure bundle "$BIN/fieldpack-bundle" "$out/dedupe/records.jsonl" \
  --pipeline "$BENCH_DIR/bench.json" --output "$out/content.sqlite" --costs-report "$out/costs-report.json"
deduped_lines=$(wc -l <"$out/dedupe/records.jsonl")
row bundle "$deduped_lines" "$(file_bytes "$out/dedupe/records.jsonl")"

# The same bundle without display targets: the difference is what cost estimation adds.
measure bundle-no-costs "$BIN/fieldpack-bundle" "$out/dedupe/records.jsonl" \
  --pipeline "$BENCH_DIR/bench-no-targets.json" --output "$out/content-no-costs.sqlite"
row bundle-no-costs "$deduped_lines" "$(file_bytes "$out/dedupe/records.jsonl")"
measure bundle-every-licence "$BIN/fieldpack-bundle" "$out/dedupe/records.jsonl" \
  --pipeline "$BENCH_DIR/bench-every-licence.json" --output "$out/content-every-licence.sqlite" \
  --costs-report "$out/costs-report-every-licence.json"
row bundle-every-licence "$deduped_lines" "$(file_bytes "$out/dedupe/records.jsonl")"
rm -f "$out/content-no-costs.sqlite" "$out/content-every-licence.sqlite"

# The JSON parser alone on one core (read + simdjson, no extraction, hashing or output): the
# parser's share of ingest, against the 500 MB/s per core the pipeline needs from it.
measure parse "$BIN/fieldpack-synth" --parse-only --pipeline "$BENCH_DIR/bench.json"
row parse "$input_records" "$input_bytes"

# --- 2b. The wiki stage ----------------------------------------------------------------------
# BENCH_WIKI_N synthetic Parsoid-like articles (median ~50 KB, tail to ~1 MB) in one Enterprise
# NDJSON file, 80% of them wanted by the generated pipeline; the stage makes full blurbs.
wiki_input="$BENCH_DIR/wiki-$BENCH_WIKI_N"
measure wiki-synth "$BIN/fieldpack-synth" --wiki-articles "$BENCH_WIKI_N" --seed "$BENCH_SEED" --output "$wiki_input"
: >"$wiki_input/no-records.jsonl"
sync   # the fresh dump's writeback must not slow the timed stage down
measure wiki "$BIN/fieldpack-wiki" --pipeline "$wiki_input/pipeline.json" --records "$wiki_input/no-records.jsonl" \
  --output "$out/wiki/articles.jsonl" --report "$out/wiki/wiki-report.json" --rejects "$out/wiki/rejects.jsonl"
wiki_bytes=$(file_bytes "$wiki_input/articles.ndjson")
wiki_html=$(sed -n 's/.*"html_bytes_cleaned": \([0-9]*\).*/\1/p' "$out/wiki/wiki-report.json")
row wiki "$BENCH_WIKI_N" "$wiki_bytes"

# The baseline a user might write instead: lxml + nh3 from PyPI on 2 processes, lead only.
wiki_baseline_status="skipped (BENCH_WIKI_BASELINE=0)"
if [[ $BENCH_WIKI_BASELINE != 0 ]]; then
  measure wiki-baseline "$BENCH_PYTHON" "$here/wiki_baseline.py" --dump "$wiki_input/articles.ndjson" --pipeline "$wiki_input/pipeline.json"
  row wiki-baseline "$BENCH_WIKI_N" "$wiki_bytes"
  wiki_baseline_status="lxml + nh3, lead paragraphs only, 2 processes"
fi

# --- 2c. SHA-256 of a 1 GiB file: the manifest's hashing against openssl and sha256sum ------
hash_file="$BENCH_DIR/hash-1GiB.bin"
if [[ $(stat -c %s "$hash_file" 2>/dev/null || echo 0) != 1073741824 ]]; then
  head -c 1073741824 /dev/urandom >"$hash_file"
  sync
fi
cat "$hash_file" >/dev/null   # cached, so that all three read from memory
measure hash-fieldpack "$BIN/fieldpack-manifest" --sha256 "$hash_file"
measure hash-openssl openssl dgst -sha256 "$hash_file"
measure hash-sha256sum sha256sum "$hash_file"
for name in hash-fieldpack hash-openssl hash-sha256sum; do row "$name" 1 1073741824; done

# --- 3. The baseline: DuckDB from PyPI -------------------------------------------------------
duckdb_status="skipped (BENCH_DUCKDB=0)"
if [[ $BENCH_DUCKDB != 0 ]]; then
  rm -f "$out/duckdb.db" "$out/duckdb.db.wal"
  # BENCH_DUCKDB_MEMORY (e.g. 300MB) caps DuckDB's memory_limit; by default DuckDB takes 80% of RAM.
  measure duckdb "$BENCH_PYTHON" "$here/duckdb_baseline.py" --input "$input" --output "$out/duckdb.db" \
    ${BENCH_DUCKDB_MEMORY:+--memory-limit "$BENCH_DUCKDB_MEMORY"}
  row duckdb "$input_records" "$input_bytes"
  duckdb_status="DuckDB $("$BENCH_PYTHON" -c 'import duckdb; print(duckdb.__version__)')"
fi

# --- 4. The table ----------------------------------------------------------------------------
# records/s and MB/s are of each stage's own input: the dump for ingest and DuckDB, the
# previous stage's records file for dedupe and bundle. cpu s is user + system time: above
# wall s means the stage used both cores, well below means it waited on the disk.
echo
echo "fieldpack bench: $BENCH_N observations (seed $BENCH_SEED), $input_records records, $(awk -v b="$input_bytes" 'BEGIN { printf "%.0f", b / 1e6 }') MB of pages in $input ($synth_note)"
printf '%-20s %9s %9s %12s %9s %13s\n' stage "wall s" "cpu s" "records/s" "MB/s" "peak RSS MB"
total_wall=0
worst_rss=0
for entry in "${rows[@]}"; do
  read -r name records bytes <<<"$entry"
  read -r wall rss_kb user_s system_s <"$logs/$name.time"
  awk -v n="$name" -v w="$wall" -v c="$user_s" -v k="$system_s" -v r="$records" -v b="$bytes" -v m="$rss_kb" 'BEGIN {
    s = (w > 0) ? w : 0.01
    printf "%-20s %9.2f %9.2f %12.0f %9.1f %13.0f\n", n, w, c + k, r / s, b / s / 1e6, m / 1024
  }'
  if [[ $name == ingest || $name == dedupe || $name == bundle ]]; then
    total_wall=$(awk -v t="$total_wall" -v w="$wall" 'BEGIN { print t + w }')
    worst_rss=$(awk -v a="$worst_rss" -v m="$rss_kb" 'BEGIN { r = m / 1024; print (r > a) ? r : a }')
  fi
done
verdict=$(awk -v t="$total_wall" -v r="$worst_rss" -v tw="$TARGET_WALL" -v tr="$TARGET_RSS" 'BEGIN {
  printf "%s", (t < tw && r < tr) ? "meets the target" : "MISSES the target"
}')
awk -v t="$total_wall" -v r="$worst_rss" -v i="$input_records" 'BEGIN {
  printf "%-20s %9.2f %9s %12.0f %9s %13.0f\n", "pipeline", t, "", i / (t > 0 ? t : 0.01), "", r
}'
echo "target: ingest+dedupe+bundle under ${TARGET_WALL} s wall, every stage under ${TARGET_RSS} MB peak RSS: $verdict"
echo "parse: the JSON parser alone on one core (not part of the pipeline total)"
read -r with_costs _ <"$logs/bundle.time"
read -r without_costs _ <"$logs/bundle-no-costs.time"
awk -v a="$with_costs" -v b="$without_costs" -v t="$total_wall" 'BEGIN {
  share = (a - b) / (t > 0 ? t : 0.01) * 100
  printf "cost estimation: bundle %.2f s with the 3 display targets, %.2f s without: %+.2f s, %+.1f%% of the photo path (target: under 10%%): %s\n", a, b, a - b, share, (share < 10) ? "meets the target" : "MISSES the target"
}'
echo "bundle-every-licence: every photo ships (the pipeline's licences allow all): the most work per photo"
read -r wiki_wall wiki_rss _ <"$logs/wiki.time"
awk -v h="$wiki_html" -v d="$wiki_bytes" -v w="$wiki_wall" -v r="$wiki_rss" -v tm="$TARGET_WIKI_MBS" -v tr="$TARGET_WIKI_RSS" 'BEGIN {
  s = (w > 0) ? w : 0.01
  mbs = h / s / 1e6
  printf "wiki: %.1f MB/s of dump read, %.1f MB/s of article HTML into full blurbs (%.0f MB), peak RSS %.0f MB (target: at least %d MB/s, under %d MB): %s\n", d / s / 1e6, mbs, h / 1e6, r / 1024, tm, tr, (mbs >= tm && r / 1024 < tr) ? "meets the target" : "MISSES the target"
}'
if [[ -f $logs/wiki-baseline.time ]]; then
  read -r base_wall _ <"$logs/wiki-baseline.time"
  awk -v h="$wiki_html" -v w="$base_wall" 'BEGIN { printf "wiki-baseline: %.1f MB/s of article HTML (wall, including interpreter start)\n", h / ((w > 0) ? w : 0.01) / 1e6 }'
fi
echo "wiki baseline: $wiki_baseline_status"
read -r ours _ <"$logs/hash-fieldpack.time"
read -r theirs _ <"$logs/hash-openssl.time"
awk -v a="$ours" -v b="$theirs" 'BEGIN {
  ratio = (a > 0) ? b / a : 0
  printf "sha256: fieldpack %.2f s, openssl %.2f s for 1 GiB: %.2f× openssl'"'"'s speed (target: at least 0.9×): %s\n", a, b, ratio, (ratio >= 0.9) ? "meets the target" : "MISSES the target"
}' 
echo "baseline: $duckdb_status"
echo "logs: $logs"
