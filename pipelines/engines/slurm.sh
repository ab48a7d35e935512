#!/usr/bin/env bash
# The Slurm engine of `make bundle SHARDS=N ENGINE=slurm` (issue 12): the sharded make rules run
# as Slurm job arrays, one array per sharded stage, each task building one make target
# (`shard-<stage>-<index>`), chained with --dependency=afterok, then one job for the single-writer
# steps (bundle, report, manifest, verify). The engine knows no stage command line: make does.
#
#   slurm.sh run OUT SHARDS -- MAKE-ARGUMENTS…   submit what is out of date, wait, report
#   slurm.sh task STAGE MAKE-ARGUMENTS…          inside a job: one shard (STAGE-$SLURM_ARRAY_TASK_ID),
#                                                or STAGE=publish: the single-writer steps
#
# `run` is started by the Makefile's pipeline-bundle rule (the tools are built by then), in the
# repository, with the make arguments every task gets (PIPELINE_NAME=…, SHARDS=N, SKIP_TOOLS=1,
# ENGINE= so that the publish job's make runs the steps itself…).
# For each stage it asks `make -n shard-<stage>-0 … shard-<stage>-<N-1>` which shards are out of
# date and submits only those (`--array=` a list; a stage with nothing to do submits nothing); a shard whose inputs an
# earlier stage will rebuild counts as out of date, so make's own rules decide. It waits, stage by
# stage, and exits 0 only when the bundle is published and verified (`make -q pipeline-bundle`
# holds afterwards). A failed task fails the run naming its stage, shard, exit status and log,
# `OUT/slurm/<stage>-<index>.log` (the publish job's: `OUT/slurm/publish.log`), and cancels the
# jobs behind it. An interrupt (INT, TERM, HUP) cancels every job this run submitted.
#
# Environment (the Makefile sets these from its variables of the same names):
#   SLURM_STAGES      the sharded stages, in order            (default: inat dedupe wiki)
#   SLURM_PARTITION   sbatch --partition                      (default: the cluster's)
#   SLURM_ACCOUNT     sbatch --account                        (default: the user's)
#   SLURM_TIME        sbatch --time, per task                 (default: the partition's)
#   SBATCH_OPTIONS    more sbatch options, split at spaces    (e.g. --mem=4G --qos=long)
#   SLURM_POLL        seconds between squeue polls            (default 2)
#   SLURM_KILL_TASK   a test hook: the task STAGE-INDEX (as wiki-1) kills itself with SIGKILL
#                     before it starts, as a node lost mid-run would
#   SLURM_SLOW_TASK   a test hook: STAGE-INDEX:SECONDS, that task waits so long before it starts
#
# The repository (tools, Makefile, pipeline inputs) and OUT must be on a filesystem every node
# shares, at the same path: tasks run `make -C <repository>` there.
set -uo pipefail

log() { printf 'slurm: %s\n' "$*" >&2; }
die() { printf 'slurm: error: %s\n' "$1" >&2; exit "${2:-1}"; }   # die MESSAGE [STATUS]

# The outer make's flags (a dry run, a jobserver's descriptors, its command-line variables) must
# not reach the makes this script starts: each gets exactly the arguments given here.
unset MAKEFLAGS MFLAGS GNUMAKEFLAGS MAKELEVEL

# --- Inside a job ------------------------------------------------------------------------------
cmd_task() {
  local stage=${1:?usage: slurm.sh task STAGE MAKE-ARGUMENTS…}; shift
  local target name
  if [ "$stage" = publish ]; then
    target=pipeline-bundle name=publish
  else
    local index=${SLURM_ARRAY_TASK_ID:?slurm.sh task $stage runs as a Slurm array task}
    target=shard-$stage-$index name=$stage-$index
    # The shard is named by make's target, which passes --shard I/N to the stage; the array's own
    # variables describe the array submitted (a rerun's --array=1,3 has SLURM_ARRAY_TASK_COUNT=2),
    # not the shard, so no stage may read them.
    unset SLURM_ARRAY_TASK_ID SLURM_ARRAY_TASK_COUNT SLURM_ARRAY_TASK_MIN SLURM_ARRAY_TASK_MAX SLURM_ARRAY_TASK_STEP
  fi
  # The job as the engine names it (an array task as ARRAYJOB_INDEX, which sacct and scancel take).
  local job=${SLURM_JOB_ID:-?}
  [ -n "${SLURM_ARRAY_JOB_ID:-}" ] && [ "$stage" != publish ] && job=${SLURM_ARRAY_JOB_ID}_$index
  printf 'slurm: %s on %s (job %s), make %s\n' "$name" "$(hostname -s)" "$job" "$target" >&2
  if [ -n "${SLURM_SLOW_TASK:-}" ] && [ "${SLURM_SLOW_TASK%%:*}" = "$name" ]; then
    printf 'slurm: %s: SLURM_SLOW_TASK=%s: waiting %s s first\n' "$name" "$SLURM_SLOW_TASK" "${SLURM_SLOW_TASK#*:}" >&2
    sleep "${SLURM_SLOW_TASK#*:}"
  fi
  if [ -n "${SLURM_KILL_TASK:-}" ] && [ "$SLURM_KILL_TASK" = "$name" ]; then
    printf 'slurm: %s: SLURM_KILL_TASK=%s: killing this task with SIGKILL\n' "$name" "$SLURM_KILL_TASK" >&2
    kill -KILL $$
  fi
  exec make --no-print-directory -C "$PWD" "$target" "$@"
}

# --- Submitting and waiting --------------------------------------------------------------------
OUT="" SHARDS="" SCRIPT="" NAME="" JOB_ID=""
MAKE_ARGS=()
SUBMITTED=()        # job ids, in submission order
SUBMITTED_WHAT=()   # the stage (or publish) of each
SUBMITTED_INDEXES=()  # the shards each array runs, "0 2 3"; empty for the publish job
declare -A REPORTED   # the failed tasks already reported, by JOB_INDEX

# up_to_date TARGET: make -q says TARGET and all it needs are up to date (0), or not (1).
up_to_date() {
  local status
  make --no-print-directory -q "$1" "${MAKE_ARGS[@]}" >/dev/null 2>"$OUT/slurm/.make-q.err"
  status=$?
  case $status in
    0) return 0 ;;
    1) return 1 ;;
    *) die "make -q $1 failed (status $status): $(head -c 600 "$OUT/slurm/.make-q.err")" ;;
  esac
}

# stale_shards STAGE: the shards of STAGE that make would build, as "0 2 3": one `make -n` of
# the N shard targets at once, whose command lines for the stage name their shard (--shard I/N).
# One make reads the N shards' rules and depfiles once; a `make -q` per shard read them N times
# (0.73 s a check at 1000 shards, 3 × N checks before anything was submitted).
stale_shards() {
  local stage=$1 i targets=() shards
  for ((i = 0; i < SHARDS; i++)); do targets+=("shard-$stage-$i"); done
  # Streamed: the wiki shards' command lines carry every dedupe part (tens of MB at 1000 shards).
  shards=$(make --no-print-directory -n "${targets[@]}" "${MAKE_ARGS[@]}" 2>"$OUT/slurm/.make-n.err" \
    | sed -n "s|.*fieldpack-$stage .* --shard \([0-9][0-9]*\)/$SHARDS\( .*\)\{0,1\}\$|\1|p" | sort -n -u) \
    || die "make -n shard-$stage-0…$((SHARDS - 1)) failed: $(head -c 600 "$OUT/slurm/.make-n.err")"
  # Nothing found to build: make itself must agree (a command line the pattern does not read —
  # another tool name, a recipe split over lines — would be taken for up to date).
  if [ -z "$shards" ] && ! make --no-print-directory -q "${targets[@]}" "${MAKE_ARGS[@]}" >/dev/null 2>&1; then
    die "make says shards of $stage are out of date, but its plan (make -n) names none of their command lines (fieldpack-$stage … --shard I/$SHARDS)"
  fi
  echo $shards
}

# sbatch_site_options: the site's options from the make variables, one word each.
sbatch_site_options() {
  SITE_OPTIONS=()
  [ -n "${SLURM_PARTITION:-}" ] && SITE_OPTIONS+=("--partition=$SLURM_PARTITION")
  [ -n "${SLURM_ACCOUNT:-}" ] && SITE_OPTIONS+=("--account=$SLURM_ACCOUNT")
  [ -n "${SLURM_TIME:-}" ] && SITE_OPTIONS+=("--time=$SLURM_TIME")
  # shellcheck disable=SC2206  # SBATCH_OPTIONS is a list of options split at spaces, on purpose
  [ -n "${SBATCH_OPTIONS:-}" ] && SITE_OPTIONS+=($SBATCH_OPTIONS)
  return 0
}

# submit WHAT "INDEXES" DEPENDENCY: one sbatch (an array of INDEXES, or a single job when INDEXES
# is empty), after job DEPENDENCY if given; sets JOB_ID and records the job.
submit() {
  local what=$1 indexes=$2 dependency=$3
  local args=(--parsable --job-name="fieldpack-$NAME-$what" --chdir="$PWD" --kill-on-invalid-dep=yes) index
  # An earlier run's logs of these tasks go: a task that never starts writes none, and an old
  # one would be taken for its (a task cancelled while pending is told by its missing log).
  if [ -n "$indexes" ]; then for index in $indexes; do rm -f "$OUT/slurm/$what-$index.log"; done
  else rm -f "$OUT/slurm/$what.log"; fi
  if [ -n "$indexes" ]; then
    args+=(--array="${indexes// /,}" --output="$OUT/slurm/$what-%a.log")
  else
    args+=(--output="$OUT/slurm/$what.log")
  fi
  [ -n "$dependency" ] && args+=(--dependency="afterok:$dependency")
  args+=("${SITE_OPTIONS[@]}")
  if ! JOB_ID=$(sbatch "${args[@]}" "$SCRIPT" task "$what" "${MAKE_ARGS[@]}" 2>"$OUT/slurm/.sbatch.err"); then
    log "error: sbatch ${args[*]} failed: $(cat "$OUT/slurm/.sbatch.err")"
    cancel_all
    exit 1
  fi
  JOB_ID=${JOB_ID%%;*}   # --parsable prints "id" or "id;cluster"
  SUBMITTED+=("$JOB_ID") SUBMITTED_WHAT+=("$what") SUBMITTED_INDEXES+=("$indexes")
}

cancel_all() {
  [ ${#SUBMITTED[@]} -gt 0 ] || return 0
  scancel "${SUBMITTED[@]}" 2>/dev/null || true
}

# cancel_after K: the jobs submitted after job K (the stages after it, the publish job).
cancel_after() {
  local later=("${SUBMITTED[@]:$(($1 + 1))}")
  [ ${#later[@]} -gt 0 ] || return 0
  scancel "${later[@]}" 2>/dev/null || true
}

on_signal() {
  log "interrupted: cancelling jobs ${SUBMITTED[*]:-(none)}"
  cancel_all
  exit 130
}

# The states in which a job or task has ended, for good (any other: it may still run, held,
# requeued or stopped as it may be).
ENDED='^(COMPLETED|CANCELLED|FAILED|TIMEOUT|NODE_FAIL|PREEMPTED|BOOT_FAIL|DEADLINE|OUT_OF_MEMORY|REVOKED)$'

# earlier_jobs: the ids of this user's jobs still pending or running whose logs go to this build
# folder: an earlier run's, whose make was killed (kill -9, a lost CI runner) before it could
# cancel them. A run submitted beside them would build the same shards twice at once.
earlier_jobs() {
  # Every state a job may still run from (a requeued or held one too); not one that ended, nor
  # one completing (a run that failed cancels its jobs as it ends, and the rerun right after it
  # need not wait for their clean-up).
  squeue -h -r -u "$(id -un)" -t all -O "JobID:30,State:20,StdOut:4096" 2>/dev/null \
    | awk -v dir="$OUT/slurm/" -v ended="$ENDED" '
        { id = $1; state = $2; sub(/^[^ ]+ +[^ ]+ +/, "") }
        state ~ ended || state == "COMPLETING" { next }
        index($0, dir) == 1 { sub(/_.*/, "", id); print id }' \
    | sort -u | tr '\n' ' '
}

# has_failed_task ID: a task of job ID has ended otherwise than COMPLETED with exit code 0, while
# others may still run: the failure is reported then, not when the whole array has ended.
has_failed_task() {
  job_states "$1" | awk -v ended="$ENDED" '$2 ~ ended && !($2 == "COMPLETED" && $3 ~ /^0(:|$)/) { failed = 1 } END { exit !failed }'
}

# still_queued ID: any task of job ID is pending or running. A job slurmctld no longer knows is done.
still_queued() { [ -n "$(squeue -h -j "$1" -o %i 2>/dev/null)" ]; }

# job_states ID: "index state exit" per task of job ID (index "-" for a single job). From
# slurmctld (scontrol, which keeps finished jobs for MinJobAge, 300 s by default), else from the
# accounting database (sacct) where the cluster keeps one.
job_states() {
  local id=$1 line index state code
  local lines
  lines=$(scontrol -o show job "$id" 2>/dev/null) || lines=""
  if [ -n "$lines" ]; then
    # One awk for every task's line (a process or three per task was thousands a poll).
    awk '{ index_ = "-"; state = "UNKNOWN"; code = "?"
           for (i = 1; i <= NF; i++) {
             if ($i ~ /^ArrayTaskId=/) index_ = substr($i, 13)
             else if ($i ~ /^JobState=/) state = substr($i, 10)
             else if ($i ~ /^ExitCode=/) code = substr($i, 10)
           }
           print index_, state, code }' <<<"$lines"
    return
  fi
  sacct -n -X -P -j "$id" -o JobID,State,ExitCode 2>/dev/null | while IFS='|' read -r line state code; do
    index=${line#*_}; [ "$index" = "$line" ] && index=-
    echo "$index ${state%% *} $code"
  done
}

# describe EXIT: Slurm's "code:signal" in words.
describe() {
  local code=${1%%:*} signal=${1#*:}
  if [ "$1" = "?" ] || [ -z "$1" ]; then echo "exit status unknown"
  elif [ "$signal" != "$1" ] && [ "$signal" != 0 ]; then echo "killed by signal $signal ($(kill -l "$signal" 2>/dev/null || echo ?))"
  else echo "exit code $code"
  fi
}

# check_job K [running]: every task of job K (SUBMITTED[K]) must have COMPLETED with exit code 0.
# Prints each failed task once: stage, shard, exit status, log. With "running" (asked while the
# job is still queued, a task of it having failed), tasks not ended yet are passed over.
check_job() {
  local id=${SUBMITTED[$1]} what=${SUBMITTED_WHAT[$1]} indexes=${SUBMITTED_INDEXES[$1]} running=${2:-}
  local failed=0 seen=0 index state code task records listed=" " missing
  records=$(job_states "$id")
  while read -r index state code; do [[ "$index" =~ ^[0-9]+$ ]] && listed+="$index "; done <<<"$records"
  while read -r index state code; do
    [ -n "$index" ] || continue
    seen=1
    [ "$state" = COMPLETED ] && [ "${code%%:*}" = 0 ] && continue
    # Asked while the job still runs (a task of it failed): one not ended is no failure yet.
    [ -n "$running" ] && ! [[ "$state" =~ $ENDED ]] && continue
    failed=1
    # Each failed task is reported once (the job is looked at again after its other tasks end).
    [ -n "${REPORTED[${id}_$index]:-}" ] && continue
    REPORTED[${id}_$index]=1
    if [ "$index" = 4294967294 ] || [ "$index" = 4294967295 ]; then
      # Slurm's NO_VAL for the task id: the array's pending remainder, cancelled as one record
      # (Slurm 22.05 after scancel -t PENDING). Its shards are those submitted and not listed.
      missing=""
      for task in $indexes; do [[ "$listed" == *" $task "* ]] || missing+="${missing:+,}$task"; done
      log "FAILED: $what shards ${missing:-?} of $SHARDS: never started, state $state (job $id)"
      continue
    fi
    if [ "$index" != - ] && ! [[ "$index" =~ ^[0-9]+$ ]]; then
      # Tasks that never started (cancelled while pending: an array's pending tasks are one
      # record, ArrayTaskId=0-2 or [1,3%4]): no exit status, no log.
      log "FAILED: $what shards ${index//[\[\]]/} of $SHARDS: never started, state $state (job ${id}_$index)"
      continue
    fi
    if [ "$index" != - ] && [ ! -e "$OUT/slurm/$what-$index.log" ]; then
      # One task that never started (a one-task array, as a rerun's --array=2): Slurm writes
      # a task's log as the task starts.
      log "FAILED: $what shard $index of $SHARDS: never started, state $state (job ${id}_$index)"
      continue
    fi
    task=$id; [ "$index" != - ] && task=${id}_$index
    report_failure "$what" "$index" "$(describe "$code"), state $state (job $task)"
  done <<<"$records"
  [ "$seen" = 1 ] && return "$failed"
  # slurmctld has forgotten the job (MinJobAge) and no accounting keeps it: make judges.
  if [ -z "$indexes" ]; then
    up_to_date pipeline-bundle && return 0
    report_failure "$what" - "state unknown (job $id is gone from slurmctld), and the bundle is not up to date"
    return 1
  fi
  for index in $indexes; do
    up_to_date "shard-$what-$index" && continue
    failed=1
    report_failure "$what" "$index" "state unknown (job ${id}_$index is gone from slurmctld), and its outputs are missing"
  done
  return "$failed"
}

# report_failure STAGE INDEX WHY: one line naming the task and its log, then the log's last lines.
report_failure() {
  local what=$1 index=$2 why=$3 logfile shard
  if [ "$index" = - ]; then logfile=$OUT/slurm/$what.log shard="the $what job"
  else logfile=$OUT/slurm/$what-$index.log shard="$what shard $index of $SHARDS"
  fi
  log "FAILED: $shard: $why; log: $logfile"
  if [ -s "$logfile" ]; then tail -n 5 "$logfile" | sed 's/^/slurm:   | /' >&2; fi
}

cmd_run() {
  OUT=${1:?usage: slurm.sh run OUT SHARDS -- MAKE-ARGUMENTS…} SHARDS=${2:?usage: slurm.sh run OUT SHARDS -- MAKE-ARGUMENTS…}
  shift 2; [ "${1:-}" = -- ] && shift
  MAKE_ARGS=("$@")
  [[ "$SHARDS" =~ ^[1-9][0-9]*$ ]] || die "SHARDS must be a whole number ≥ 1, not '$SHARDS'" 2
  SCRIPT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
  NAME=$(basename "$OUT")
  mkdir -p "$OUT/slurm" || die "cannot make $OUT/slurm"
  OUT=$(cd "$OUT" && pwd)
  sbatch_site_options
  trap on_signal INT TERM HUP
  local poll=${SLURM_POLL:-2} stage i todo last="" t0=$SECONDS earlier
  # A word sleep cannot read, or 0, made the wait a loop of squeue calls without pause.
  [[ "$poll" =~ ^[0-9]*[.]?[0-9]+$ ]] && awk -v p="$poll" 'BEGIN { exit !(p > 0) }' \
    || die "SLURM_POLL must be a number of seconds above 0, not '$poll'" 2

  # What is out of date, stage by stage (make alone says: an up-to-date build needs no Slurm).
  local stages=(${SLURM_STAGES:-inat dedupe wiki}) todos=() any=""
  for stage in "${stages[@]}"; do
    todo=$(stale_shards "$stage") || exit $?
    todos+=("$todo") any+=$todo
  done
  if [ -z "$any" ] && up_to_date pipeline-bundle; then
    for stage in "${stages[@]}"; do log "$stage: up to date ($SHARDS of $SHARDS shards), nothing submitted"; done
    log "the bundle is up to date: $OUT/bundle"
    return 0
  fi
  local tool
  for tool in sbatch squeue scontrol scancel; do
    command -v "$tool" >/dev/null || die "ENGINE=slurm needs the Slurm client tools on PATH ($tool is missing; Debian: slurm-client)" 2
  done
  earlier=$(earlier_jobs)
  [ -z "$earlier" ] || die "jobs of an earlier run of this build are still pending or running (${earlier% }): wait for them to end, or scancel them, then run make again"

  # Submit every stage's out-of-date shards up front, each array after the one before it, so
  # Slurm starts a stage as soon as the last needs are met, whatever this script is doing.
  for i in "${!stages[@]}"; do
    stage=${stages[$i]} todo=${todos[$i]}
    if [ -z "$todo" ]; then log "$stage: up to date ($SHARDS of $SHARDS shards), nothing submitted"; continue; fi
    submit "$stage" "$todo" "$last"
    log "$stage: shards ${todo// /,} of $SHARDS as array job $JOB_ID${last:+ (after $last)}; logs $OUT/slurm/$stage-<index>.log"
    last=$JOB_ID
  done
  submit publish "" "$last"
  log "publish (bundle, report, manifest, verify) as job $JOB_ID${last:+ (after $last)}; log $OUT/slurm/publish.log"

  # Wait for each job in order; the first that failed fails the run and cancels the rest.
  local k
  for ((k = 0; k < ${#SUBMITTED[@]}; k++)); do
    while still_queued "${SUBMITTED[$k]}" && ! has_failed_task "${SUBMITTED[$k]}"; do sleep "$poll"; done
    if ! check_job "$k" "$(still_queued "${SUBMITTED[$k]}" && echo running)"; then
      # Reported as soon as seen; what comes after can never run, and goes now, and so do the
      # stage's tasks not started yet. Those still running finish (their outputs are kept for
      # the rerun), then the run ends: it leaves no job behind for the rerun to find.
      cancel_after "$k"
      scancel -t PENDING "${SUBMITTED[$k]}" 2>/dev/null || true
      if still_queued "${SUBMITTED[$k]}"; then
        log "${SUBMITTED_WHAT[$k]}: waiting for its other tasks still running to end, so that a rerun keeps their work (Ctrl-C cancels them)"
        while still_queued "${SUBMITTED[$k]}"; do sleep "$poll"; done
      fi
      check_job "$k"   # a failure among them too, and the tasks cancelled before they started, reported
      die "${SUBMITTED_WHAT[$k]} failed after $((SECONDS - t0)) s; the jobs after it are cancelled. Rerun the same make command: it resubmits only what is missing."
    fi
  done
  # Published and verified, as make sees it (the verified stamp is newer than all it checks).
  up_to_date pipeline-bundle || die "the publish job ended, yet make says the bundle is not up to date; see $OUT/slurm/publish.log"
  log "bundle published and verified in $((SECONDS - t0)) s: $OUT/bundle"
}

case "${1:-}" in
  run) shift; cmd_run "$@" ;;
  task) shift; cmd_task "$@" ;;
  *) sed -n '2,31p' "${BASH_SOURCE[0]}" >&2; exit 2 ;;
esac
