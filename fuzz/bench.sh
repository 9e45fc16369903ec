#!/usr/bin/env bash
# Fuzzing throughput of the `roundtrip` target against the `empty` target
# (libFuzzer's own floor), measured back to back in one run so the ratio
# holds on a busy machine. Target: roundtrip >= 0.5x empty.
#   usage: fuzz/bench.sh [SECONDS_PER_RUN]   (default 5; each target runs twice)
# Prints "roundtrip exec/s: N", "empty exec/s: N", "ratio: R"; exit 0 when
# measured (whatever the ratio), 2 when the targets cannot be built or run.
# Stable Rust, no sanitizer (`-s none`), the same build flags as cargo xtask fuzz.
set -uo pipefail
cd "$(dirname "$0")/.."

secs="${1:-5}"
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz/bench.sh: cargo-fuzz is not installed (cargo install cargo-fuzz)" >&2
  exit 2
fi
cargo fuzz build -s none roundtrip >&2 || exit 2
cargo fuzz build -s none empty >&2 || exit 2

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Both targets start from the same seed: one 1 KiB input (16 bundles). An
# empty target finds no coverage, so left alone it would only ever run the
# 1-byte inputs libFuzzer starts with while roundtrip's corpus grows to
# max_len; the shared seed and -len_control=0 keep input sizes alike, so the
# ratio compares per-input cost, not input size.
len=1024
mkdir -p "$work/seed"
head -c "$len" /dev/zero >"$work/seed/zeros"

# One run from a fresh copy of the seed; prints libFuzzer's average exec/s.
run() {
  local t="$1" dir="$work/$1-$2"
  mkdir -p "$dir"
  cp "$work/seed/zeros" "$dir/"
  cargo fuzz run -s none "$t" "$dir" -- -max_total_time="$secs" -seed=1 -max_len="$len" -len_control=0 \
      -print_final_stats=1 >"$work/log" 2>&1 || { cat "$work/log" >&2; return 1; }
  sed -n 's/^stat::average_exec_per_sec:[[:space:]]*//p' "$work/log" | tail -n 1
}

best() { # the larger of two numbers
  if [ "$1" -ge "$2" ]; then echo "$1"; else echo "$2"; fi
}

rt=0; em=0
for round in 1 2; do
  r="$(run roundtrip "$round")" || exit 2
  e="$(run empty "$round")" || exit 2
  [ -n "$r" ] && [ -n "$e" ] || { echo "fuzz/bench.sh: no exec/s in libFuzzer's output" >&2; exit 2; }
  rt="$(best "$rt" "$r")"; em="$(best "$em" "$e")"
done
[ "$em" -gt 0 ] || { echo "fuzz/bench.sh: empty target ran 0 exec/s" >&2; exit 2; }

echo "roundtrip exec/s: $rt"
echo "empty exec/s: $em"
awk -v r="$rt" -v e="$em" 'BEGIN { printf "ratio: %.3f (target >= 0.5)\n", r / e }'
