#!/usr/bin/env bash
# Installs the build into a fresh prefix and checks what a user gets: the files, a collector that
# needs nothing but the C library, an installed launcher that finds its own libppe.so, and ppe-arc.
# Usage: check_install.sh BUILD_DIR PROGRAM
set -euo pipefail
build=$1
program=$2
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null
for f in lib/libppe.so lib/libppe.a include/ppe.h include/ppe.f90 bin/ppe bin/ppeout; do
  [ -e "$prefix/$f" ] || fail "$f not installed"
done
# ppe-arc, the remote sampler, installed beside them and runnable from the prefix (PPE_BUILD_ARC).
if grep -qx 'PPE_BUILD_ARC:BOOL=ON' "$build/CMakeCache.txt"; then
  [ -x "$prefix/bin/ppe-arc" ] || fail "bin/ppe-arc not installed"
  version=$("$prefix/bin/ppe-arc" --version 2>&1) || fail "installed ppe-arc --version failed: $version"
  grep -qE '^ppe-arc [0-9]+\.[0-9]+' <<<"$version" || fail "installed ppe-arc --version printed: $version"
fi
needed=$(readelf -d "$prefix/lib/libppe.so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
for lib in $needed; do
  case $lib in libc.so.*|libpthread.so.*|librt.so.*|libdl.so.*) ;; *) fail "libppe.so needs $lib" ;; esac
done
if nm -D --undefined-only "$prefix/lib/libppe.so" | grep -qE '_Zn|_Zd|__cxa_(throw|allocate)|__gxx_personality|malloc'; then
  fail "libppe.so uses the C++ runtime or malloc: $(nm -D --undefined-only "$prefix/lib/libppe.so" | grep -E '_Zn|_Zd|__cxa|__gxx|malloc' | tr '\n' ' ')"
fi
# Every other function it imports, against the reviewed list (check_imports.sh).
imports=$("$(dirname "$0")/check_imports.sh" "$prefix/lib/libppe.so" "$prefix/lib/libppe.a") || { echo "$imports"; exit 1; }
cp "$program" "$prefix/prog"
out=$("$prefix/bin/ppe" -o "$prefix/run.ppe" "$prefix/prog" 1000003 2>&1)
grep -q "ppe: output file is $prefix/run.ppe" <<<"$out" || fail "installed launcher did not profile: $out"
head -1 "$prefix/run.ppe" | grep -qx "ppe-profile 2" || fail "no profile written"
# A program compiled against the installed header and linked with the installed archive.
cat >"$prefix/api.c" <<'C'
#include <ppe.h>
int main(void) { return ppe_start() == -1 ? 0 : 1; }  /* -1: PPE_ON is not set */
C
cc -I"$prefix/include" -o "$prefix/api" "$prefix/api.c" -L"$prefix/lib" -Wl,-u,ppe_load -l:libppe.a
env -u PPE_ON "$prefix/api" || fail "static-linked control API misbehaved without PPE_ON"
echo "install tree OK: needs only $needed; $imports; $version"
