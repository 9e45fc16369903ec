# Sourced by ci/fuzz-measure.sh (`cargo xtask fuzz` reads the files the same way): one reading of a target's
# options file (fuzz/options/<target>.options, `[libfuzzer]` key = value)
# as libFuzzer flags, one per line; `dict` names a file under fuzz/dict.
options() {
  local f="fuzz/options/$1.options" k v
  [ -f "$f" ] || return 0
  while IFS='=' read -r k v; do
    k="$(echo "$k" | tr -d '[:space:]')" v="$(echo "$v" | tr -d '[:space:]')"
    case "$k" in
      '' | \#* | \[*) ;;
      dict) echo "-dict=$PWD/fuzz/dict/$v" ;;
      *) echo "-$k=$v" ;;
    esac
  done <"$f"
}
