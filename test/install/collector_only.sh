#!/usr/bin/env bash
# The collector alone, as an HPC node or the ARC host tool builds it: configures a fresh tree with
# PPE_BUILD_FORMATTER, PPE_BUILD_EXAMPLES and PPE_BUILD_TESTS OFF while LLVM, fmt, gfortran, gold,
# lld and mold are hidden from CMake (find_package disabled, the tools replaced by failing stubs on
# PATH), builds it, installs it, and profiles a program with the installed launcher.
# Usage: collector_only.sh SOURCE_DIR PROGRAM
set -euo pipefail
source=$(cd "$1" && pwd)
program=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

mkdir "$work/hidden"
for tool in gfortran f95 gfortran-12 ld.gold ld.lld mold llvm-config llvm-config-14 clang clang++; do
  printf '#!/bin/sh\necho "%s is hidden in this check" >&2\nexit 1\n' "$tool" >"$work/hidden/$tool"
  chmod +x "$work/hidden/$tool"
done
export PATH="$work/hidden:$PATH"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$source" -B "$work/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DPPE_BUILD_FORMATTER=OFF -DPPE_BUILD_EXAMPLES=OFF -DPPE_BUILD_TESTS=OFF \
  -DCMAKE_DISABLE_FIND_PACKAGE_LLVM=ON -DCMAKE_DISABLE_FIND_PACKAGE_fmt=ON -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON \
  -DCMAKE_Fortran_COMPILER="$work/hidden/gfortran" >"$work/configure.log" 2>&1 ||
  fail "configure: $(tail -5 "$work/configure.log")"
grep -qi fortran "$work/build/CMakeCache.txt" && grep -q "CMAKE_Fortran_COMPILER_WORKS" "$work/build/CMakeCache.txt" &&
  fail "the collector-only configure enabled Fortran"
cmake --build "$work/build" >"$work/build.log" 2>&1 || fail "build: $(tail -20 "$work/build.log")"
cmake --install "$work/build" --prefix "$work/prefix" >/dev/null
for f in lib/libppe.so lib/libppe.a include/ppe.h include/ppe.f90 bin/ppe; do
  [ -e "$work/prefix/$f" ] || fail "$f not installed"
done
[ -e "$work/prefix/bin/ppeout" ] && fail "ppeout was built without the formatter"
out=$("$work/prefix/bin/ppe" -o "$work/run.ppe" "$program" 1000003 2>&1) || fail "launcher: $out"
head -1 "$work/run.ppe" | grep -qx "ppe-profile 2" || fail "no profile written: $out"
echo "collector-only build OK: libppe, ppe.h, ppe.f90 and the launcher without LLVM, fmt, Fortran, gold, lld or mold"
