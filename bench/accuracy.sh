#!/usr/bin/env bash
# Accuracy side by side: workloads whose true split is known by construction (bench/workloads/),
# each profiled REPS times by ppe (CPU-time and real-time modes, each mechanism in PPE_CONFIGS),
# `perf record -e cpu-clock -F RATE`, gperftools' CPU profiler (CPUPROFILE_FREQUENCY=RATE) and
# gprof (-pg), and scored against callgrind's instruction counts of the plain binary.
# Usage: bench/accuracy.sh [BUILD_DIR] [REPS]      (after scripts/build.sh)
# Environment: RATE (2000), WORKLOADS, PPE_CONFIGS and OTHER_TOOLS (see bench/workloads/tools.sh).
set -euo pipefail
# What the benchmarks run (perf, gperftools, gnuplot, ... and the tests' tools), when missing.
"$(dirname "$0")/../scripts/install-deps.sh" bench
build=${1:-build}
reps=${2:-5}
rate=${RATE:-2000}
workloads=${WORKLOADS:-"calibrated sawtooth threads aliasing"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/workloads/tools.sh"
build_workloads

# Each workload's arguments: SCALE (1: about 0.5 s of CPU time here), and for aliasing the loop's
# period, one sampling interval.
args_of() {
  case $1 in
    aliasing) echo "$2 $((1000000 / rate))" ;;
    *) echo "$2" ;;
  esac
}
# The functions whose split is measured, by workload.
pattern_of() {
  case $1 in
    calibrated) echo '^work_' ;; sawtooth) echo '^tiny_' ;; threads) echo '^worker_' ;; aliasing) echo '^alias_' ;;
  esac
}

# truth WORKLOAD BINARY: callgrind's instruction count per measured function, of a short run (the
# split is the same at every scale: it is fixed by the iteration counts).
truth() {
  local out=$tmp/cg.$1.$(basename "$2")
  # shellcheck disable=SC2046
  valgrind --tool=callgrind --callgrind-out-file="$out" "$tmp/wl/$2" $(args_of "$1" 0.02) >/dev/null 2>&1
  callgrind_annotate --auto=no --threshold=100 "$out" |
    awk -v re="$(pattern_of "$1")" '{ f = $0; sub(/.*:/, "", f); sub(/ .*/, "", f) }
      f ~ re && !seen[f]++ { gsub(/,/, "", $1); print f, $1 }'
}

echo "Accuracy at $rate Hz asked, $reps repetitions; shares among each workload's own functions;"
echo "truth: callgrind's instruction counts of the plain binary (valgrind cannot run the -pg one:"
echo "its profil() timer kills it; -pg adds the same mcount call to every measured function)."
echo "samples: mean samples a run took; worst: the largest deviation from the truth over all"
echo "functions and repetitions, in percentage points and in the tool's standard errors (ppe's"
echo "stated one, else binomial); within: the share of function x repetition rows within 2 errors."
printf '\n%-11s %-34s %8s %9s %9s %8s %5s\n' workload tool samples "worst pp" "worst/se" within reps
for w in $workloads; do
  truth "$w" "$w" >"$tmp/truth.$w"
  for tool in $PPE_CONFIGS $OTHER_TOOLS; do
    label=$(tool_label "$tool")
    if ! tool_available "$tool"; then
      printf '%-11s %-34s %s\n' "$w" "$label" "n/a (not installed or not allowed here)"
      continue
    fi
    files=()
    for r in $(seq "$reps"); do
      # shellcheck disable=SC2046
      tool_run "$tool" "$rate" "$tmp/run" "$w" $(args_of "$w" 1) || true
      if tool_fell_back "$tool" "$tmp/run"; then
        files=(fallback)
        break
      fi
      tool_profile "$tool" "$tmp/run" "$w" >"$tmp/prof.$r"
      files+=("$tmp/prof.$r")
    done
    if [ "${files[0]:-}" = fallback ]; then
      printf '%-11s %-34s %s\n' "$w" "$label" "n/a (not in this build)"
      continue
    fi
    printf '%-11s ' "$w"
    python3 "$workloads_dir/score.py" "$tmp/truth.$w" "$label" "${files[@]}"
  done
done
