#!/usr/bin/env bash
# Collector overhead: wall time of examples/simp under the collector, as a ratio to the same
# program run bare, at PPE's default rate (2 kHz) and at 10x (20 kHz), in both modes; with
# `perf record` and gperftools' CPU profiler at the same rates as the alternatives, measured in
# the same run. Each figure is the median of RUNS runs.
# Usage: bench/overhead.sh [BUILD_DIR] [RUNS]      (after scripts/build.sh)
set -euo pipefail
build=${1:-build}
runs=${2:-5}
prog=$build/examples/simp_plain
arg=1000000000000000003
lib=$(readlink -f "$build/collector/libppe.so")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -shared -fPIC -o "$tmp/floor.so" "$(dirname "$0")/signal_floor.c"

source "$(dirname "$0")/timing.sh"
width=44

bare=$(timed "$prog" $arg)
printf '%-44s %8s %8s\n' "configuration" "seconds" "ratio"
printf '%-44s %8.3f %8.3f\n' "bare" "$bare" 1
base=$bare
# The collector's cost beyond the floor: (ppe - bare) / (floor - bare).
beyond() { echo "($2 - $bare) / ($1 - $bare)" | bc -l; }
achieved() { sed -n 's/^achieved-rate //p' "$1"; }
for rate in 2000 20000; do
  int=$((10000000 / rate))
  floor_posix=$(timed env FLOOR_KIND=posix FLOOR_RATE=$rate LD_PRELOAD=$tmp/floor.so "$prog" $arg)
  printf '%-44s %8.3f %8.3f\n' "empty handler, posix timer ${rate} Hz" "$floor_posix" "$(echo "$floor_posix / $bare" | bc -l)"
  t=$(timed env PPE_ON=1 PPE_INT=$int PPE_OUT=$tmp/a.ppe LD_PRELOAD=$lib "$prog" $arg)
  printf '%-44s %8.3f %8.3f   (%.2f x the floor'"'"'s cost; %s samples/s)\n' "ppe real time (default) ${rate} Hz" "$t" \
    "$(echo "$t / $bare" | bc -l)" "$(beyond "$floor_posix" "$t")" "$(achieved $tmp/a.ppe)"
  floor_perf=$(timed env FLOOR_KIND=perf FLOOR_RATE=$rate LD_PRELOAD=$tmp/floor.so "$prog" $arg)
  printf '%-44s %8.3f %8.3f\n' "empty SIGTRAP handler, perf task-clock ${rate} Hz" "$floor_perf" "$(echo "$floor_perf / $bare" | bc -l)"
  t=$(timed env PPE_ON=1 PPE_MODE=1 PPE_INT=$int PPE_OUT=$tmp/b.ppe LD_PRELOAD=$lib "$prog" $arg)
  printf '%-44s %8.3f %8.3f   (%.2f x the floor'"'"'s cost; %s samples/s)\n' "ppe cpu time (perf-task-clock) ${rate} Hz" "$t" \
    "$(echo "$t / $bare" | bc -l)" "$(beyond "$floor_perf" "$t")" "$(achieved $tmp/b.ppe)"
  if command -v perf >/dev/null && perf record -q -o /dev/null true 2>/dev/null; then
    row "perf record -e cpu-clock -F ${rate}" perf record -q -e cpu-clock -F $rate -o $tmp/perf.data "$prog" $arg
  fi
  gperf=$(ls /usr/lib/x86_64-linux-gnu/libprofiler.so.0 2>/dev/null || true)
  if [ -n "$gperf" ]; then
    row "gperftools CPUPROFILE ${rate} Hz (tick-bound)" env CPUPROFILE=$tmp/g.prof CPUPROFILE_FREQUENCY=$rate LD_PRELOAD=$gperf "$prog" $arg
  fi
done
