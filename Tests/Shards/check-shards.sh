#!/bin/bash
# make test: a sample pipeline built with SHARDS=4 (and make -j2) publishes the bundle an
# unsharded build publishes, byte for byte: every file of bundle/ is compared with cmp, and so is
# dedupe/conflicts.json (merged from the shards' reports). make test
# runs it on pipelines/sample.json and on the two pipelines with a select (each dedupe shard then
# writes its own counts of what the selection removed, which the bundle adds up).
#
#   Tests/Shards/check-shards.sh [BIN] [PIPELINE] [SHARDS]
set -euo pipefail
BIN=$(cd "${1:-.build/release}" && pwd)
PIPELINE=${2:-pipelines/sample.json}
SHARDS=${3:-4}
work=$(mktemp -d "${TMPDIR:-/tmp}/fieldpack-shards.XXXXXX")
trap 'rm -rf "$work"' EXIT
name=$("$BIN/fieldpack-inat" --pipeline "$PIPELINE" --print-name)

build() {  # build OUTPUT_FOLDER MAKE_ARGS...
    local folder=$1; shift
    if ! make --no-print-directory bundle PIPELINE="$PIPELINE" BUILD="$folder" BIN="$BIN" SKIP_TOOLS=1 "$@" \
        >"$folder.log" 2>&1; then
        echo "check-shards: make bundle $* failed:" >&2
        tail -30 "$folder.log" >&2
        exit 1
    fi
}

build "$work/whole"
build "$work/sharded" SHARDS="$SHARDS" -j2
whole="$work/whole/$name/bundle"
sharded="$work/sharded/$name/bundle"
for shard in $(seq 0 $((SHARDS - 1))); do
    test -f "$work/sharded/$name/dedupe/shard-$shard-of-$SHARDS/records.jsonl" \
        || { echo "check-shards: dedupe shard $shard of $SHARDS did not run" >&2; exit 1; }
    test -f "$work/sharded/$name/wiki/shard-$shard-of-$SHARDS/articles.jsonl" \
        || { echo "check-shards: wiki shard $shard of $SHARDS did not run" >&2; exit 1; }
done
status=0
files=$(cd "$whole" && find . -type f | sort)
if [ "$files" != "$(cd "$sharded" && find . -type f | sort)" ]; then
    echo "check-shards: the bundles hold different files" >&2
    diff <(cd "$whole" && find . -type f | sort) <(cd "$sharded" && find . -type f | sort) >&2 || true
    status=1
fi
for file in $files; do
    cmp "$whole/$file" "$sharded/$file" || status=1
done
# The conflicts report (not published): the shards' reports merged are the unsharded one; and
# one removed is written again by the next make (it was no target: it stayed missing).
conflicts=dedupe/conflicts.json
cmp "$work/whole/$name/$conflicts" "$work/sharded/$name/$conflicts" || status=1
for folder in whole sharded; do
    cp "$work/$folder/$name/$conflicts" "$work/$folder.conflicts"
    rm "$work/$folder/$name/$conflicts"
    # A shard's own report removed too (the merge then could not read it, every later build).
    if [ $folder = sharded ]; then rm "$work/sharded/$name/dedupe/shard-1-of-$SHARDS/conflicts.json"; fi
    build "$work/$folder" $([ $folder = sharded ] && echo SHARDS="$SHARDS")
    cmp "$work/$folder.conflicts" "$work/$folder/$name/$conflicts" || { echo "check-shards: $conflicts removed was not written again ($folder)" >&2; status=1; }
done
if [ $status -eq 0 ]; then
    echo "check-shards: SHARDS=$SHARDS gives the unsharded bundle, byte for byte ($(echo "$files" | wc -l) files), and its conflicts report"
fi
exit $status
