#!/bin/sh
# Regenerates the assembler listings in this directory with the real compilers and assemblers.
# For each listing NAME.lis it also keeps what the object file says about the same code:
#   NAME.sections  `readelf -SW NAME.o`  (section sizes and flags)
#   NAME.lines     `objdump -w --dwarf=decodedline NAME.o` (the DWARF line table, one sequence
#                  per code section) followed by the .rela.debug_line part of `readelf -rW
#                  NAME.o`, which says which section each sequence is for (its
#                  DW_LNE_set_address relocations, in sequence order). `objdump -dl` would be
#                  simpler to read but misleads: GNU objdump 2.40 names the wrong file in g++'s
#                  COMDAT sections, llvm-objdump 14 misses a row that starts past a function's end.
# The objects themselves are not kept. Run from anywhere: sh test/data/listings/generate.sh
# Needs (Debian 12): gcc g++ gfortran clang, gcc-12-arc-linux-gnu, gcc-aarch64-linux-gnu.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Sources are compiled from src/ by their bare names, so the listings name them as a user's
# build would ("simp.c", "matrix.h"); the debug prefix map keeps this checkout's path out.
cd "$here/src"

# fixture NAME TARGET LISTING-OPTION COMPILER ARGS... : compile with -g and the listing option,
# then record readelf and objdump of the object. TARGET is x86, arc or a64.
fixture() {
    name=$1 target=$2 listing=$3
    shift 3
    case $target in
    x86) tools= ;;
    arc) tools=arc-linux-gnu- ;;
    a64) tools=aarch64-linux-gnu- ;;
    esac
    "$@" -g -c -fdebug-prefix-map="$here/src"=. -Wa,"$listing=$here/$name.lis" -o "$tmp/$name.o"
    "${tools}readelf" -SW "$tmp/$name.o" | sed "s|$tmp/||" >"$here/$name.sections"
    {
        "${tools}objdump" -w --dwarf=decodedline "$tmp/$name.o"
        "${tools}readelf" -rW "$tmp/$name.o" | sed -n "/'\.rela\.debug_line'/,/^\$/p"
    } | sed "s|$tmp/||" >"$here/$name.lines"
    echo "$name"
}

# x86-64, gcc: -O0 and -O2, main in .text.startup, cold code in .text.unlikely, inline asm that
# switches sections, one section per function (one with a name longer than the listing shows),
# the listing without 'd' and the paged listing of a piped compile with the symbol table.
fixture simp.x86_64-gcc-O0 x86 -adhln gcc -O0 simp.c
fixture simp.x86_64-gcc-O2 x86 -adhln gcc -O2 simp.c
fixture simp.x86_64-gcc-O2-ahln x86 -ahln gcc -O2 simp.c
fixture simp.x86_64-gcc-O2-ffunction-sections x86 -adhln gcc -O2 -ffunction-sections simp.c
fixture simp.x86_64-gcc-O2-pipe-ahls x86 -ahls gcc -O2 -pipe simp.c
fixture longname.x86_64-gcc-O2-ffunction-sections x86 -adhln gcc -O2 -ffunction-sections longname.c
fixture cold.x86_64-gcc-O2 x86 -adhln gcc -O2 cold.c
fixture sections.x86_64-gcc-O2 x86 -adhln gcc -O2 sections.c
fixture stats.x86_64-gcc-O2 x86 -adhln gcc -O2 stats.c
fixture templates.x86_64-g++-O0 x86 -adhln g++ -O0 templates.cc
fixture templates.x86_64-g++-O2 x86 -adhln g++ -O2 templates.cc
fixture comdat.x86_64-g++-O2 x86 -adhln g++ -O2 comdat.cc
fixture ktest.x86_64-gfortran-O0 x86 -adhln gfortran -O0 ktest.f90
fixture ktest.x86_64-gfortran-O3 x86 -adhln gfortran -O3 ktest.f90

# x86-64, clang with GNU as: DWARF 5 '.file 0' with md5, '.loc 0 0 N' (no line), no cpp line
# markers around inline assembly.
fixture simp.x86_64-clang-O2 x86 -adhln clang -fno-integrated-as -O2 simp.c
fixture sections.x86_64-clang-O2 x86 -adhln clang -fno-integrated-as -O2 sections.c
fixture stats.x86_64-clang-O2 x86 -adhln clang -fno-integrated-as -O2 stats.c
fixture templates.x86_64-clang++-O2 x86 -adhln clang++ -fno-integrated-as -O2 templates.cc

# ARC HS (Debian's gcc-12-arc-linux-gnu): 2-byte listing words, code sections padded to their
# alignment at the end (visible only without 'd').
fixture simp.arc-gcc-O0 arc -adhln arc-linux-gnu-gcc-12 -O0 simp.c
fixture simp.arc-gcc-O2 arc -adhln arc-linux-gnu-gcc-12 -O2 simp.c
fixture simp.arc-gcc-O2-ahln arc -ahln arc-linux-gnu-gcc-12 -O2 simp.c
fixture cold.arc-gcc-O2 arc -adhln arc-linux-gnu-gcc-12 -O2 cold.c
fixture sections.arc-gcc-O2 arc -adhln arc-linux-gnu-gcc-12 -O2 sections.c
fixture stats.arc-gcc-O2 arc -adhln arc-linux-gnu-gcc-12 -O2 stats.c

# AArch64.
fixture simp.aarch64-gcc-O2 a64 -adhln aarch64-linux-gnu-gcc -O2 simp.c
fixture cold.aarch64-gcc-O2 a64 -adhln aarch64-linux-gnu-gcc -O2 cold.c
fixture sections.aarch64-gcc-O2 a64 -adhln aarch64-linux-gnu-gcc -O2 sections.c
fixture stats.aarch64-gcc-O2 a64 -adhln aarch64-linux-gnu-gcc -O2 stats.c
