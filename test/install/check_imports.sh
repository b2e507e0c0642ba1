#!/usr/bin/env bash
# The functions libppe takes from outside itself, against the reviewed list beside this script
# (libppe-imports.txt, one symbol per line): the collector is a guest in someone else's program,
# so every function it imports is a decision. libppe.so's undefined dynamic symbols, and
# libppe.a's undefined symbols that no member of the archive defines, must all be on the list; so
# must every system call its sources make directly through syscall() (SYS_NAME), which no symbol
# shows.
# Usage: check_imports.sh LIBPPE.so LIBPPE.a        fails naming each new import
#        check_imports.sh --print LIBPPE.so LIBPPE.a   prints the imports, sorted (to regenerate the list)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source_root=$(cd "$here/../.." && pwd)
print=0
if [ "${1:-}" = --print ]; then
  print=1
  shift
fi
shared=$1
archive=$2

imports_of_shared() { nm -D --undefined-only "$1" | awk '{print $NF}' | sed 's/@.*//'; }
# An archive's members call each other: only what none of them defines comes from outside.
imports_of_archive() {
  comm -23 <(nm --undefined-only "$1" | awk '$1 == "U" || $1 == "w" {print $2}' | sort -u) \
    <(nm --defined-only "$1" | awk 'NF == 3 {print $3}' | sort -u)
}

# The collector's own sources (collector/src, core/src; not the launcher), where they are.
direct_system_calls() {
  local dirs=()
  for d in "$source_root/collector/src" "$source_root/core/src"; do [ -d "$d" ] && dirs+=("$d"); done
  [ ${#dirs[@]} -eq 0 ] || grep -rhoE '\bSYS_[a-z0-9_]+' "${dirs[@]}" || true
}

current=$( (imports_of_shared "$shared"; imports_of_archive "$archive"; direct_system_calls) | sort -u)
if [ $print = 1 ]; then
  echo "$current"
  exit 0
fi
allowed=$(grep -v '^#' "$here/libppe-imports.txt" | sed '/^$/d' | sort -u)
new=$(comm -23 <(echo "$current") <(echo "$allowed"))
if [ -n "$new" ]; then
  for symbol in $new; do
    where=""
    imports_of_shared "$shared" | grep -qx "$symbol" && where="libppe.so"
    imports_of_archive "$archive" | grep -qx "$symbol" && where="${where:+$where, }libppe.a"
    [ -n "$where" ] || where="syscall() in collector/src or core/src"
    echo "FAIL: new import $symbol ($where), not in test/install/libppe-imports.txt"
  done
  echo "Review each against the guest rules (the collector runs in someone else's program: no allocation,"
  echo "locks or stdio where a signal may run, nothing but libc), then add it to the list."
  exit 1
fi
echo "libppe imports $(echo "$current" | wc -l) symbols, all on the reviewed list"
