#!/usr/bin/env bash
# The collector's cost with idle threads (issues 25, 35): THREADS threads wait in pthread_cond_wait
# while the main thread computes (test/e2e/idle_threads.c). Measured in CPU time, which a shared
# machine does not inflate as it does wall time: the whole process's user+sys seconds (bash's
# `time`, which counts every thread) for the bare run and under ppe in real-time mode (the default:
# CPU-time sampling of running threads and the collector thread's scan of blocked ones) and in CPU
# mode, and perf record -e cpu-clock where perf runs; "extra" is a run's CPU less the bare run's with
# the same threads, and "collector" the collector thread's own CPU (the profile's header). Then each
# configuration's extra CPU with 1024 idle threads over that with none (issue 35's target: within
# 1.2), and real-time mode's extra over CPU mode's. Each figure is the median of RUNS runs.
# Usage: bench/idle_threads.sh [BUILD_DIR] [RUNS] [TERMS]      (after scripts/build.sh)
set -euo pipefail
# What the benchmarks run (perf, gperftools, gnuplot, ... and the tests' tools), when missing.
"$(dirname "$0")/../scripts/install-deps.sh" bench
build=${1:-build}
runs=${2:-3}
terms=${3:-3000000000}
prog=$build/test/e2e/idle_threads
ppeout=$build/formatter/ppeout
lib=$(readlink -f "$build/collector/libppe.so")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# One run's user+sys seconds, and the collector thread's seconds when it wrote a profile ($tmp/a.ppe).
one() {
  rm -f "$tmp"/a.ppe*
  local TIMEFORMAT='%U %S' times
  times=$({ time "$@" >/dev/null 2>&1; } 2>&1)
  local collector=0
  if [ -f "$tmp/a.ppe" ]; then
    collector=$("$ppeout" "$tmp/a.ppe" - 2>/dev/null | sed -n 's/.*Of which the collector thread \([0-9.]*\) s.*/\1/p')
  fi
  echo "$times ${collector:-0}" | awk '{ printf "%.3f %.3f\n", $1 + $2, $3 }'
}
# Median CPU seconds and median collector seconds over $runs runs.
measure() {
  for _ in $(seq "$runs"); do one "$@"; done >"$tmp/runs"
  echo "$(cut -d' ' -f1 "$tmp/runs" | median) $(cut -d' ' -f2 "$tmp/runs" | median)"
}

have_perf=0
if command -v perf >/dev/null && perf record -q -o /dev/null true 2>/dev/null; then have_perf=1; fi
keys="real cpu"
[ $have_perf = 1 ] && keys="$keys perf"
declare -A name=([real]="ppe real time (default)" [cpu]="ppe CPU time (PPE_MODE=cpu)" [perf]="perf record -e cpu-clock -F 2000")
declare -A extra
printf '%-8s %-32s %9s %9s %10s\n' "threads" "configuration" "CPU s" "extra s" "collector"
for n in 0 128 1024; do
  read -r bare _ < <(measure "$prog" $n "$terms")
  printf '%-8s %-32s %9.3f %9s %10s\n' $n "bare" "$bare" "" ""
  for key in $keys; do
    case $key in
      real) read -r cpu col < <(measure env PPE_ON=1 PPE_OUT="$tmp/a.ppe" LD_PRELOAD="$lib" "$prog" $n "$terms") ;;
      cpu) read -r cpu col < <(measure env PPE_ON=1 PPE_MODE=cpu PPE_OUT="$tmp/a.ppe" LD_PRELOAD="$lib" "$prog" $n "$terms") ;;
      perf) read -r cpu col < <(measure perf record -q -e cpu-clock -F 2000 -o "$tmp/p.data" "$prog" $n "$terms") ;;
    esac
    extra[$key,$n]=$(echo "$cpu - $bare" | bc -l)
    if [ $key = perf ]; then col="-"; else col=$(printf '%.3f' "$col"); fi
    printf '%-8s %-32s %9.3f %9.3f %10s\n' $n "${name[$key]}" "$cpu" "${extra[$key,$n]}" "$col"
  done
done
echo
# A ratio of two extras near zero is noise: printed with both extras.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0.001) printf "%.2f", a / b; else printf "-" }'; }
for key in $keys; do
  printf 'extra CPU with 1024 idle threads / with none, %-5s %s  (%.3f s / %.3f s)\n' "$key:" \
    "$(ratio "${extra[$key,1024]}" "${extra[$key,0]}")" "${extra[$key,1024]}" "${extra[$key,0]}"
done
for n in 0 1024; do
  printf 'real-time extra CPU / CPU mode extra CPU, %4d idle threads: %s\n' $n \
    "$(ratio "${extra[real,$n]}" "${extra[cpu,$n]}")"
done
