#!/usr/bin/env bash
# Runs each cargo-fuzz target for a fixed time on stable Rust (no sanitizer:
# `-s none`), seeded from corpus/<target>/ and corpus/regressions/<target>/
# (fuzz/corpus/<target> links to corpus/<target>, so a plain `cargo fuzz run
# <target>` starts from the same seeds). New inputs land in corpus/<target>/
# under their SHA-1 names, which git ignores; a finding is written to
# fuzz/artifacts/<target>/ and makes this script exit 1 after all targets ran.
#   usage: ci/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
set -uo pipefail
cd "$(dirname "$0")/.."

secs="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(roundtrip structured validate text c_layout elf neff)
fi

if ! command -v cargo-fuzz >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi

cargo fuzz build -s none || exit 2
failed=()
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t" "corpus/regressions/$t"
  echo "== fuzz $t for ${secs}s"
  # rss/malloc limits: a target that needs more than 2 GiB or one 512 MiB allocation is a finding.
  if ! cargo fuzz run -s none "$t" "$PWD/corpus/$t" "$PWD/corpus/regressions/$t" -- \
      -max_total_time="$secs" -rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=20 -print_final_stats=1; then
    failed+=("$t")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz findings in: ${failed[*]} (see fuzz/artifacts/)"
  exit 1
fi
echo "fuzz: ${#targets[@]} targets ran ${secs}s each without a finding"
