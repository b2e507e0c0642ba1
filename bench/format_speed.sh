#!/usr/bin/env bash
# Formatter speed on a large program (bench/large_program.sh: 30000 functions, -O2 -g): ppeout
# making the report from the executable's DWARF alone (by function and by unit, program text of
# the busy units included) against `perf report` on a perf.data of the same program, and against
# `addr2line -f -i` (and llvm-addr2line) resolving the same sampled addresses. Medians of RUNS.
# Usage: bench/format_speed.sh [BUILD_DIR] [RUNS] [WORK_DIR]      (after scripts/build.sh)
set -euo pipefail
build=$(readlink -f "${1:-build}")
runs=${2:-3}
work=${3:-$(mktemp -d)}
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$work/large" ] || "$here/large_program.sh" "$work" >/dev/null
prog=$work/large

"$build/collector/ppe" -o "$work/large.ppe" --mode cpu "$prog" 3 >/dev/null 2>&1
have_perf=0
if perf record -q -e cpu-clock -F 2000 -o "$work/perf.data" "$prog" 3 >/dev/null 2>&1; then have_perf=1; fi
# The distinct sampled addresses of the executable, as addr2line reads them.
awk '$1 == "bin" { print $2 }' "$work/large.ppe" >"$work/addresses"

source "$here/timing.sh"
width=52

echo "program: $(nm "$prog" | grep -c ' [Tt] ') functions, $(stat -c %s "$prog") bytes;" \
  "$(wc -l <"$work/addresses") sampled addresses"
base=$(timed "$build/formatter/ppeout" --by function "$work/large.ppe" -)
printf '%-52s %8s %8s\n' "command" "seconds" "ratio"
printf '%-52s %8.3f %8.3f\n' "ppeout --by function large.ppe -" "$base" 1
row "ppeout large.ppe - (units, with program text)" "$build/formatter/ppeout" "$work/large.ppe" -
if [ $have_perf = 1 ]; then
  row "perf report --stdio --sort sym" perf report --stdio --sort sym -i "$work/perf.data"
  row "perf report --stdio --sort srcline" perf report --stdio --sort srcline -i "$work/perf.data"
else
  echo "perf record failed here: no perf rows"
fi
row "addr2line -f -i -e large < addresses" sh -c "addr2line -f -i -e '$prog' < '$work/addresses'"
if command -v llvm-addr2line-14 >/dev/null; then
  row "llvm-addr2line-14 -f -i -e large < addresses" sh -c "llvm-addr2line-14 -f -i -e '$prog' < '$work/addresses'"
fi
