#!/usr/bin/env bash
# Runs each cargo-fuzz target (`cargo fuzz list`, but `empty`) for a fixed
# time on every core (libFuzzer's -fork), seeded from corpus/<target>/ and
# corpus/regressions/<target>/, with the target's options file
# (fuzz/options/<target>.options: max_len, dict from fuzz/dict/) — the same
# files ClusterFuzzLite ships (.clusterfuzzlite/build.sh).
#
# With a nightly toolchain installed (`cargo +nightly`), the targets are
# built with AddressSanitizer (cargo-fuzz's default); without one, on stable
# with no sanitizer (`-s none`), and the script says so. FUZZ_SANITIZER=none
# chooses the stable build even where nightly exists.
#
# New inputs are kept in fuzz/grown/<target>/ (git-ignored), which the next
# run starts from too; after each run `cargo fuzz cmin` minimises it. A
# finding (fuzz/artifacts/<target>/) is minimised with `cargo fuzz tmin` and
# copied to corpus/regressions/<target>/, which `cargo test` replays; the
# script then exits 1 (after all targets ran).
#   usage: ci/fuzz.sh [--jobs N] [SECONDS_PER_TARGET] [TARGET...]
#   exit:  0 clean, 1 findings, 2 build or usage error
set -uo pipefail
cd "$(dirname "$0")/.."

jobs="$(nproc 2>/dev/null || echo 1)"
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs) jobs="${2:?--jobs needs a number}"; shift 2 ;;
    --jobs=*) jobs="${1#--jobs=}"; shift ;;
    -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
    -*) echo "ci/fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
secs="${1:-60}"
shift || true
if ! command -v cargo-fuzz >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi
targets=("$@")
# `empty` is libFuzzer's exec/s floor for fuzz/bench.sh, not a property.
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo fuzz list | grep -vx empty)

# libFuzzer flags from fuzz/options/<target>.options.
source ci/fuzz-options.sh # the scripts run from the root

# The build every cargo fuzz command below uses: `fuzz build san` (one build, reused by run, tmin, cmin).
source ci/fuzz-sanitizer.sh
echo "ci/fuzz.sh: $FUZZ_BUILD_NOTE"
"${fuzz[@]}" build "${san[@]}" || exit 2
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
failed=()
for t in "${targets[@]}"; do
  grown="$PWD/fuzz/grown/$t"
  mkdir -p "corpus/$t" "corpus/regressions/$t" "fuzz/artifacts/$t" "$grown"
  mapfile -t opts < <(options "$t")
  # More than one job: -fork runs that many child fuzzers sharing the corpus.
  par=()
  [ "$jobs" -gt 1 ] && par=(-fork="$jobs")
  before="$(ls fuzz/artifacts/"$t")"
  echo "== fuzz $t for ${secs}s on $jobs job(s): ${opts[*]}"
  # rss/malloc limits: a target that needs more than 2 GiB or one 512 MiB allocation is a finding.
  if ! "${fuzz[@]}" run "${san[@]}" "$t" "$grown" "$PWD/corpus/$t" "$PWD/corpus/regressions/$t" -- \
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
    "${fuzz[@]}" tmin "${san[@]}" "$t" "$a" >"$scratch/tmin.log" 2>&1 || true
    # tmin writes minimized-from-<hash of the finding> (nothing when it is already minimal).
    small="fuzz/artifacts/$t/minimized-from-${name#*-}"
    [ -f "$small" ] || small="$a"
    cp "$small" "corpus/regressions/$t/$name"
    echo "fuzz $t: $a -> corpus/regressions/$t/$name ($(wc -c <"$a") -> $(wc -c <"$small") bytes)"
  done
  # Only the grown inputs that add coverage stay (libFuzzer -merge=1).
  "${fuzz[@]}" cmin "${san[@]}" "$t" "$grown" -- "${opts[@]}" -rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=20 \
    >"$scratch/cmin.log" 2>&1 || { cat "$scratch/cmin.log" >&2; failed+=("$t (cmin)"); }
  echo "fuzz $t: fuzz/grown/$t holds $(find "$grown" -type f | wc -l) inputs after cargo fuzz cmin"
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz findings in: ${failed[*]} (see fuzz/artifacts/ and corpus/regressions/)"
  exit 1
fi
echo "fuzz: ${#targets[@]} targets ran ${secs}s each without a finding ($FUZZ_BUILD_LABEL build)"
