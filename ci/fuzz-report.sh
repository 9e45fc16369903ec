#!/usr/bin/env bash
# Writes reports/fuzz.md: for every fuzz target (`cargo fuzz list`, but
# `empty`), one job on one core for SECONDS seeded (corpus/<target> +
# corpus/regressions/<target>, as `cargo fuzz run` and ci/fuzz.sh start) and
# SECONDS unseeded (an empty folder), both with the target's options file
# (fuzz/options/): libFuzzer's average exec/s, the final cov/ft, the corpus
# it ended with, and the seeds.
# Stable Rust, no sanitizer (`-s none`), the build ci/fuzz.sh uses.
#   usage: ci/fuzz-report.sh [SECONDS] [TARGET...]   (default 60, every target)
#   exit:  0 written, 2 build or run error
set -uo pipefail
cd "$(dirname "$0")/.."

secs="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo fuzz list | grep -vx empty)

cargo fuzz build -s none >&2 || exit 2
bin="fuzz/target/$(rustc -vV | sed -n 's/^host: //p')/release"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# libFuzzer flags from fuzz/options/<target>.options.
source ci/fuzz-options.sh # the scripts run from the root

# One run: prints "exec/s|cov|ft|corpus" from libFuzzer's log.
run() {
  local t="$1" log="$tmp/$1-$2.log" out="$tmp/new-$1-$2"
  shift 2
  mkdir -p "$out"
  mapfile -t opts < <(options "$t")
  "$bin/$t" "$out" "$@" "${opts[@]}" -max_total_time="$secs" -seed=1 -print_final_stats=1 \
    -rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=20 >"$log" 2>&1 || { tail -n 30 "$log" >&2; return 1; }
  local eps line
  eps="$(sed -n 's/^stat::average_exec_per_sec:[[:space:]]*//p' "$log" | tail -n 1)"
  line="$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -n 1)"
  echo "$eps|$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$line")|$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$line")|$(sed -n 's/.* corp: \([^ ]*\).*/\1/p' <<<"$line")"
}

rows=()
for t in "${targets[@]}"; do
  echo "== $t: ${secs}s seeded, ${secs}s unseeded" >&2
  seeds=("$PWD/corpus/$t")
  [ -d "corpus/regressions/$t" ] && seeds+=("$PWD/corpus/regressions/$t")
  seeded="$(run "$t" seeded "${seeds[@]}")" || exit 2
  empty="$(run "$t" unseeded)" || exit 2
  n="$(find "${seeds[@]}" -type f ! -name '*.md' ! -name '????????????????????????????????????????' | wc -l)"
  kb="$(find "${seeds[@]}" -type f ! -name '*.md' ! -name '????????????????????????????????????????' -printf '%s\n' | awk '{s += $1} END {printf "%.0f", s / 1024}')"
  IFS='|' read -r se sc sf scorp <<<"$seeded"
  IFS='|' read -r ue uc uf ucorp <<<"$empty"
  max="$(sed -n 's/^max_len[[:space:]]*=[[:space:]]*//p' "fuzz/options/$t.options" 2>/dev/null)"
  rows+=("| \`$t\` | ${max:-–} | $n / ${kb} KiB | $se | $sc | $sf | $scorp | $ue | $uc | $uf | $ucorp |")
done

cpu="$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n 1)"
{
  echo "# Fuzzing throughput and coverage"
  echo
  echo "Written by \`ci/fuzz-report.sh $secs\`; do not edit by hand. Each target ran ${secs} s on one"
  echo "core (one libFuzzer job, \`-seed=1\`), stable Rust, no sanitizer (\`-s none\`), with its"
  echo "\`fuzz/options/<target>.options\` (max_len, dictionary): once from its committed seeds"
  echo "(\`corpus/<target>\` + \`corpus/regressions/<target>\`, what \`cargo fuzz run <target>\` and"
  echo "\`ci/fuzz.sh\` start from) and once from an empty folder. exec/s is libFuzzer's average;"
  echo "cov/ft and corp (inputs/bytes) are its last status line. Seeds: files / size on disk."
  echo
  echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "- commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- isa oracle fuzz corpus || echo ' (with local changes)')"
  echo "- CPU: ${cpu:-unknown}, $(nproc) cores; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| target | max_len | seeds | exec/s seeded | cov | ft | corp | exec/s unseeded | cov | ft | corp |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  printf '%s\n' "${rows[@]}"
  if [ -f reports/fuzz-notes.md ]; then
    echo
    cat reports/fuzz-notes.md
  fi
} >reports/fuzz.md
echo "reports/fuzz.md written" >&2
