# Sourced by run-bench.sh and opendata.sh: the baselines' virtual environment, one definition.
# bench_venv PREFIX: makes $BENCH_DIR/venv from Tests/Bench/requirements.txt unless it already
# holds exactly those requirements; sets $venv and $py. PREFIX names the caller in messages;
# `fail` is the caller's.
bench_venv() {
  venv="$BENCH_DIR/venv"
  py="$venv/bin/python"
  if ! cmp -s "$here/requirements.txt" "$venv/requirements.txt"; then
    echo "$1: installing the baselines into $venv (Tests/Bench/requirements.txt)" >&2
    rm -rf "$venv"
    python3 -m venv "$venv" || fail "python3 -m venv $venv failed"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt" >&2 \
      || fail "pip could not install the baselines (Tests/Bench/requirements.txt) into $venv"
    cp "$here/requirements.txt" "$venv/requirements.txt"
  fi
}
