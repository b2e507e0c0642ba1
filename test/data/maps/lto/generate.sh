#!/bin/sh
# Regenerates the link-time optimisation map fixtures in this directory from examples/lto/ (the
# C program of four files), with the real compilers and linkers. See README.md.
#
#   test/data/maps/lto/generate.sh
#
#   gcc-flto.LINKER.map     gcc -O2 -g -flto, linked by GNU ld (gnuld), gold and mold: gcc's LTO
#                           plugin; lld cannot run it (gcc -flto -fuse-ld=lld leaves main undefined)
#   clang-thinlto.LINKER.map  clang -O2 -g -flto=thin, linked by lld, and by GNU ld (gnuld: what
#                           plain `clang -flto=thin` uses on Debian), gold and mold through LLVMgold
# What differs from run to run: gcc's temporary names (mkstemp: /tmp/ccXXXXXX.ltrans0.ltrans.o,
# /tmp/ccXXXXXX.debug.temp.o, /tmp/ccXXXXXX.o), LLVMgold's (/tmp/lto-llvm-XXXXXX.o) and gcc's
# hashed local symbols of the early debug info (main.c.a0297f5d); the rest is the same.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../../../examples/lto" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
for f in main sieve sort hash; do
    cp "$src/$f.c" .
done
cp "$src/work.h" .
sources="main.c sieve.c sort.c hash.c"

for f in $sources; do
    gcc -O2 -g -flto -c "$f" -o "${f%.c}.o"
done
for linker in gnuld gold mold; do
    case $linker in
    gnuld) fuse=bfd ;;
    *) fuse=$linker ;;
    esac
    gcc -O2 -g -flto -fuse-ld=$fuse main.o sieve.o sort.o hash.o -o prog -Wl,-Map="$here/gcc-flto.$linker.map"
done

for f in $sources; do
    clang -O2 -g -flto=thin -c "$f" -o "${f%.c}.bc.o"
done
for linker in lld gnuld gold mold; do
    case $linker in
    gnuld) fuse=bfd ;;
    *) fuse=$linker ;;
    esac
    clang -O2 -g -flto=thin -fuse-ld=$fuse main.bc.o sieve.bc.o sort.bc.o hash.bc.o -o prog \
        -Wl,-Map="$here/clang-thinlto.$linker.map"
done
