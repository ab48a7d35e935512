#!/bin/bash
# Runs the fuzz targets (`make fuzz`, and the smoke in `make test`).
#
#   Tests/Fuzz/run.sh [--smoke] SECONDS [TARGET...]     (default: every target)
#
# Each target first replays its saved crash inputs (Tests/Fuzz/crashes/TARGET: every one must now
# pass), then fuzzes for SECONDS from its committed corpus (Tests/Fuzz/corpus/TARGET) and seeds
# made from sample-data/ and ../shared/samples, with the JSON or HTML dictionary. A new crash is
# written to Tests/Fuzz/crashes/TARGET/, where `make test` replays it (ASan here, and through the
# normal build in FuzzRegressionTests): commit it with the fix. Without --smoke, the inputs that
# grew coverage are merged (minimized) into the committed corpus.
# Exit: 0 nothing found; 1 a crash, a broken invariant or a failed replay; 2 no fuzzer runtime.
set -uo pipefail
cd "$(dirname "$0")/../.."
smoke=0
if [ "${1:-}" = "--smoke" ]; then smoke=1; shift; fi
seconds="${1:?usage: Tests/Fuzz/run.sh [--smoke] SECONDS [TARGET...]}"; shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(ingest sanitizer article archive markup exportPruning)
OUT="${FUZZ_BUILD:-.build/fuzz}"
BIN="$OUT/fieldpack-fuzz"
SHARED="${SHARED_SAMPLES:-$(cd .. && pwd)/shared/samples}"
[ -d "$SHARED" ] || SHARED=/work/shared/samples
# No allocation stacks while fuzzing (unwinding every malloc halves the rate): replay a crash
# input by hand to see them.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1:malloc_context_size=0:quarantine_size_mb=16}"

# FUZZ_NO_BUILD=1 uses the binary as it is (built apart, e.g. under a shared build lock).
if [ "${FUZZ_NO_BUILD:-0}" = 1 ] && [ -x "$BIN" ]; then status=0; else Tests/Fuzz/build.sh; status=$?; fi
if [ $status -eq 2 ]; then echo "fuzz: skipped: no libFuzzer/AddressSanitizer runtime in this toolchain"; exit 2; fi
[ $status -eq 0 ] || { echo "fuzz: the fuzz build failed" >&2; exit 1; }

# Seeds: copies of the sample inputs each target reads (libFuzzer takes folders), decompressed
# where the target reads plain bytes.
seeds() {
  local target=$1 dir="$OUT/seeds/$1"
  rm -rf "$dir"; mkdir -p "$dir"
  case $target in
    ingest)
      find sample-data/inat "$SHARED/inat" -type f \( -name '*.json' -o -name '*.jsonl' \) -exec cp {} "$dir/" \; 2>/dev/null
      for f in sample-data/inat/*.gz; do [ -f "$f" ] && gzip -dc "$f" > "$dir/$(basename "${f%.gz}")"; done
      # The open-data export's tables (ingest tells them by their header line), ours and real rows.
      for f in sample-data/open-data/*.csv sample-data/open-data/*.tsv "$SHARED"/inat/pyinaturalist-convert/inaturalist-open-data/*.csv; do
        [ -f "$f" ] && cp "$f" "$dir/open-data-$(basename "$(dirname "$f")")-$(basename "$f")"
      done ;;
    sanitizer|article)
      find sample-data/wiki "$SHARED/wiki" -type f -name '*.html' -exec cp {} "$dir/" \; 2>/dev/null
      # And each article's HTML out of the sample dumps (NDJSON, gzip, tar.gz).
      python3 - "$dir" sample-data/wiki "$SHARED/wiki" <<'PY'
import gzip, json, os, sys, tarfile
out, folders = sys.argv[1], sys.argv[2:]
def streams(path):
    if path.endswith(".tar.gz"):
        with tarfile.open(path) as archive:
            for member in archive:
                if member.isfile(): yield archive.extractfile(member).read()
    elif path.endswith(".gz"):
        yield gzip.open(path).read()
    elif path.endswith(".ndjson"):
        yield open(path, "rb").read()
count = 0
for folder in folders:
    for base, _, names in os.walk(folder):
        for name in sorted(names):
            for data in streams(os.path.join(base, name)):
                for line in data.splitlines():
                    try: html = (json.loads(line).get("article_body") or {}).get("html")
                    except (ValueError, AttributeError): continue
                    if html:
                        count += 1
                        open(os.path.join(out, f"article-{count}.html"), "w").write(html)
PY
      ;;
    archive)
      find sample-data/wiki "$SHARED/wiki" -type f \( -name '*.gz' -o -name '*.ndjson' -o -name '*.json' -o -name '*.html' \) \
        -size -300k -exec cp {} "$dir/" \; 2>/dev/null ;;
    markup)
      printf '<p>A <b>bold</b> and <i>italic</i> text.<br>Line.</p><p>Two</p>' > "$dir/blurb" ;;
    exportPruning)
      # The export's tables, apart by a line %% (FuzzEntry.exportTables): the sample export whole,
      # its observations with its photos, and the real rows of the shared samples.
      local od=sample-data/open-data real="$SHARED/inat/pyinaturalist-convert/inaturalist-open-data"
      { cat "$od/observations.csv"; echo '%%'; cat "$od/photos.csv"; echo '%%'; cat "$od/taxa.csv"; echo '%%'; cat "$od/observers.tsv"; } > "$dir/sample-export"
      { cat "$od/observations.csv"; echo '%%'; cat "$od/photos.csv"; } > "$dir/sample-observations-photos"
      if [ -f "$real/observations.csv" ] && [ -f "$real/photos.csv" ]; then
        { cat "$real/observations.csv"; echo '%%'; cat "$real/photos.csv"; } > "$dir/real-observations-photos"
      fi ;;
  esac
  # Same-named files from two folders: keep both, by content.
  echo "$dir"
}

dictionary() {
  case $1 in
    ingest) cat Tests/Fuzz/json.dict Tests/Fuzz/tsv.dict > "$OUT/ingest.dict"; echo "$OUT/ingest.dict" ;;
    exportPruning) echo Tests/Fuzz/tsv.dict ;;
    archive) cat Tests/Fuzz/json.dict Tests/Fuzz/html.dict > "$OUT/archive.dict"; echo "$OUT/archive.dict" ;;
    *) echo Tests/Fuzz/html.dict ;;
  esac
}

# Small inputs run fast and find most bugs (issue 15's over-read was 13 bytes); FUZZ_MAX_LEN overrides.
max_len() {
  [ -n "${FUZZ_MAX_LEN:-}" ] && { echo "$FUZZ_MAX_LEN"; return; }
  case $1 in archive) echo 32768 ;; article) echo 32768 ;; markup) echo 4096 ;; *) echo 16384 ;; esac
}

failed=0
summary=()
for target in "${targets[@]}"; do
  crashes="Tests/Fuzz/crashes/$target"
  corpus="Tests/Fuzz/corpus/$target"
  mkdir -p "$crashes" "$corpus"
  export FIELDPACK_FUZZ_TARGET=$target
  # 1. Every saved crash input must pass now.
  mapfile -t saved < <(find "$crashes" -type f ! -name '*.md' | LC_ALL=C sort)
  if [ ${#saved[@]} -gt 0 ]; then
    if ! "$BIN" -runs=1 "${saved[@]}" > "$OUT/replay-$target.log" 2>&1; then
      echo "fuzz: $target: a saved crash input fails again (see $OUT/replay-$target.log):" >&2
      grep -E "ERROR|invariant|Running" "$OUT/replay-$target.log" | tail -5 >&2
      failed=1
      continue
    fi
  fi
  # 2. Fuzz. The smoke writes new corpus entries to scratch; a full run merges them afterwards.
  work="$OUT/corpus/$target"
  [ $smoke -eq 1 ] && work="$OUT/smoke/$target"
  rm -rf "$work"; mkdir -p "$work"
  seed=$(seeds "$target")
  log="$OUT/fuzz-$target.log"
  nice -n 19 "$BIN" "$work" "$corpus" "$seed" -max_total_time="$seconds" -max_len="$(max_len "$target")" \
    -dict="$(dictionary "$target")" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$crashes/" > "$log" 2>&1
  code=$?
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  rate=$(grep -o 'exec/s: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+')
  if [ $code -ne 0 ]; then
    failed=1
    echo "fuzz: $target: FOUND A CRASH (exit $code), saved in $crashes/ (log: $log):" >&2
    grep -E "ERROR: AddressSanitizer|invariant broken|Fatal error|deadly signal|Test unit written" "$log" | head -5 >&2
  elif [ $smoke -eq 0 ]; then
    # Keep what grew coverage, minimized, in the committed corpus.
    mkdir -p "$OUT/merged/$target"; rm -rf "$OUT/merged/$target"/*
    nice -n 19 "$BIN" -merge=1 -max_len="$(max_len "$target")" "$OUT/merged/$target" "$corpus" "$work" > "$OUT/merge-$target.log" 2>&1 \
      && rm -rf "$corpus" && mv "$OUT/merged/$target" "$corpus"
    # The committed corpus stays small: its smallest inputs, up to FUZZ_CORPUS_KB (default 400 KiB).
    budget=$(( ${FUZZ_CORPUS_KB:-400} * 1024 )); total=0
    while read -r size file; do
      total=$((total + size))
      [ $total -le $budget ] || rm -f "$corpus/$file"
    done < <(cd "$corpus" && find . -type f -printf '%s %P\n' | LC_ALL=C sort -n -k1,1 -k2,2)
  fi
  line="fuzz: $target: ${execs:-?} execs in ${seconds}s (${rate:-?} exec/s), coverage ${cov:-?}, $( [ $code -eq 0 ] && echo "no crash" || echo "CRASH")"
  echo "$line"
  summary+=("$line")
done
printf '%s\n' "${summary[@]}" > "$OUT/last-run.txt"
exit $failed
