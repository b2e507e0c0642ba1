#!/usr/bin/env bash
# Replays every fuzz target once over its kept corpus (fuzz/corpus/TARGET: inputs found by earlier
# runs, minimised) and the folders of real fixtures that seed it; any crash, leak or sanitizer report fails.
# Usage: fuzz/replay.sh BUILD_DIR     (a -DPPE_FUZZ=ON clang build; see README.md here)
set -euo pipefail
build=$1
# UBSan reports, which otherwise let the run go on (and pass), stop it with the input kept.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../test/data
replay() { # replay TARGET INPUTS...
  local target=$1
  shift
  local log
  log=$(mktemp)
  if ! "$build/fuzz/fuzz_$target" -runs=0 "$@" >"$log" 2>&1; then
    tail -30 "$log"
    echo "fuzz replay: fuzz_$target FAILED"
    exit 1
  fi
  echo "fuzz replay: fuzz_$target: $(grep -o 'INITED.*' "$log" | head -1 || echo "inputs run")"
  rm -f "$log"
}
replay listing "$here/corpus/listing" "$data/listings"
replay link_map "$here/corpus/link_map" "$data/maps"
replay profile "$here/corpus/profile" "$data/report"
# ELF: each read through ppeout's isolated reader, as ppeout makes it (LLVM 14 itself crashes on
# some of these files), then in-process when the reader survived it (fuzz_elf.cc).
replay elf "$here/corpus/elf" "$data/debuginfo"
replay gdb_remote "$here/corpus/gdb_remote" "$data/gdb-remote"
replay live_file "$here/corpus/live_file"
replay arc_instruction "$here/corpus/arc_instruction"
replay arc_text "$here/corpus/arc_text"
replay cfi "$here/corpus/cfi"
