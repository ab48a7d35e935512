#!/bin/bash
# The Slurm engine on a real one-node cluster (`make test`; issue 12):
#
#   Tests/Slurm/check-slurm.sh [BIN]             (BIN: the built tools' folder, default .build/release)
#   Tests/Slurm/check-slurm.sh --measure [BIN]   instead of the checks, the engine's overhead (below)
#   Tests/Slurm/check-slurm.sh --locate          the slurm-local.sh it would use (exit 1: none)
#
# 1. Brings up a throw-away cluster with the team's slurm-local.sh (SLURM_LOCAL: its path; by
#    default ../shared/tools/slurm-local.sh beside the repository, else /work/shared/tools/…), on a
#    free port, its state in a temp folder; installs the Slurm packages first when they are missing.
# 2. `make bundle ENGINE=slurm SHARDS=4` on the sample pipeline: every bundle file equals an
#    unsharded `make bundle`'s byte for byte, each task left its log at slurm/<stage>-<i>.log, and
#    every job got the partition, time limit and options given as make variables.
# 3. The same into a fresh folder with one task killed by SIGKILL as it starts (SLURM_KILL_TASK,
#    default dedupe-1): make fails naming that stage, shard, the signal and the log path, and
#    publishes no bundle. The rerun submits only that shard (and the publish job), leaves the other
#    shards' logs alone, and gives the same bundle; a third run submits nothing. With INAT=… (the
#    pipeline file written by make) a second run submits nothing either.
# 4. A build whose make was killed by SIGKILL leaves its jobs queued (held by --begin): a rerun
#    refuses to submit beside them and submits nothing; an array cancelled before it started is
#    named as never started, with no log (a one-task array too); SLURM_POLL=abc is refused; an
#    up-to-date build needs no Slurm tools on PATH; a task's log names its job as the engine does;
#    a task failing while another of its array runs is reported then, the jobs after it cancelled,
#    the running one left to finish (the rerun submits only the failed shard).
# 5. A build stopped by SIGTERM (as make is when its terminal goes) cancels every job it submitted.
# 6. Tears the cluster down, whatever happened (a trap).
#
# --measure: the per-task overhead (arrays of 1, 4 and 16 tasks running `true` from submit to an
# empty queue, against running them directly) and the sample pipeline's wall time under make and
# under ENGINE=slurm at SHARDS=1 and N, each the median of SLURM_MEASURE_RUNS (3) runs. With
# SLURM_MEASURE_PIPELINE=FILE (make bench's 1M pipeline), also that pipeline's build at SHARDS=N
# under make -j and under ENGINE=slurm, once each, compared byte for byte: the overhead on
# stages of real size (SLURM_MEASURE_BUILD: the folder for those builds).
#
# Skipped, saying why, when not root or when the packages cannot be installed; but with CI=true a
# cluster that does not come up fails the check. SLURM_CHECK_SHARDS (4) is N.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
SLURM_LOCAL=${SLURM_LOCAL:-$(for f in ../shared/tools/slurm-local.sh /work/shared/tools/slurm-local.sh; do [ -f "$f" ] && { cd "$(dirname "$f")" && echo "$PWD/slurm-local.sh"; } && break; done)}
# --locate: print the slurm-local.sh this script would use and exit 0, or exit 1 if there is none
# (make bench asks before its first step).
if [ "${1:-}" = --locate ]; then
  { [ -n "$SLURM_LOCAL" ] && [ -f "$SLURM_LOCAL" ]; } || exit 1
  echo "$SLURM_LOCAL"
  exit 0
fi
MEASURE=""; [ "${1:-}" = --measure ] && { MEASURE=1; shift; }
BIN="$(cd "${1:-.build/release}" && pwd)" || { echo "check-slurm: no tools folder ${1:-.build/release}" >&2; exit 1; }
N=${SLURM_CHECK_SHARDS:-4}
KILL=${SLURM_CHECK_KILL:-dedupe-$((N > 1 ? 1 : 0))}
KILL_STAGE=${KILL%-*} KILL_INDEX=${KILL##*-}

skip() {
  if [ "${CI:-}" = true ] && [ "$(id -u)" = 0 ]; then echo "check-slurm: FAIL: $* (CI=true: the Slurm check must run)" >&2; exit 1; fi
  echo "check-slurm: skipped: $*"
  exit 0
}
[ "$(id -u)" = 0 ] || skip "not root (the one-node cluster runs its daemons as root)"
{ [ -n "$SLURM_LOCAL" ] && [ -f "$SLURM_LOCAL" ]; } || skip "no slurm-local.sh (give SLURM_LOCAL=path/to/slurm-local.sh)"

WORK="$(mktemp -d /tmp/fieldpack-slurm.XXXXXX)"
chmod 755 "$WORK"   # munged refuses a socket under a folder others cannot enter
export SLURM_LOCAL_DIR="$WORK/cluster" SLURM_LOCAL_TIMEOUT=60
# A port pair no one listens on (the default 6817 may be another cluster's).
port=6817
while ss -Hltn "( sport = :$port or sport = :$((port + 1)) )" 2>/dev/null | grep -q .; do port=$((port + 2)); done
export SLURM_LOCAL_PORT=$port
UP=""
cleanup() {
  [ -n "$UP" ] && bash "$SLURM_LOCAL" down >"$WORK/down.log" 2>&1
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

started=$SECONDS
if ! command -v slurmctld >/dev/null || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  bash "$SLURM_LOCAL" install >"$WORK/install.log" 2>&1 || skip "the Slurm packages cannot be installed: $(tail -n 3 "$WORK/install.log" | tr '\n' ' ')"
fi
UP=1
if ! bash "$SLURM_LOCAL" up >"$WORK/up.log" 2>&1; then
  cat "$WORK/up.log" >&2
  skip "the one-node cluster did not come up (log above)"
fi
export SLURM_CONF="$SLURM_LOCAL_DIR/etc/slurm.conf"
echo "check-slurm: cluster up on 127.0.0.1:$port in $((SECONDS - started)) s"

passed=0 failures=0
pass() { echo "check-slurm: ok: $*"; passed=$((passed + 1)); }
fail() { echo "check-slurm: FAIL: $*" >&2; failures=$((failures + 1)); }

# bundle BUILD [VAR=value…]: make bundle on the sample pipeline into BUILD; output in BUILD.log.
bundle() {
  local build=$1; shift
  make --no-print-directory bundle SKIP_TOOLS=1 BIN="$BIN" BUILD="$build" "$@" >"$build.log" 2>&1
}
slurm_bundle() { local build=$1; shift; bundle "$build" ENGINE=slurm SHARDS="$N" SLURM_POLL=0.2 "$@"; }
files() { (cd "$1" && find . -type f | LC_ALL=C sort); }
# bundle_difference WHOLE OTHER: prints nothing when the bundle folder OTHER holds exactly the
# files of WHOLE (make's), byte for byte; otherwise what differs.
bundle_difference() {
  local f differ=""
  [ -f "$2/manifest.json" ] || { echo "no bundle at $2"; return; }
  if [ "$(files "$1")" != "$(files "$2")" ]; then
    echo "the bundle's files differ from make's: $(files "$2" | tr '\n' ' ')"; return
  fi
  while IFS= read -r f; do cmp -s "$1/$f" "$2/$f" || differ+=" ${f#./}"; done <<<"$(files "$1")"
  [ -z "$differ" ] || echo "differs from make's bundle in:$differ"
}
# same_bundle BUILD WHAT: BUILD's bundle has exactly the reference's files, byte for byte.
same_bundle() {
  local problem
  problem=$(bundle_difference "$REF/sample/bundle" "$1/sample/bundle")
  if [ -n "$problem" ]; then fail "$2: $problem"; else pass "$2: byte-identical to the unsharded bundle ($(files "$1/sample/bundle" | wc -l) files)"; fi
}
# array_job LOG STAGE: the job id the engine reported for STAGE's array ("<stage>: shards … as
# array job <id>"); submitted LOG STAGE: the shards it submitted, as ",0,2,3,".
array_job() { sed -n "s/^slurm: $2: shards .* as array job \([0-9]*\).*/\1/p" "$1"; }
submitted() { echo ",$(sed -n "s/^slurm: $2: shards \([0-9,]*\) of $N as array job.*/\1/p" "$1"),"; }
# says LOG TEXT WHAT: the make output LOG contains TEXT.
says() { if grep -qF -- "$2" "$1"; then pass "$3"; else fail "$3: no '$2' in its output:"; sed 's/^/    /' "$1" >&2; fi; }

# --- --measure: the overhead, no checks --------------------------------------------------------
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
median() { LC_ALL=C sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] }'; }
if [ -n "$MEASURE" ]; then
  runs=${SLURM_MEASURE_RUNS:-3}
  echo "check-slurm: measuring on $(nproc) cores, medians of $runs runs, $(scontrol show config 2>/dev/null | sed -n 's/^SchedulerParameters *= */SchedulerParameters=/p' | head -n 1)"
  for k in 1 4 16; do
    for ((r = 0; r < runs; r++)); do
      t=$(now); a=$(sbatch --parsable --array=0-$((k - 1)) --output=/dev/null --wrap true)
      while [ -n "$(squeue -h -j "$a" -o %i 2>/dev/null)" ]; do sleep 0.05; done
      elapsed "$t"; echo
    done | median > "$WORK/slurm-$k"
    for ((r = 0; r < runs; r++)); do
      t=$(now); for ((i = 0; i < k; i++)); do bash -c true; done; elapsed "$t"; echo
    done | median > "$WORK/direct-$k"
    echo "check-slurm: $k trivial task(s): $(cat "$WORK/slurm-$k") s as a Slurm array (submit to empty queue), $(cat "$WORK/direct-$k") s run directly; $(awk -v s="$(cat "$WORK/slurm-$k")" -v d="$(cat "$WORK/direct-$k")" -v k="$k" 'BEGIN { printf "%.2f", (s - d) / k }') s per task"
  done
  for ((r = 0; r < runs; r++)); do
    t=$(now); make --no-print-directory -q shard-inat-0 PIPELINE_NAME=sample PIPELINE=pipelines/sample.json BUILD="$WORK/m" SHARDS=1 SKIP_TOOLS=1 BIN="$BIN" >/dev/null 2>&1; elapsed "$t"; echo
  done | median > "$WORK/make-q"
  echo "check-slurm: one make -q of a shard target (what each task and each up-to-date check pays): $(cat "$WORK/make-q") s"
  timed() {  # timed LABEL VAR=value…: median wall time of make bundle from a clean folder
    local label=$1 times=(); shift
    for ((r = 0; r < runs; r++)); do
      rm -rf "$WORK/m"; t=$(now)
      make --no-print-directory bundle SKIP_TOOLS=1 BIN="$BIN" BUILD="$WORK/m" "$@" >"$WORK/m.log" 2>&1 || { cat "$WORK/m.log" >&2; echo "check-slurm: $label failed" >&2; exit 1; }
      times+=("$(elapsed "$t")")
    done
    echo "check-slurm: sample pipeline, $label: $(printf '%s\n' "${times[@]}" | median) s (runs: ${times[*]})"
  }
  timed "make bundle"
  timed "ENGINE=slurm SHARDS=1" ENGINE=slurm SHARDS=1 SLURM_POLL=0.2
  if [ "$N" != 1 ]; then
    timed "make bundle SHARDS=$N" SHARDS="$N"
    timed "ENGINE=slurm SHARDS=$N" ENGINE=slurm SHARDS="$N" SLURM_POLL=0.2
  fi
  # SLURM_MEASURE_PIPELINE: the same on a build of real size (make bench passes its 1M pipeline),
  # once each, in SLURM_MEASURE_BUILD (default: beside the cluster's state): make -j$(nproc)
  # SHARDS=N against ENGINE=slurm SHARDS=N, which must publish the same bundle byte for byte.
  if [ -n "${SLURM_MEASURE_PIPELINE:-}" ]; then
    big=${SLURM_MEASURE_BUILD:-$WORK/big}
    big_name=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1], encoding="utf-8"))["name"])' "$SLURM_MEASURE_PIPELINE") \
      || { echo "check-slurm: SLURM_MEASURE_PIPELINE=$SLURM_MEASURE_PIPELINE has no name" >&2; exit 1; }
    tasks=$((3 * N + 1))   # from an empty folder: inat, dedupe and wiki arrays of N tasks each, and the publish job
    for engine in make slurm; do
      rm -rf "$big/$engine"; t=$(now)
      # A clean make, whatever make started this script (as make bench's own builds are run).
      if [ "$engine" = make ]; then
        env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -j"$(nproc)" bundle SKIP_TOOLS=1 BIN="$BIN" BUILD="$big/$engine" PIPELINE="$SLURM_MEASURE_PIPELINE" SHARDS="$N" >"$big.$engine.log" 2>&1
      else
        env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory bundle SKIP_TOOLS=1 BIN="$BIN" BUILD="$big/$engine" PIPELINE="$SLURM_MEASURE_PIPELINE" SHARDS="$N" ENGINE=slurm SLURM_POLL=0.2 >"$big.$engine.log" 2>&1
      fi || { tail -n 30 "$big.$engine.log" >&2; echo "check-slurm: the $SLURM_MEASURE_PIPELINE build under $engine failed (log: $big.$engine.log)" >&2; exit 1; }
      elapsed "$t" >"$WORK/big-$engine"
    done
    [ -f "$big/make/$big_name/bundle/manifest.json" ] || { echo "check-slurm: the build under make published no bundle in $big/make/$big_name/bundle" >&2; exit 1; }
    problem=$(bundle_difference "$big/make/$big_name/bundle" "$big/slurm/$big_name/bundle")
    [ -z "$problem" ] || { echo "check-slurm: ENGINE=slurm for $SLURM_MEASURE_PIPELINE: $problem" >&2; exit 1; }
    make_s=$(cat "$WORK/big-make") slurm_s=$(cat "$WORK/big-slurm")
    echo "check-slurm: $SLURM_MEASURE_PIPELINE, SHARDS=$N ($tasks Slurm tasks: 3 arrays of $N and the publish job), one run each, make first: make -j$(nproc) $make_s s, ENGINE=slurm $slurm_s s, the same bundle byte for byte; $(awk -v s="$slurm_s" -v m="$make_s" -v k="$tasks" 'BEGIN { printf "%+.2f s per task, %+.1f%% of the build", (s - m) / k, (s - m) / m * 100 }')"
    rm -rf "$big" "$big".*.log
  fi
  exit 0
fi

# --- The reference, and the sharded build under Slurm ---------------------------------------
REF="$WORK/ref"
t0=$SECONDS
bundle "$REF" || { cat "$REF.log" >&2; fail "the unsharded make bundle failed"; exit 1; }
make_seconds=$((SECONDS - t0))

B="$WORK/slurm"
t0=$SECONDS
if slurm_bundle "$B" SLURM_PARTITION=local SLURM_TIME=10 SBATCH_OPTIONS="--comment=check-slurm --nice=1"; then
  pass "make bundle ENGINE=slurm SHARDS=$N exits 0 ($((SECONDS - t0)) s; make alone: $make_seconds s)"
  # The sbatch options from make's variables reached every job.
  wrong=$(scontrol -o show job 2>/dev/null | grep -v ' Partition=local ' | grep -c . )
  for field in ' TimeLimit=00:10:00 ' ' Comment=check-slurm ' ' Nice=1 '; do
    wrong=$((wrong + $(scontrol -o show job 2>/dev/null | grep -vc -- "$field")))
  done
  if [ "$(scontrol -o show job 2>/dev/null | grep -c .)" -gt 0 ] && [ "$wrong" = 0 ]; then
    pass "SLURM_PARTITION, SLURM_TIME and SBATCH_OPTIONS reach every job"
  else
    fail "$wrong job fields differ from the partition, time limit, comment and nice asked for: $(scontrol -o show job | head -c 600)"
  fi
  same_bundle "$B" "ENGINE=slurm SHARDS=$N"
  # Every task submitted (as the engine reported: "<stage>: shards 0,1,2,3 of N as array job …")
  # left its log; from an empty folder, ingest and dedupe submit all N shards.
  missing="" all=$(seq -s, 0 $((N - 1)))
  for stage in inat dedupe wiki; do
    shards=$(submitted "$B.log" "$stage")
    case $stage in inat|dedupe) [ "$shards" = ",$all," ] || fail "$stage submitted shards '$shards', not $all" ;; esac
    for i in ${shards//,/ }; do [ -s "$B/sample/slurm/$stage-$i.log" ] || missing+=" $stage-$i.log"; done
  done
  [ -s "$B/sample/slurm/publish.log" ] || missing+=" publish.log"
  if [ -z "$missing" ]; then pass "every task submitted left its log at slurm/<stage>-<index>.log"; else fail "task logs missing:$missing"; fi
  # A task's log names its job as the engine does (ARRAYJOB_INDEX), not by the task's own job id.
  inat_job=$(array_job "$B.log" inat)
  says "$B/sample/slurm/inat-1.log" "(job ${inat_job}_1)" "a task's log names its job as the engine does"
else
  fail "make bundle ENGINE=slurm SHARDS=$N failed:"; sed 's/^/    /' "$B.log" >&2
fi

# --- One task killed: the build fails naming it; the rerun reruns only it -------------------
F="$WORK/fail"
if slurm_bundle "$F" SLURM_KILL_TASK="$KILL"; then
  fail "the build with $KILL killed exited 0"
else
  says "$F.log" "FAILED: $KILL_STAGE shard $KILL_INDEX of $N: killed by signal 9 (KILL)" "a killed task fails the build naming its stage, shard and signal"
  says "$F.log" "log: $F/sample/slurm/$KILL.log" "the failure names the task's log"
  # The pending tasks cancelled after the kill are one record with Slurm's NO_VAL task id
  # (4294967294), which was named as a shard: the shards never started are the submitted ones
  # no other record lists.
  if grep -q "4294967" "$F.log"; then fail "a shard is named by Slurm's NO_VAL task id: $(grep 4294967 "$F.log")"
  else pass "no shard is named by Slurm's NO_VAL task id"; fi
  if [ -e "$F/sample/bundle" ]; then fail "a bundle was published although $KILL was killed"; else pass "no bundle published after a killed task"; fi
fi
# Logs of the shards that succeeded, to see that the rerun leaves them alone (those not started
# when the kill was seen were cancelled: they have none).
before=$(cd "$F/sample/slurm" && for f in "$KILL_STAGE"-*.log; do [ "$f" = "$KILL.log" ] || stat -c '%n %Y %s' "$f"; done)
finished=$(cd "$F/sample/slurm" && for f in "$KILL_STAGE"-*.log; do [ "$f" = "$KILL.log" ] || { f=${f#"$KILL_STAGE"-}; echo "${f%.log}"; }; done)
sleep 1   # a rewritten log would show a newer whole-second mtime
if slurm_bundle "$F"; then
  pass "the rerun exits 0"
  resubmitted=$(submitted "$F.log" "$KILL_STAGE")
  again=""; for i in $finished; do [[ "$resubmitted" == *",$i,"* ]] && again+=" $i"; done
  if [[ "$resubmitted" == *",$KILL_INDEX,"* ]] && [ -z "$again" ]; then
    pass "the rerun submits the killed shard of $KILL_STAGE and those never started, none that finished"
  else
    fail "the rerun submitted $KILL_STAGE shards '$resubmitted' (finished before:$(echo $finished))"
  fi
  for stage in inat dedupe wiki; do
    [ "$stage" = "$KILL_STAGE" ] && break
    says "$F.log" "$stage: up to date ($N of $N shards), nothing submitted" "the rerun submits nothing for $stage"
  done
  after=$(cd "$F/sample/slurm" && for i in $finished; do stat -c '%n %Y %s' "$KILL_STAGE-$i.log"; done)
  if [ "$before" = "$after" ]; then pass "the rerun left the other $KILL_STAGE shards' logs alone"; else fail "the rerun rewrote other $KILL_STAGE logs: $before / $after"; fi
  same_bundle "$F" "the rerun after a killed task"
else
  fail "the rerun failed:"; sed 's/^/    /' "$F.log" >&2
fi
if slurm_bundle "$F"; then
  says "$F.log" "the bundle is up to date" "a third run submits nothing"
else
  fail "the third run failed:"; sed 's/^/    /' "$F.log" >&2
fi
# An up-to-date build needs no Slurm (it failed on a machine without sbatch): a PATH holding
# every tool of this machine but Slurm's.
plain="$WORK/no-slurm-path"
mkdir -p "$plain"
for dir in /usr/local/bin /usr/bin /bin; do
  for tool in "$dir"/*; do
    name=${tool##*/}
    case $name in sbatch|squeue|scontrol|scancel|sacct|sinfo|srun|salloc|sbcast|sattach|sstat|sprio|sshare|sdiag|sreport|sacctmgr|strigger|sview|scrontab) continue ;; esac
    [ -e "$plain/$name" ] || ln -s "$tool" "$plain/$name"
  done
done
if PATH="$plain" slurm_bundle "$F"; then
  says "$F.log" "the bundle is up to date" "an up-to-date build needs no Slurm tools on PATH"
else
  fail "an up-to-date build without the Slurm tools on PATH failed: $(tail -n 2 "$F.log")"
fi

# --- A task failing while another of its array still runs is reported then; the jobs after it
# are cancelled at once, the running one finishes (its work kept), and the rerun submits only the
# failed shard (the failure was reported only when the whole array had ended) -----------------
S="$WORK/slow"
if slurm_bundle "$S" SLURM_KILL_TASK=inat-1 SLURM_SLOW_TASK=inat-0:15; then
  fail "the build with inat-1 killed exited 0"
else
  says "$S.log" "FAILED: inat shard 1 of $N: killed by signal 9 (KILL)" "a task that fails beside a running one fails the build"
  says "$S.log" "inat: waiting for its other tasks still running to end" "the failure is reported while its stage's other task still runs"
  if [ "$(grep -c 'FAILED: inat shard 1 of' "$S.log")" = 1 ]; then pass "the failed task is reported once"; else fail "inat-1 reported $(grep -c 'FAILED: inat shard 1 of' "$S.log") times"; fi
  [ -z "$(squeue -h -o %i)" ] && pass "the run leaves no job behind" || fail "jobs left behind: $(squeue -h -o %i | tr '\n' ' ')"
  says "$S/sample/slurm/inat-0.log" "SLURM_SLOW_TASK=inat-0:15: waiting" "the task left running had started"
  if slurm_bundle "$S"; then
    # The failed shard again, and any not started then (cancelled); never the one left running.
    rerun=$(submitted "$S.log" inat)
    if [[ "$rerun" == *,1,* && "$rerun" != *,0,* ]]; then pass "the rerun submits the failed shard, not the one left running (its work kept)"
    else fail "the rerun submitted inat shards '$rerun'"; fi
  else
    fail "the rerun after a failed task failed:"; sed 's/^/    /' "$S.log" >&2
  fi
fi

# --- Own inputs (INAT=…): the pipeline file written once, before the tasks ---------------------
O="$WORK/own"
own() { slurm_bundle "$O" INAT=sample-data/inat WIKIPEDIA=sample-data/wiki NAME=own MAX_REJECT_RATE=0.2; }
if own && own; then
  says "$O.log" "the bundle is up to date" "with INAT=… the second run submits nothing (the tasks do not rewrite the pipeline file)"
else
  fail "make bundle INAT=… ENGINE=slurm failed:"; sed 's/^/    /' "$O.log" >&2
fi

# --- An earlier run's jobs still queued (its make killed by SIGKILL): a rerun refuses to submit
# beside them; jobs cancelled before they started are named as never started, with no log ------
E="$WORK/earlier"
# --begin holds every job pending, so the jobs are surely still queued when the rerun looks.
setsid make --no-print-directory bundle SKIP_TOOLS=1 BIN="$BIN" BUILD="$E" ENGINE=slurm SHARDS="$N" SLURM_POLL=0.2 \
  SBATCH_OPTIONS=--begin=now+600 >"$E.first.log" 2>&1 &
job=$!
for _ in $(seq 1 100); do grep -q 'publish (bundle' "$E.first.log" 2>/dev/null && break; sleep 0.1; done
kill -KILL -- "-$job" 2>/dev/null; wait "$job" 2>/dev/null
queued=$(squeue -h -o %i | LC_ALL=C sort)
if [ -z "$queued" ]; then
  fail "no job of the killed build is queued: $(tail -n 3 "$E.first.log")"
elif slurm_bundle "$E"; then
  fail "a rerun beside an earlier run's queued jobs exited 0"
else
  says "$E.log" "jobs of an earlier run of this build are still pending or running" "a rerun beside an earlier run's queued jobs refuses, naming them"
  if [ "$(squeue -h -o %i | LC_ALL=C sort)" = "$queued" ]; then pass "the refused rerun submitted nothing"; else fail "the refused rerun changed the queue: $queued / $(squeue -h -o %i)"; fi
fi
scancel $(squeue -h -o %A | sort -u) 2>/dev/null
for _ in $(seq 1 50); do [ -z "$(squeue -h -o %i)" ] && break; sleep 0.2; done
# The same, held, and the first array cancelled while pending: the waiting run reports it.
setsid make --no-print-directory bundle SKIP_TOOLS=1 BIN="$BIN" BUILD="$E.2" ENGINE=slurm SHARDS="$N" SLURM_POLL=0.2 \
  SBATCH_OPTIONS=--begin=now+600 >"$E.2.log" 2>&1 &
job=$!
for _ in $(seq 1 100); do grep -q 'publish (bundle' "$E.2.log" 2>/dev/null && break; sleep 0.1; done
first=$(array_job "$E.2.log" inat)
scancel "$first" 2>/dev/null
wait "$job"; status=$?
if [ "$status" = 0 ]; then fail "a build whose first array was cancelled while pending exited 0"
else
  says "$E.2.log" "FAILED: inat shards 0-$((N - 1)) of $N: never started, state CANCELLED" "tasks cancelled before they started are named as never started"
  if grep -q "log: .*inat-0-" "$E.2.log"; then fail "a log that does not exist is named: $(grep 'log: ' "$E.2.log")"; else pass "no log is named for tasks that never started"; fi
fi
scancel $(squeue -h -o %A | sort -u) 2>/dev/null
# The same with one shard: a one-task array's record carries its index, as a started task's does;
# an earlier run's log of that task (a rerun's) is not taken for its.
mkdir -p "$E.1/sample/slurm" && echo "slurm: an earlier run's log" >"$E.1/sample/slurm/inat-0.log"
setsid make --no-print-directory bundle SKIP_TOOLS=1 BIN="$BIN" BUILD="$E.1" ENGINE=slurm SHARDS=1 SLURM_POLL=0.2 \
  SBATCH_OPTIONS=--begin=now+600 >"$E.1.log" 2>&1 &
job=$!
for _ in $(seq 1 100); do grep -q 'publish (bundle' "$E.1.log" 2>/dev/null && break; sleep 0.1; done
scancel "$(array_job "$E.1.log" inat)" 2>/dev/null
wait "$job"
says "$E.1.log" "FAILED: inat shard 0 of 1: never started, state CANCELLED" "a one-task array cancelled before it started is named as never started"
if grep -q "log: .*inat-0.log" "$E.1.log"; then fail "a log that does not exist is named for a one-task array: $(grep 'log: ' "$E.1.log")"; fi
scancel $(squeue -h -o %A | sort -u) 2>/dev/null
# Bad SLURM_POLL is refused before anything is submitted (it was a loop of squeue calls).
if bundle "$E.3" ENGINE=slurm SHARDS="$N" SLURM_POLL=abc; then fail "SLURM_POLL=abc was taken"
else says "$E.3.log" "slurm: error: SLURM_POLL must be a number of seconds above 0, not 'abc'" "SLURM_POLL that is not a number of seconds is refused"
fi
if grep -q "not 'abc' 2" "$E.3.log"; then fail "the error ends with its exit status"; fi

# --- A build stopped by SIGTERM cancels its jobs -------------------------------------------
# interrupted FOLDER TO WHAT: a build stopped by SIGTERM, sent to its process group (TO=group, as
# make is when its terminal goes) or to make's own process alone (TO=make: a CI runner's timeout,
# Python's Popen.terminate; the inner make and the engine were children of a shell that died,
# and went on submitting and publishing, holding the folder's lock), cancels every job it
# submitted.
interrupted() {
  local folder=$1 to=$2 what=$3 job status left=""
  setsid make --no-print-directory bundle SKIP_TOOLS=1 BIN="$BIN" BUILD="$folder" ENGINE=slurm SHARDS="$N" SLURM_POLL=0.2 >"$folder.log" 2>&1 &
  job=$!
  for _ in $(seq 1 100); do grep -q 'publish (bundle' "$folder.log" 2>/dev/null && break; sleep 0.1; done
  if [ "$to" = group ]; then kill -TERM -- "-$job" 2>/dev/null; else kill -TERM "$job" 2>/dev/null; fi
  wait "$job"; status=$?
  for _ in $(seq 1 50); do left=$(squeue -h -o %i 2>/dev/null); [ -z "$left" ] && break; sleep 0.2; done
  if [ "$status" = 0 ]; then fail "$what exited 0 (did it finish first?): $(tail -n 2 "$folder.log")"
  elif [ -n "$left" ]; then fail "jobs left in the queue after $what: $left"
  else says "$folder.log" "interrupted: cancelling jobs" "$what cancels every job it submitted"
  fi
}
interrupted "$WORK/interrupted" group "a build stopped by SIGTERM"
I="$WORK/interrupted-make"
interrupted "$I" make "a build whose make alone got SIGTERM"
if flock --wait 5 "$I/sample/.make.lock" true; then
  pass "after SIGTERM to make alone nothing holds the build folder's lock"
else fail "after SIGTERM to make alone the build folder's lock is still held"; fi

echo "check-slurm: $passed passed, $failures failed in $((SECONDS - started)) s (SHARDS=$N)"
[ "$failures" = 0 ]
