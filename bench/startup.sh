#!/usr/bin/env bash
# Start-up and idle cost of a linked collector (bench/workloads/idle.c, linked with libppe.so as
# the user guide says, and the same program without it):
# - start-up: N runs (default 1000) of a program that exits at once, with PPE_ON unset (the
#   collector linked but off), and with PPE_ON=1 for reference; the total wall and CPU time of each batch
#   as a ratio to the program without the collector, the median of 3 batches taken in turn;
# - memory: the resident set (VmRSS, smaps_rollup's Rss and Private_Dirty) and the number of
#   mappings of the running program after 0.2 s of work, with and without the collector, for
#   several PPE_MEM budgets (pages of 512 bytes); then the same for a program whose 8 MiB of code
#   is sampled all over (generated here: 2048 functions of about 4 KiB at -O0, 20 kHz for 1 s), so
#   that the histogram's written pages, not the program, decide how much of the budget is resident.
# Usage: bench/startup.sh [BUILD_DIR] [N]      (after scripts/build.sh); MEMS="256 2048 ..." budgets.
set -euo pipefail
# What the benchmarks run (perf, gperftools, gnuplot, ... and the tests' tools), when missing.
"$(dirname "$0")/../scripts/install-deps.sh" bench
build=${1:-build}
n=${2:-1000}
mems=${MEMS:-"256 2048 16384 131072"}
lib=$(readlink -f "$build/collector/libppe.so")
src=$(dirname "$0")/workloads/idle.c
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -g -o "$tmp/plain" "$src"
# spread.c: FUNCS functions of STEPS multiply-adds each, called in turn until about 1 s of CPU time
# has passed; then "ready" and a wait on standard input, as idle.c's `hold`.
awk -v n=2048 -v steps=160 'BEGIN {
  print "#include <stdio.h>\n#include <time.h>\n#include <unistd.h>\nvolatile unsigned long sink;"
  for (f = 0; f < n; f++) {
    printf "__attribute__((noinline)) unsigned long g%d(unsigned long x) {\n", f
    for (i = 0; i < steps; i++) printf "  x = x * %du + sink;\n", 2 * (f + i) + 3
    print "  return x;\n}"
  }
  print "int main(void) {\n  unsigned long x = 1;\n  while ((double)clock() / CLOCKS_PER_SEC < 1.0) {"
  for (f = 0; f < n; f++) printf "    x = g%d(x);\n", f
  print "  }\n  sink = x;\n  printf(\"ready\\n\");\n  fflush(stdout);\n  char b[64];"
  print "  while (read(0, b, sizeof b) > 0) { }\n  return 0;\n}"
}' >"$tmp/spread.c"
cc -O0 -o "$tmp/spread" "$tmp/spread.c" -Wl,--push-state,--no-as-needed "$lib" -Wl,--pop-state \
  -Wl,-rpath,"$(dirname "$lib")"
cc -O2 -g -o "$tmp/linked" "$src" -Wl,--push-state,--no-as-needed "$lib" -Wl,--pop-state \
  -Wl,-rpath,"$(dirname "$lib")"

# batch COMMAND...: "WALL,CPU" seconds of $n runs of COMMAND (CPU: user + system of the runs).
batch() {
  local TIMEFORMAT='%R %U %S' t
  t=$({ time for _ in $(seq "$n"); do "$@" >/dev/null 2>&1; done; } 2>&1)
  awk '{ printf "%s,%s\n", $1, $2 + $3 }' <<<"$t"
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

declare -A totals
names=(plain "linked, PPE_ON unset" "linked, PPE_ON=1")
for _ in 1 2 3; do
  totals[0]+="$(batch "$tmp/plain") "
  totals[1]+="$(batch "$tmp/linked") "
  totals[2]+="$(batch env PPE_ON=1 PPE_OUT="$tmp/o.ppe" "$tmp/linked") "
done
echo "Start-up: $n runs of a program that exits at once; median of 3 batches taken in turn"
printf '%-24s %10s %12s %8s %12s %8s\n' configuration "batch s" "ms per run" ratio "CPU ms/run" ratio
# column K of the batches of configuration I: their median
med() { tr ' ' '\n' <<<"${totals[$1]}" | grep . | cut -d, -f"$2" | median; }
base=$(med 0 1)
base_cpu=$(med 0 2)
for i in 0 1 2; do
  t=$(med $i 1)
  c=$(med $i 2)
  printf '%-24s %10.3f %12.3f %8.3f %12.3f %8.3f\n' "${names[$i]}" "$t" "$(echo "1000 * $t / $n" | bc -l)" \
    "$(echo "$t / $base" | bc -l)" "$(echo "1000 * $c / $n" | bc -l)" "$(echo "$c / $base_cpu" | bc -l)"
done

# memory LABEL BUDGET_KIB COMMAND...: runs COMMAND hold until it says ready, reads its /proc files,
# then closes its input so that it ends.
memory() {
  local label=$1 budget=$2 line pid rss rollup dirty maps
  shift 2
  coproc HOLD { exec "$@" 2>/dev/null; }
  pid=$HOLD_PID
  read -r line <&"${HOLD[0]}"
  rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")
  rollup=$(awk '/^Rss:/ { print $2 }' "/proc/$pid/smaps_rollup")
  dirty=$(awk '/^Private_Dirty:/ { print $2 }' "/proc/$pid/smaps_rollup")
  maps=$(wc -l <"/proc/$pid/maps")
  exec {HOLD[1]}>&-
  wait "$pid" || true
  printf '%-30s %10s %8s %8s %8s %8s\n' "$label" "$budget" "$rss" "$rollup" "$dirty" "$maps"
}

echo
echo "Memory of the running program (KiB; budget: PPE_MEM x 512 bytes)"
printf '%-30s %10s %8s %8s %8s %8s\n' configuration "budget" VmRSS Rss "P.Dirty" mappings
memory plain - "$tmp/plain" hold
memory "linked, PPE_ON unset" - "$tmp/linked" hold
for m in $mems; do
  memory "linked, PPE_ON=1 PPE_MEM=$m" $((m / 2)) env PPE_ON=1 PPE_MEM="$m" PPE_OUT="$tmp/o.ppe" "$tmp/linked" hold
done
echo
echo "Memory of a program with $(size -A "$tmp/spread" | awk '$1 == ".text" { printf "%.1f", $2 / 1048576 }') MiB of code sampled all over, 20 kHz (KiB)"
printf '%-30s %10s %8s %8s %8s %8s\n' configuration "budget" VmRSS Rss "P.Dirty" mappings
memory "linked, PPE_ON unset" - "$tmp/spread"
for m in $mems; do
  memory "linked, PPE_ON=1 PPE_MEM=$m" $((m / 2)) env PPE_ON=1 PPE_INT=500 PPE_MEM="$m" PPE_OUT="$tmp/o.ppe" "$tmp/spread"
done
