#!/usr/bin/env bash
# The nightly runs, on a fresh clone: `tpb conform` (report in
# reports/<date>/; .github/workflows/nightly.yml), then every cargo-fuzz
# target for a fixed time on stable Rust (`cargo xtask fuzz`; on GitHub,
# ClusterFuzzLite's batch job fuzzes instead). Exit 0 only when both are clean.
#   usage: ci/nightly.sh [CAMPAIGN_SECONDS] [FUZZ_SECONDS_PER_TARGET]
#   env:   TPB_LIBS / TPB_NEFFS: space-separated vendor inputs for conform
#          (default: ../shared/neff/*.neff when present).
set -uo pipefail
cd "$(dirname "$0")/.."

campaign="${1:-300}"
fuzz_secs="${2:-120}"
export CARGO_TERM_COLOR=never

args=()
for l in ${TPB_LIBS:-}; do args+=(--lib "$l"); done
if [ -n "${TPB_NEFFS:-}" ]; then
  for n in $TPB_NEFFS; do args+=(--neff "$n"); done
else
  shopt -s nullglob
  for n in ../shared/neff/*.neff; do args+=(--neff "$n"); done
  shopt -u nullglob
fi

status=0
cargo run --release --locked -- conform --quiet --time "$campaign" "${args[@]}" || status=$?
cargo xtask fuzz "$fuzz_secs" || status=$((status == 0 ? $? : status))
exit "$status"
