#!/usr/bin/env bash
# Real-time mode's cost with idle threads (issue 25): THREADS threads wait in pthread_cond_wait while
# the main thread computes (test/e2e/idle_threads.c). Wall time of the compute phase as a ratio to
# the bare run with the same threads, for ppe's real-time default (CPU-time sampling of running
# threads + the collector thread's scan of blocked ones), the old signal fan-out (PPE_TIMER=posix),
# and perf record -e cpu-clock; then the cost with 128 idle threads over the cost with none.
# Each figure is the median of RUNS runs.
# Usage: bench/idle_threads.sh [BUILD_DIR] [RUNS] [TERMS]      (after scripts/build.sh)
set -euo pipefail
# What the benchmarks run (perf, gperftools, gnuplot, ... and the tests' tools), when missing.
"$(dirname "$0")/../scripts/install-deps.sh" bench
build=${1:-build}
runs=${2:-5}
terms=${3:-600000000}
prog=$build/test/e2e/idle_threads
lib=$(readlink -f "$build/collector/libppe.so")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# Median of the compute phase's wall seconds (the program prints them) over $runs runs.
compute() {
  for _ in $(seq "$runs"); do
    "$@" 2>/dev/null | sed -n 's/^compute \([0-9.]*\) s.*/\1/p'
  done | median
}

have_perf=0
if command -v perf >/dev/null && perf record -q -o /dev/null true 2>/dev/null; then have_perf=1; fi
printf '%-8s %-34s %8s %8s\n' "threads" "configuration" "seconds" "ratio"
declare -A ratio
for n in 0 32 128; do
  bare=$(compute "$prog" $n $terms)
  printf '%-8s %-34s %8.3f %8.3f\n' $n "bare" "$bare" 1
  show() { # show KEY NAME SECONDS
    ratio[$1,$n]=$(echo "$3 / $bare" | bc -l)
    printf '%-8s %-34s %8.3f %8.3f\n' $n "$2" "$3" "${ratio[$1,$n]}"
  }
  show ppe "ppe real time (default)" "$(compute env PPE_ON=1 PPE_OUT=$tmp/a.ppe LD_PRELOAD=$lib "$prog" $n $terms)"
  show posix "ppe real time, PPE_TIMER=posix" \
    "$(compute env PPE_ON=1 PPE_TIMER=posix PPE_OUT=$tmp/b.ppe LD_PRELOAD=$lib "$prog" $n $terms)"
  if [ $have_perf = 1 ]; then
    show perf "perf record -e cpu-clock -F 2000" "$(compute perf record -q -e cpu-clock -F 2000 -o $tmp/p.data "$prog" $n $terms)"
  fi
done
echo
for key in ppe posix perf; do
  [ -n "${ratio[$key,0]:-}" ] || continue
  printf 'overhead with 128 idle threads / with none, %-6s %.3f\n' "$key:" \
    "$(echo "${ratio[$key,128]} / ${ratio[$key,0]}" | bc -l)"
done
