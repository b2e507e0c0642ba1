#!/usr/bin/env bash
# Call paths' cost (issue 39): test/e2e/call_paths (-O2, no frame pointer; ROUNDS rounds, default
# 2500: about 2.5 s of CPU) run bare, under ppe flat and with -g, and under perf record flat, -g
# (frame pointers: the cheapest, and wrong here) and --call-graph dwarf (8 KiB stacks, as ppe -g),
# all at 2 kHz. Wall and CPU time (the profiler's own process included) as ratios to the bare run;
# for ppe -g its extra CPU over the flat profile's; and the size of what each wrote. Each figure is
# the median of RUNS runs.
# Usage: bench/call_paths.sh [BUILD_DIR] [RUNS]      (after scripts/build.sh, which builds the tests)
set -euo pipefail
"$(dirname "$0")/../scripts/install-deps.sh" bench
build=${1:-build}
runs=${2:-5}
rounds=${ROUNDS:-2500}
prog=$build/test/e2e/call_paths
ppe=$build/collector/ppe
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/timing.sh"
source "$(dirname "$0")/workloads/tools.sh"
[ -x "$prog" ] || { echo "bench/call_paths.sh: $prog is missing (scripts/build.sh builds it)" >&2; exit 1; }

read -r bare_wall bare_cpu <<<"$(timed2 "$prog" "$rounds")"
printf '%-44s %8s %8s %8s %10s\n' "configuration ($prog $rounds)" "wall s" "wall/x" "cpu/x" "output"
printf '%-44s %8.3f %8.3f %8.3f\n' "bare" "$bare_wall" 1 1

# measure NAME OUTPUT COMMAND...: a row, OUTPUT's size (KiB) after the last run; its CPU in $cpu.
measure() {
  local name=$1 output=$2 wall
  shift 2
  rm -f "$output"
  read -r wall cpu <<<"$(timed2 "$@")"
  printf '%-44s %8.3f %8.3f %8.3f %8s K\n' "$name" "$wall" "$(echo "$wall / $bare_wall" | bc -l)" \
    "$(echo "$cpu / $bare_cpu" | bc -l)" "$(du -k "$output" 2>/dev/null | cut -f1)"
}

measure "ppe flat (perf-ring, real time)" "$tmp/flat.ppe" "$ppe" -o "$tmp/flat.ppe" "$prog" "$rounds"
flat_cpu=$cpu
measure "ppe -g" "$tmp/g.ppe" "$ppe" -g -o "$tmp/g.ppe" "$prog" "$rounds"
g_cpu=$cpu
if tool_available perf; then
  measure "perf record -F 2000 (flat)" "$tmp/p.data" perf record -q -e cpu-clock -F 2000 -o "$tmp/p.data" "$prog" "$rounds"
  measure "perf record -g (frame pointers)" "$tmp/fp.data" perf record -q -e cpu-clock -F 2000 -g -o "$tmp/fp.data" "$prog" "$rounds"
  measure "perf record --call-graph dwarf" "$tmp/dw.data" perf record -q -e cpu-clock -F 2000 --call-graph dwarf -o "$tmp/dw.data" "$prog" "$rounds"
fi
printf '\nppe -g extra CPU over the flat profile'"'"'s: %.2f x ((g - bare) / (flat - bare))\n' \
  "$(echo "($g_cpu - $bare_cpu) / ($flat_cpu - $bare_cpu)" | bc -l)"
"$build/formatter/ppeout" "$tmp/g.ppe" 2>/dev/null | grep -E 'samples with a call path|stopped short|Every path' || true
