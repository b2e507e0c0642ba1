#!/bin/sh
# Regenerates every linker map fixture in this directory from the programs in src/, with the real
# compilers and linkers: GNU ld (bfd), gold, lld and mold. See README.md for what each file is.
#
#   test/data/maps/generate.sh            # writes *.map and *.syms next to this script
#
# For each program (simp: C with an archive, shapes: C++, ktest: Fortran), each variant and each
# linker it writes
#   PROGRAM-VARIANT.LINKER.map   the map exactly as the linker wrote it (-Wl,-Map=...)
#   PROGRAM-VARIANT.LINKER.syms  "MODULE ADDRESS SIZE TYPE NAME" for every code symbol (nm type
#                                T, t or W) of the program's own objects, at the address
#                                `nm --defined-only -S` gives in the linked executable
# and two inputs that parse to errors:
#   nocode.LINKER.map            a data-only object linked without start files: no code at all
#   calc.lis                     an assembler listing (as -adhln) of src/simp/calc.c: not a map
# Objects are built in a temporary directory under relative names, so the maps show "simp.o" and
# "libx.a(y.o)", and with the debug prefix mapped away so no path of this machine leaks into the
# debug section sizes: running the script twice gives identical files.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The fixtures were made with these; other versions lay code out differently.
expectTool()
{
    "$@" 2>/dev/null | head -n 1 | grep -q -F "$EXPECTED" ||
        echo "generate.sh: warning: '$*' is not '$EXPECTED': fixtures will differ from the checked-in ones" >&2
}
EXPECTED="12.2.0" expectTool gcc --version
EXPECTED="12.2.0" expectTool g++ --version
EXPECTED="12.2.0" expectTool gfortran --version
EXPECTED="GNU ld (GNU Binutils for Debian) 2.40" expectTool ld.bfd --version
EXPECTED="GNU gold (GNU Binutils for Debian 2.40) 1.16" expectTool ld.gold --version
EXPECTED="LLD 14.0.6" expectTool ld.lld --version
EXPECTED="mold 1.10.1" expectTool mold --version

cp -R "$here/src" "$work/src"
cd "$work"

# Variants: a half fraction of {-O0,-O2} x {-ffunction-sections or not} x {PIE,-no-pie}, so every
# pair of options meets once.
variantFlags()
{
    case $1 in
    O0-pie) echo "-O0" ;;
    O2-nopie) echo "-O2 -fno-pie" ;;
    O2-ffs-pie) echo "-O2 -ffunction-sections" ;;
    O0-ffs-nopie) echo "-O0 -ffunction-sections -fno-pie" ;;
    esac
}
variantLinkFlags()
{
    case $1 in
    *-nopie) echo "-no-pie" ;;
    *) echo "-pie" ;;
    esac
}

# compile DRIVER FLAGS SOURCE OBJECT (FLAGS is split into words on purpose)
compile()
{
    $1 $2 -g -ffile-prefix-map="$work"=. -c "$3" -o "$4"
}

# Objects of each program, as "MODULE=OBJECT" (MODULE is the name the map shows).
buildSimp()
{
    for f in simp calc y z w; do
        compile gcc "$1" src/simp/$f.c $f.o
    done
    rm -f libx.a
    ar rcD libx.a y.o z.o w.o
    LINK="gcc simp.o calc.o libx.a"
    MODULES="simp.o=simp.o calc.o=calc.o libx.a(y.o)=y.o libx.a(z.o)=z.o libx.a(w.o)=w.o"
}
buildShapes()
{
    compile g++ "$1" src/shapes/main.cc main.o
    compile g++ "$1" src/shapes/shapes.cc shapes.o
    LINK="g++ main.o shapes.o"
    MODULES="main.o=main.o shapes.o=shapes.o"
}
buildKtest()
{
    # kmod.f90 first: ktest.f90 needs its kmod.mod.
    compile gfortran "$1" src/ktest/kmod.f90 kmod.o
    compile gfortran "$1" src/ktest/ktest.f90 ktest.o
    compile gfortran "$1" src/ktest/ksub.f ksub.o
    LINK="gfortran ktest.o kmod.o ksub.o"
    MODULES="ktest.o=ktest.o kmod.o=kmod.o ksub.o=ksub.o"
}

# writeSyms EXE OUT: the code symbols of the program's own objects at their executable addresses.
# A name the executable defines more than once (a local symbol in several objects) is left out:
# nm cannot say which copy is which.
writeSyms()
{
    nm --defined-only -S "$1" >exe.nm
    echo "# MODULE ADDRESS SIZE TYPE NAME: nm --defined-only -S of the executable, code symbols (T t W) of each object" >"$2"
    for pair in $MODULES; do
        module=${pair%%=*}
        nm --defined-only "${pair#*=}" | awk -v module="$module" '$2 ~ /^[TtW]$/ { print module, $2, $3 }'
    done | awk '
        FNR == NR { count[$NF]++; addr[$NF] = $1; size[$NF] = NF == 4 ? $2 : 0; next }
        count[$3] == 1 { print $1, addr[$3], size[$3], $2, $3 }
    ' exe.nm - >>"$2"
}

for program in simp shapes ktest; do
    for variant in O0-pie O2-nopie O2-ffs-pie O0-ffs-nopie; do
        case $program in
        simp) buildSimp "$(variantFlags $variant)" ;;
        shapes) buildShapes "$(variantFlags $variant)" ;;
        ktest) buildKtest "$(variantFlags $variant)" ;;
        esac
        for linker in gnuld gold lld mold; do
            case $linker in
            gnuld) fuse=bfd ;;
            *) fuse=$linker ;;
            esac
            name=$program-$variant.$linker
            $LINK -fuse-ld=$fuse $(variantLinkFlags $variant) -o "$name" -Wl,-Map="$here/$name.map"
            writeSyms "$name" "$here/$name.syms"
        done
    done
done

# A program without code, and an input of the wrong kind.
compile gcc -O2 src/nocode/table.c table.o
for linker in gnuld gold lld mold; do
    case $linker in
    gnuld) fuse=bfd ;;
    *) fuse=$linker ;;
    esac
    gcc -fuse-ld=$fuse -nostdlib -no-pie -Wl,-e,0 -o nocode table.o -Wl,-Map="$here/nocode.$linker.map"
done
# Through a named .s file: gcc -Wa,-adhln would name a random /tmp/cc*.s in the page headings.
gcc -O2 -g -ffile-prefix-map="$work"=. -S src/simp/calc.c -o calc.s
as -adhln="$here/calc.lis" calc.s -o /dev/null
