#!/usr/bin/env python3
"""The JSON parser's baseline: simdjson itself (pysimdjson from PyPI, which wraps the same
simdjson library fieldpack links) parsing the same page files on one core, with nothing
extracted, as `fieldpack-synth --parse-only` does.

Each file is read whole and parsed into simdjson's DOM (a document that does not parse is
counted, not fatal: the benchmark's dump has a truncated page). Python's per-file overhead is
small next to a page of about 700 KB.

Usage: json_baseline.py DIR   (reads DIR/page-*.json)
Prints one line: documents parsed, bytes, seconds, simdjson version.
"""
import glob
import os
import sys
import time
from importlib.metadata import version

import simdjson


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 64
    paths = sorted(glob.glob(os.path.join(sys.argv[1], "page-*.json")))
    if not paths:
        print(f"json_baseline: no page-*.json in {sys.argv[1]}", file=sys.stderr)
        return 1
    parser = simdjson.Parser()
    began = time.perf_counter()
    documents = failed = total = 0
    for path in paths:
        with open(path, "rb") as handle:
            data = handle.read()
        total += len(data)
        try:
            document = parser.parse(data)
            documents += 1
            del document  # the parser's buffer is reused by the next parse
        except ValueError:
            failed += 1
    elapsed = time.perf_counter() - began
    print(f"json_baseline: {documents} documents ({failed} not JSON), {total} bytes in {elapsed:.2f} s "
          f"({total / elapsed / 1e6:.0f} MB/s), pysimdjson {version('pysimdjson')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
