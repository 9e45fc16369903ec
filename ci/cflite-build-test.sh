#!/usr/bin/env bash
# Runs .clusterfuzzlite/build.sh outside Docker ($SRC/$OUT/$WORK in a temp
# folder; AddressSanitizer where nightly Rust is installed, else stable with
# -s none: ci/fuzz-sanitizer.sh) and checks that it produced, for every fuzz
# target but `empty`: the fuzzer, TARGET_seed_corpus.zip listing the target's
# seeds, TARGET.options and the dictionary it names; then runs each fuzzer
# briefly from its unzipped seeds with its options: it loads and replays every
# seed, then fuzzes for CFLITE_FUZZ_SECONDS (default 5; 0 only replays). A
# crash, leak or memory error fails the check.
#   usage: ci/cflite-build-test.sh      exit 0 ok, 1 something missing or found
set -uo pipefail
cd "$(dirname "$0")/.."

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src" "$tmp/out" "$tmp/work"
SRC="$tmp/src" OUT="$tmp/out" WORK="$tmp/work" .clusterfuzzlite/build.sh || { echo "build.sh failed" >&2; exit 1; }

bad=0
miss() { echo "cflite-build-test: $*" >&2; bad=1; }
targets=$(cargo fuzz list | grep -vx empty)
for t in $targets; do
  out="$tmp/out"
  [ -x "$out/$t" ] || miss "no fuzzer $t"
  zip="$out/${t}_seed_corpus.zip"
  if [ ! -f "$zip" ]; then
    miss "no $t seed zip"
  else
    # Every committed seed of the target is in the zip.
    listed="$(unzip -Z1 "$zip" | sed 's|^\./||')"
    for f in corpus/"$t"/*.bin corpus/regressions/"$t"/*; do
      [ -f "$f" ] || continue
      case "$f" in *.md) continue ;; esac
      grep -qxF "$(basename "$f")" <<<"$listed" || miss "$t seed zip lacks $(basename "$f")"
    done
    [ -n "$listed" ] || miss "$t seed zip is empty"
  fi
  [ -f "$out/$t.options" ] || miss "no $t.options"
  dict="$(sed -n 's/^dict[[:space:]]*=[[:space:]]*//p' "fuzz/options/$t.options" 2>/dev/null)"
  if [ -n "$dict" ]; then
    [ -s "$out/$dict" ] || miss "no $dict for $t"
  fi
  # The fuzzer loads its seeds with its options (what ClusterFuzzLite does first).
  if [ -x "$out/$t" ] && [ -f "$zip" ]; then
    mkdir -p "$tmp/run/$t"
    unzip -q "$zip" -d "$tmp/run/$t"
    secs="${CFLITE_FUZZ_SECONDS:-5}"
    args=(-rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=20 -seed=1)
    if [ "$secs" -gt 0 ]; then args+=(-max_total_time="$secs"); else args+=(-runs=0); fi
    [ -n "$dict" ] && args+=(-dict="$out/$dict")
    ml="$(sed -n 's/^max_len[[:space:]]*=[[:space:]]*//p' "fuzz/options/$t.options")"
    [ -n "$ml" ] && args+=(-max_len="$ml")
    # New inputs go to a scratch folder, after the seeds it reads.
    mkdir -p "$tmp/new/$t"
    "$out/$t" "${args[@]}" "$tmp/new/$t" "$tmp/run/$t" >"$tmp/run/$t.log" 2>&1 || { tail -n 60 "$tmp/run/$t.log" >&2; miss "$t failed (seeds or ${secs}s of fuzzing)"; }
    grep -q "INITED" "$tmp/run/$t.log" || miss "$t did not load its seeds"
  fi
done
source ci/fuzz-sanitizer.sh
[ "$bad" = 0 ] && echo "cflite-build-test: $(echo $targets | wc -w) fuzzers ($FUZZ_BUILD_LABEL build), seed zips, options and dictionaries present; each replayed its seeds and fuzzed ${CFLITE_FUZZ_SECONDS:-5}s"
exit "$bad"
