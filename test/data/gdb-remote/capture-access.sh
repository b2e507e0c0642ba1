#!/usr/bin/env bash
# Records the access transcripts in this directory: `ppe-arc poke --transcript` (TargetAccess:
# registers by name, memory, Z0, qRcmd, then the undo of every change and the detach) against the
# real gdbserver and qemu-arc, running loop.c built for each; NAME.report is what poke printed
# (the old values, the capabilities it found, its error).
# Usage: test/data/gdb-remote/capture-access.sh BUILD_DIR     (after: cmake --build BUILD_DIR --target ppe-arc)
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
arc=$build/arc-target/ppe-arc
repo=$(cd "$here/../../.." && pwd)
qemu_arc=${QEMU_ARC:-$repo/../shared/tools/qemu-arc}
[ -x "$qemu_arc" ] || qemu_arc=$repo/../../shared/tools/qemu-arc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
port=$((20000 + RANDOM % 20000))

gcc -g -O2 -fno-pie -no-pie "$here/loop.c" -o "$tmp/loop.x86-64"
arc-linux-gnu-gcc-12 -g -O2 "$here/loop.c" -o "$tmp/loop.arc"
sym() { nm "$1" 2>/dev/null | awk -v s="$2" '$3 == s { sub(/^0+/, "", $1); print $1 }'; }
arcsym() { arc-linux-gnu-nm "$1" | awk -v s="$2" '$3 == s { sub(/^0+/, "", $1); print $1 }'; }

poke() { # poke NAME SERVER-PID COMMENT ARGS...
  local name=$1 server=$2 comment=$3
  shift 3
  sleep 0.5
  "$arc" poke --remote "127.0.0.1:$port" --journal "$tmp/$name.undo" --transcript "$tmp/$name.txt" "$@" \
    >"$here/$name.report" 2>&1 || true
  { echo "# $name: $comment"; echo "# captured by test/data/gdb-remote/capture-access.sh on $(date -u +%Y-%m-%d)"
    echo "# ppe-arc poke $*"; grep -v '^# ppe-arc poke against' "$tmp/$name.txt"; } >"$here/$name.txt"
  wait "$server" || true
  port=$((port + 1))
}

x86=$tmp/loop.x86-64
work=$(sym "$x86" work)
gdbserver --once ":$port" "$x86" 300 >/dev/null 2>&1 &
poke gdbserver-access $! "$(gdbserver --version | head -1), x86-64 loop.c (no PIE)" \
  --set r12=5a5a5a5a --write "$(sym "$x86" sink)=ffffffffffffffff" --write "$work=cccc" \
  --break "$(printf %x $((0x$work + 8)))" --kind 1 --monitor help

if [ -x "$qemu_arc" ]; then
  a=$tmp/loop.arc
  "$qemu_arc" -L /usr/arc-linux-gnu -g "$port" "$a" 300 >/dev/null 2>&1 &
  poke qemu-arc-access $! "$("$qemu_arc" --version | head -1) (Synopsys fork), ARC loop.c" \
    --set r13=1234 --set lp_start=4000 --write "$(arcsym "$a" sink)=ffffffff" --break "$(arcsym "$a" work)" \
    --kind 2 --monitor help
  "$qemu_arc" -L /usr/arc-linux-gnu -g "$port" "$a" 300 >/dev/null 2>&1 &
  poke qemu-arc-text-write $! "$("$qemu_arc" --version | head -1): M to code is E14" --write "$(arcsym "$a" work)=0000"
else
  echo "capture-access.sh: $qemu_arc absent: the qemu-arc access transcripts not recaptured" >&2
fi
for f in "$here"/*-access.report "$here"/qemu-arc-text-write.report; do echo "== $f"; cat "$f"; done
