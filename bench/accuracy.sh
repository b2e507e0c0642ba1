#!/usr/bin/env bash
# Accuracy side by side: workloads whose true split is known by construction (bench/workloads/),
# each profiled REPS times by ppe (CPU-time and real-time modes, each mechanism in PPE_CONFIGS),
# `perf record -e cpu-clock -F RATE`, gperftools' CPU profiler (CPUPROFILE_FREQUENCY=RATE) and
# gprof (-pg), and scored against callgrind's instruction counts of the plain binary; each row also
# says what share of the samples the CPU time asks for (CPU time x rate) the tool took.
# Usage: bench/accuracy.sh [BUILD_DIR] [REPS]      (after scripts/build.sh)
# Environment: RATE (2000), WORKLOADS, PPE_CONFIGS and OTHER_TOOLS (see bench/workloads/tools.sh).
set -euo pipefail
# What the benchmarks run (perf, gperftools, gnuplot, ... and the tests' tools), when missing.
"$(dirname "$0")/../scripts/install-deps.sh" bench
# The truth and the scoring cannot do without these: stop with a clear word rather than mid-table.
for t in valgrind callgrind_annotate python3 bc cc; do
  command -v "$t" >/dev/null || { echo "bench/accuracy.sh: $t is missing (scripts/install-deps.sh bench installs it)" >&2; exit 1; }
done
build=${1:-build}
reps=${2:-5}
rate=${RATE:-2000}
workloads=${WORKLOADS:-"calibrated sawtooth threads aliasing short_threads"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/workloads/tools.sh"
build_workloads

# Each workload's arguments: SCALE (1: about 0.5 s of CPU time here; short_threads 1.2 s), and for
# aliasing the loop's period, one sampling interval.
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
    short_threads) echo '^short_' ;;
  esac
}

# truth WORKLOAD BINARY: callgrind's instruction count per measured function, of a short run (the
# split is the same at every scale: it is fixed by the iteration counts).
truth() {
  local out=$tmp/cg.$1.$(basename "$2")
  # shellcheck disable=SC2046
  valgrind --tool=callgrind --callgrind-out-file="$out" "$tmp/wl/$2" $(args_of "$1" 0.02) >/dev/null 2>&1 ||
    { echo "bench/accuracy.sh: callgrind failed on $2" >&2; exit 1; }
  callgrind_annotate --auto=no --threshold=100 "$out" |
    awk -v re="$(pattern_of "$1")" '{ f = $0; sub(/.*:/, "", f); sub(/ .*/, "", f) }
      f ~ re && !seen[f]++ { gsub(/,/, "", $1); print f, $1 }'
}

# plain_cpu WORKLOAD: "CPU USER_SHARE", the median over $reps runs of the plain binary's CPU time
# (user + system, seconds) and the median share of it in user mode: the basis of the samples a
# tool should take (CPU time x rate).
plain_cpu() {
  local TIMEFORMAT='%U %S' times=$tmp/times.$1
  : >"$times"
  for _ in $(seq "$reps"); do
    # shellcheck disable=SC2046
    { time tool_run plain "$rate" "$tmp/run" "$1" $(args_of "$1" 1); } 2>>"$times"
  done
  echo "$(awk '{ print $1 + $2 }' "$times" | median) $(awk '{ print $1 / ($1 + $2) }' "$times" | median)"
}
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# tool_rate TOOL: the rate the tool samples at when asked for $rate: gprof's is profil()'s, fixed,
# read off its "each sample counts as" line of the last run; gperftools' is the asked one (it is
# tick-bound, which the share shows).
tool_rate() {
  if [ "$1" = gprof ]; then
    gprof -b -p "$tmp/wl/$2.pg" "$tmp/run"/gmon.* 2>/dev/null | awk '/Each sample counts as/ { print 1 / $5; exit }'
  else
    echo "$rate"
  fi
}

# taken_share PROFILE... EXPECTED: the mean of the profiles' "total" lines over EXPECTED, in %.
taken_share() {
  local expected=${*: -1}
  awk -v e="$expected" '$1 == "total" { t += $2; n++ } END { if (n && e > 0) printf "%.0f%%", 100 * t / n / e; else print "-" }' "${@:1:$#-1}"
}

echo "Accuracy at $rate Hz asked, $reps repetitions; shares among each workload's own functions;"
echo "truth: callgrind's instruction counts of the plain binary (valgrind cannot run the -pg one:"
echo "its profil() timer kills it; -pg adds the same mcount call to every measured function)."
echo "samples: mean samples a run took; worst: the largest deviation from the truth over all"
echo "functions and repetitions, in percentage points and in the tool's standard errors (ppe's"
echo "stated one, else binomial); within: the share of function x repetition rows within 2 errors;"
echo "taken: samples over those expected, the plain run's CPU time (user + system, median of"
echo "$reps runs) x the tool's rate (the asked one; gprof: profil()'s fixed rate)."
printf '\n%-13s %-34s %8s %9s %9s %8s %5s %6s\n' workload tool samples "worst pp" "worst/se" within reps taken
: >"$tmp/cpu"
for w in $workloads; do
  truth "$w" "$w" >"$tmp/truth.$w"
  [ -s "$tmp/truth.$w" ] || { echo "bench/accuracy.sh: callgrind found none of $w's functions ($(pattern_of "$w"))" >&2; exit 1; }
  read -r cpu user_share <<<"$(plain_cpu "$w")"
  printf '%-13s %8.3f %7.1f%%\n' "$w" "$cpu" "$(echo "100 * $user_share" | bc -l)" >>"$tmp/cpu"
  for tool in $PPE_CONFIGS $OTHER_TOOLS; do
    label=$(tool_label "$tool")
    if ! tool_available "$tool"; then
      printf '%-13s %-34s %s\n' "$w" "$label" "n/a (not installed or not allowed here)"
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
      printf '%-13s %-34s %s\n' "$w" "$label" "n/a (not in this build)"
      continue
    fi
    row=$(python3 "$workloads_dir/score.py" "$tmp/truth.$w" "$label" "${files[@]}")
    printf '%-13s %s %6s\n' "$w" "$row" "$(taken_share "${files[@]}" "$(echo "$cpu * $(tool_rate "$tool" "$w")" | bc -l)")"
  done
done
echo
echo "The plain runs' CPU time (median of $reps), the basis of 'taken', and its user-mode share"
echo "(the ceiling of a sampler of user time only, such as ppe's perf mechanisms):"
printf '%-13s %8s %8s\n' workload "cpu s" user
cat "$tmp/cpu"
