#!/usr/bin/env bash
# Writes reports/fuzz.md: every fuzz target (`cargo fuzz list`, but `empty`)
# run on one core (one libFuzzer job, `-seed=1`) from its committed seeds
# (corpus/<target> + corpus/regressions/<target>, as `cargo fuzz run` and
# ci/fuzz.sh start) with its options file (fuzz/options/): libFuzzer's
# average exec/s, the final cov/ft, the corpus it ended with, the seeds, and
# the load average (ci/fuzz-measure.sh). Twice where nightly Rust is
# installed: the stable build without a sanitizer (`-s none`, the
# throughput baseline) and the AddressSanitizer build ci/fuzz.sh uses;
# once (`-s none`) where it is not.
#
# Coverage (ASan build only: it needs the sanitizer's symbolizer): each
# target's seeds plus what its run found, replayed by ci/fuzz-coverage.sh,
# give the workspace functions it covers. The report compares `roundtrip`
# (the whole chain) with the union of `structured`, `text` and `validate`
# (the parts) and lists what `roundtrip` misses. --before DIR also
# measures an older build's `roundtrip` (DIR holds its ASan fuzzers, e.g.
# from a `git worktree` of an older commit) the same way.
#
# The runs are kept in fuzz/report-runs/ (git-ignored); --render writes the
# report again from them without running anything. reports/fuzz-notes.md is
# appended.
#   usage: ci/fuzz-report.sh [--secs N] [--long N] [--jobs N] [--before DIR] [--render] [TARGET...]
#          --secs: seconds per target and build (default 120)
#          --long: seconds for the coverage targets in the ASan build (default --secs)
#          --jobs: targets run at once, each on its own core (default 1; at most the cores)
#   exit:  0 written, 2 build, run or usage error
set -uo pipefail
cd "$(dirname "$0")/.."

secs=120 long="" jobs=1 before="" render_only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --secs) secs="${2:?--secs needs seconds}"; shift 2 ;;
    --long) long="${2:?--long needs seconds}"; shift 2 ;;
    --jobs) jobs="${2:?--jobs needs a number}"; shift 2 ;;
    --before) before="${2:?--before needs a folder}"; shift 2 ;;
    --render) render_only=1; shift ;;
    -h | --help) sed -n '2,27p' "$0"; exit 0 ;;
    -*) echo "ci/fuzz-report.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
long="${long:-$secs}"
for n in "$secs" "$long" "$jobs"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "ci/fuzz-report.sh: --secs, --long and --jobs take a positive whole number, not '$n'" >&2; exit 2; }
done
# One libFuzzer job per core: more at once would measure the scheduler, not the target.
[ "$jobs" -le "$(nproc)" ] || { echo "ci/fuzz-report.sh: --jobs $jobs is more than this machine's $(nproc) cores" >&2; exit 2; }
runs="fuzz/report-runs"
# roundtrip against the union of the parts it chains.
chain=roundtrip
parts=(structured text validate)
# The parts' entry functions (fuzz/fuzz_targets/<part>.rs calls them), left out of the union.
entries="tpb_isa::props::structured tpb_isa::props::text_roundtrip tpb_isa::props::validate_any tpb_isa::props::mutation"

measure() {
  targets=("$@")
  [ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo fuzz list | grep -vx empty)
  host="$(rustc -vV | sed -n 's/^host: //p')"
  # The builds: ASan where ci/fuzz-sanitizer.sh finds nightly, then `-s none`, each in its own target folder.
  source ci/fuzz-sanitizer.sh
  builds=(none)
  [ "$FUZZ_BUILD_LABEL" = ASan ] && builds=(ASan none)
  rm -rf "$runs"
  mkdir -p "$runs/cov" "$runs/grown"
  {
    echo "secs=$secs"
    echo "long=$long"
    echo "jobs=$jobs"
    echo "commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- isa oracle fuzz corpus || echo ' (with local changes)')"
  } >"$runs/meta"
  : >"$runs/rows"
  if [ -n "$before" ]; then
    [ "$FUZZ_BUILD_LABEL" = ASan ] || { echo "ci/fuzz-report.sh: --before needs nightly (an ASan build)" >&2; return 2; }
    run_one "$before" "ASan, before" "$secs" "$chain" || return 2
    echo "before=$(git -C "$before" rev-parse --short HEAD 2>/dev/null || echo "$before")" >>"$runs/meta"
  fi
  for build in "${builds[@]}"; do
    bin="fuzz/target/$host/release"
    if [ "$build" = ASan ]; then
      bin="fuzz/target-asan/$host/release"
      cargo +nightly fuzz build --target-dir fuzz/target-asan >&2 || return 2
    else
      cargo fuzz build -s none >&2 || return 2
    fi
    run_all "$bin" "$build" "${targets[@]}" || return 2
  done
}

# Every target's run in one build, --jobs at a time; rows kept in target order.
run_all() {
  local bin="$1" build="$2" t s i=0 n=0
  shift 2
  rm -rf "$runs/parts"
  mkdir -p "$runs/parts"
  for t in "$@"; do
    s="$secs"
    [ "$build" = ASan ] && [[ " $chain ${parts[*]} " == *" $t "* ]] && s="$long"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    i=$((i + 1))
    run_one "$bin" "$build" "$s" "$t" "$runs/parts/$(printf %03d "$i")" &
  done
  wait
  # A run that failed left no row (run_one said why on stderr).
  n="$(find "$runs/parts" -type f | wc -l)"
  [ "$n" -eq "$i" ] || { echo "ci/fuzz-report.sh: $((i - n)) of $i runs in the $build build failed" >&2; return 2; }
  cat "$runs"/parts/* >>"$runs/rows"
  rm -rf "$runs/parts"
}

# One measured run; in the ASan builds, the coverage of the seeds plus what it found.
# Its row goes to OUT (default: appended to the rows).
run_one() {
  local bin="$1" build="$2" s="$3" t="$4" out="${5:-$runs/rows}" tag row seeds n kb max
  tag="$(tr -c 'A-Za-z0-9\n' '-' <<<"$build")-$t"
  echo "== $t ($build): ${s}s seeded" >&2
  row="$(FUZZ_MEASURE_KEEP="$PWD/$runs/grown/$tag" ci/fuzz-measure.sh "$bin" "$build" "$s" "$t")" || return 2
  seeds=("corpus/$t")
  [ -d "corpus/regressions/$t" ] && seeds+=("corpus/regressions/$t")
  n="$(find "${seeds[@]}" -type f ! -name '*.md' ! -name '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]' | wc -l)"
  kb="$(find "${seeds[@]}" -type f ! -name '*.md' ! -name '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]' -printf '%s\n' | awk '{s += $1} END {printf "%.0f", s / 1024}')"
  max="$(sed -n 's/^max_len[[:space:]]*=[[:space:]]*//p' "fuzz/options/$t.options" 2>/dev/null)"
  # fuzz-measure's row is | target | build | time | exec/s | cov | ft | corp | load |: max_len and seeds go after the target.
  row="$(sed "s/^| \`$t\` |/| \`$t\` | ${max:-–} | $n \/ ${kb} KiB |/" <<<"$row")"
  if [[ "$build" == ASan* ]]; then
    ci/fuzz-coverage.sh "$bin/$t" "$runs/grown/$tag/$t" "${seeds[@]}" >"$runs/cov/$tag.tsv" || return 2
    row="$row $(wc -l <"$runs/cov/$tag.tsv") |"
  else
    row="$row – |"
  fi
  echo "$row" >>"$out"
}

# Markdown code span of a name (a `|` would end the table cell).
code() {
  sed 's/|/\\|/g; s/^/`/; s/$/`/'
}

render() {
  [ -f "$runs/rows" ] && [ -f "$runs/meta" ] || { echo "ci/fuzz-report.sh: no runs in $runs/ (run without --render)" >&2; return 2; }
  local m_secs m_long m_jobs m_commit m_before cpu
  m_secs="$(sed -n 's/^secs=//p' "$runs/meta")"
  m_long="$(sed -n 's/^long=//p' "$runs/meta")"
  m_jobs="$(sed -n 's/^jobs=//p' "$runs/meta")"
  m_commit="$(sed -n 's/^commit=//p' "$runs/meta")"
  m_before="$(sed -n 's/^before=//p' "$runs/meta")"
  cpu="$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n 1)"
  cpu="$cpu (family $(sed -n 's/^cpu family[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n 1), model $(sed -n 's/^model[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n 1))"
  echo "# Fuzzing throughput and coverage"
  echo
  echo "Written by \`ci/fuzz-report.sh --secs $m_secs --long $m_long --jobs ${m_jobs:-1}\`; do not edit by hand. Each"
  echo "target ran on one core (one libFuzzer job, \`-seed=1\`; ${m_jobs:-1} target(s) at a time) for the time in its row"
  echo "(${m_secs} s; ${m_long} s for \`$chain\`, $(printf '`%s` ' "${parts[@]}" | sed 's/ $//; s/` `/`, `/g') in the ASan build) with its"
  echo "\`fuzz/options/<target>.options\` (max_len, dictionary), from its committed seeds"
  echo "(\`corpus/<target>\` + \`corpus/regressions/<target>\`, what \`cargo fuzz run <target>\` and"
  echo "\`ci/fuzz.sh\` start from), once per build: \`none\` is stable Rust without a sanitizer"
  echo "(\`-s none\`), \`ASan\` nightly Rust with AddressSanitizer (\`cargo +nightly fuzz\`, what"
  echo "\`ci/fuzz.sh\` uses where nightly is installed). exec/s is libFuzzer's average; cov/ft and"
  echo "corp (inputs/bytes) its last status line (cov counts a binary's own edges: compare it"
  echo "within a row's build only); load the 1-minute load average when the run ended (the machine"
  echo "is shared: a load of 4 on 2 cores halves exec/s). Seeds: files / size on disk. funcs:"
  echo "workspace functions (isa/, oracle/) the seeds plus the run's new inputs cover"
  echo "(\`ci/fuzz-coverage.sh\`, ASan builds only)."
  [ -n "$m_before" ] && echo "\`ASan, before\` is \`$chain\` built from commit $m_before, on the same seeds."
  echo
  echo "- date: $(date -u -r "$runs/rows" +%Y-%m-%dT%H:%MZ)"
  echo "- commit: $m_commit"
  echo "- CPU: ${cpu:-unknown}, $(nproc) cores"
  echo "- load average (1 min) at the end of each run: $(awk -F'|' '{ l = $11 + 0; if (NR == 1 || l < lo) lo = l; if (l > hi) hi = l } END { printf "%.2f to %.2f", lo, hi }' "$runs/rows")"
  echo
  echo "| target | max_len | seeds | build | time | exec/s | cov | ft | corp | load | funcs |"
  echo "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"
  cat "$runs/rows"
  coverage_union
  if [ -f reports/fuzz-notes.md ]; then
    echo
    cat reports/fuzz-notes.md
  fi
}

# roundtrip's functions against the union of the parts' (ASan build).
coverage_union() {
  local files=() p f union rt
  for p in "${parts[@]}"; do
    f="$runs/cov/ASan-$p.tsv"
    [ -f "$f" ] && files+=("$f")
  done
  rt="$runs/cov/ASan-$chain.tsv"
  [ ${#files[@]} -eq ${#parts[@]} ] && [ -f "$rt" ] || return 0
  union="$(mktemp)"
  # name<TAB>most edges any part covers<TAB>edges<TAB>file, one line per function;
  # not the parts' own entry functions, which only their targets call.
  awk -F'\t' -v entries="$entries" 'BEGIN { n = split(entries, e, " "); for (i = 1; i <= n; i++) skip[e[i]] = 1 }
    $1 in skip { next }
    { split($2, e, "/"); k = $1 "\t" $3; if (!(k in b) || e[1] + 0 > b[k] + 0) { b[k] = e[1]; t[k] = e[2] } }
    END { for (k in b) { split(k, p, "\t"); print p[1] "\t" b[k] "\t" t[k] "\t" p[2] } }' "${files[@]}" | LC_ALL=C sort >"$union"
  echo
  echo "## Coverage: \`$chain\` against the union of $(printf '`%s`, ' "${parts[@]}" | sed 's/, $//')"
  echo
  echo "Workspace functions covered in the ASan build (seeds plus each run's new inputs; a"
  echo "function counts once, its edges the most any of its instances covers; inlined functions"
  echo "count as part of their caller). The parts' entry functions ($(printf '`%s` ' $entries | sed 's/ $//; s/` `/`, `/g'))"
  echo "are left out: only their own targets call them."
  echo
  awk -F'\t' -v chain="$chain" '
    FNR == NR { split($2, e, "/"); rt[$1 "\t" $3] = e[1]; next }
    { k = $1 "\t" $4; u++; if (k in rt) { both++; if (rt[k] + 0 < $2 + 0) fewer++; ue += $2; re += (rt[k] < $2 ? rt[k] : $2) } else { miss++; ue += $2 } }
    END {
      n = 0; for (k in rt) n++
      printf "| | functions | edges in them |\n|---|---:|---:|\n"
      printf "| union of the parts | %d | %d |\n", u, ue
      printf "| `%s` | %d | |\n", chain, n
      printf "| union ∩ `%s` | %d (%.1f %%) | %d (%.1f %%) |\n", chain, both, u ? 100 * both / u : 0, re, ue ? 100 * re / ue : 0
      printf "| in the union, not in `%s` | %d | |\n", chain, miss
      printf "| in both, fewer edges in `%s` | %d | |\n", chain, fewer
      printf "| in `%s` only | %d | |\n", chain, n - both
    }' "$rt" "$union"
  echo
  echo "What \`$chain\` misses (functions of the union it does not cover):"
  echo
  local missed
  missed="$(awk -F'\t' 'FNR == NR { rt[$1 "\t" $3] = 1; next } !(($1 "\t" $4) in rt) { print $4 "\t" $1 }' "$rt" "$union" | LC_ALL=C sort)"
  if [ -z "$missed" ]; then
    echo "- none"
  else
    while IFS=$'\t' read -r file name; do
      echo "- $(code <<<"$name") ($(code <<<"$file"))"
    done <<<"$missed"
  fi
  echo
  echo "Functions both cover where \`$chain\` covers fewer edges (its / the union's best):"
  echo
  local fewer
  fewer="$(awk -F'\t' 'FNR == NR { split($2, e, "/"); rt[$1 "\t" $3] = e[1]; next }
    (($1 "\t" $4) in rt) && rt[$1 "\t" $4] + 0 < $2 + 0 { print $4 "\t" $1 "\t" rt[$1 "\t" $4] "/" $2 "/" $3 }' "$rt" "$union" | LC_ALL=C sort)"
  if [ -z "$fewer" ]; then
    echo "- none"
  else
    while IFS=$'\t' read -r file name counts; do
      IFS=/ read -r mine best total <<<"$counts"
      echo "- $(code <<<"$name") ($(code <<<"$file")): $mine / $best of $total"
    done <<<"$fewer"
  fi
  rm -f "$union"
}

if [ -z "$render_only" ]; then
  measure "$@" || exit 2
fi
out="$(mktemp reports/.fuzz.md.XXXXXX)"
render >"$out" || { rm -f "$out"; exit 2; }
mv "$out" reports/fuzz.md
echo "reports/fuzz.md written" >&2
