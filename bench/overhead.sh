#!/usr/bin/env bash
# Collector overhead: wall and CPU time of examples/simp under the collector, as ratios to the same
# program run bare, at PPE's default rate (2 kHz) and at 10x (20 kHz), in both modes, against an
# empty handler of the same signal at the same rate (bench/signal_floor.c: the floor); with `perf
# record` and gperftools' CPU profiler at the same rates. Each figure is the median of RUNS runs.
# Then the same side by side on the workloads of bench/workloads/ (those of bench/accuracy.sh, a
# memory-bound pointer chase and 16 threads) at SCALE (default 6: about 3 s of CPU time each, so
# that a profiler's fixed start-up cost does not pass for a per-sample one): wall and CPU time (the
# profiler's own process included) as ratios to the plain run, asked and achieved rate, for ppe
# (PPE_CONFIGS), perf, gperftools and gprof. Then each tool's fixed cost (its extra CPU on a 0.01 s
# program) and per-sample cost (its extra CPU on `calibrated` at SCALE, less the fixed cost, over
# the samples it took), for FIXED_TOOLS (default ppe in both modes and perf record). And a sweep of
# rates on `calibrated` (at SCALE 1) into OVERHEAD_DATA (default docs/images/overhead.dat) for
# bench/plot_overhead.sh. SECTIONS (default "floor tools fixed sweep") chooses the parts.
# Usage: bench/overhead.sh [BUILD_DIR] [RUNS]      (after scripts/build.sh)
set -euo pipefail
# What the benchmarks run (perf, gperftools, gnuplot, ... and the tests' tools), when missing.
"$(dirname "$0")/../scripts/install-deps.sh" bench
build=${1:-build}
runs=${2:-3}
sections=${SECTIONS:-"floor tools fixed sweep"}
scale=${SCALE:-6}
prog=$build/examples/simp_plain
arg=1000000000000000003
lib=$(readlink -f "$build/collector/libppe.so")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -shared -fPIC -o "$tmp/floor.so" "$(dirname "$0")/signal_floor.c"

source "$(dirname "$0")/timing.sh"

source "$(dirname "$0")/workloads/tools.sh"

floor_section() {
  # Wall and CPU medians; the collector's cost beyond the floor is taken on CPU time, which a
  # loaded machine disturbs far less than wall time.
  local rate int bare_wall bare_cpu
  read -r bare_wall bare_cpu <<<"$(timed2 "$prog" $arg)"
  printf '%-46s %8s %8s %8s\n' "configuration (examples/simp_plain)" "wall s" "wall/x" "cpu/x"
  printf '%-46s %8.3f %8.3f %8.3f\n' "bare" "$bare_wall" 1 1
  for rate in 2000 20000; do
    int=$((10000000 / rate))
    # Each ppe row against the floor of the signal it takes: the POSIX timer's for PPE_TIMER=posix,
    # perf task-clock's SIGTRAP for PPE_TIMER=perf in both modes (real time samples running threads
    # so too). perf-ring (the default where the kernel allows it) takes no signal: it pays the same
    # task-clock interrupt as the SIGTRAP floor without the signal, so it is set against that floor.
    floor_row "empty handler, posix timer ${rate} Hz" env FLOOR_KIND=posix FLOOR_RATE=$rate LD_PRELOAD="$tmp/floor.so" "$prog" $arg
    ppe_row "ppe real time, PPE_TIMER=posix ${rate} Hz" env PPE_ON=1 PPE_TIMER=posix PPE_INT=$int PPE_OUT="$tmp/a.ppe" LD_PRELOAD="$lib" "$prog" $arg
    floor_row "empty SIGTRAP handler, perf task-clock ${rate} Hz" env FLOOR_KIND=perf FLOOR_RATE=$rate LD_PRELOAD="$tmp/floor.so" "$prog" $arg
    ppe_row "ppe real time (perf-task-clock) ${rate} Hz" env PPE_ON=1 PPE_TIMER=perf PPE_INT=$int PPE_OUT="$tmp/a.ppe" LD_PRELOAD="$lib" "$prog" $arg
    ppe_row "ppe cpu time (perf-task-clock) ${rate} Hz" env PPE_ON=1 PPE_TIMER=perf PPE_MODE=1 PPE_INT=$int PPE_OUT="$tmp/a.ppe" LD_PRELOAD="$lib" "$prog" $arg
    ppe_row "ppe real time (perf-ring) ${rate} Hz" env PPE_ON=1 PPE_TIMER=ring PPE_INT=$int PPE_OUT="$tmp/a.ppe" LD_PRELOAD="$lib" "$prog" $arg
    ppe_row "ppe cpu time (perf-ring) ${rate} Hz" env PPE_ON=1 PPE_TIMER=ring PPE_MODE=1 PPE_INT=$int PPE_OUT="$tmp/a.ppe" LD_PRELOAD="$lib" "$prog" $arg
    if tool_available perf; then
      floor_row "perf record -e cpu-clock -F ${rate}" perf record -q -e cpu-clock -F $rate -o "$tmp/perf.data" "$prog" $arg
    fi
    if tool_available gperftools; then
      floor_row "gperftools CPUPROFILE ${rate} Hz (tick-bound)" env CPUPROFILE="$tmp/g.prof" CPUPROFILE_FREQUENCY=$rate LD_PRELOAD="$gperf_lib" "$prog" $arg
    fi
  done
}


# floor_row NAME COMMAND...: a row of wall and CPU ratios to the bare run; the CPU figure is kept
# in $floor_cpu for the ppe rows that follow.
floor_row() {
  local name=$1 wall
  shift
  read -r wall floor_cpu <<<"$(timed2 "$@")"
  printf '%-46s %8.3f %8.3f %8.3f\n' "$name" "$wall" "$(echo "$wall / $bare_wall" | bc -l)" "$(echo "$floor_cpu / $bare_cpu" | bc -l)"
}

# ppe_row NAME COMMAND...: as floor_row, with the collector's CPU cost beyond the bare run as a
# multiple of the last floor's, (ppe - bare) / (floor - bare), and its achieved rate.
ppe_row() {
  local name=$1 wall cpu
  shift
  read -r wall cpu <<<"$(timed2 "$@")"
  printf '%-46s %8.3f %8.3f %8.3f   (%.2f x the floor'"'"'s CPU cost; %s samples/s)\n' "$name" "$wall" \
    "$(echo "$wall / $bare_wall" | bc -l)" "$(echo "$cpu / $bare_cpu" | bc -l)" \
    "$(echo "($cpu - $bare_cpu) / ($floor_cpu - $bare_cpu)" | bc -l)" "$(sed -n 's/^achieved-rate //p' "$tmp/a.ppe")"
}

# measure TOOL RATE WORKLOAD ARGS...: "WALL CPU" medians over $runs runs, in seconds (CPU: user +
# system of every process, the profiler's own included).
measure() {
  local TIMEFORMAT='%R %U %S' times=$tmp/times
  : >"$times"
  for _ in $(seq "$runs"); do
    { time tool_run "$1" "$2" "$tmp/run" "${@:3}"; } 2>>"$times"
  done
  echo "$(awk '{ print $1 }' "$times" | median) $(awk '{ print $2 + $3 }' "$times" | median)"
}

# args_of WORKLOAD RATE [SCALE]: the workload's arguments (SCALE default $scale; 1 is about 0.5 s
# of CPU time here).
args_of() {
  local s=${3:-$scale}
  case $1 in
    aliasing) echo "aliasing $s $((1000000 / $2))" ;;
    threads16) echo "threads $s 16" ;;
    *) echo "$1 $s" ;;
  esac
}

# side_by_side WORKLOAD RATES [SCALE]: one row per tool and rate; the plain run first.
side_by_side() {
  local w=$1 rate tool label name wall cpu achieved plain_wall plain_cpu
  # shellcheck disable=SC2046
  read -r plain_wall plain_cpu <<<"$(measure plain 1 $(args_of "$w" 2000 "${3:-}"))"
  printf '%-11s %6s %-34s %7.3f %7.3f %7.3f %9s\n' "$w" - plain "$plain_wall" 1 1 -
  for rate in $2; do
    for tool in $PPE_CONFIGS $OTHER_TOOLS; do
      label=$(tool_label "$tool")
      tool_available "$tool" || { printf '%-11s %6s %-34s %s\n' "$w" "$rate" "$label" "n/a (not installed)"; continue; }
      # gprof's rate is profil()'s, fixed: one row, against the plain build.
      [ "$tool" != gprof ] || [ "$rate" = "${2%% *}" ] || continue
      # shellcheck disable=SC2046
      tool_run "$tool" "$rate" "$tmp/run" $(args_of "$w" "$rate" "${3:-}") || true
      if tool_fell_back "$tool" "$tmp/run"; then
        printf '%-11s %6s %-34s %s\n' "$w" "$rate" "$label" "n/a (not in this build)"
        continue
      fi
      # shellcheck disable=SC2046
      read -r wall cpu <<<"$(measure "$tool" "$rate" $(args_of "$w" "$rate" "${3:-}"))"
      achieved=$(tool_achieved_rate "$tool" "$tmp/run" "${w%16}" "$plain_cpu")
      [ "$tool" != gprof ] || label="$label, fixed rate"
      printf '%-11s %6s %-34s %7.3f %7.3f %7.3f %9.0f\n' "$w" "$rate" "$label" "$wall" \
        "$(echo "$wall / $plain_wall" | bc -l)" "$(echo "$cpu / $plain_cpu" | bc -l)" "$achieved"
      name=$tool
      [[ $tool != ppe:*:default ]] || name="$tool($(default_mechanism))"
      echo "$w $rate $name $(echo "$wall / $plain_wall" | bc -l) $(echo "$cpu / $plain_cpu" | bc -l) $achieved" >>"$tmp/rows"
    done
  done
}

tools_section() {
  echo
  echo "Side by side at SCALE $scale: median of $runs runs; wall and CPU time (profiler processes included) over"
  echo "the plain run's; achieved: samples per CPU second (ppe: its achieved-rate record; others:"
  echo "samples over the plain run's CPU seconds; gprof: profil()'s fixed rate, whatever is asked)."
  printf '%-11s %6s %-34s %7s %7s %7s %9s\n' workload asked tool wall wall/x cpu/x achieved
  for w in ${OVERHEAD_WORKLOADS:-calibrated sawtooth threads aliasing memory threads16}; do
    side_by_side "$w" "${RATES:-2000 20000}"
  done
}

# The sweep: overhead against the asked rate on `calibrated`, for the plot.
sweep_section() {
  local data=${OVERHEAD_DATA:-docs/images/overhead.dat}
  : >"$tmp/rows"
  echo
  echo "Sweep of rates on calibrated (data for bench/plot_overhead.sh in $data):"
  printf '%-11s %6s %-34s %7s %7s %7s %9s\n' workload asked tool wall wall/x cpu/x achieved
  side_by_side calibrated "${SWEEP_RATES:-500 1000 2000 5000 10000 20000}" 1
  {
    echo "# bench/overhead.sh $(date -u +%Y-%m-%d): calibrated, median of $runs runs"
    echo "# tool rate wall_ratio cpu_ratio achieved_hz"
    awk '{ printf "%s %s %.3f %.3f %s\n", $3, $2, $4, $5, $6 }' "$tmp/rows"
  } >"$data"
}

# fixed_section: each tool's fixed cost per run (extra CPU over the plain run on calibrated at SCALE
# 0.02, about 0.01 s: start-up, set-up and exit, with a few samples) and per-sample cost ((extra CPU
# on calibrated at SCALE - fixed) / samples taken), at 2 kHz and 20 kHz.
fixed_section() {
  local tool rate label plain_short plain_long short long samples fixed per
  read -r _ plain_short <<<"$(measure plain 1 calibrated 0.02)"
  read -r _ plain_long <<<"$(measure plain 1 calibrated "$scale")"
  echo
  echo "Fixed and per-sample cost: CPU time (user + system, profiler processes included), median of"
  echo "$runs runs. fixed: extra CPU over the plain run on calibrated 0.02 (plain: $plain_short s);"
  echo "long: calibrated $scale (plain: $plain_long s CPU); per sample: (extra CPU on it - fixed) / samples."
  printf '%-34s %6s %9s %8s %7s %8s %11s\n' tool asked "fixed ms" "long s" cpu/x samples "us/sample"
  for rate in ${RATES:-2000 20000}; do
    for tool in ${FIXED_TOOLS:-ppe:cpu:default ppe:real:default perf}; do
      label=$(tool_label "$tool")
      tool_available "$tool" || { printf '%-34s %6s %s\n' "$label" "$rate" "n/a (not installed)"; continue; }
      read -r _ short <<<"$(measure "$tool" "$rate" calibrated 0.02)"
      read -r _ long <<<"$(measure "$tool" "$rate" calibrated "$scale")"
      samples=$(tool_profile "$tool" "$tmp/run" calibrated | awk '$1 == "total" { print $2 + 0 }')
      fixed=$(echo "$short - $plain_short" | bc -l)
      per=$(echo "if (${samples:-0} > 0) ($long - $plain_long - $fixed) / $samples * 1000000 else 0" | bc -l)
      printf '%-34s %6s %9.1f %8.3f %7.3f %8.0f %11.2f\n' "$label" "$rate" "$(echo "$fixed * 1000" | bc -l)" \
        "$long" "$(echo "$long / $plain_long" | bc -l)" "${samples:-0}" "$per"
    done
  done
}

build_workloads
for s in $sections; do
  "${s}_section"
done
