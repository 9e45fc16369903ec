#!/bin/bash -eu
# Builds every cargo-fuzz target into $OUT for ClusterFuzzLite and OSS-Fuzz
# (the same script serves both), with for each target TARGET:
#   $OUT/TARGET                  the fuzzer
#   $OUT/TARGET_seed_corpus.zip  corpus/TARGET + corpus/regressions/TARGET
#                                (+ corpus/neff/real/**/*.neff for neff)
#   $OUT/TARGET.options          fuzz/options/TARGET.options (max_len, dict)
#   $OUT/TARGET.dict             fuzz/dict/TARGET.dict, when the options name it
# In the base-builder-rust image ($SANITIZER set, nightly Rust) it runs
# `cargo fuzz build -O`, which the image's cargo wrapper gives the sanitizer
# and coverage flags. Anywhere else (no $SANITIZER) it makes the build
# `cargo xtask fuzz` makes (ci/fuzz-sanitizer.sh): AddressSanitizer where a nightly
# toolchain is installed (`cargo +nightly fuzz build`), else stable with no
# sanitizer (`-s none`), and says which; so it can be tested without Docker:
#   SRC=/tmp/s OUT=/tmp/o WORK=/tmp/w .clusterfuzzlite/build.sh
# Explicit too: OSS-Fuzz runs `bash -eux build.sh`, which ignores the #! flags.
set -eu -o pipefail

# The project: this script's repository when run from .clusterfuzzlite/,
# else $SRC/tpb (the Dockerfile copies the script to $SRC/build.sh).
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ -f "$here/../fuzz/Cargo.toml" ]; then
  proj="$(cd "$here/.." && pwd)"
else
  proj="$SRC/tpb"
fi
: "${OUT:?set OUT to the output folder}"
: "${WORK:?set WORK to a scratch folder}"
mkdir -p "$OUT" "$WORK"
OUT="$(cd "$OUT" && pwd)" WORK="$(cd "$WORK" && pwd)"
cd "$proj"

if [ -n "${SANITIZER:-}" ] && rustc --version 2>/dev/null | grep -q nightly; then
  cargo fuzz build -O
else
  # Outside the image: the build `cargo xtask fuzz` makes, into the same fuzz/target.
  source ci/fuzz-sanitizer.sh
  echo "build.sh: no \$SANITIZER: $FUZZ_BUILD_NOTE" >&2
  "${fuzz[@]}" build "${san[@]}"
fi

triple="$(rustc -vV | sed -n 's/^host: //p')"
bin="$proj/fuzz/target/$triple/release"
# Every target but `empty` (libFuzzer's exec/s floor for fuzz/bench.sh).
targets=$(cargo fuzz list | grep -vx empty)

# A zip of the files in folder $2 as $1 (`zip`: in the Dockerfile's image; elsewhere install it).
pack() {
  rm -f "$1"
  (cd "$2" && zip -q -X "$1" ./*)
}

for t in $targets; do
  cp "$bin/$t" "$OUT/$t"

  # Seeds, flat: committed seeds (not libFuzzer's SHA-1-named local finds, not
  # READMEs), every regression, and for neff the real programs.
  seeds="$WORK/seeds/$t"
  rm -rf "$seeds" && mkdir -p "$seeds"
  for f in corpus/"$t"/* corpus/regressions/"$t"/*; do
    name="$(basename "$f")"
    [ -f "$f" ] || continue
    case "$name" in *.md | [0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]) continue ;; esac
    cp "$f" "$seeds/$name"
  done
  if [ "$t" = neff ]; then
    while IFS= read -r -d '' f; do
      rel="${f#corpus/neff/real/}"
      cp "$f" "$seeds/real-${rel//\//-}"
    done < <(find corpus/neff/real -name '*.neff' -print0)
  fi
  pack "$OUT/${t}_seed_corpus.zip" "$seeds"

  opts="fuzz/options/$t.options"
  if [ -f "$opts" ]; then
    cp "$opts" "$OUT/$t.options"
    dict="$(sed -n 's/^dict[[:space:]]*=[[:space:]]*//p' "$opts")"
    if [ -n "$dict" ]; then
      cp -L "fuzz/dict/$dict" "$OUT/$dict"
    fi
  fi
done
echo "build.sh: $(echo $targets | wc -w) fuzzers in $OUT"
