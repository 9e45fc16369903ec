#!/usr/bin/env bash
# Runs .clusterfuzzlite/build.sh outside Docker ($SRC/$OUT/$WORK in a temp
# folder, stable Rust, -s none) and checks that it produced, for every fuzz
# target but `empty`: the fuzzer, TARGET_seed_corpus.zip listing the target's
# seeds, TARGET.options and the dictionary it names; then runs each fuzzer
# once over its unzipped seeds with its options (-runs=0: load and replay).
#   usage: ci/cflite-build-test.sh      exit 0 ok, 1 something missing
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
    args=(-runs=0 -rss_limit_mb=2048)
    [ -n "$dict" ] && args+=(-dict="$out/$dict")
    ml="$(sed -n 's/^max_len[[:space:]]*=[[:space:]]*//p' "fuzz/options/$t.options")"
    [ -n "$ml" ] && args+=(-max_len="$ml")
    "$out/$t" "${args[@]}" "$tmp/run/$t" >"$tmp/run/$t.log" 2>&1 || { cat "$tmp/run/$t.log" >&2; miss "$t failed on its seeds"; }
    grep -q "INITED" "$tmp/run/$t.log" || miss "$t did not load its seeds"
  fi
done
[ "$bad" = 0 ] && echo "cflite-build-test: $(echo $targets | wc -w) fuzzers, seed zips, options and dictionaries present"
exit "$bad"
