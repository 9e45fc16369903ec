#!/usr/bin/env bash
# Mutation testing (docs/mutation-testing.md): cargo-mutants with the repo's
# .cargo/mutants.toml. This installs the pinned cargo-mutants and
# cargo-nextest when missing, leaves out the validator kernels this CPU
# cannot run (their every mutant would read "missed"), builds a copied tree
# in target/mutants (kept between runs; never target/, where `cargo test`
# would take a mutant's build for fresh; with --jobs N each job's copy has its
# own), then runs `cargo mutants ARGS...`.
#   usage: ci/mutants.sh [CARGO_MUTANTS_ARGS...]   e.g. --workspace --shard 0/40
#          ci/mutants.sh summary [--shards N] DIR...
#                 one page of markdown from the mutants.out folders under DIRs
#                 (N: how many shards make the whole set)
# Exit: cargo-mutants' (0 all caught, 2 missed, 3 timeouts, 4 baseline failed),
# 127 when the tools cannot be installed; summary: 2 when a counted mutant
# was missed, else 0.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

if [ "${1:-}" = summary ]; then
  shift
  shards=0
  [ "${1:-}" != --shards ] || { shards="$2"; shift 2; }
  mapfile -t files < <(find "$@" -name outcomes.json | sort)
  [ ${#files[@]} -gt 0 ] || { echo "no outcomes.json (cargo-mutants' mutants.out) under $*" >&2; exit 1; }
  # Kernels (isa/src/validate/fast/lanes/avx*.rs) are counted apart: where the
  # CPU has their instructions, `cpu_has_features -> true` cannot be caught.
  jq -rs --argjson shards "$shards" --arg commit "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)" '
    def pct: if .v > 0 then "\(.c * 1000 / .v | round / 10)%" else "–" end;
    def row($k): ($k) as $m | {c: ([$m[] | select(.s == "CaughtMutant")] | length),
      m: ([$m[] | select(.s == "MissedMutant")] | length), t: ([$m[] | select(.s == "Timeout")] | length),
      u: ([$m[] | select(.s == "Unviable")] | length)} | .v = .c + .m + .t
      | "\(.c) | \(.m) | \(.t) | \(.u) | \(pct) |";
    [.[].outcomes[] | select(.scenario.Mutant?) | .scenario.Mutant + {s: .summary}
       | .k = (if (.file | test("validate/fast/lanes/avx")) then "kernels (apart)" else .package end)] as $m
    | ($m | map(select(.k != "kernels (apart)"))) as $counted
    | "# Mutation testing: summary", "",
      "- commit \($commit), cargo-mutants \(.[0].cargo_mutants_version);" +
      " \([.[].start_time // empty] | min | .[:16]) to \(map(.end_time // "") | max | .[:16]) UTC",
      "- runs: \(length), \(map(select(.end_time)) | length) finished" +
      (if $shards > 0 then (if (map(select(.end_time)) | length) == $shards then ": the whole set"
       else " of \($shards) shards: NOT the whole set" end) else "" end),
      "- mutants tested: \($m | length)", "",
      "| | caught | missed | timeout | unviable | caught / viable |", "|---|---:|---:|---:|---:|---:|",
      ($m | group_by(.k)[] | "| `\(.[0].k)` | " + row(.)),
      "| **all counted** | " + row($counted), "",
      "## Missed (\($m | map(select(.s == "MissedMutant")) | length))", "",
      ($m | map(select(.s == "MissedMutant")) | sort_by(.name)[] | "- `\(.name)`" + (if .k == "kernels (apart)" then " (kernel, apart)" else "" end)), "",
      "## Timeouts (\($m | map(select(.s == "Timeout")) | length))", "",
      ($m | map(select(.s == "Timeout")) | sort_by(.name)[] | "- `\(.name)`")
  ' "${files[@]}"
  missed=$(jq -s '[.[].outcomes[] | select(.summary == "MissedMutant" and (.scenario.Mutant.file | test("validate/fast/lanes/avx") | not))] | length' "${files[@]}")
  [ "$missed" = 0 ] || exit 2
  exit 0
fi

VERSION=27.1.0
cargo mutants --version 2>/dev/null | grep -q "$VERSION" || cargo install cargo-mutants --locked --version "$VERSION" || exit 127
# Each mutant's tests run under nextest's `mutants` profile (.config/nextest.toml).
cargo nextest --version >/dev/null 2>&1 || cargo install cargo-nextest --locked || exit 127

flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
args=()
[[ "$flags" == *" avx512vbmi "* && "$flags" == *" avx512bw "* ]] || args+=(--exclude isa/src/validate/fast/lanes/avx512.rs)
# A kept target folder serves one job: with --jobs N, each job builds in its
# own copy's target/, or one job would test another's mutant.
jobs=1
for ((i = 1; i <= $#; i++)); do
  case "${!i}" in
    --) break ;;
    -j | --jobs) n=$((i + 1)); jobs="${!n:-1}" ;;
    --jobs=*) jobs="${!i#--jobs=}" ;;
    -j*) jobs="${!i#-j}" ;;
  esac
done
if [ "$jobs" != 1 ]; then
  [ -z "${CARGO_TARGET_DIR:-}" ] || { echo "ci/mutants.sh: --jobs $jobs with CARGO_TARGET_DIR set: the jobs would share one target folder" >&2; exit 1; }
elif [[ " $* " != *" --in-place "* ]]; then
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target/mutants}"
fi
# The tests that read real programs look for ../shared beside the tree they
# run in, and cargo-mutants copies the tree into $TMPDIR: link ../shared there
# too (when this clone has it, as CI does), or those tests skip and every
# mutant only they catch reads "missed".
if [ -d "$root/../shared" ]; then
  export TMPDIR="$root/target/mutants-tmp"
  mkdir -p "$TMPDIR"
  ln -sfn "$(cd "$root/../shared" && pwd)" "$TMPDIR/shared"
fi
exec cargo mutants "${args[@]}" "$@"
