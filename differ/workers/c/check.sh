#!/usr/bin/env bash
# check.sh: build the C worker from the generated header and compare it with
# `tpb disasm` on every real bundle of the corpus and on random bundles of every
# opcode byte. Exit 0 only when there is no disagreement.
#
# Environment (all optional):
#   TPB=/tmp/ref/tpb          the reference tool (header, disasm, neff unpack)
#   BUILD=<here>/build        where the header, library and executables go
#   PER_OPCODE=1200           random bundles per opcode byte (x256)
#   SEED=1                    random seed
#   CORPUS="/work/main/corpus/neff/real /work/shared/neff"   NEFF folders
#   CC=cc  BENCH_SECONDS=2
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TPB=${TPB:-/tmp/ref/tpb}
BUILD=${BUILD:-$HERE/build}
PER_OPCODE=${PER_OPCODE:-1200}
SEED=${SEED:-1}
CORPUS=${CORPUS:-/work/main/corpus/neff/real /work/shared/neff}
CC=${CC:-cc}
BENCH_SECONDS=${BENCH_SECONDS:-2}
CFLAGS=(-O2 -Wall -Wextra -pedantic -std=c11 -Werror)

[ -x "$TPB" ] || { echo "check.sh: no reference tool at $TPB" >&2; exit 2; }
mkdir -p "$BUILD"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tpb_worker_c.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

echo "== header: $TPB header > $BUILD/neuron_isa_tpb.h"
"$TPB" header > "$BUILD/neuron_isa_tpb.h"

echo "== build ($CC ${CFLAGS[*]})"
"$CC" "${CFLAGS[@]}" -I"$BUILD" -fPIC -shared -o "$BUILD/libtpb_worker_c.so" "$HERE/tpb_worker_c.c"
"$CC" "${CFLAGS[@]}" -I"$BUILD" -o "$BUILD/tpb_worker_c" "$HERE/main.c" "$HERE/tpb_worker_c.c"
"$CC" "${CFLAGS[@]}" -I"$BUILD" -o "$BUILD/tpb_worker_c_bench" "$HERE/bench.c" "$HERE/tpb_worker_c.c"
# the exported symbols of the library: exactly the decode entry point
if command -v nm >/dev/null; then
    EXPORTS=$(nm -D --defined-only "$BUILD/libtpb_worker_c.so" | awk '$2 == "T" {print $3}' | sort | tr '\n' ' ')
    echo "library exports: $EXPORTS"
    [ "$EXPORTS" = "tpb_worker_decode " ] || { echo "check.sh: unexpected exports" >&2; exit 1; }
fi

existing=()
for d in $CORPUS; do [ -e "$d" ] && existing+=("$d"); done

echo "== compare with tpb disasm"
status=0
python3 "$HERE/compare.py" --tpb "$TPB" --worker "$BUILD/tpb_worker_c" --lib "$BUILD/libtpb_worker_c.so" \
    --header "$BUILD/neuron_isa_tpb.h" --work "$WORK" --per-opcode "$PER_OPCODE" --seed "$SEED" \
    --bench-input "$WORK/bench.bin" "${existing[@]}" || status=$?

echo "== speed (in-process, one thread)"
grep -m1 'model name' /proc/cpuinfo 2>/dev/null || true
"$BUILD/tpb_worker_c_bench" "$WORK/bench.bin" "$BENCH_SECONDS"

exit "$status"
