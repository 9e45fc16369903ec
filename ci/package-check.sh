#!/usr/bin/env bash
# The crates as crates.io would get them (docs/releasing.md, docs/ci.md):
#  1. `cargo publish --dry-run` of tpb-isa, tpb-oracle, tpb-differ and tpb in one
#     command: each is packaged (include lists, README, licences) and built from
#     its .crate alone, its workspace dependencies taken from the .crate files
#     packaged just before it (cargo's temporary local registry), since none is
#     on crates.io yet; nothing is uploaded.
#  2. `cargo install` of the packaged `tpb`, unpacked into a fresh folder outside
#     the workspace, the three libraries it needs unpacked beside it and named by
#     a [patch.crates-io] in that folder's .cargo/config.toml (what crates.io will
#     serve once they are published); then `tpb --version` must name the version
#     and this commit, and a command that needs no source tree must run.
#   usage: ci/package-check.sh            (from anywhere; writes under target/)
# Exit 0 when all of it passed. A debug build, in the workspace's target folder
# (the published dependencies' builds are shared with the tests').
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
crates=(tpb-isa tpb-oracle tpb-differ tpb)
version=$(cargo metadata --format-version 1 --no-deps --locked | python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "tpb"))')

echo "== cargo publish --dry-run: ${crates[*]} $version"
pkgs=()
for c in "${crates[@]}"; do pkgs+=(-p "$c"); done
rm -rf target/package
cargo publish --dry-run --locked "${pkgs[@]}"
# The .crate files themselves (publish --dry-run keeps only its scratch copies):
# the same packaging, already verified above; release.yml attaches them.
cargo package --no-verify --locked "${pkgs[@]}" 2>&1 | grep -v '^warning: ignoring \|^ *Packag' || true

echo "== cargo install of the packaged tpb, outside the workspace"
scratch="$root/target/package-install"
rm -rf "$scratch"
# Outside the workspace: cargo finds no Cargo.toml above the unpacked crates.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/.cargo"
{
  echo "[patch.crates-io]"
  for c in "${crates[@]}"; do
    tar -xzf "target/package/$c-$version.crate" -C "$work"
    [ "$c" = tpb ] || echo "$c = { path = \"$work/$c-$version\" }"
  done
} > "$work/.cargo/config.toml"
cat "$work/.cargo/config.toml"
(cd "$work" && CARGO_TARGET_DIR="$root/target" cargo install --debug --locked --path "tpb-$version" --root "$scratch")
got=$("$scratch/bin/tpb" --version)
want="tpb $version (commit $(git rev-parse --short=12 HEAD))"
echo "tpb --version: $got"
[ "$got" = "$want" ] || { echo "package-check: expected \"$want\"" >&2; exit 1; }
# A command that needs nothing from the source tree runs from the installed binary.
"$scratch/bin/tpb" layout >/dev/null
echo "package-check: ${crates[*]} packaged, verified and installed from the .crate files"
