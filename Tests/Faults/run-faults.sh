#!/bin/bash
# Fault injection on the sample pipeline (`make test`): what an interrupted, starved or
# broken run must leave behind.
#
#   Tests/Faults/run-faults.sh [BIN]     (BIN: the folder of the built tools, default .build/release)
#
# 1. kill -9 at seeded random points of a run that turns the published bundle from one version
#    of the sample pipeline into another (FAULT_KILL_TRIALS, default 6): the bundle is the old or
#    the new one, complete and verified, never partial; the rerun gives the new bundle's exact
#    bytes; once it finishes, no temp, scratch, staging or retired file is left.
# 2. SIGTERM at random points (FAULT_TERM_TRIALS, default 2): the same.
# 3. A full disk (a small tmpfs; needs root, else skipped with a message): the run fails with
#    the system's message, the previous bundle stays whole; with space again the rerun gives the
#    new bytes and nothing is left over.
# 4. A read error part-way through an input: fieldpack-inat reads standard input from a
#    pseudo-terminal whose other side closes after some lines, which is a real EIO from read(2).
#    The stage fails naming standard input and the error; it does not take it for the end.
#
# FAULT_SEED (default 15) seeds the kill points.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
BIN="$(cd "${1:-.build/release}" && pwd)"
KILL_TRIALS="${FAULT_KILL_TRIALS:-6}"
TERM_TRIALS="${FAULT_TERM_TRIALS:-2}"
RANDOM="${FAULT_SEED:-15}"
WORK="$(mktemp -d /tmp/fieldpack-faults.XXXXXX)"
MOUNTED=""
cleanup() {
  [ -n "$MOUNTED" ] && umount "$MOUNTED" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
failures=0
fail() { echo "faults: FAIL: $*" >&2; failures=$((failures + 1)); }

# Two versions of the sample pipeline under one name: "old" lacks the last destination.
python3 - "$ROOT/pipelines/sample.json" "$WORK" <<'PY'
import json, sys
pipeline = json.load(open(sys.argv[1]))
json.dump(pipeline, open(sys.argv[2] + "/new.json", "w"), indent=1)
pipeline["destinations"] = pipeline["destinations"][:-1]
json.dump(pipeline, open(sys.argv[2] + "/old.json", "w"), indent=1)
PY

# run BUILD VERSION: the pipeline to completion (make's own rules), output in BUILD/make.log.
run() {
  cp "$WORK/$2.json" "$1/pipeline.json"
  make --no-print-directory -s pipeline-bundle PIPELINE_NAME=sample PIPELINE="$1/pipeline.json" BUILD="$1" \
    SKIP_TOOLS=1 BIN="$BIN" > "$1/make.log" 2>&1
}
# start BUILD VERSION: the same in its own process group, in the background; sets $job.
start() {
  cp "$WORK/$2.json" "$1/pipeline.json"
  setsid make --no-print-directory -s pipeline-bundle PIPELINE_NAME=sample PIPELINE="$1/pipeline.json" BUILD="$1" \
    SKIP_TOOLS=1 BIN="$BIN" > "$1/make.log" 2>&1 &
  job=$!
}
fingerprint() { (cd "$1/sample/bundle" 2>/dev/null && find . -type f | LC_ALL=C sort | xargs -r sha256sum | sha256sum | cut -c1-16); }
leftovers() {
  find "$1" \( -name '*.tmp-*' -o -name '*.scratch-*' -o -name '*.staging-*' -o -name '*.retired-*' -o -name '*.half*' -o -name '*-journal' \) -print
}
# The published bundle is whole and verified, and is one of the expected versions.
check_bundle() {
  local build=$1 what=$2; shift 2
  if [ ! -d "$build/sample/bundle" ]; then fail "$what: no bundle folder at all"; return; fi
  if ! "$BIN/fieldpack-verify" "$build/sample/bundle" > "$build/verify.log" 2>&1; then
    fail "$what: the published bundle does not verify: $(head -3 "$build/verify.log")"; return
  fi
  local got; got=$(fingerprint "$build")
  for want in "$@"; do [ "$got" = "$want" ] && return; done
  fail "$what: the bundle ($got) is neither of the expected versions ($*)"
}

# --- References: each version built from scratch, then again, byte-identical -------------
B="$WORK/build"; mkdir -p "$B"
start_time=$(date +%s%N)
run "$B" old || { cat "$B/make.log" >&2; fail "the old pipeline does not build"; exit 1; }
full_ms=$(( ($(date +%s%N) - start_time) / 1000000 ))
OLD=$(fingerprint "$B")
run "$B" new || { cat "$B/make.log" >&2; fail "the new pipeline does not build"; exit 1; }
NEW=$(fingerprint "$B")
[ "$OLD" != "$NEW" ] || fail "the two pipeline versions give the same bundle: the trials would show nothing"
R="$WORK/again"; mkdir -p "$R"; run "$R" new && [ "$(fingerprint "$R")" = "$NEW" ] || fail "a second build from scratch differs"
rm -rf "$R"
echo "faults: reference bundles old $OLD, new $NEW; a full run takes ${full_ms} ms"
version=new  # what B holds now

# interrupt SIGNAL TRIALS: runs that flip B to the other version, cut at a random point.
interrupt() {
  local signal=$1 trials=$2
  for trial in $(seq 1 "$trials"); do
    local from=$version to want_from want_to
    to=$([ "$from" = old ] && echo new || echo old)
    want_from=$([ "$from" = old ] && echo "$OLD" || echo "$NEW")
    want_to=$([ "$to" = old ] && echo "$OLD" || echo "$NEW")
    # A point within a full run (a run flipping the version redoes every stage).
    local delay_ms=$(( (RANDOM * 32768 + RANDOM) % (full_ms + 1) ))
    start "$B" "$to"
    sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
    kill -s "$signal" -- "-$job" 2>/dev/null
    wait "$job" 2>/dev/null
    local code=$?
    local what="$signal trial $trial ($from -> $to, at ${delay_ms} ms, exit $code)"
    check_bundle "$B" "$what" "$want_from" "$want_to"
    if [ "$signal" = TERM ]; then
      local left; left=$(leftovers "$B")
      [ -z "$left" ] || fail "$what: SIGTERM left, before any rerun: $(echo $left | head -c 300)"
    fi
    if ! run "$B" "$to"; then fail "$what: the rerun fails: $(tail -3 "$B/make.log")"; version=$to; continue; fi
    [ "$(fingerprint "$B")" = "$want_to" ] || fail "$what: the rerun's bundle differs from a clean run's"
    local left; left=$(leftovers "$B")
    [ -z "$left" ] || fail "$what: after the rerun, leftovers: $(echo $left | head -c 300)"
    version=$to
    echo "faults: $what: ok"
  done
}
interrupt KILL "$KILL_TRIALS"
interrupt TERM "$TERM_TRIALS"

# --- A full disk -------------------------------------------------------------------------------
if [ "$(id -u)" != 0 ]; then
  echo "faults: full disk skipped: mounting a small tmpfs needs root (CI runs as root)"
else
  D="$WORK/disk"; mkdir -p "$D"
  if ! mount -t tmpfs -o size=64m fieldpack-faults "$D" 2>"$WORK/mount.log"; then
    echo "faults: full disk skipped: cannot mount a tmpfs here: $(cat "$WORK/mount.log")"
  else
    MOUNTED=$D
    mkdir -p "$D/build"
    run "$D/build" old || fail "full disk: the old pipeline does not build on the tmpfs"
    DOLD=$(fingerprint "$D/build")
    run "$D/build" new || fail "full disk: the new pipeline does not build on the tmpfs"
    DNEW=$(fingerprint "$D/build")
    run "$D/build" old
    used=$(du -sk "$D/build" | cut -f1)
    # Free space left for the run flipping to "new": from almost none to most of a build.
    for free_kb in 16 256 $((used / 2)) $used $((used * 2)) 1280 1792 1920 1984 2048 4096; do
      avail=$(df -k --output=avail "$D" | tail -1)
      fill_kb=$((avail - free_kb))
      [ $fill_kb -gt 0 ] && head -c $((fill_kb * 1024)) /dev/zero > "$D/filler" 2>/dev/null
      what="full disk (${free_kb} KiB free)"
      if run "$D/build" new; then
        echo "faults: $what: the run fitted"
        check_bundle "$D/build" "$what" "$DNEW"
      else
        grep -qiE "no space left|disk is full|ENOSPC" "$D/build/make.log" \
          || fail "$what: the run failed without saying the disk is full: $(tail -2 "$D/build/make.log")"
        check_bundle "$D/build" "$what" "$DOLD"
        what="$what: failed as it should ($(grep -iE -m1 "no space left|disk is full|ENOSPC" "$D/build/make.log" | cut -c1-160))"
      fi
      rm -f "$D/filler"
      run "$D/build" new || fail "$what: with space again, the rerun fails: $(tail -2 "$D/build/make.log")"
      [ "$(fingerprint "$D/build")" = "$DNEW" ] || fail "$what: the rerun's bundle differs from a clean run's"
      left=$(leftovers "$D/build")
      [ -z "$left" ] || fail "$what: after the rerun, leftovers: $(echo $left | head -c 300)"
      run "$D/build" old
      echo "faults: $what: checked"
    done
    umount "$D" && MOUNTED=""
  fi
fi

# --- A read error part-way through an input ------------------------------------------------------
E="$WORK/eio"; mkdir -p "$E"
python3 - "$BIN/fieldpack-inat" "$ROOT/sample-data/inat" "$E" <<'PY'
# The stage reads standard input from a pty master; writing the slave and closing it makes the
# master's read(2) return the bytes, then fail with EIO: a real read error after a clean prefix.
# Two inputs: 3 MB of JSON Lines (the error comes after several full buffers) and a gzip file.
import os, pty, subprocess, sys, tty
tool, samples, work = sys.argv[1:4]
cases = {
    "jsonl": open(f"{samples}/shipping-cases.jsonl", "rb").read() * 300,
    "gzip": open(f"{samples}/updates.jsonl.gz", "rb").read(),
}
def ingest(stdin, name):
    return subprocess.Popen([tool, "-", "--max-reject-rate", "0.5", "--output", f"{work}/{name}.jsonl", "--rejects", f"{work}/{name}-rejects.jsonl"],
                            stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
problems = []
for case, data in cases.items():
    # Control: the same bytes through a pipe end cleanly.
    control = ingest(subprocess.PIPE, f"{case}-pipe")
    out, err = control.communicate(data)
    if control.returncode != 0:
        open(f"{work}/result", "w").write(f"{case}: the control run through a pipe failed: {err.decode()[-300:]}")
        sys.exit(1)
    master, slave = pty.openpty()
    tty.setraw(slave)
    process = ingest(master, f"{case}-pty")
    os.close(master)
    view = memoryview(data)
    while view:
        view = view[os.write(slave, view[:4096]):]
    os.close(slave)
    out, err = process.communicate()
    message = err.decode()
    if process.returncode == 0:
        problems.append(f"{case}: exit 0: the read error was taken for the end of the input")
    if "Input/output error" not in message or "<stdin>" not in message:
        problems.append(f"{case}: the message does not name <stdin> and the error: {message.strip()[-300:]!r}")
    if os.path.exists(f"{work}/{case}-pty.jsonl"):
        problems.append(f"{case}: records were published from the broken read")
left = [n for n in os.listdir(work) if ".tmp-" in n]
if left:
    problems.append(f"temp files left: {left}")
open(f"{work}/result", "w").write("; ".join(problems))
sys.exit(3 if problems else 0)
PY
code=$?
case $code in
  0) echo "faults: read error part-way through standard input: a failure naming it, nothing published: ok" ;;
  # The stage took the error for the end of its input: a read error must never end an input.
  3) fail "read error part-way through standard input: $(cat "$E/result")" ;;
  *) fail "read error: $(cat "$E/result" 2>/dev/null)" ;;
esac

echo "faults: $failures failure(s)"
[ $failures -eq 0 ]
