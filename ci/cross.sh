#!/usr/bin/env bash
# Builds and tests the crates for another Linux architecture, run under
# qemu-user: there only the portable validator kernel is built, and a
# big-endian one (s390x) checks that nothing reads the wire format in the
# host's byte order.
#   usage: ci/cross.sh [ARCH] [PACKAGE...]     (default: aarch64 tpb-isa)
#   e.g.   ci/cross.sh s390x tpb-isa tpb-oracle
# Installs what it needs when missing and it may (root, apt-get, rustup):
# the target's standard library, its C cross compiler (criterion's build
# scripts and the C header tests use one) and qemu-user. Tests that run a
# child process need the kernel to start foreign binaries through qemu
# (binfmt_misc); the script registers that when it can, else says so.
# Exit status: cargo test's; 5 when the tools cannot be had.
set -uo pipefail
# One block, read before it runs: editing this file during a run cannot change the run.
{
cd "$(dirname "$0")/.."

arch="${1:-aarch64}"
shift || true
packages=("$@")
[ ${#packages[@]} -gt 0 ] || packages=(tpb-isa)
triple="$arch-unknown-linux-gnu"
gnu="$arch-linux-gnu"
# Debian names the cross compiler package after the GNU triple (gcc-aarch64-linux-gnu, gcc-s390x-linux-gnu).
pkg_gcc="gcc-$gnu"

need() { echo "ci/cross.sh: $*" >&2; exit 5; }

if ! rustup target list --installed 2>/dev/null | grep -qx "$triple"; then
  rustup target add "$triple" || need "cannot install the Rust target $triple (rustup target add $triple)"
fi
if ! command -v "$gnu-gcc" >/dev/null || ! command -v "qemu-$arch" >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get install -y -q "$pkg_gcc" qemu-user qemu-user-binfmt >/dev/null || need "apt-get could not install $pkg_gcc and qemu-user"
  else
    need "needs $gnu-gcc and qemu-$arch (Debian: apt-get install $pkg_gcc qemu-user qemu-user-binfmt)"
  fi
fi
sysroot="/usr/$gnu"
[ -d "$sysroot" ] || need "no $sysroot: the cross C library ($pkg_gcc brings it) is missing"

# Child processes (tests that start a test binary or the tpb binary) are
# foreign binaries: the kernel runs them through qemu only if registered.
binfmt=/proc/sys/fs/binfmt_misc
if [ ! -e "$binfmt/qemu-$arch" ]; then
  if [ "$(id -u)" = 0 ]; then
    [ -e "$binfmt/register" ] || mount -t binfmt_misc binfmt_misc "$binfmt" 2>/dev/null || true
    conf="/usr/lib/binfmt.d/qemu-$arch.conf"
    [ -e "$binfmt/register" ] && [ -f "$conf" ] && cat "$conf" > "$binfmt/register" 2>/dev/null || true
  fi
  [ -e "$binfmt/qemu-$arch" ] || echo "ci/cross.sh: $arch binaries are not registered with binfmt_misc: tests that start a child process will fail" >&2
fi

upper=$(echo "$triple" | tr 'a-z-' 'A-Z_')
export "CARGO_TARGET_${upper}_LINKER=$gnu-gcc"
export "CARGO_TARGET_${upper}_RUNNER=qemu-$arch -L $sysroot"
export "CC_${triple//-/_}=$gnu-gcc"
export QEMU_LD_PREFIX="$sysroot" # for children started through binfmt_misc
args=()
for p in "${packages[@]}"; do args+=(-p "$p"); done
echo "== cargo test ${args[*]} --target $triple (under qemu-$arch)"
cargo test "${args[@]}" --target "$triple" --locked
exit $?
}
