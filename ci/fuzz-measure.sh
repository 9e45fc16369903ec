#!/usr/bin/env bash
# Measures built fuzzers: each TARGET in BIN_DIR runs SECONDS on one core
# (one libFuzzer job, `-seed=1`), seeded from corpus/<target> +
# corpus/regressions/<target> (what `cargo fuzz run <target>` and
# `cargo xtask fuzz` start from), with its fuzz/options/<target>.options. Prints one
# markdown row per target: `| target | build | seconds | exec/s | cov | ft |
# corp | load |`: libFuzzer's average exec/s, its last status line, and the
# 1-minute load average when the run ended (the machine may be shared). BUILD is
# only a label for the row (e.g. `none`, `ASan`). The binaries are whatever
# BIN_DIR holds, so a build from an older commit can be measured against a
# new one (`cargo xtask fuzz-report` measures the current build through this too).
# FUZZ_MEASURE_KEEP=DIR keeps each run's new inputs in DIR/<target> (emptied
# first), for ci/fuzz-coverage.sh to replay with the seeds.
#   usage: ci/fuzz-measure.sh BIN_DIR BUILD SECONDS TARGET...
#   exit:  0 measured, 2 usage or run error
set -uo pipefail
cd "$(dirname "$0")/.."

[ $# -ge 4 ] || { sed -n '2,14p' "$0" >&2; exit 2; }
bin="$1" build="$2" secs="$3"
shift 3

# libFuzzer flags from fuzz/options/<target>.options.
source ci/fuzz-options.sh # the scripts run from the root

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

for t in "$@"; do
  [ -x "$bin/$t" ] || { echo "fuzz-measure: no fuzzer $bin/$t" >&2; exit 2; }
  log="$tmp/$t.log" out="$tmp/new-$t"
  if [ -n "${FUZZ_MEASURE_KEEP:-}" ]; then
    out="$FUZZ_MEASURE_KEEP/$t"
    rm -rf "$out"
  fi
  mkdir -p "$out"
  seeds=("$PWD/corpus/$t")
  [ -d "corpus/regressions/$t" ] && seeds+=("$PWD/corpus/regressions/$t")
  mapfile -t opts < <(options "$t")
  # New inputs go to a scratch folder first, so the committed seeds stay as they are.
  "$bin/$t" "$out" "${seeds[@]}" "${opts[@]}" -max_total_time="$secs" -seed=1 -print_final_stats=1 \
    -rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=20 >"$log" 2>&1 || { tail -n 30 "$log" >&2; exit 2; }
  eps="$(sed -n 's/^stat::average_exec_per_sec:[[:space:]]*//p' "$log" | tail -n 1)"
  line="$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -n 1)"
  cov="$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$line")"
  ft="$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$line")"
  corp="$(sed -n 's/.* corp: \([^ ]*\).*/\1/p' <<<"$line")"
  echo "| \`$t\` | $build | ${secs} s | $eps | $cov | $ft | $corp | $(cut -d' ' -f1 /proc/loadavg) |"
done
