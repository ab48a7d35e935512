#!/bin/bash
# The Slurm engine on a real one-node cluster (`make test`; issue 12):
#
#   Tests/Slurm/check-slurm.sh [BIN]     (BIN: the folder of the built tools, default .build/release)
#
# 1. Brings up a throw-away cluster with the team's slurm-local.sh (SLURM_LOCAL: its path; by
#    default ../shared/tools/slurm-local.sh beside the repository, else /work/shared/tools/…), on a
#    free port, its state in a temp folder; installs the Slurm packages first when they are missing.
# 2. `make bundle ENGINE=slurm SHARDS=4` on the sample pipeline: every bundle file equals an
#    unsharded `make bundle`'s byte for byte, and each task left its log at slurm/<stage>-<i>.log.
# 3. The same into a fresh folder with one task killed by SIGKILL as it starts (SLURM_KILL_TASK,
#    default wiki-1): make fails naming that stage, shard, the signal and the log path, and
#    publishes no bundle. The rerun submits only that shard (and the publish job), leaves the other
#    shards' logs alone, and gives the same bundle; a third run submits nothing.
# 4. Tears the cluster down, whatever happened (a trap).
#
# Skipped, saying why, when not root or when the packages cannot be installed; but with CI=true a
# cluster that does not come up fails the check. SLURM_CHECK_SHARDS (4) is N.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
BIN="$(cd "${1:-.build/release}" && pwd)" || { echo "check-slurm: no tools folder ${1:-.build/release}" >&2; exit 1; }
N=${SLURM_CHECK_SHARDS:-4}
KILL=${SLURM_CHECK_KILL:-wiki-$((N > 1 ? 1 : 0))}
KILL_STAGE=${KILL%-*} KILL_INDEX=${KILL##*-}
SLURM_LOCAL=${SLURM_LOCAL:-$(for f in ../shared/tools/slurm-local.sh /work/shared/tools/slurm-local.sh; do [ -f "$f" ] && { cd "$(dirname "$f")" && echo "$PWD/slurm-local.sh"; } && break; done)}

skip() {
  if [ "${CI:-}" = true ] && [ "$(id -u)" = 0 ]; then echo "check-slurm: FAIL: $* (CI=true: the Slurm check must run)" >&2; exit 1; fi
  echo "check-slurm: skipped: $*"
  exit 0
}
[ "$(id -u)" = 0 ] || skip "not root (the one-node cluster runs its daemons as root)"
[ -n "$SLURM_LOCAL" ] && [ -f "$SLURM_LOCAL" ] || skip "no slurm-local.sh (give SLURM_LOCAL=path/to/slurm-local.sh)"

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
# same_bundle BUILD WHAT: BUILD's bundle has exactly the reference's files, byte for byte.
same_bundle() {
  local f name differ=""
  [ -d "$1/sample/bundle" ] || { fail "$2: no bundle at $1/sample/bundle"; return; }
  if [ "$(cd "$REF/sample/bundle" && ls | LC_ALL=C sort)" != "$(cd "$1/sample/bundle" && ls | LC_ALL=C sort)" ]; then
    fail "$2: the bundle's files differ from make's: $(ls "$1/sample/bundle" | tr '\n' ' ')"; return
  fi
  for f in "$REF"/sample/bundle/*; do
    name=$(basename "$f")
    cmp -s "$f" "$1/sample/bundle/$name" || differ+=" $name"
  done
  if [ -n "$differ" ]; then fail "$2: differs from the unsharded bundle in:$differ"; else pass "$2: byte-identical to the unsharded bundle ($(ls "$1/sample/bundle" | wc -l) files)"; fi
}
# says LOG TEXT WHAT: the make output LOG contains TEXT.
says() { if grep -qF -- "$2" "$1"; then pass "$3"; else fail "$3: no '$2' in its output:"; sed 's/^/    /' "$1" >&2; fi; }

# --- The reference, and the sharded build under Slurm ---------------------------------------
REF="$WORK/ref"
t0=$SECONDS
bundle "$REF" || { cat "$REF.log" >&2; fail "the unsharded make bundle failed"; exit 1; }
make_seconds=$((SECONDS - t0))

B="$WORK/slurm"
t0=$SECONDS
if slurm_bundle "$B"; then
  pass "make bundle ENGINE=slurm SHARDS=$N exits 0 ($((SECONDS - t0)) s; make alone: $make_seconds s)"
  same_bundle "$B" "ENGINE=slurm SHARDS=$N"
  missing=""
  for stage in inat dedupe wiki; do
    for ((i = 0; i < N; i++)); do [ -s "$B/sample/slurm/$stage-$i.log" ] || missing+=" $stage-$i.log"; done
  done
  [ -s "$B/sample/slurm/publish.log" ] || missing+=" publish.log"
  if [ -z "$missing" ]; then pass "every task's log is at slurm/<stage>-<index>.log"; else fail "task logs missing:$missing"; fi
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
  [ -e "$F/sample/bundle" ] && fail "a bundle was published although $KILL was killed" || pass "no bundle published after a killed task"
fi
# Logs of the shards that succeeded, to see that the rerun leaves them alone.
before=$(cd "$F/sample/slurm" && for f in "$KILL_STAGE"-*.log; do [ "$f" = "$KILL.log" ] || stat -c '%n %Y %s' "$f"; done)
sleep 1   # a rewritten log would show a newer whole-second mtime
if slurm_bundle "$F"; then
  pass "the rerun exits 0"
  says "$F.log" "$KILL_STAGE: shards $KILL_INDEX of $N as array job" "the rerun submits only the killed shard of $KILL_STAGE"
  for stage in inat dedupe wiki; do
    [ "$stage" = "$KILL_STAGE" ] && break
    says "$F.log" "$stage: up to date ($N of $N shards), nothing submitted" "the rerun submits nothing for $stage"
  done
  after=$(cd "$F/sample/slurm" && for f in "$KILL_STAGE"-*.log; do [ "$f" = "$KILL.log" ] || stat -c '%n %Y %s' "$f"; done)
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

echo "check-slurm: $passed passed, $failures failed in $((SECONDS - started)) s (SHARDS=$N)"
[ "$failures" = 0 ]
