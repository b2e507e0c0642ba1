#!/usr/bin/env bash
# Merging many profiles (issues 20, 35): ppeout on a directory of COUNT .ppe files (one level), and
# the same files merged node by node (`ppeout --merge-out`, NODE_SIZE files a node) and then the
# nodes' parts (two levels), against ppeout on one of them: wall time, CPU time (user + system) and
# peak RSS (GNU time's "Maximum resident set size") of each, and a check that the two-level report
# equals the one-level one (every table but the header's pid list and the per-rank imbalance, which
# a merge of parts gives by part). The COUNT files are one real profile (PROG run once under the
# collector, CPU mode) rewritten: file i has every count of the original (categories, bins,
# max-bin, objects, threads) and its CPU and active time multiplied by 1 + i % 7, its own pid and a
# rank record i, so each is a consistent profile of the same build with different counts (and the
# same achieved rate). The files are read from the page cache (they are written just before).
# Usage: bench/merge.sh [BUILD_DIR] [COUNT] [WORK_DIR] [NODE_SIZE] [PROG ARGS...]
#   default COUNT 100000, NODE_SIZE 1000 (a multiple of 10, or COUNT itself);
#   default PROG: bench/large_program.sh's program with 10 x 300 functions, run for 3 s
set -euo pipefail
# What the benchmarks run (perf, gperftools, gnuplot, ... and the tests' tools), when missing.
"$(dirname "$0")/../scripts/install-deps.sh" bench
build=$(readlink -f "${1:-build}")
count=${2:-100000}
work=${3:-$(mktemp -d)}
node=${4:-1000}
shift $(($# < 4 ? $# : 4))
prog=("$@")
here=$(cd "$(dirname "$0")" && pwd)
if [ ${#prog[@]} -eq 0 ]; then
  [ -x "$work/large" ] || "$here/large_program.sh" "$work" 10 300 >/dev/null
  prog=("$work/large" 3)
fi
[ -x /usr/bin/time ] || { echo "bench/merge.sh: needs GNU time (apt-get install time)" >&2; exit 1; }
digits=${#count}
# A node is the files whose names share all but the last log10(NODE_SIZE) digits: a pattern.
tail_digits=$(awk -v n="$node" 'BEGIN { d = 0; while (n > 1 && n % 10 == 0) { n /= 10; d++ } print (n == 1 ? d : -1) }')
[ "$tail_digits" -ge 0 ] && [ "$tail_digits" -le "$digits" ] ||
  { echo "bench/merge.sh: NODE_SIZE must be a power of 10 no larger than COUNT's digits allow" >&2; exit 1; }

mkdir -p "$work/many" "$work/parts"
find "$work/many" "$work/parts" -maxdepth 1 -name '*.ppe*' -delete
"$build/collector/ppe" -o "$work/one.ppe" --mode cpu "${prog[@]}" >/dev/null 2>&1
# The seven variants (factor 1 + i % 7), each split at its pid line; then one awk writes every file.
for f in 1 2 3 4 5 6 7; do
  awk -v f="$f" -v head="$work/v$f.head" -v tail="$work/v$f.tail" '
    $1 == "count" || $1 == "max-bin" { $NF = $NF * f }
    $1 == "bin" { $3 = $3 * f }
    $1 == "object-hit" { $4 = $4 * f }
    $1 == "object" { $3 = $3 * f }
    $1 == "thread" { $3 = $3 * f }
    $1 == "cpu-time" { $2 = sprintf("%.6f", $2 * f); $3 = sprintf("%.6f", $3 * f) }
    $1 == "active-time" { $2 = sprintf("%.6f", $2 * f) }
    $1 == "pid" { after = 1; next }
    { print > (after ? tail : head) }' "$work/one.ppe"
done
awk -v count="$count" -v dir="$work/many" -v digits="$digits" -v v="$work/v" '
  function slurp(path,   text, line) { text = ""; while ((getline line < path) > 0) text = text line "\n"; close(path); return text }
  BEGIN {
    for (f = 1; f <= 7; f++) { head[f] = slurp(v f ".head"); tail[f] = slurp(v f ".tail") }
    for (i = 0; i < count; i++) {
      f = 1 + i % 7
      out = sprintf("%s/p%0" digits "d.ppe", dir, i)
      printf "%spid %d\nrank %d\n%s", head[f], 100000 + i, i, tail[f] > out
      close(out)
    }
  }'

# measure NAME COMMAND...: runs it once; sets NAME_kb, NAME_s (wall) and NAME_cpu (user + system).
measure() {
  local name=$1 kb s user sys
  shift
  /usr/bin/time -f "%M %e %U %S" -o "$work/time.txt" "$@" >"$work/$name.out" 2>"$work/err.txt" ||
    { cat "$work/err.txt" >&2; exit 1; }
  read -r kb s user sys <"$work/time.txt"
  printf -v "${name}_kb" %s "$kb"
  printf -v "${name}_s" %s "$s"
  printf -v "${name}_cpu" %s "$(echo "$user + $sys" | bc -l)"
}

ppeout=$build/formatter/ppeout
measure one "$ppeout" --by function "$work/many/p$(printf "%0${digits}d" 0).ppe" -
measure all "$ppeout" --by function "$work/many" -
# Two levels: one --merge-out per node (one after the other here; under a batch system they run side
# by side, one per node), then the report of the parts.
nodes=$(((count + node - 1) / node))
nodes_cpu=0 nodes_kb=0 nodes_slowest=0 nodes_s=0
for k in $(seq 0 $((nodes - 1))); do
  prefix=$(printf "%0$((digits - tail_digits))d" "$k")
  pattern="$work/many/p$prefix$(printf '?%.0s' $(seq 1 "$tail_digits")).ppe"
  [ "$tail_digits" -eq 0 ] && pattern="$work/many/p$prefix.ppe"
  [ "$node" -eq "$count" ] && pattern="$work/many"
  measure node "$ppeout" --merge-out "$work/parts/node$prefix.ppe" "$pattern"
  nodes_cpu=$(echo "$nodes_cpu + $node_cpu" | bc -l)
  nodes_s=$(echo "$nodes_s + $node_s" | bc -l)
  nodes_kb=$((node_kb > nodes_kb ? node_kb : nodes_kb))
  nodes_slowest=$(echo "if ($node_s > $nodes_slowest) $node_s else $nodes_slowest" | bc -l)
done
measure parts "$ppeout" --by function "$work/parts" -

# The reports without the lines a merge of parts gives differently: the header's "Merged:" line
# (pids by part) and the per-rank imbalance section (by part).
tables() { awk '/PER-RANK IMBALANCE/ { exit } !/^ *Merged: /' "$1"; }
if cmp -s <(tables "$work/all.out") <(tables "$work/parts.out"); then same=yes; else same=NO; fi

mb() { echo "$1 / 1024" | bc -l; }
echo "profile: $(grep -c '^bin ' "$work/one.ppe") non-empty bins of $(awk '$1 == "bin-count" { print $2 }' \
  "$work/one.ppe"), $(basename "${prog[0]}"); $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
printf '%-58s %11s %9s %9s\n' "command" "peak RSS MB" "wall s" "CPU s"
row() { printf '%-58s %11.1f %9.2f %9.2f\n' "$1" "$(mb "$2")" "$3" "$4"; }
row "ppeout --by function p0.ppe - (one file)" "$one_kb" "$one_s" "$one_cpu"
row "one level: ppeout --by function many/ - ($count files)" "$all_kb" "$all_s" "$all_cpu"
row "two levels: $nodes x ppeout --merge-out ($node files each)" "$nodes_kb" "$nodes_s" "$nodes_cpu"
row "  then ppeout --by function parts/ - ($nodes parts)" "$parts_kb" "$parts_s" "$parts_cpu"
printf 'two levels with one node merge per machine (the slowest node, then the parts): %.2f s wall\n' \
  "$(echo "$nodes_slowest + $parts_s" | bc -l)"
printf 'one level: %.3f ms a file (wall), %.3f ms a file (CPU); peak RSS ratio %.2f to one file\n' \
  "$(echo "1000 * $all_s / $count" | bc -l)" "$(echo "1000 * $all_cpu / $count" | bc -l)" \
  "$(echo "$all_kb / $one_kb" | bc -l)"
echo "two-level report equals the one-level report (but for the pid list and the imbalance by part): $same"
[ "$same" = yes ]
