#!/usr/bin/env bash
# Writes reports/fuzz.md: every fuzz target (`cargo fuzz list`, but `empty`)
# run SECONDS on one core (one libFuzzer job, `-seed=1`) from its committed
# seeds (corpus/<target> + corpus/regressions/<target>, as `cargo fuzz run`
# and ci/fuzz.sh start) with its options file (fuzz/options/): libFuzzer's
# average exec/s, the final cov/ft, the corpus it ended with, the seeds, and
# the load average (ci/fuzz-measure.sh). Twice where nightly Rust is
# installed: the stable build without a sanitizer (`-s none`, the
# throughput baseline) and the AddressSanitizer build ci/fuzz.sh uses;
# once (`-s none`) where it is not. reports/fuzz-notes.md is appended.
#   usage: ci/fuzz-report.sh [SECONDS] [TARGET...]   (default 120, every target)
#   exit:  0 written, 2 build or run error
set -uo pipefail
cd "$(dirname "$0")/.."

secs="${1:-120}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo fuzz list | grep -vx empty)
bin="fuzz/target/$(rustc -vV | sed -n 's/^host: //p')/release"

# The builds: `-s none`, then ASan where ci/fuzz-sanitizer.sh finds nightly.
source ci/fuzz-sanitizer.sh
builds=(none)
[ "$FUZZ_BUILD_LABEL" = ASan ] && builds+=(ASan)

rows=()
for build in "${builds[@]}"; do
  if [ "$build" = none ]; then
    cargo fuzz build -s none >&2 || exit 2
  else
    cargo +nightly fuzz build >&2 || exit 2
  fi
  # Both builds write the same binaries: measure each before the next build.
  for t in "${targets[@]}"; do
    echo "== $t ($build): ${secs}s seeded" >&2
    row="$(ci/fuzz-measure.sh "$bin" "$build" "$secs" "$t")" || exit 2
    seeds=("corpus/$t")
    [ -d "corpus/regressions/$t" ] && seeds+=("corpus/regressions/$t")
    n="$(find "${seeds[@]}" -type f ! -name '*.md' ! -name '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]' | wc -l)"
    kb="$(find "${seeds[@]}" -type f ! -name '*.md' ! -name '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]' -printf '%s\n' | awk '{s += $1} END {printf "%.0f", s / 1024}')"
    max="$(sed -n 's/^max_len[[:space:]]*=[[:space:]]*//p' "fuzz/options/$t.options" 2>/dev/null)"
    # fuzz-measure's row is | target | build | time | exec/s | cov | ft | corp | load |: max_len and seeds go after the target.
    rows+=("$(sed "s/^| \`$t\` |/| \`$t\` | ${max:-–} | $n \/ ${kb} KiB |/" <<<"$row")")
  done
done

cpu="$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n 1)"
{
  echo "# Fuzzing throughput and coverage"
  echo
  echo "Written by \`ci/fuzz-report.sh $secs\`; do not edit by hand. Each target ran **${secs} s** on one"
  echo "core (one libFuzzer job, \`-seed=1\`) with its \`fuzz/options/<target>.options\` (max_len,"
  echo "dictionary), from its committed seeds (\`corpus/<target>\` + \`corpus/regressions/<target>\`,"
  echo "what \`cargo fuzz run <target>\` and \`ci/fuzz.sh\` start from), once per build: \`none\` is"
  echo "stable Rust without a sanitizer (\`-s none\`), \`ASan\` nightly Rust with AddressSanitizer"
  echo "(\`cargo +nightly fuzz\`, what \`ci/fuzz.sh\` uses where nightly is installed). exec/s is"
  echo "libFuzzer's average; cov/ft and corp (inputs/bytes) its last status line; load the 1-minute"
  echo "load average when the run ended (the machine is shared: a load of 4 on 2 cores halves exec/s)."
  echo "Seeds: files / size on disk."
  echo
  echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "- commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- isa oracle fuzz corpus || echo ' (with local changes)')"
  echo "- CPU: ${cpu:-unknown}, $(nproc) cores"
  echo
  echo "| target | max_len | seeds | build | time | exec/s | cov | ft | corp | load |"
  echo "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|"
  printf '%s\n' "${rows[@]}"
  if [ -f reports/fuzz-notes.md ]; then
    echo
    cat reports/fuzz-notes.md
  fi
} >reports/fuzz.md
echo "reports/fuzz.md written" >&2
