#!/usr/bin/env bash
# Merging many profiles (issue 20): ppeout on a directory of COUNT .ppe files against ppeout on
# one of them, peak RSS (GNU time's "Maximum resident set size") and wall time. The COUNT files
# are one real profile (PROG run once under the collector, CPU mode) rewritten: file i has every
# count of the original (categories, bins, max-bin, objects, threads) and its CPU and active time
# multiplied by 1 + i % 7, its own pid and a rank record i, so each is a consistent profile of
# the same build with different counts (and the same achieved rate).
# Usage: bench/merge.sh [BUILD_DIR] [COUNT] [WORK_DIR] [PROG ARGS...]
#   default PROG: bench/large_program.sh's program with 10 x 300 functions, run for 3 s
set -euo pipefail
build=$(readlink -f "${1:-build}")
count=${2:-1000}
work=${3:-$(mktemp -d)}
shift $(($# < 3 ? $# : 3))
prog=("$@")
here=$(cd "$(dirname "$0")" && pwd)
if [ ${#prog[@]} -eq 0 ]; then
  [ -x "$work/large" ] || "$here/large_program.sh" "$work" 10 300 >/dev/null
  prog=("$work/large" 3)
fi
[ -x /usr/bin/time ] || { echo "bench/merge.sh: needs GNU time (apt-get install time)" >&2; exit 1; }

mkdir -p "$work/many"
rm -f "$work/many"/*.ppe
"$build/collector/ppe" -o "$work/one.ppe" --mode cpu "${prog[@]}" >/dev/null 2>&1
for i in $(seq 0 $((count - 1))); do
  awk -v f=$((1 + i % 7)) -v pid=$((100000 + i)) -v rank="$i" '
    $1 == "count" || $1 == "max-bin" { $NF = $NF * f }
    $1 == "bin" { $3 = $3 * f }
    $1 == "object-hit" { $4 = $4 * f }
    $1 == "object" { $3 = $3 * f }
    $1 == "thread" { $3 = $3 * f }
    $1 == "cpu-time" { $2 = sprintf("%.6f", $2 * f); $3 = sprintf("%.6f", $3 * f) }
    $1 == "active-time" { $2 = sprintf("%.6f", $2 * f) }
    $1 == "pid" { $2 = pid; print; print "rank " rank; next }
    { print }' "$work/one.ppe" >"$work/many/p$(printf %05d "$i").ppe"
done

# peak_and_wall COMMAND...: "KB SECONDS" of one run.
peak_and_wall() {
  /usr/bin/time -f "%M %e" -o "$work/time.txt" "$@" >/dev/null 2>"$work/err.txt" ||
    { cat "$work/err.txt" >&2; exit 1; }
  cat "$work/time.txt"
}

read -r one_kb one_s < <(peak_and_wall "$build/formatter/ppeout" --by function "$work/many/p00000.ppe" -)
read -r many_kb many_s < <(peak_and_wall "$build/formatter/ppeout" --by function "$work/many" -)
echo "profile: $(grep -c '^bin ' "$work/one.ppe") non-empty bins of $(awk '$1 == "bin-count" { print $2 }' \
  "$work/one.ppe"), $(basename "${prog[0]}"); $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
printf '%-44s %12s %10s\n' "command" "peak RSS MB" "wall s"
printf '%-44s %12.1f %10.2f\n' "ppeout --by function p00000.ppe -" "$(echo "$one_kb / 1024" | bc -l)" "$one_s"
printf '%-44s %12.1f %10.2f\n' "ppeout --by function many/ - ($count files)" "$(echo "$many_kb / 1024" | bc -l)" \
  "$many_s"
printf 'peak RSS ratio %.2f (target: within 2x)\n' "$(echo "$many_kb / $one_kb" | bc -l)"
