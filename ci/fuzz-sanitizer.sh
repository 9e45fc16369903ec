# Sourced by .clusterfuzzlite/build.sh (outside Docker; `cargo xtask fuzz` and
# `cargo xtask fuzz-report` make the same test): which build the cargo-fuzz commands use. With a nightly toolchain
# (`cargo +nightly` runs), AddressSanitizer: `cargo +nightly fuzz <cmd>`, whose
# default sanitizer is ASan. Without one (stable only), no sanitizer:
# `cargo fuzz <cmd> -s none`. FUZZ_SANITIZER=none asks for the stable build
# where nightly exists too. Sets:
#   fuzz=(cargo [+nightly] fuzz)   san=(-s none) or ()
#   FUZZ_BUILD_LABEL   "ASan" or "none"
#   FUZZ_BUILD_NOTE    one line saying which build and why
if [ "${FUZZ_SANITIZER:-}" != none ] && cargo +nightly --version >/dev/null 2>&1; then
  fuzz=(cargo +nightly fuzz)
  san=()
  FUZZ_BUILD_LABEL=ASan
  FUZZ_BUILD_NOTE="nightly Rust: building with AddressSanitizer (cargo +nightly fuzz)"
else
  fuzz=(cargo fuzz)
  san=(-s none)
  FUZZ_BUILD_LABEL=none
  if [ "${FUZZ_SANITIZER:-}" = none ]; then
    FUZZ_BUILD_NOTE="FUZZ_SANITIZER=none: building without a sanitizer (-s none)"
  else
    FUZZ_BUILD_NOTE="no nightly Rust installed: building WITHOUT a sanitizer (-s none); rustup toolchain install nightly for AddressSanitizer"
  fi
fi
