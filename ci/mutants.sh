#!/usr/bin/env bash
# Mutation testing of the harness's own tests (cargo-mutants, configured in
# .cargo/mutants.toml), then reports/mutants.md from the outcomes.
#   usage: ci/mutants.sh [--shard K/N] [--in-diff FILE] [--budget SECONDS]
#                        [--packages "tpb-isa tpb-oracle"] [--out DIR (mutants.out goes inside)]
#                        [--report FILE] [-- CARGO_MUTANTS_ARGS...]
#          ci/mutants.sh --merge [--report FILE] DIR...   (report only, e.g. nightly shards)
#          ci/mutants.sh --merge [--report FILE] --kept reports/mutants/runs   (every kept run)
#          ci/mutants.sh --keep DIR NAME   (keep DIR's run, trimmed, as reports/mutants/runs/NAME)
#          ci/mutants.sh --untested [--shard K/N] [--out DIR] [--report FILE]
#                        (run the tree's mutants no kept run has tested, matched by name
#                        after carrying each kept outcome to the tree; part K of N of them)
#          ci/mutants.sh --recheck DIR [--out DIR2] [--report FILE]
#                        (run again the mutants DIR's run missed or timed out on, each carried to its
#                        line now through `git diff` from the commit that run mutated,
#                        then report DIR's run with what became of them; DIR may be a
#                        recheck, and then only what it still missed runs)
# Without --shard or --in-diff the whole set runs. --budget stops the run
# (SIGINT, so outcomes so far are kept) and says so; the exit status is
# cargo-mutants' (0 all caught, 2 missed, 3 timeouts, 4 baseline failed) or
# 124 when the budget ran out, 5 when cargo-mutants cannot be installed.
# The CPU-specific validator kernels
# (isa/src/validate/fast/lanes/avx*.rs) are left out on a CPU without their
# instructions and reported apart.
#   env: MUTANTS_IN_PLACE=1  mutate the checkout itself (a throwaway CI
#        checkout only: nothing after it may build from this tree).
#        MUTANTS_TARGET_DIR  where the copy builds (default target/mutants).
set -uo pipefail
# The whole script is one block, read before it runs: editing this file
# during an hour-long run cannot change the run's end.
{
cd "$(dirname "$0")/.."

VERSION=27.1.0
shard="" diff="" budget="" out="." report="reports/mutants.md" merge=0 recheck="" untested=0
packages="${MUTANTS_PACKAGES:-tpb-isa tpb-oracle}"
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --shard) shard="$2"; shift 2 ;;
    --in-diff) diff="$2"; shift 2 ;;
    --budget) budget="$2"; shift 2 ;;
    --packages) packages="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --report) report="$2"; shift 2 ;;
    --merge) merge=1; shift ;;
    --keep) [ $# -ge 3 ] || { echo "usage: ci/mutants.sh --keep DIR NAME" >&2; exit 1; }
            exec python3 ci/mutants_keep.py "$2" "reports/mutants/runs/$3" ;;
    --recheck) recheck="$2"; shift 2 ;;
    --untested) untested=1; shift ;;
    --) shift; extra=("$@"); break ;;
    *) if [ "$merge" = 1 ]; then break; fi; echo "unknown argument: $1" >&2; exit 1 ;;
  esac
done

if [ "$merge" = 1 ]; then
  # Merging kept runs: list the tree's whole set, so the report counts by
  # name which of its mutants some kept run tested (shards taken at
  # different commits do not add up to it). Skipped without cargo-mutants.
  whole=()
  if [[ " $* " == *" --kept "* ]] && cargo mutants --version 2>/dev/null | grep -q "$VERSION"; then
    list=$(mktemp)
    trap 'rm -f "$list"' EXIT
    margs=()
    for p in $packages; do margs+=(--package "$p"); done
    if cargo mutants --list "${margs[@]}" > "$list" 2>/dev/null; then whole=(--whole-list "$list"); fi
  fi
  python3 ci/mutants_report.py -o "$report" "${whole[@]}" "$@"
  exit $?
fi

if ! cargo mutants --version 2>/dev/null | grep -q "$VERSION"; then
  cargo install cargo-mutants --locked --version "$VERSION" || { echo "cargo-mutants $VERSION could not be installed" >&2; exit 5; }
fi
# Each mutant's tests run under nextest (test_tool in .cargo/mutants.toml);
# its `mutants` profile needs test priorities (0.9.91) and immediate fail-fast.
if ! cargo nextest --version >/dev/null 2>&1; then
  cargo install cargo-nextest --locked || { echo "cargo-nextest could not be installed" >&2; exit 5; }
fi

# Packages to mutate; tests always run over the whole workspace (config).
args=()
for p in $packages; do args+=(--package "$p"); done

# Kernels this CPU cannot run: every mutant there would be "missed".
flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
left_out=()
[[ "$flags" == *" avx512vbmi "* && "$flags" == *" avx512bw "* ]] || left_out+=(isa/src/validate/fast/lanes/avx512.rs)
[[ "$flags" == *" avx2 "* ]] || left_out+=(isa/src/validate/fast/lanes/avx2.rs)
for f in "${left_out[@]}"; do args+=(--exclude "$f"); done

# run.json beside a run's outcomes: what the report and a later recheck read.
#   run_json FILE SCOPE ALL_MUTANTS SECONDS COMMIT TESTS
run_json() {
  local cpu kernels_json
  cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ *//')
  kernels_json=$(printf '%s\n' "${left_out[@]}" | python3 -c 'import json,sys; print(json.dumps([l for l in sys.stdin.read().split() if l]))')
  SCOPE="$2" CPU="${cpu:-unknown} ($(nproc) cores)" PACKAGES="$packages" ALL="$3" SECS="$4" \
    COMMIT="$5" KERNELS="$kernels_json" TESTS="$6" \
    python3 - "$1" <<'EOF'
import json, os, sys, datetime
json.dump({
    "scope": os.environ["SCOPE"], "cpu": os.environ["CPU"], "packages": os.environ["PACKAGES"],
    "commit": os.environ["COMMIT"], "all_mutants": int(os.environ["ALL"]), "seconds": int(os.environ["SECS"]),
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    "kernels_left_out": json.loads(os.environ["KERNELS"]), "tests": os.environ["TESTS"],
}, open(sys.argv[1], "w"), indent=1)
EOF
}

scope="whole set"
mode=()
if [ -n "$recheck" ]; then
  missed_file="$recheck/mutants.out/missed.txt"
  [ -f "$missed_file" ] || { echo "no $missed_file: not a cargo-mutants output folder" >&2; exit 1; }
  # The missed mutants where they are now: a diff of their lines plus a --re each.
  mkdir -p "$out"
  recheck_diff="$out/recheck.diff"
  was=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("commit", ""))' "$recheck/mutants.out/run.json" 2>/dev/null)
  [ -n "$was" ] || { echo "no commit in $recheck/mutants.out/run.json" >&2; exit 1; }
  mapfile -t res < <(python3 ci/mutants_recheck.py "$recheck/mutants.out" "$was" "$recheck_diff" "$out/recheck.json")
  if [ "${#res[@]}" = 0 ]; then
    echo "== none of the mutants $recheck missed is generated now"
    mkdir -p "$out/mutants.out" && echo '{"outcomes": []}' > "$out/mutants.out/outcomes.json"
    # A finished recheck that ran nothing: kept and merged like any other.
    run_json "$out/mutants.out/run.json" "recheck of the mutants $recheck missed" 0 0 "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" full
    exec python3 ci/mutants_report.py -o "$report" --recheck "$out/mutants.out" --recheck-map "$out/recheck.json" "$recheck"
  fi
  mode+=(--in-diff "$recheck_diff" "${res[@]}" --no-shuffle)
  scope="recheck of the mutants $recheck missed or timed out on"
fi
if [ "$untested" = 1 ]; then
  mkdir -p "$out"
  cargo mutants --list "${args[@]}" "${extra[@]}" > "$out/whole.list" 2>/dev/null
  mapfile -t res < <(python3 ci/mutants_untested.py "$out/whole.list" reports/mutants/runs ${shard:+--part "$shard"} --diff "$out/untested.diff")
  if [ "${#res[@]}" = 0 ]; then
    echo "== no untested mutant${shard:+ in part $shard}: every one is named by a kept run's outcome"
    exit 0
  fi
  mode+=(--in-diff "$out/untested.diff" "${res[@]}" --no-shuffle)
  scope="untested by the kept runs${shard:+, part $shard}"
elif [ -n "$shard" ]; then
  mode+=(--shard "$shard" --sharding round-robin)
  scope="sample: shard $shard (round-robin)"
fi
if [ -n "$recheck" ] || [ "$untested" = 1 ]; then
  :
elif [ -n "$diff" ]; then
  # Shuffled: a run the budget cuts short has tested a random part of the diff.
  mode+=(--in-diff "$diff" --shuffle)
  scope="in-diff: $diff${shard:+, shard $shard}"
else
  mode+=(--no-shuffle)
fi
# The quick tier, for samples and the whole set: every workspace test but
# the CLI's slowest binaries (the ones .config/nextest.toml runs last). No
# mutant of ~450 so far was caught by them alone, yet they are ~40% of the
# test time of a missed mutant, and missed ones are half a run's time. A
# mutant the quick tier misses is rechecked with every test (--recheck
# runs the full set, as --in-diff does), so a final verdict never rests on
# the quick tier's misses. MUTANTS_TESTS=full runs every test throughout.
tests="full"
if [ -z "$recheck" ] && [ -z "$diff" ] && [ "${MUTANTS_TESTS:-quick}" = quick ]; then
  mode+=("--cargo-test-arg=-E" "--cargo-test-arg=not (package(tpb) & (binary(bounded) | binary(bench) | binary(stdout)))")
  tests="quick"
fi
if [ "${MUTANTS_IN_PLACE:-0}" = 1 ]; then
  args+=(--in-place)
else
  # The tree is copied per run, and built in a target dir of its own that
  # outlives it (dependencies stay built between runs). Not target/: the
  # copy's crates share their artifact names with this tree's, and a build
  # of the last mutant would look fresh to the next `cargo test` here.
  export CARGO_TARGET_DIR="${MUTANTS_TARGET_DIR:-$PWD/target/mutants}"
fi

all=$(cargo mutants --list "${args[@]}" "${extra[@]}" 2>/dev/null | wc -l)
selected=$(cargo mutants --list "${args[@]}" "${mode[@]}" "${extra[@]}" 2>/dev/null | wc -l)
echo "== cargo mutants: $selected of $all mutants ($scope; packages: $packages)"

mkdir -p "$out"
if [ -n "$recheck" ] && [ "$selected" = 0 ]; then
  # Carried, yet none generated: each line kept its place but its text
  # changed (a new return type, say). A finished recheck of nothing, so the
  # report calls them no longer generated.
  mkdir -p "$out/mutants.out" && echo '{"outcomes": [], "total_mutants": 0}' > "$out/mutants.out/outcomes.json"
fi
# The commit mutated: taken now, since the tree may move on while the run lasts.
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
start=$(date +%s)
status=0
if [ "$selected" -gt 0 ]; then
  if [ -n "$budget" ]; then
    timeout --signal=INT --kill-after=60 "$budget" \
      cargo mutants --output "$out" "${args[@]}" "${mode[@]}" "${extra[@]}" || status=$?
  else
    cargo mutants --output "$out" "${args[@]}" "${mode[@]}" "${extra[@]}" || status=$?
  fi
fi
secs=$(( $(date +%s) - start ))
if [ "$status" = 124 ] || [ "$status" = 130 ]; then
  echo "== budget of ${budget}s ran out: the mutants not yet tested were skipped (see the report)" >&2
  scope="$scope, stopped by the ${budget}s budget"
  status=124
fi

# cargo-mutants puts mutants.out inside --output.
dir="$out/mutants.out"
if [ -f "$dir/outcomes.json" ]; then
  run_json "$dir/run.json" "$scope" "$all" "$secs" "$commit" "$tests"
  rstatus=0
  if [ -n "$recheck" ]; then
    python3 ci/mutants_report.py -o "$report" --recheck "$dir" --recheck-map "$out/recheck.json" "$recheck" || rstatus=$?
  else
    python3 ci/mutants_report.py -o "$report" "$dir" || rstatus=$?
  fi
  if [ "$rstatus" = 2 ]; then
    status=2 # a counted mutant was missed, even in a run the budget stopped
  elif [ "$rstatus" != 0 ]; then
    status=$((status == 0 ? 1 : status))
  elif [ "$status" = 2 ]; then
    # Every missed mutant is one the config excludes (struct-field
    # deletions, which cargo-mutants 27.1 tests whatever exclude_re says).
    status=0
  fi
else
  echo "== no outcomes written (nothing selected, or cargo-mutants failed early)"
fi
exit "$status"
}
