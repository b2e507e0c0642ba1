#!/usr/bin/env bash
# Fuzzes every target for SECONDS (default 60) with -rss_limit_mb=2048, JOBS targets at a time
# (default 2: CI has two cores), from its kept corpus and the fixture folders that seed it (both read
# only: what the run adds goes to a scratch folder). Any crash, leak, sanitizer report, input over
# 2 GiB or over 25 s fails it; the reproducer is printed (its name, size, libFuzzer's report and the
# bytes in base64) and copied into fuzz/corpus/TARGET/, where it stays once fixed (README.md here).
# Usage: fuzz/explore.sh BUILD_DIR [SECONDS] [JOBS]     (a -DPPE_FUZZ=ON clang build)
set -euo pipefail
build=$1
# UBSan reports, which otherwise let the run go on (and pass), stop it with the input kept.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
seconds=${2:-60}
jobs=${3:-2}
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../test/data
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

seeds() { # the fixture folder that seeds TARGET (replay.sh's)
  case $1 in
    listing) echo "$data/listings" ;;
    link_map) echo "$data/maps" ;;
    profile) echo "$data/report" ;;
    elf) echo "$data/debuginfo" ;;
    gdb_remote) echo "$data/gdb-remote" ;;
    live_file) echo "$here/corpus/live_file" ;; # live files are made by runs (README.md here)
    arc_instruction) echo "$here/corpus/arc_instruction" ;; # code from ARC builds (README.md here)
    arc_text) echo "$here/corpus/arc_text" ;; # call graphs and core profiles (README.md here)
    cfi) echo "$here/corpus/cfi" ;; # .eh_frame_hdr and .eh_frame of real builds (README.md here)
  esac
}

explore() { # explore TARGET: its log, status and artifacts in $scratch
  local target=$1
  mkdir -p "$scratch/new-$target" "$scratch/found-$target"
  local rc=0
  "$build/fuzz/fuzz_$target" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=25 \
    -print_final_stats=1 -artifact_prefix="$scratch/found-$target/" \
    "$scratch/new-$target" "$here/corpus/$target" "$(seeds "$target")" >"$scratch/$target.log" 2>&1 || rc=$?
  echo "$rc" >"$scratch/$target.rc"
}

report() { # report TARGET: 0 when it found nothing
  local target=$1 rc
  rc=$(cat "$scratch/$target.rc")
  local runs rss
  runs=$(grep -oE 'stat::number_of_executed_units: +[0-9]+' "$scratch/$target.log" | grep -o '[0-9]*$' || echo "?")
  rss=$(grep -oE 'stat::peak_rss_mb: +[0-9]+' "$scratch/$target.log" | grep -o '[0-9]*$' || echo "?")
  local findings=()
  for f in "$scratch/found-$target"/*; do
    [[ -e $f && $(basename "$f") != slow-unit-* ]] && findings+=("$f")
  done
  if [[ $rc == 0 && ${#findings[@]} == 0 ]]; then
    echo "fuzz explore: fuzz_$target: nothing found in ${seconds} s ($runs inputs, peak ${rss} MB)"
    return 0
  fi
  echo "fuzz explore: fuzz_$target FOUND something (exit $rc):"
  grep -E '^==[0-9]+==|^SUMMARY|ERROR|out-of-memory|Timeout|leak|#[0-9]+ 0x' "$scratch/$target.log" | head -40 || true
  for f in "${findings[@]}"; do
    local name
    name=$(basename "$f")
    echo "-- reproducer $name ($(stat -c %s "$f") bytes), base64:"
    base64 -w 76 "$f" | head -60
    cp "$f" "$here/corpus/$target/$name"
    echo "-- copied to fuzz/corpus/$target/$name; reproduce: $build/fuzz/fuzz_$target fuzz/corpus/$target/$name"
  done
  return 1
}

targets=(listing link_map profile elf gdb_remote live_file arc_instruction arc_text cfi)
for target in "${targets[@]}"; do
  while (($(jobs -rp | wc -l) >= jobs)); do
    wait -n || true
  done
  explore "$target" &
done
wait
failed=0
for target in "${targets[@]}"; do
  report "$target" || failed=1
done
exit "$failed"
