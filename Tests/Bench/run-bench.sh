#!/usr/bin/env bash
# Measures fieldpack side by side with the tools a user would pick instead, on the same realistic
# synthetic data, as issue 11's goals ask: medians of BENCH_RUNS whole-process runs, with the
# run-to-run spread, wall seconds and peak RSS from GNU time. See docs/benchmark.md.
#
# Run by `make bench` from the repository root, after the tools are built:
#   BENCH_N=1000000 BENCH_DIR=build/bench BIN=.build/release Tests/Bench/run-bench.sh
#
# Steps:
#   1. The baselines are installed into a virtual environment, $BENCH_DIR/venv, from
#      Tests/Bench/requirements.txt (DuckDB 1.5.5 with its sqlite extension's wheel, selectolax,
#      lxml, nh3, pysimdjson). A baseline that cannot be installed or run fails the benchmark.
#   2. fieldpack-synth writes BENCH_N observations as API pages, damaged (--damage: malformed
#      records, a truncated page, repeated photos under changed licences, hard unicode) unless
#      BENCH_DAMAGE=0, and BENCH_WIKI_N Enterprise articles with a long tail of large ones.
#   3. Each run (BENCH_RUNS, default 3) times, as whole processes:
#      - the iNat path: fieldpack-inat, -dedupe and -bundle one after the other;
#        DuckDB -> SQLite and DuckDB -> Parquet (Tests/Bench/duckdb_baseline.py);
#      - the wiki stage; selectolax (lexbor) + nh3 and lxml + nh3 on 2 processes, lead only;
#      - SHA-256 of a 1 GiB file: fieldpack-manifest --sha256 and openssl dgst;
#      - the JSON parser alone on one core: fieldpack-synth --parse-only and pysimdjson;
#      - `make bundle -j2` of a pipeline with both inputs (search index and verify included),
#        then again after touching the wiki dump, then again after changing one wanted
#        article's lead paragraph in the wiki dump (Tests/Bench/change_article.py, untimed, a
#        marker unique to the run; the rebuilt bundle must carry it), then once more with
#        nothing to do;
#      - a fresh `make bundle -j2 SHARDS=4` and a fresh `make bundle -j2 SHARDS=1` of the same
#        pipeline, each in its own BUILD folder (the order alternates from run to run); each
#        must publish the unsharded build's bundle byte for byte (every file of bundle/, cmp),
#        or the benchmark fails. Their FIELDPACK_TIMINGS files are kept in the logs; the
#        folders are removed.
#      Every run also runs the bundle stage without display targets beside it, after it in odd
#      runs and before it in even ones (what cost estimation adds: the median of the runs'
#      differences); run 1 the bundle stage with every licence, and the row-count check:
#      DuckDB's tables must have fieldpack's bundle's row counts, or differ only by the records
#      of the truncated page that fieldpack salvages and DuckDB's ignore_errors skips (checked exactly by an untimed DuckDB run that
#      reads those records too). A mismatch fails the benchmark.
#      Run 1 also publishes and verifies the iNat path's bundle (fieldpack-manifest, -verify),
#      and every run keeps the stage timings of the whole build (FIELDPACK_TIMINGS) in the logs.
#   4. BENCH_SCALE=1 runs the iNat path, publishing and verifying included, once more at
#      10 x BENCH_N and the wiki stage at 10 x BENCH_WIKI_N, and reports the peak RSS of each
#      stage at both sizes against issue 12's limits (300 MB a stage, 100 MB the wiki stage).
#      The 10 x wiki dump is kept and reused while its .settings file matches (articles, seed,
#      damage, the synth binary's hash); delete the folder to write it again.
#   4b. Tests/Bench/opendata.sh: the open-data export path (issue 13) at BENCH_OPEN_DATA_N
#      (default BENCH_N) observations with a polygon and a taxon subtree selected, against DuckDB
#      (read_csv, spatial) into SQLite; rows checked first; at 10 x too with BENCH_SCALE=1 (at
#      BENCH_OPEN_DATA_SCALE x: 70 at BENCH_N=1000000 is iNaturalist's whole export).
#   4c. Tests/Slurm/check-slurm.sh --measure (issue 12, as root): the Slurm engine's overhead on a
#      one-node cluster: trivial arrays, the sample pipeline, and (after the runs) the 1M build at
#      SHARDS=4 under make -j2 and under ENGINE=slurm, which must publish the same bundle.
#   5. Tests/Bench/report.py prints the table (ratios peer / fieldpack, each goal's target,
#      PASS/FAIL) with the tool versions and the date, and writes it to $BENCH_DIR/results.md.
#
# BENCH_PARTS (default all) runs only some of the sections, a comma list of:
#   runs      steps 2 and 3 (everything at BENCH_N, the main table);
#   scale     step 4 (needs BENCH_SCALE=1; with BENCH_SCALE=0 it is not run);
#   opendata  step 4b (with BENCH_SCALE=1 also its own 10 x step);
#   slurm     step 4c (root only: otherwise make bench fails, saying so).
# e.g. BENCH_PARTS=scale BENCH_SCALE=1 BENCH_RUNS=1. results.md holds what ran and says which
# parts did not run; it gives no figure and no verdict for them.
#
# Environment: BENCH_N (1000000), BENCH_WIKI_N (20000), BENCH_RUNS (3), BENCH_SEED (1),
# BENCH_DAMAGE (1), BENCH_SCALE (0), BENCH_PARTS (all), BENCH_OPEN_DATA_N (BENCH_N), BENCH_OPEN_DATA_SCALE (10),
# BENCH_DIR (build/bench), BIN (.build/release),
# BENCH_DUCKDB_MEMORY (DuckDB's memory_limit, e.g. 2GB; default DuckDB's own: 80% of RAM).
set -euo pipefail

BENCH_N=${BENCH_N:-1000000}
BENCH_WIKI_N=${BENCH_WIKI_N:-20000}
BENCH_RUNS=${BENCH_RUNS:-3}
BENCH_SEED=${BENCH_SEED:-1}
BENCH_DAMAGE=${BENCH_DAMAGE:-1}
BENCH_SCALE=${BENCH_SCALE:-0}
BENCH_PARTS=${BENCH_PARTS:-all}
BENCH_DIR=${BENCH_DIR:-build/bench}
BIN=${BIN:-.build/release}
# Stages that support it log the time of each of their phases (into $BENCH_DIR/logs).
export FIELDPACK_TRACE=${FIELDPACK_TRACE:-1}

fail() {
  echo "run-bench: $*" >&2
  exit 1
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
[[ $BENCH_RUNS =~ ^[1-9][0-9]*$ ]] || fail "BENCH_RUNS must be a positive integer, not '$BENCH_RUNS'"
# BENCH_PARTS: which sections run (run_runs, run_scale, run_opendata, run_slurm: 1 or 0).
run_runs=0 run_scale=0 run_opendata=0 run_slurm=0
IFS=, read -r -a parts <<<"$BENCH_PARTS"
[[ ${#parts[@]} -gt 0 ]] || fail "BENCH_PARTS is empty: give all, or a comma list of runs, scale, opendata, slurm"
for part in "${parts[@]}"; do
  case $part in
    all) run_runs=1 run_scale=1 run_opendata=1 run_slurm=1 ;;
    runs) run_runs=1 ;;
    scale) run_scale=1 ;;
    opendata) run_opendata=1 ;;
    slurm) run_slurm=1 ;;
    *) fail "BENCH_PARTS: '$part' is not a part: give all, or a comma list of runs, scale, opendata, slurm" ;;
  esac
done
# The Slurm part needs root and the team's slurm-local.sh: said now, not after hours of runs.
if [[ $run_slurm == 1 ]]; then
  [[ $(id -u) == 0 ]] || fail "BENCH_PARTS has slurm (all includes it): the one-node Slurm cluster runs its daemons as root; run make bench as root, or give BENCH_PARTS=runs,scale,opendata"
  "$repo/Tests/Slurm/check-slurm.sh" --locate >/dev/null \
    || fail "BENCH_PARTS has slurm: no slurm-local.sh (give SLURM_LOCAL=path/to/slurm-local.sh, or leave slurm out of BENCH_PARTS)"
fi
if [[ $BENCH_SCALE == 0 ]]; then
  [[ $run_runs == 1 || $run_opendata == 1 || $run_slurm == 1 ]] \
    || fail "BENCH_PARTS=$BENCH_PARTS runs only the scale section, which needs BENCH_SCALE=1"
  run_scale=0
fi
ran_parts=""
for part in runs scale opendata slurm; do
  v=run_$part
  if [[ ${!v} == 1 ]]; then ran_parts+=${ran_parts:+,}$part; fi
done
[[ -d $BIN ]] || fail "BIN=$BIN is not a folder; build the tools first (make tools)"
for tool in fieldpack-synth fieldpack-inat fieldpack-dedupe fieldpack-bundle fieldpack-wiki fieldpack-manifest fieldpack-verify; do
  [[ -x $BIN/$tool ]] || fail "$BIN/$tool is missing; build the tools first (make tools)"
done
# The Debian packages `make bench-deps` installs.
[[ -x /usr/bin/time ]] || fail "needs GNU time (/usr/bin/time): run make bench-deps"
for command in openssl sqlite3 make; do
  command -v "$command" >/dev/null || fail "needs $command: run make bench-deps"
done
python3 -c 'import venv, ensurepip' 2>/dev/null || fail "needs python3-venv (venv and ensurepip): run make bench-deps"

mkdir -p "$BENCH_DIR"
BENCH_DIR=$(cd "$BENCH_DIR" && pwd)   # absolute, so the pipeline files work from anywhere
BIN=$(cd "$BIN" && pwd)
out="$BENCH_DIR/out"
logs="$BENCH_DIR/logs"
rm -rf "$logs"
mkdir -p "$logs"

bench_tool=run-bench
source "$here/common.sh"   # measure, bench_venv, $venv, $py

echo "run-bench: parts run: $ran_parts (BENCH_PARTS=$BENCH_PARTS, BENCH_SCALE=$BENCH_SCALE)" >&2

# --- 1. The baselines, in a virtual environment (the runs' peers; opendata.sh checks its own) ---
if [[ $run_runs == 1 ]]; then
  bench_venv
  "$py" -c 'import duckdb, duckdb_extensions, duckdb_extension_sqlite, selectolax.lexbor, lxml.html, nh3, simdjson' 2>"$logs/venv.log" \
    || fail "the baselines in $venv do not import: $(tail -n 1 "$logs/venv.log")"
fi

# --- 2. The synthetic inputs -----------------------------------------------------------------
damage=()
suffix=""
if [[ $BENCH_DAMAGE != 0 ]]; then
  damage=(--damage)
  suffix="-damaged"
fi
input="$BENCH_DIR/input-$BENCH_N$suffix"
wiki_input="$BENCH_DIR/wiki-$BENCH_WIKI_N$suffix"
if [[ $run_runs == 1 ]]; then
  measure synth "$BIN/fieldpack-synth" --observations "$BENCH_N" --seed "$BENCH_SEED" --output "$input" --reuse "${damage[@]}"
  echo "input: $input ($(sed -n 2p "$input/synth.txt"))" >&2
  # Written again every time, never reused: each run's content-change rebuild edits it, so every
  # benchmark starts from the generator's bytes.
  measure wiki-synth "$BIN/fieldpack-synth" --wiki-articles "$BENCH_WIKI_N" --seed "$BENCH_SEED" --output "$wiki_input" "${damage[@]}"
  : >"$wiki_input/no-records.jsonl"
  sync   # the fresh dumps' writeback must not slow the timed stages down
fi

# The bench pipelines: the app's three display targets and the default (commercial) licences;
# without targets and with every licence (what cost estimation adds); and both inputs at once.
targets='[{"name":"map-pin","width":20,"height":20,"scale":3,"mode":"fill"},
  {"name":"list-cell","width":60,"height":60,"scale":3,"mode":"fill"},
  {"name":"detail","width":390,"height":260,"scale":3,"mode":"fit"}]'
every_licence='["cc0","pd","cc-by","cc-by-sa","cc-by-nd","cc-by-nc","cc-by-nc-sa","cc-by-nc-nd","gfdl","all-rights-reserved"]'
pipeline() { # NAME INPUT EXTRA-JSON
  echo "{\"name\":\"bench\",\"inat\":[\"$2\"],\"targets\":$targets$3}" >"$BENCH_DIR/$1.json"
}
hash_file="$BENCH_DIR/hash-1GiB.bin"
if [[ $run_runs == 1 ]]; then
  pipeline bench "$input" ',"memory_budget_bytes":52428800'
  pipeline bench-every-licence "$input" ",\"licenses\":$every_licence"
  echo "{\"name\":\"bench\",\"inat\":[\"$input\"],\"targets\":[]}" >"$BENCH_DIR/bench-no-targets.json"
  python3 - "$wiki_input/pipeline.json" "$input" "$targets" >"$BENCH_DIR/bench-full.json" <<'EOF'
import json, sys
wiki = json.load(open(sys.argv[1], encoding="utf-8"))
json.dump({"name": "benchfull", "inat": [sys.argv[2]], "wikipedia": wiki["wikipedia"],
           "destinations": wiki["destinations"], "targets": json.loads(sys.argv[3])}, sys.stdout)
EOF

  if [[ $(stat -c %s "$hash_file" 2>/dev/null || echo 0) != 1073741824 ]]; then
    head -c 1073741824 /dev/urandom >"$hash_file"
    sync
  fi
fi

# The whole build runs in a clean make, whatever make runs the benchmark; so do the sharded
# builds ("${bench_make_in[@]}" BUILD=FOLDER SHARDS=N), each into a BUILD folder of its own.
bench_make_in=(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$repo" -j2 bundle
  PIPELINE="$BENCH_DIR/bench-full.json" BIN="$BIN" SKIP_TOOLS=1)
bench_make=("${bench_make_in[@]}" BUILD="$BENCH_DIR/make")
bench_name=benchfull   # bench-full.json's "name": a build publishes BUILD/benchfull/bundle/

# same_bundle WHOLE OTHER: the bundle OTHER/benchfull/bundle/ holds the files of
# WHOLE/benchfull/bundle/, byte for byte (cmp each). Prints the number of files; otherwise says
# on stderr what differs and returns 1.
same_bundle() {
  local whole=$1/$bench_name/bundle other=$2/$bench_name/bundle files file status=0
  [[ -f $whole/manifest.json ]] || { echo "no bundle published in $whole" >&2; return 1; }
  [[ -f $other/manifest.json ]] || { echo "no bundle published in $other" >&2; return 1; }
  files=$(cd "$whole" && find . -type f | sort)
  if [[ $files != "$(cd "$other" && find . -type f | sort)" ]]; then
    echo "the bundles hold different files (<: $whole, >: $other):" >&2
    diff <(echo "$files") <(cd "$other" && find . -type f | sort) >&2 || true
    status=1
  fi
  while IFS= read -r file; do
    [[ -f $other/$file ]] || continue
    cmp "$whole/$file" "$other/$file" >&2 || status=1
  done <<<"$files"
  [[ $status == 0 ]] || return 1
  echo "$files" | wc -l
}

# fieldpack's bundle row counts, as JSON.
bundle_counts() {
  local database=$1
  printf '{'
  local first=1
  for table in observations photos taxa users observation_photos; do
    [[ $first == 1 ]] || printf ', '
    first=0
    printf '"%s": %s' "$table" "$(sqlite3 "file:$database?mode=ro&immutable=1" "SELECT count(*) FROM $table")"
  done
  printf '}\n'
}

duckdb_memory=(${BENCH_DUCKDB_MEMORY:+--memory-limit "$BENCH_DUCKDB_MEMORY"})

# --- 3. The runs (none unless BENCH_PARTS has runs) ------------------------------------------
for run in $(seq 1 $((run_runs == 1 ? BENCH_RUNS : 0))); do
  echo "=== run $run of $BENCH_RUNS" >&2
  rm -rf "$out"
  mkdir -p "$out"

  # The iNat path: fieldpack's three stages, then DuckDB's two outputs.
  measure "ingest.r$run" "$BIN/fieldpack-inat" --pipeline "$BENCH_DIR/bench.json" \
    --output "$out/inat/records.jsonl" --rejects "$out/inat/rejects.jsonl"
  measure "dedupe.r$run" "$BIN/fieldpack-dedupe" "$out/inat/records.jsonl" --pipeline "$BENCH_DIR/bench.json" \
    --output "$out/dedupe/records.jsonl" --conflicts "$out/dedupe/conflicts.json"
  # The bundle stage, and the same stage without display targets beside it in every run: what
  # cost estimation adds is the median of the runs' differences, not one pair's (on this machine
  # one pair moved by more than the 10% it is judged against). The pair's order alternates (the
  # one without targets first in even runs), so neither always follows the other's 1.3 GB write.
  bundle_no_costs() {
    measure "bundle-no-costs.r$run" "$BIN/fieldpack-bundle" "$out/dedupe/records.jsonl" \
      --pipeline "$BENCH_DIR/bench-no-targets.json" --output "$out/content-no-costs.sqlite"
    rm -f "$out/content-no-costs.sqlite"
  }
  if (( run % 2 == 0 )); then bundle_no_costs; fi
  measure "bundle.r$run" "$BIN/fieldpack-bundle" "$out/dedupe/records.jsonl" \
    --pipeline "$BENCH_DIR/bench.json" --output "$out/content.sqlite" --costs-report "$out/costs-report.json" \
    --inputs "$out/inputs.json"
  if (( run % 2 == 1 )); then bundle_no_costs; fi
  if [[ $run == 1 ]]; then
    measure manifest "$BIN/fieldpack-manifest" "$out/content.sqlite" --output "$out/bundle" \
      --inputs "$out/inputs.json" --include "$out/costs-report.json"
    measure verify "$BIN/fieldpack-verify" "$out/bundle"
    rm -rf "$out/bundle"
    bundle_counts "$out/content.sqlite" >"$logs/fieldpack.counts.json"
    measure bundle-every-licence "$BIN/fieldpack-bundle" "$out/dedupe/records.jsonl" \
      --pipeline "$BENCH_DIR/bench-every-licence.json" --output "$out/content-every-licence.sqlite" \
      --costs-report "$out/costs-report-every-licence.json"
    rm -f "$out/content-every-licence.sqlite"
  fi
  rm -rf "$out/inat" "$out/dedupe"   # not needed any more: the disk space goes back
  for format in sqlite parquet; do
    measure "duckdb-$format.r$run" "$py" "$here/duckdb_baseline.py" --input "$input" --format "$format" \
      --output "$out/duckdb.$format" --counts "$logs/duckdb-$format.r$run.counts.json" "${duckdb_memory[@]}"
    rm -rf "$out/duckdb.$format" "$out/duckdb.$format.tmp"
  done
  if [[ $run == 1 && -n $suffix ]]; then
    # Untimed: the same query with the records a salvaging reader keeps from the truncated page.
    extra=()
    for salvage in "$input"/.damage/salvageable-*.json; do [[ -f $salvage ]] && extra+=(--extra "$salvage"); done
    measure duckdb-check "$py" "$here/duckdb_baseline.py" --input "$input" --format parquet \
      --output "$out/duckdb-check" --counts "$logs/duckdb-check.counts.json" "${extra[@]}" "${duckdb_memory[@]}"
    rm -rf "$out/duckdb-check" "$out/duckdb-check.tmp"
  fi

  # The wiki stage against selectolax + nh3 and lxml + nh3, lead paragraphs only, 2 processes.
  measure "wiki.r$run" "$BIN/fieldpack-wiki" --pipeline "$wiki_input/pipeline.json" --records "$wiki_input/no-records.jsonl" \
    --output "$out/wiki/articles.jsonl" --report "$out/wiki/wiki-report.json" --rejects "$out/wiki/rejects.jsonl"
  cp "$out/wiki/wiki-report.json" "$logs/wiki-report.json"
  cp "$out/wiki/wiki-report.json" "$logs/wiki-report.r$run.json"   # run 1's article change is in run 2's dump
  for parser in selectolax lxml; do
    measure "wiki-$parser.r$run" "$py" "$here/wiki_baseline.py" --parser "$parser" \
      --dump "$wiki_input/articles.ndjson" --pipeline "$wiki_input/pipeline.json"
  done

  # SHA-256 of 1 GiB from the page cache, and the JSON parser alone on one core.
  cat "$hash_file" >/dev/null
  measure "hash-fieldpack.r$run" "$BIN/fieldpack-manifest" --sha256 "$hash_file"
  measure "hash-openssl.r$run" openssl dgst -sha256 "$hash_file"
  # Both parsers read the pages from the page cache: whoever ran first would otherwise read them
  # from disk (the 1 GiB file just hashed may have pushed them out) and warm them for the other.
  cat "$input"/page-*.json >/dev/null
  measure "parse-fieldpack.r$run" "$BIN/fieldpack-synth" --parse-only --pipeline "$BENCH_DIR/bench.json"
  measure "parse-simdjson.r$run" "$py" "$here/json_baseline.py" "$input"

  # The whole build with both inputs, a rebuild after touching the wiki dump, a rebuild after
  # changing one wanted article's text, a no-op make.
  rm -rf "$BENCH_DIR/make"
  measure "make-full.r$run" "${bench_make[@]}"
  # Every stage's own figures (wall, records, peak RSS) from the whole build.
  mkdir -p "$logs/make-full.r$run.timings"
  cp "$BENCH_DIR"/make/*/timings/*.json "$logs/make-full.r$run.timings/" 2>/dev/null || true
  touch "$wiki_input/articles.ndjson"
  measure "make-rebuild.r$run" "${bench_make[@]}"
  # Untimed: the first wanted article's lead paragraph gets a first sentence unique to this run
  # (Tests/Bench/change_article.py: a new dump file renamed over the old one), so the wiki
  # stage's output really changes, whatever make does about a mere touch.
  marker="Bench edit r$run $(date -u +%Y%m%d%H%M%S) $(od -An -N4 -tx4 /dev/urandom | tr -d ' ')"
  changed_title=$(python3 "$here/change_article.py" --dump "$wiki_input/articles.ndjson" \
    --pipeline "$wiki_input/pipeline.json" --marker "$marker") || fail "run $run: could not change an article in $wiki_input"
  printf '%s\n%s\n' "$changed_title" "$marker" >"$logs/make-changed.r$run.article"
  sync   # the new dump's writeback must not slow the timed rebuild down
  measure "make-changed.r$run" "${bench_make[@]}"
  # The rebuilt bundle must carry the change, or the row would time a rebuild of nothing.
  carried=$(sqlite3 "file:$BENCH_DIR/make/$bench_name/bundle/content.sqlite?mode=ro&immutable=1" \
    "SELECT count(*) FROM articles WHERE instr(blurb_html, '$marker') > 0")
  [[ $carried == 1 ]] || fail "run $run: the bundle rebuilt after changing \"$changed_title\" in $wiki_input/articles.ndjson does not carry the change ('$marker' in $carried blurbs, not 1)"
  measure "make-noop.r$run" "${bench_make[@]}"

  # Fresh sharded builds of the same dumps (issue 12: SHARDS=4 against SHARDS=1, make -j2),
  # each in its own BUILD folder, the order alternating from run to run. Each must publish the
  # unsharded build's bundle (the one just rebuilt from the same dumps), byte for byte.
  shard_order=(4 1)
  ((run % 2 == 1)) || shard_order=(1 4)
  for shards in "${shard_order[@]}"; do
    folder="$BENCH_DIR/make-shards$shards"
    rm -rf "$folder"
    measure "make-shards$shards.r$run" "${bench_make_in[@]}" BUILD="$folder" SHARDS="$shards"
    mkdir -p "$logs/make-shards$shards.r$run.timings"
    cp "$folder"/*/timings/*.json "$logs/make-shards$shards.r$run.timings/" 2>/dev/null || true
    for index in $(seq 0 $((shards - 1))); do
      [[ -f $folder/$bench_name/dedupe/shard-$index-of-$shards/records.jsonl && -f $folder/$bench_name/wiki/shard-$index-of-$shards/articles.jsonl ]] \
        || fail "run $run: SHARDS=$shards did not build shard $index of dedupe and of the wiki stage (kept $folder)"
    done
    if ! files=$(same_bundle "$BENCH_DIR/make" "$folder" 2>"$logs/make-shards$shards.r$run.compare"); then
      fail "run $run: SHARDS=$shards published another bundle than the unsharded build's (its incremental rebuild after the changed article, in $BENCH_DIR/make; kept $folder): $(head -c 2000 "$logs/make-shards$shards.r$run.compare")"
    fi
    echo "run $run: SHARDS=$shards published the unsharded build's bundle, byte for byte ($files files)" | tee -a "$logs/shards-check.txt" >&2
    rm -rf "$folder"
  done
done

# --- 4. Scale: the iNat path at 10 x BENCH_N, peak RSS per stage --------------------------------
scale_n=$((BENCH_N * 10))
scale_input="$BENCH_DIR/input-$scale_n$suffix"
if [[ $run_scale == 1 ]]; then
  measure synth-scale "$BIN/fieldpack-synth" --observations "$scale_n" --seed "$BENCH_SEED" --output "$scale_input" --reuse "${damage[@]}"
  sync
  pipeline bench-scale "$scale_input" ',"memory_budget_bytes":52428800'
  rm -rf "$out"
  mkdir -p "$out"
  measure ingest.scale "$BIN/fieldpack-inat" --pipeline "$BENCH_DIR/bench-scale.json" \
    --output "$out/inat/records.jsonl" --rejects "$out/inat/rejects.jsonl"
  measure dedupe.scale "$BIN/fieldpack-dedupe" "$out/inat/records.jsonl" --pipeline "$BENCH_DIR/bench-scale.json" \
    --output "$out/dedupe/records.jsonl" --conflicts "$out/dedupe/conflicts.json"
  measure bundle.scale "$BIN/fieldpack-bundle" "$out/dedupe/records.jsonl" \
    --pipeline "$BENCH_DIR/bench-scale.json" --output "$out/content.sqlite" --costs-report "$out/costs-report.json" \
    --inputs "$out/inputs.json"
  rm -rf "$out/inat" "$out/dedupe"
  measure manifest.scale "$BIN/fieldpack-manifest" "$out/content.sqlite" --output "$out/bundle" \
    --inputs "$out/inputs.json" --include "$out/costs-report.json"
  measure verify.scale "$BIN/fieldpack-verify" "$out/bundle"
  rm -rf "$out"
  # The wiki stage at 10 x BENCH_WIKI_N articles (80% of them wanted: 160k at the default).
  scale_wiki_n=$((BENCH_WIKI_N * 10))
  scale_wiki="$BENCH_DIR/wiki-$scale_wiki_n$suffix"
  # fieldpack-synth has no --reuse for a wiki dump: the folder's .settings (written last) says
  # which dump it holds, and a matching one is kept (200k articles take minutes to write).
  scale_wiki_settings="articles=$scale_wiki_n seed=$BENCH_SEED damage=${damage[*]:-none} synth=$(sha256sum "$BIN/fieldpack-synth" | cut -c1-16)"
  if [[ $(cat "$scale_wiki/.settings" 2>/dev/null) == "$scale_wiki_settings" && -f $scale_wiki/articles.ndjson && -f $scale_wiki/pipeline.json ]]; then
    echo "== wiki-synth-scale: $scale_wiki already holds this dump ($scale_wiki_settings); kept it" >&2
  else
    rm -rf "$scale_wiki"
    measure wiki-synth-scale "$BIN/fieldpack-synth" --wiki-articles "$scale_wiki_n" --seed "$BENCH_SEED" --output "$scale_wiki" "${damage[@]}"
    : >"$scale_wiki/no-records.jsonl"
    sync
    echo "$scale_wiki_settings" >"$scale_wiki/.settings"
  fi
  mkdir -p "$out"
  measure wiki.scale "$BIN/fieldpack-wiki" --pipeline "$scale_wiki/pipeline.json" --records "$scale_wiki/no-records.jsonl" \
    --output "$out/wiki/articles.jsonl" --report "$out/wiki/wiki-report.json" --rejects "$out/wiki/rejects.jsonl"
  cp "$out/wiki/wiki-report.json" "$logs/wiki-report.scale.json"
  rm -rf "$out"
fi

# --- 4b. The open-data export path (issue 13): Tests/Bench/opendata.sh, its section of the report --
if [[ $run_opendata == 1 ]]; then
  BENCH_OPEN_DATA_N=${BENCH_OPEN_DATA_N:-$BENCH_N} BENCH_RUNS=$BENCH_RUNS BENCH_SEED=$BENCH_SEED BENCH_SCALE=$BENCH_SCALE \
    BENCH_OPEN_DATA_SCALE=${BENCH_OPEN_DATA_SCALE:-10} BENCH_DIR=$BENCH_DIR BIN=$BIN ${BENCH_DUCKDB_MEMORY:+BENCH_DUCKDB_MEMORY=$BENCH_DUCKDB_MEMORY} "$here/opendata.sh" >&2
fi

# --- 4c. The Slurm engine's overhead (issue 12): Tests/Slurm/check-slurm.sh --measure -------------
# On a one-node cluster of its own (../shared/tools/slurm-local.sh, as root): arrays of trivial
# tasks, the sample pipeline, and, when the runs made the 1M dumps, their whole build at
# SHARDS=4 under make -j and under ENGINE=slurm (the same bundle, byte for byte). CI=true: a
# cluster that does not come up fails the benchmark instead of being skipped.
if [[ $run_slurm == 1 ]]; then
  slurm_env=(CI=true SLURM_MEASURE_RUNS="$BENCH_RUNS" SLURM_CHECK_SHARDS=4)
  if [[ $run_runs == 1 ]]; then
    slurm_env+=(SLURM_MEASURE_PIPELINE="$BENCH_DIR/bench-full.json" SLURM_MEASURE_BUILD="$BENCH_DIR/slurm-builds")
  fi
  rm -rf "$BENCH_DIR/slurm-builds"
  measure slurm env "${slurm_env[@]}" "$repo/Tests/Slurm/check-slurm.sh" --measure "$BIN"
  cat "$logs/slurm.out" >&2
  rm -rf "$BENCH_DIR/slurm-builds"
fi

# --- 5. Versions and the report ----------------------------------------------------------------
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(awk '/MemTotal/ { printf "%.1f GiB RAM", $2 / 1048576 }' /proc/meminfo), $(uname -sr)"
  echo "fieldpack: $("$here/source-label.sh" "$repo" "$BIN" || echo "unknown (Tests/Bench/source-label.sh failed)")"
  echo "swift: $(swift --version 2>/dev/null | head -n 1 || echo unknown)"
  if [[ $run_runs == 1 || $run_opendata == 1 ]]; then   # the peers ran: their versions
    "$py" - <<'EOF'
from importlib.metadata import version
import sys
import lxml.etree
print(f"python: {sys.version.split()[0]} (venv)")
for name in ("duckdb", "duckdb-extension-sqlite", "selectolax", "lxml", "nh3", "pysimdjson"):
    print(f"{name}: {version(name)}")
print("lxml's libxml2: " + ".".join(map(str, lxml.etree.LIBXML_VERSION)))
EOF
  fi
  echo "openssl: $(openssl version)"
  echo "sqlite3: $(sqlite3 --version | cut -d' ' -f1)"
  echo "make: $(make --version | head -n 1)"
  echo "GNU time: $(dpkg-query -W -f='${Version}' time 2>/dev/null || echo unknown)"
} >"$logs/versions.txt"

python3 "$here/report.py" --logs "$logs" --runs "$BENCH_RUNS" --synth "$input/synth.txt" --scale-synth "$scale_input/synth.txt" \
  --wiki-report "$logs/wiki-report.json" --scale "$BENCH_SCALE" --parts "$ran_parts" --bench-n "$BENCH_N" \
  --results "$BENCH_DIR/results.md" \
  --settings "BENCH_N=$BENCH_N BENCH_WIKI_N=$BENCH_WIKI_N BENCH_RUNS=$BENCH_RUNS BENCH_SEED=$BENCH_SEED BENCH_DAMAGE=$BENCH_DAMAGE BENCH_SCALE=$BENCH_SCALE BENCH_PARTS=$BENCH_PARTS${BENCH_OPEN_DATA_SCALE:+ BENCH_OPEN_DATA_SCALE=$BENCH_OPEN_DATA_SCALE}${BENCH_DUCKDB_MEMORY:+ BENCH_DUCKDB_MEMORY=$BENCH_DUCKDB_MEMORY}"
