#!/usr/bin/env bash
# Runs each cargo-fuzz target for a fixed time on stable Rust (no sanitizer:
# `-s none`) on every core (libFuzzer's -fork), seeded from corpus/<target>/
# and corpus/regressions/<target>/, with the target's options file
# (fuzz/options/<target>.options: max_len, dict from fuzz/dict/) — the same
# files ClusterFuzzLite ships (.clusterfuzzlite/build.sh).
#
# New inputs go to a scratch folder; with --merge, those that add coverage
# are merged (libFuzzer -merge=1) into corpus/<target>/ under their SHA-1
# names, which git ignores and later runs (and `cargo fuzz run`) start from.
# A finding (fuzz/artifacts/<target>/) is minimised with `cargo fuzz tmin`
# and copied to corpus/regressions/<target>/, which `cargo test` replays;
# the script then exits 1 (after all targets ran).
#   usage: ci/fuzz.sh [--merge] [--jobs N] [SECONDS_PER_TARGET] [TARGET...]
#   exit:  0 clean, 1 findings, 2 build or usage error
set -uo pipefail
cd "$(dirname "$0")/.."

merge=0
jobs="$(nproc 2>/dev/null || echo 1)"
while [ $# -gt 0 ]; do
  case "$1" in
    --merge) merge=1; shift ;;
    --jobs) jobs="${2:?--jobs needs a number}"; shift 2 ;;
    --jobs=*) jobs="${1#--jobs=}"; shift ;;
    -h | --help) sed -n '2,15p' "$0"; exit 0 ;;
    -*) echo "ci/fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
secs="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(roundtrip structured validate text c_layout elf neff)
fi

if ! command -v cargo-fuzz >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi

# libFuzzer flags from fuzz/options/<target>.options.
source ci/fuzz-options.sh # the scripts run from the root

cargo fuzz build -s none || exit 2
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
failed=()
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t" "corpus/regressions/$t" "fuzz/artifacts/$t" "$scratch/$t"
  mapfile -t opts < <(options "$t")
  # More than one job: -fork runs that many child fuzzers sharing the corpus.
  par=()
  [ "$jobs" -gt 1 ] && par=(-fork="$jobs")
  before="$(ls fuzz/artifacts/"$t")"
  echo "== fuzz $t for ${secs}s on $jobs job(s): ${opts[*]}"
  # rss/malloc limits: a target that needs more than 2 GiB or one 512 MiB allocation is a finding.
  if ! cargo fuzz run -s none "$t" "$scratch/$t" "$PWD/corpus/$t" "$PWD/corpus/regressions/$t" -- \
      "${opts[@]}" "${par[@]}" -max_total_time="$secs" -rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=20 \
      -print_final_stats=1; then
    failed+=("$t")
  fi
  # Every new finding, minimised, becomes a regression input (kept forever).
  for a in fuzz/artifacts/"$t"/*; do
    name="$(basename "$a")"
    [ -f "$a" ] || continue
    case "$name" in minimized-from-*) continue ;; esac
    if grep -qxF "$name" <<<"$before"; then continue; fi
    cargo fuzz tmin -s none "$t" "$a" >"$scratch/tmin.log" 2>&1 || true
    # tmin writes minimized-from-<hash of the finding> (nothing when it is already minimal).
    small="fuzz/artifacts/$t/minimized-from-${name#*-}"
    [ -f "$small" ] || small="$a"
    cp "$small" "corpus/regressions/$t/$name"
    echo "fuzz $t: $a -> corpus/regressions/$t/$name ($(wc -c <"$a") -> $(wc -c <"$small") bytes)"
  done
  if [ "$merge" = 1 ]; then
    # Only the inputs that add coverage to the committed seeds and earlier merges.
    cargo fuzz run -s none "$t" "$PWD/corpus/$t" "$scratch/$t" -- "${opts[@]}" -merge=1 \
      -rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=20 >"$scratch/merge.log" 2>&1 ||
      { cat "$scratch/merge.log" >&2; failed+=("$t (merge)"); }
    echo "fuzz $t: merged into corpus/$t: $(grep -o 'MERGE-OUTER: [0-9]* new files[^;]*' "$scratch/merge.log" | tail -n 1)"
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz findings in: ${failed[*]} (see fuzz/artifacts/ and corpus/regressions/)"
  exit 1
fi
echo "fuzz: ${#targets[@]} targets ran ${secs}s each without a finding"
