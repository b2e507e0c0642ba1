#!/usr/bin/env bash
# The cost of forked children (bench/workloads/fork_storm.c: children forked one after the other, each
# computing for MS ms of CPU time, the parent waiting for each), bare and under the collector
# (preloaded, PPE_ON=1, the default perf-ring, profiles in a temporary folder), in the same run:
# - short children: CHILDREN (default 200) of MS (default 5) ms: they end before the collector's
#   20 ms and write no profile (their samples count in the parent's);
# - long children: 50 of 50 ms: each profiles into its own file.
# For each, RUNS (default 5) runs of each configuration taken in turn; the medians of the wall and
# CPU (user + system) seconds, their ratios to bare, and the extra wall time per child.
# Usage: bench/fork_storm.sh [BUILD_DIR] [CHILDREN] [MS]      (after scripts/build.sh)
set -euo pipefail
# What the benchmarks run (perf, gperftools, gnuplot, ... and the tests' tools), when missing.
"$(dirname "$0")/../scripts/install-deps.sh" bench
build=${1:-build}
children=${2:-200}
ms=${3:-5}
runs=${RUNS:-5}
lib=$(readlink -f "$build/collector/libppe.so")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -g -o "$tmp/fork_storm" "$(dirname "$0")/workloads/fork_storm.c"

# one CONFIG N MS: "WALL CPU" seconds of one run (CONFIG bare or ppe).
one() {
  local out="$tmp/out" TIMEFORMAT='%R %U %S' t
  rm -rf "$out" && mkdir "$out"
  if [ "$1" = bare ]; then
    t=$({ time "$tmp/fork_storm" "$2" "$3" >/dev/null; } 2>&1)
  else
    t=$({ time LD_PRELOAD="$lib" PPE_ON=1 PPE_OUT="$out/" "$tmp/fork_storm" "$2" "$3" >/dev/null 2>"$tmp/err"; } 2>&1)
    find "$out" -name '*.ppe' | wc -l >"$tmp/files" # profiles written: the parent's and the long children's
  fi
  awk '{ printf "%s %.3f\n", $1, $2 + $3 }' <<<"$t"
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# row LABEL N MS: the medians of $runs runs of each, taken in turn.
row() {
  local label=$1 n=$2 m=$3 bw="" bc="" pw="" pc="" r
  for _ in $(seq "$runs"); do
    r=$(one bare "$n" "$m"); bw+="${r% *} "; bc+="${r#* } "
    r=$(one ppe "$n" "$m"); pw+="${r% *} "; pc+="${r#* } "
  done
  local mbw mbc mpw mpc
  mbw=$(tr ' ' '\n' <<<"$bw" | grep . | median); mbc=$(tr ' ' '\n' <<<"$bc" | grep . | median)
  mpw=$(tr ' ' '\n' <<<"$pw" | grep . | median); mpc=$(tr ' ' '\n' <<<"$pc" | grep . | median)
  awk -v l="$label" -v bw="$mbw" -v bc="$mbc" -v pw="$mpw" -v pc="$mpc" -v n="$n" -v f="$(cat "$tmp/files")" 'BEGIN {
    printf "%-22s %8.2f %8.2f %8.2f %8.2f %7.2f %7.2f %9.2f %6d\n", l, bw, pw, bc, pc, pw / bw, pc / bc,
      (pw - bw) * 1000 / n, f }'
}

echo "Fork storm: children forked one after another, bare and under ppe (perf-ring); median of $runs runs each"
printf '%-22s %8s %8s %8s %8s %7s %7s %9s %6s\n' children "wall" "wall ppe" "CPU" "CPU ppe" "wall x" "CPU x" \
  "ms/child" files
row "$children x $ms ms" "$children" "$ms"
row "50 x 50 ms" 50 50
