#!/bin/bash -eu
# Builds every cargo-fuzz target into $OUT for ClusterFuzzLite and OSS-Fuzz
# (the same script serves both), with each fuzzer its seed zip, options file
# and dictionary: `cargo xtask cflite-build` (xtask/src/cflite.rs) says which.
# In the base-builder-rust image ($SANITIZER set, nightly Rust) the fuzzers are
# built here by `cargo fuzz build -O`, which the image's cargo wrapper gives the
# sanitizer and coverage flags; xtask, a host tool, is built without them and
# only packs. Anywhere else it makes the build `cargo xtask fuzz` makes, so it
# can be tested without Docker (`cargo xtask cflite-test`):
#   SRC=/tmp/s OUT=/tmp/o WORK=/tmp/w .clusterfuzzlite/build.sh
# Explicit too: OSS-Fuzz runs `bash -eux build.sh`, which ignores the #! flags.
set -eu -o pipefail

# The project: this script's repository when run from .clusterfuzzlite/,
# else $SRC/tpb (the Dockerfile copies the script to $SRC/build.sh).
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ -f "$here/../fuzz/Cargo.toml" ]; then proj="$here/.."; else proj="$SRC/tpb"; fi
: "${OUT:?set OUT to the output folder}"
: "${WORK:?set WORK to a scratch folder}"
mkdir -p "$OUT" "$WORK"
OUT="$(cd "$OUT" && pwd)" WORK="$(cd "$WORK" && pwd)"
cd "$proj"

pack=()
if [ -n "${SANITIZER:-}" ] && rustc --version 2>/dev/null | grep -q nightly; then
  cargo fuzz build -O
  pack=(--no-build)
fi
env -u RUSTFLAGS -u CARGO_BUILD_RUSTFLAGS cargo xtask cflite-build --out "$OUT" --work "$WORK" "${pack[@]}"
