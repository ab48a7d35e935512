#!/bin/bash
# Builds the fuzz binary (every target of `FuzzTarget` in one, chosen by FIELDPACK_FUZZ_TARGET) with
# libFuzzer and AddressSanitizer, from the library's sources as one module plus FuzzMain.swift,
# into its own scratch folder (FUZZ_BUILD, default .build/fuzz): the normal builds never see it.
# Rebuilds only when a source is newer than the binary. Exit 2: no fuzzer/ASan runtime here.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT="${FUZZ_BUILD:-.build/fuzz}"
BIN="$OUT/fieldpack-fuzz"
SWIFTC="${SWIFTC:-swiftc}"
CLANGXX="${CLANGXX:-clang++}"
# -O by default; FUZZ_OPT=-Onone builds faster and runs slower.
OPT="${FUZZ_OPT:--O}"

mapfile -t SOURCES < <(find Sources/FieldpackKit -name '*.swift' | LC_ALL=C sort)
if [ -x "$BIN" ] && [ -z "$(find Sources/FieldpackKit Sources/CSimdJSON Sources/C*/ Tests/Fuzz/FuzzMain.swift "$0" -newer "$BIN" -type f | head -1)" ]; then
  exit 0
fi

# The sanitizer runtimes ship with the toolchain: without them there is nothing to build.
resource="$("$CLANGXX" -print-resource-dir 2>/dev/null || true)"
for runtime in fuzzer asan; do
  if [ -z "$resource" ] || [ -z "$(find "$resource/lib" -name "libclang_rt.$runtime-*.a" -print -quit 2>/dev/null)" ]; then
    echo "fuzz: no lib$runtime runtime in the toolchain (${resource:-no clang++})" >&2
    exit 2
  fi
done

mkdir -p "$OUT/include/CSimdJSON"
# SwiftPM writes the C++ shim's module map itself; swiftc needs one.
cat > "$OUT/include/CSimdJSON/module.modulemap" <<MAP
module CSimdJSON {
    header "$PWD/Sources/CSimdJSON/include/fp_json.h"
    export *
}
MAP
echo "fuzz: building $BIN ($OPT, ASan + libFuzzer)" >&2
"$CLANGXX" -std=c++17 -O2 -g -fsanitize=address,fuzzer-no-link -I Sources/CSimdJSON/include \
  -c Sources/CSimdJSON/fp_json.cpp -o "$OUT/fp_json.o"
"$SWIFTC" -sanitize=fuzzer,address -parse-as-library "$OPT" -g -swift-version 6 -num-threads 2 \
  -module-name FieldpackKit -package-name fieldpack -module-cache-path "$OUT/module-cache" \
  Tests/Fuzz/FuzzMain.swift "${SOURCES[@]}" \
  -I Sources/CSQLite3 -I Sources/CLibXML2 -I Sources/CCrypto -I Sources/CISAL -I Sources/CArchive \
  -I Sources/CLinux -I "$OUT/include/CSimdJSON" -Xcc -I/usr/include/libxml2 \
  "$OUT/fp_json.o" -lsqlite3 -lxml2 -lcrypto -lisal -larchive -lsimdjson -lstdc++ \
  -o "$BIN.tmp" 2>&1 | { grep -v "Cannot export local symbol" >&2 || true; }
[ "${PIPESTATUS[0]}" -eq 0 ] || exit 1
mv -f "$BIN.tmp" "$BIN"
