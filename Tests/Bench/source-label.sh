#!/usr/bin/env bash
# source-label.sh REPO BIN: the line make bench's report gives for the fieldpack it measured.
#
# The commit the tools in BIN were built from, as `make tools` recorded it beside them
# (BIN/fieldpack-source.txt: `git describe --always --dirty` when they were built), not the
# tree as it is when the report is written: the sources may be edited while the benchmark runs,
# and the report once read "-dirty" for tools built from a clean commit. When a tool in BIN is
# newer than that record (rebuilt by hand, not by make tools), or there is none, the commit is
# not known and the line says so.
set -euo pipefail
repo=$1 bin=$2
record="$bin/fieldpack-source.txt"
now=$(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown)
if [[ ! -s $record ]]; then
  echo "unknown: no $record (make tools writes it); the tree now reads $now (release build in $bin)"
  exit 0
fi
built=$(head -n 1 "$record")
newer=$(find -H "$bin" -maxdepth 1 -type f -name 'fieldpack-*' ! -name '*.txt' -newer "$record" -printf '%f\n' | sort)
if [[ -n $newer ]]; then
  echo "unknown: $(echo "$newer" | paste -sd, -) rebuilt after make tools built $built; the tree now reads $now (release build in $bin)"
elif [[ $built == "$now" ]]; then
  echo "$built (release build in $bin)"
else
  echo "$built (release build in $bin, built by make tools; the tree read $now when this report was written)"
fi
