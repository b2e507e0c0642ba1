#!/usr/bin/env bash
# What the sampling mechanisms cost in CPU (issue 22): a bare loop (examples/simp_plain, as
# bench/overhead.sh), at 2 kHz and 20 kHz of CPU time: bare, the empty-handler floor of a signal
# sampler (bench/signal_floor.c, FLOOR_KIND=perf: a task-clock SIGTRAP to an empty handler), ppe with
# perf-task-clock (a signal per sample) and ppe with perf-ring (no signal: the collector thread
# drains ring buffers). Per configuration: the process's CPU time (user + system of the child and
# all its threads, the collector's included: /usr/bin/time) and wall time, as ratios to bare; the
# extra CPU over bare as a ratio to the floor's extra; the samples per CPU second the profile
# achieved. Each figure is the median of RUNS runs.
# Usage: bench/mechanisms.sh [BUILD_DIR] [RUNS]      (after scripts/build.sh)
set -euo pipefail
build=${1:-build}
runs=${2:-7}
prog=$build/examples/simp_plain
arg=1000000000000000003
lib=$(readlink -f "$build/collector/libppe.so")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -shared -fPIC -o "$tmp/floor.so" "$(dirname "$0")/signal_floor.c"

source "$(dirname "$0")/timing.sh"

# measure COMMAND...: sets cpu and wall to the medians of $runs runs; rate to the median achieved
# rate of the profile $tmp/m.ppe when the command writes one.
measure() {
  : >"$tmp/cpu"; : >"$tmp/wall"; : >"$tmp/rate"
  for _ in $(seq "$runs"); do
    rm -f "$tmp/m.ppe"
    /usr/bin/time -f '%e %U %S' -o "$tmp/t" "$@" >/dev/null 2>&1
    read -r e u s <"$tmp/t"
    echo "$e" >>"$tmp/wall"
    echo "$u + $s" | bc -l >>"$tmp/cpu"
    if [ -f "$tmp/m.ppe" ]; then sed -n 's/^achieved-rate //p' "$tmp/m.ppe" >>"$tmp/rate"; fi
  done
  cpu=$(median <"$tmp/cpu")
  wall=$(median <"$tmp/wall")
  rate=$( [ -s "$tmp/rate" ] && median <"$tmp/rate" || echo "-")
}

ratio() { echo "$1 / $2" | bc -l; }

# line NAME [FLOOR_EXTRA]: one row from cpu, wall and rate; the extra CPU against the floor's.
line() {
  local vs="-"
  if [ -n "${2:-}" ]; then vs=$(printf '%.2f' "$(echo "($cpu - $bare_cpu) / $2" | bc -l)"); fi
  printf '%-34s %8.3f %8.3f %8.3f %8.3f %10s %10s\n' "$1" "$cpu" "$wall" "$(ratio "$cpu" "$bare_cpu")" \
    "$(ratio "$wall" "$bare_wall")" "$vs" "$rate"
}

echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs, $(uname -sr), median of $runs runs"
printf '%-34s %8s %8s %8s %8s %10s %10s\n' "configuration" "cpu s" "wall s" "cpu x" "wall x" "extra/floor" "samples/s"
measure "$prog" $arg
bare_cpu=$cpu
bare_wall=$wall
line "bare"
for hz in 2000 20000; do
  int=$((10000000 / hz))
  measure env FLOOR_KIND=perf FLOOR_RATE=$hz LD_PRELOAD="$tmp/floor.so" "$prog" $arg
  floor_extra=$(echo "$cpu - $bare_cpu" | bc -l)
  line "empty SIGTRAP handler ${hz} Hz" "$floor_extra"
  for timer in perf ring; do
    measure env PPE_ON=1 PPE_MODE=1 PPE_TIMER=$timer PPE_INT=$int PPE_OUT="$tmp/m.ppe" LD_PRELOAD="$lib" "$prog" $arg
    line "ppe $( [ $timer = perf ] && echo perf-task-clock || echo perf-ring) ${hz} Hz" "$floor_extra"
  done
done
