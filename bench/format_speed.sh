#!/usr/bin/env bash
# Formatter speed on a large program (bench/large_program.sh: 30000 functions, -O2 -g): ppeout
# making the report from the executable's DWARF alone (by function and by unit, program text of
# the busy units included) against `perf report` on a perf.data of the same program, and against
# `addr2line -f -i` (and llvm-addr2line) resolving the same sampled addresses. Medians of RUNS of
# wall seconds, CPU seconds (user + system, of the command and all its descendants: wall time on
# a busy machine says little) and peak RSS of the largest process (ppeout's DWARF reader is a
# process of its own). Then how ppeout's cost grows with the size of the
# binary (SIZES: files of 600 functions each) and with the number of sampled addresses (the
# profile cut to 100, 1000 and all of its bins). ppeout reads the functions and line tables only of
# the DWARF units that hold samples, so the second should matter more than the first.
# First, a stripped large library: clang compiling a template-heavy file, its time in the
# stripped libLLVM (whose internal functions only .eh_frame describes) and libclang-cpp, profiled
# with `ppe --object libLLVM...`, by perf record, and by ppe without --object (the library a
# shared object of clang); ppeout's function table and reports against `perf report --sort sym`,
# as ratios of the same run (targets: time <= 1, memory <= 2). STRIPPED_LIB=PATH
# names another library (then CLANG=PROG a program spending its time in it, with CLANG_ARGS).
# Usage: bench/format_speed.sh [BUILD_DIR] [RUNS] [WORK_DIR] [SIZES]   (after scripts/build.sh)
#        SIZES default "12 25 50"; the largest is the program of the first table. A WORK_DIR
#        kept from an earlier run is reused (programs, profiles). PPEOUT_BEFORE=PATH adds rows
#        for another ppeout (e.g. a build from before a change). LIBRARY_ONLY=1: the first
#        section alone.
set -euo pipefail
# What the benchmarks run (perf, gperftools, gnuplot, ... and the tests' tools), when missing.
"$(dirname "$0")/../scripts/install-deps.sh" bench
build=$(readlink -f "${1:-build}")
runs=${2:-3}
work=${3:-$(mktemp -d)}
sizes=${4:-12 25 50}
here=$(cd "$(dirname "$0")" && pwd)
ppeout=$build/formatter/ppeout
largest=$(echo "$sizes" | tr ' ' '\n' | sort -n | tail -1)

source "$here/timing.sh"

# The program of FILES files in $work/fFILES (built once, from the objects of the program of
# SMALLER files where there is one), profiled by ppe (and perf, if it can).
prepare() { # prepare FILES [SMALLER]
  local dir=$work/f$1
  if [ -n "${2:-}" ] && [ ! -d "$dir/src" ]; then
    mkdir -p "$dir"
    cp -pr "$work/f$2/src" "$dir/src"
  fi
  [ -x "$dir/large" ] || "$here/large_program.sh" "$dir" "$1" 600 >/dev/null
  [ -s "$dir/large.ppe" ] || "$build/collector/ppe" -o "$dir/large.ppe" --mode cpu "$dir/large" 3 >/dev/null 2>&1
  if [ ! -s "$dir/perf.data" ]; then
    perf record -q -e cpu-clock -F 2000 -o "$dir/perf.data" "$dir/large" 3 >/dev/null 2>&1 || rm -f "$dir/perf.data"
  fi
}

# Runs a command as a child subreaper: ppeout's DWARF reader is a grandchild that its parent does
# not wait for (debuginfo/src/isolated_reader.cc), so /usr/bin/time would miss its CPU time and
# memory. Prints wall seconds, CPU seconds and the peak RSS (MB) of the largest process.
# shellcheck disable=SC2016
reaped='
import ctypes, os, resource, subprocess, sys, time
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
t0 = time.monotonic()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
while True:
    try:
        os.wait()
    except ChildProcessError:
        break
wall = time.monotonic() - t0
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{wall:.4f} {r.ru_utime + r.ru_stime:.4f} {r.ru_maxrss / 1024:.1f}")
'

# Medians over $runs runs of "$@": wall seconds, CPU seconds, peak RSS in MB.
measure() {
  for _ in $(seq "$runs"); do python3 -c "$reaped" "$@"; done >"$work/measured"
  for c in 1 2 3; do awk -v c=$c '{ print $c }' "$work/measured" | median; done | paste -sd' '
}

# mrow NAME COMMAND...: NAME, wall seconds, its ratio to $base, CPU seconds, peak RSS in MB.
mrow() {
  local name=$1; shift
  local m
  m=$(measure "$@")
  set -- $m
  printf "%-52s %8.3f %8.2f %8.3f %8.1f\n" "$name" "$1" "$(echo "$1 / $base" | bc -l)" "$2" "$3"
  last=$1
  lastcpu=$2
  lastmb=$3
}

# cut_profile IN OUT N HOW: IN with N of its bins (HOW: "spread" evenly over all of them, "lowest"
# the N of lowest address: a hot spot in few units), and its counts made to agree.
cut_profile() {
  awk -v n="$3" -v how="$4" -v B="$(grep -c '^bin ' "$1")" '
    FNR == 1 { pass++; i = 0 }
    $1 == "bin" {
      i++
      keep = how == "lowest" ? i <= n : n >= B || int(i * n / B) > int((i - 1) * n / B)
    }
    pass == 1 {
      if ($1 == "bin" && keep) sum += $3
      if ($1 == "count" && $2 == "in-range") old = $3
      if ($1 == "count" && $2 == "saturated") sat = $3
      next
    }
    $1 == "count" && $2 == "in-range" { print "count in-range", sum + sat; next }
    $1 == "count" && $2 == "total" { print "count total", $3 - old + sum + sat; next }
    $1 == "bin" && !keep { next }
    { print }' "$1" "$1" >"$2"
}

# The stripped-library case in $work/lib: a program of nested templates for clang to compile.
prepare_library() {
  local dir=$work/lib
  mkdir -p "$dir"
  cat >"$dir/work.cc" <<'CC'
#include <algorithm>
#include <iostream>
#include <map>
#include <regex>
#include <string>
#include <unordered_map>
#include <vector>
template <int N> struct R {
  static int f(std::map<int, std::string>& m) { m[N] = std::to_string(N); return R<N - 1>::f(m) + int(m.size()); }
};
template <> struct R<0> { static int f(std::map<int, std::string>&) { return 0; } };
int main() {
  std::map<int, std::string> m; std::regex r("a+b"); std::unordered_map<std::string, int> u;
  u["x"] = R<300>::f(m); std::vector<int> v(10); std::sort(v.begin(), v.end());
  std::cout << u["x"] << std::regex_match("aab", r) << "\n";
}
CC
  if [ ! -s "$dir/lib.ppe" ]; then
    (cd "$dir" && "$build/collector/ppe" -o lib.ppe --mode cpu --object "$(basename "$lib")" \
      "$clang" "${clang_args[@]}" >/dev/null 2>&1)
  fi
  # The same run with the library a shared object of clang (no --object): the report as it comes.
  if [ ! -s "$dir/shared.ppe" ]; then
    (cd "$dir" && "$build/collector/ppe" -o shared.ppe --mode cpu "$clang" "${clang_args[@]}" >/dev/null 2>&1)
  fi
  # The library without its search table: ppeout decodes all of .eh_frame, as before 2026-11-28.
  [ -s "$dir/no-hdr.so" ] || objcopy --remove-section .eh_frame_hdr "$lib" "$dir/no-hdr.so"
  if [ ! -s "$dir/perf.data" ]; then
    (cd "$dir" && perf record -q -e cpu-clock -F 2000 -o perf.data "$clang" "${clang_args[@]}" >/dev/null 2>&1) \
      || rm -f "$dir/perf.data"
  fi
}

# ratio NUMERATOR DENOMINATOR
ratio() { echo "$1 / $2" | bc -l; }

# librow NAME ARGS...: ppeout ARGS on the library's profile (PROFILE, default lib.ppe), and its
# ratios to perf's row.
librow() {
  local name=$1
  shift
  mrow "$name" "$ppeout" "$@" "$work/lib/${PROFILE:-lib.ppe}" -
  printf '%-52s %8s %8.2f %8.2f %8.2f\n' "  / perf report --sort sym" "" "$(ratio "$last" "$pwall")" \
    "$(ratio "$lastcpu" "$pcpu")" "$(ratio "$lastmb" "$pmb")"
}

library_section() {
  lib=${STRIPPED_LIB:-$(ls /usr/lib/x86_64-linux-gnu/libLLVM-1[0-9].so.1 2>/dev/null | head -1)}
  clang=${CLANG:-$(command -v "clang++-$(basename "$lib" | sed -E 's/libLLVM-([0-9]+).*/\1/')" || true)}
  read -r -a clang_args <<<"${CLANG_ARGS:--O2 -c work.cc -o /dev/null}"
  if [ -z "$lib" ] || [ -z "$clang" ] || readelf -S "$lib" | grep -q '\.symtab'; then
    echo "no stripped large library with a program that uses it here: no library rows"
    return
  fi
  prepare_library
  local d=$work/lib
  echo "stripped library: $lib, $(stat -c %s "$lib") bytes, .eh_frame $(readelf -SW "$lib" |
    awk '$2 == ".eh_frame" { print "0x" $6 }' | xargs printf %d) bytes; $clang ${clang_args[*]}:" \
    "$(grep -c '^bin ' "$d/lib.ppe") sampled bins in it"
  [ -s "$d/perf.data" ] || { echo "perf record failed here: no rows"; return; }
  printf '%-52s %8s %8s %8s %8s\n' "command" "wall s" "/ perf" "CPU s" "peak MB"
  read -r pwall pcpu pmb <<<"$(measure perf report --stdio --sort sym -i "$d/perf.data")"
  base=$pwall
  printf '%-52s %8.3f %8.2f %8.3f %8.1f\n' "perf report --stdio --sort sym" "$pwall" 1 "$pcpu" "$pmb"
  # The report as it comes, then the library's function table alone (no shared objects, no
  # program text: what perf's table is), then the same without the search table.
  local alone=(--by function -t 100 --objects-threshold 100)
  librow "ppeout --by function lib.ppe -" --by function
  librow "ppeout --by function -t 100 --objects-threshold 100" "${alone[@]}"
  librow "  the same, --exe no-hdr.so (no .eh_frame_hdr)" "${alone[@]}" --exe "$d/no-hdr.so"
  PROFILE=shared.ppe librow "ppeout --by function shared.ppe - (no --object)" --by function
  if [ -n "${PPEOUT_BEFORE:-}" ]; then
    mrow "PPEOUT_BEFORE --by function lib.ppe -" "$PPEOUT_BEFORE" --by function "$d/lib.ppe" -
  fi
  echo
}

library_section
[ -n "${LIBRARY_ONLY:-}" ] && exit 0

smaller=""
for f in $(echo "$sizes" | tr ' ' '\n' | sort -n); do
  prepare "$f" "$smaller"
  smaller=$f
done
dir=$work/f$largest
prog=$dir/large
awk '$1 == "bin" { print $2 }' "$dir/large.ppe" >"$dir/addresses"

echo "program: $(nm "$prog" | grep -c ' [Tt] ') functions, $(stat -c %s "$prog") bytes;" \
  "$(wc -l <"$dir/addresses") sampled addresses"
printf '%-52s %8s %8s %8s %8s\n' "command" "wall s" "ratio" "CPU s" "peak MB"
m=$(measure "$ppeout" --by function "$dir/large.ppe" -)
set -- $m
base=$1
basecpu=$2
printf '%-52s %8.3f %8.2f %8.3f %8.1f\n' "ppeout --by function large.ppe -" "$1" 1 "$2" "$3"
mrow "ppeout large.ppe - (units, with program text)" "$ppeout" "$dir/large.ppe" -
report=$last
reportcpu=$lastcpu
if [ -n "${PPEOUT_BEFORE:-}" ]; then # another build's ppeout, e.g. before a change, for comparison
  mrow "PPEOUT_BEFORE --by function large.ppe -" "$PPEOUT_BEFORE" --by function "$dir/large.ppe" -
  mrow "PPEOUT_BEFORE large.ppe -" "$PPEOUT_BEFORE" "$dir/large.ppe" -
fi
if [ -s "$dir/perf.data" ]; then
  mrow "perf report --stdio --sort sym" perf report --stdio --sort sym -i "$dir/perf.data"
  sym=$last
  symcpu=$lastcpu
  mrow "perf report --stdio --sort srcline" perf report --stdio --sort srcline -i "$dir/perf.data"
  srcline=$last
  srclinecpu=$lastcpu
  printf 'targets: ppeout --by function / perf report sym = %.2f wall, %.2f CPU (target <= 1);\n' \
    "$(echo "$base / $sym" | bc -l)" "$(echo "$basecpu / $symcpu" | bc -l)"
  printf '         perf report srcline / ppeout large.ppe - = %.1f wall, %.1f CPU (target >= 20)\n' \
    "$(echo "$srcline / $report" | bc -l)" "$(echo "$srclinecpu / $reportcpu" | bc -l)"
else
  echo "perf record failed here: no perf rows"
fi
mrow "addr2line -f -i -e large < addresses" sh -c "addr2line -f -i -e '$prog' < '$dir/addresses'"
if command -v llvm-addr2line-14 >/dev/null; then
  mrow "llvm-addr2line-14 -f -i -e large < addresses" sh -c "llvm-addr2line-14 -f -i -e '$prog' < '$dir/addresses'"
fi

echo
echo "growth with the binary (bench/large_program.sh DIR FILES 600; wall s / CPU s / peak MB):"
printf '%6s %7s %6s %7s %22s %22s %22s\n' files funcs MB sampled "--by function" "report" "perf --sort sym"
# triple "WALL CPU MB": as one column.
triple() { set -- $1; printf ' %6.3f / %5.3f / %5.1f' "$1" "$2" "$3"; }
for f in $sizes; do
  d=$work/f$f
  printf '%6s %7s %6.1f %7s' "$f" "$((f * 600))" "$(echo "$(stat -c %s "$d/large") / 1048576" | bc -l)" \
    "$(grep -c '^bin ' "$d/large.ppe")"
  triple "$(measure "$ppeout" --by function "$d/large.ppe" -)"
  triple "$(measure "$ppeout" "$d/large.ppe" -)"
  if [ -s "$d/perf.data" ]; then triple "$(measure perf report --stdio --sort sym -i "$d/perf.data")"; fi
  echo
done

echo
echo "growth with the sampled addresses ($largest files: the profile cut to N bins, spread over all"
echo "units or the N of lowest address; units: those with hits; wall s / CPU s / peak MB):"
printf '%14s %6s %22s %22s\n' bins units "--by function" "report"
total=$(grep -c '^bin ' "$dir/large.ppe")
for how in spread lowest; do
  for n in 100 1000 "$total"; do
    [ "$how" = lowest ] && [ "$n" = "$total" ] && continue
    cut_profile "$dir/large.ppe" "$work/cut.ppe" "$n" "$how"
    units=$("$ppeout" --by unit --line-threshold 100 "$work/cut.ppe" - 2>/dev/null | grep -cE '^ +[0-9]+ - (u[0-9]+|main)\.cc ' || true)
    printf '%14s %6s' "$(grep -c '^bin ' "$work/cut.ppe") $how" "$units"
    triple "$(measure "$ppeout" --by function "$work/cut.ppe" -)"
    triple "$(measure "$ppeout" "$work/cut.ppe" -)"
    echo
  done
done
