#!/usr/bin/env bash
# Judges fieldpack-sanitize with the shared hostile-HTML oracle (run by `make test`):
#   1. the shared corpus, ../shared/corpus/xss/vectors.jsonl (284 vectors, all must pass);
#   2. fieldpack's own vectors (Tests/Sanitizer/extra-vectors.py): the kinds the private
#      acceptance set holds, and libxml2's known differentials.
# Usage: Tests/Sanitizer/run-oracle.sh BIN CORPUS_DIR
# The oracle needs html5lib importable by /usr/bin/python3 (Debian's python3-html5lib).
set -euo pipefail
bin=$1
corpus=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=/usr/bin/python3
if [[ ! -f $corpus/oracle.py || ! -f $corpus/vectors.jsonl ]]; then
  # A clone without the shared folder beside it cannot judge the sanitizer; say so loudly
  # rather than fail every other test with it.
  echo "run-oracle: WARNING: no hostile-HTML corpus at $corpus (set XSS_CORPUS=DIR); the sanitizer was NOT judged" >&2
  exit 0
fi
if ! $python -c 'import html5lib' 2>/dev/null; then
  echo "run-oracle: $python cannot import html5lib; run: apt-get install -y python3-html5lib" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
$python "$here/extra-vectors.py" >"$work/extra-vectors.jsonl"
status=0
for vectors in "$corpus/vectors.jsonl" "$work/extra-vectors.jsonl"; do
  name=$(basename "$vectors" .jsonl)
  $python "$corpus/oracle.py" --expand "$vectors" >"$work/$name-inputs.jsonl"
  "$bin/fieldpack-sanitize" <"$work/$name-inputs.jsonl" >"$work/$name-outputs.jsonl"
  echo "== oracle: $vectors"
  if ! $python "$corpus/oracle.py" "$vectors" "$work/$name-outputs.jsonl" --allow b,i,br,p --no-lxml; then
    status=1
  fi
done
exit $status
