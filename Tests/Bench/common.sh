# Sourced by run-bench.sh and opendata.sh (after they set $here, $logs and $BENCH_DIR, and define
# `fail`): what both need, one definition each. $bench_tool names the caller in messages.

# measure NAME COMMAND...: runs COMMAND with its stderr in $logs/NAME.log, prints the tool's own
# summary line, and records "wall_s peak_rss_kib user_s system_s" in $logs/NAME.time. Stops the
# benchmark, showing the log, if the command fails: a baseline that cannot run is never skipped.
measure() {
  local name=$1
  shift
  echo "== $name: $*" >&2
  if ! /usr/bin/time -f "%e %M %U %S" -o "$logs/$name.time" "$@" >"$logs/$name.out" 2>"$logs/$name.log"; then
    echo "$bench_tool: $name failed; its stderr ($logs/$name.log):" >&2
    tail -n 30 "$logs/$name.log" >&2
    exit 1
  fi
  tail -n 1 "$logs/$name.log" >&2
}

# The baselines' virtual environment and its python (bench_venv makes it).
venv="$BENCH_DIR/venv"
py="$venv/bin/python"

# bench_venv: makes $venv from Tests/Bench/requirements.txt unless it already holds exactly those
# requirements.
bench_venv() {
  if ! cmp -s "$here/requirements.txt" "$venv/requirements.txt"; then
    echo "$bench_tool: installing the baselines into $venv (Tests/Bench/requirements.txt)" >&2
    rm -rf "$venv"
    python3 -m venv "$venv" || fail "python3 -m venv $venv failed"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt" >&2 \
      || fail "pip could not install the baselines (Tests/Bench/requirements.txt) into $venv"
    cp "$here/requirements.txt" "$venv/requirements.txt"
  fi
}
