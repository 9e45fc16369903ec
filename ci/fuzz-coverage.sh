#!/usr/bin/env bash
# Which workspace functions a built fuzzer covers on a corpus: replays DIRs
# once (`-runs=0`, nothing mutated) with libFuzzer's `-print_coverage=1` and
# keeps its COVERED_FUNC lines for code under isa/, oracle/ or src/ (the
# workspace crates; the fuzz shims and dependencies are left out). Needs a
# sanitizer build (cargo-fuzz's default, ASan): libFuzzer names functions
# through the sanitizer runtime's symbolizer (llvm-symbolizer on PATH), which
# a `-s none` build lacks. Names are comparable across targets and builds,
# unlike the counters behind `cov:`, which each binary numbers its own way.
# Prints one line per function, sorted: `name<TAB>covered/edges<TAB>file`
# (file relative to the repository the binary was built from, the folder
# above its fuzz/; a generic function's instances are one line, with the
# most edges any covers).
#   usage: ci/fuzz-coverage.sh FUZZER DIR...
#   exit:  0 printed, 2 usage or run error (nothing symbolized counts)
set -uo pipefail

[ $# -ge 2 ] || { sed -n '2,15p' "$0" >&2; exit 2; }
fuzzer="$1"
shift
[ -x "$fuzzer" ] || { echo "fuzz-coverage: no fuzzer $fuzzer" >&2; exit 2; }
abs="$(cd "$(dirname "$fuzzer")" && pwd)"
root="${abs%%/fuzz/target*}"
[ "$root" != "$abs" ] || { echo "fuzz-coverage: $fuzzer is not under a repository's fuzz/target*/" >&2; exit 2; }
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
"$fuzzer" "$@" -runs=0 -print_coverage=1 -rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=20 >"$log" 2>&1 \
  || { tail -n 30 "$log" >&2; exit 2; }
# COVERED_FUNC: hits: H edges: C/E in NAME PATH:LINE (the path may hold no spaces; names may).
lines="$(grep -c '^COVERED_FUNC: ' "$log")"
[ "$lines" -gt 0 ] || { echo "fuzz-coverage: $fuzzer printed no COVERED_FUNC (not a sanitizer build?)" >&2; exit 2; }
awk -v root="$root/" '
  /^COVERED_FUNC: / {
    split($5, ce, "/")
    where = $NF
    sub(/:[0-9]+(:[0-9]+)?$/, "", where)
    if (index(where, root) != 1) next
    file = substr(where, length(root) + 1)
    if (file !~ /^(isa|oracle|src)\//) next
    name = ""
    for (i = 6; i < NF; i++) if ($i != "in" || i > 6) name = name (name == "" ? "" : " ") $i
    # Legacy mangling ends in ::h and a 16-digit hash.
    if (match(name, /::h[0-9a-f]+$/) && RLENGTH == 19) name = substr(name, 1, RSTART - 1)
    key = name "\t" file
    if (!(key in best) || ce[1] + 0 > best[key] + 0) { best[key] = ce[1]; total[key] = ce[2] }
  }
  END { for (k in best) { split(k, p, "\t"); print p[1] "\t" best[k] "/" total[k] "\t" p[2] } }
' "$log" | LC_ALL=C sort
