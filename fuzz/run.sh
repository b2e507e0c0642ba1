#!/usr/bin/env bash
# Runs each libFuzzer target for SECONDS (default 60), seeded with the real fixtures of
# test/data. A crash leaves its input as fuzz-crash-* in the current directory.
# Usage: fuzz/run.sh BUILD_DIR [SECONDS]     (PPE_BUILD: the gcc build whose examples seed the ELF target)
set -euo pipefail
build=$1
seconds=${2:-60}
data=$(cd "$(dirname "$0")/../test/data" && pwd)
seed() { # seed TARGET FILES...: a corpus directory of copies of FILES
  local dir=$build/fuzz/corpus-$1
  shift
  mkdir -p "$dir"
  cp "$@" "$dir/"
  echo "$dir"
}
run() {
  local target=$1 corpus=$2
  echo "== $target"
  "$build/fuzz/fuzz_$target" -max_total_time="$seconds" -max_len=262144 -artifact_prefix=fuzz-crash-"$target"- \
    -print_final_stats=1 "$corpus" 2>&1 | grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY)" || true
}
run listing "$(seed listing "$data"/listings/*.lis)"
run link_map "$(seed link_map "$data"/maps/*.map)"
run profile "$(seed profile "$data"/report/*.ppe)"
# ELF seeds: the examples of the normal (gcc) build.
run elf "$(seed elf "${PPE_BUILD:-build}"/examples/simp "${PPE_BUILD:-build}"/examples/ktest)"
