#!/usr/bin/env bash
# What perf-ring's varied period costs a thread's creation (issue 35, docs/user-guide.md §4): a
# new thread must be made at the asked period, so a creation right after a change puts it back
# first, itself where the ring descriptors have room above the soft descriptor limit (soft limit
# 1024), or by asking the collector thread and waiting where only that thread's table holds them
# (soft limit = hard limit = 4096). bench/workloads/thread_creation.c makes each creation come right
# after a change; the bare run is the baseline. Prints each configuration's mean and worst
# pthread_create, in microseconds, REPS times each (the machine's load shows in the spread: uptime).
# Usage: bench/thread_creation.sh [BUILD_DIR] [REPS] [CREATIONS]      (after scripts/build.sh)
set -euo pipefail
# What the benchmarks run (perf, gperftools, gnuplot, ... and the tests' tools), when missing.
"$(dirname "$0")/../scripts/install-deps.sh" bench
build=${1:-build}
reps=${2:-3}
creations=${3:-30}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -pthread "$(dirname "$0")/workloads/thread_creation.c" -o "$tmp/thread_creation"
echo "pthread_create right after a period change, $creations creations a run; $(uptime)"
for _ in $(seq "$reps"); do
  printf '%-45s %s\n' "bare" "$("$tmp/thread_creation" "$creations")"
  for limits in "--nofile=1024:" "--nofile=4096:4096"; do
    printf '%-45s ' "ppe --timer ring, prlimit $limits"
    prlimit "$limits" "$build/collector/ppe" -o "$tmp/c.ppe" --timer ring --mode cpu \
      "$tmp/thread_creation" "$creations" 2>/dev/null
  done
done
