#!/usr/bin/env bash
# Records the transcripts in this directory: the probing session of ppe_gdbremote (probe.h:
# negotiate, `?`, the target description, the PC probe, 3 stop/continue cycles, detach) against
# each real server, running loop.c built for its architecture.
# Usage: test/data/gdb-remote/capture.sh BUILD_DIR     (after: cmake --build BUILD_DIR --target ppe-gdbremote-capture)
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
capture=$build/gdbremote/ppe-gdbremote-capture
# ../shared/tools/qemu-arc beside the checkout (or a worktree's ../../shared), or $QEMU_ARC.
repo=$(cd "$here/../../.." && pwd)
qemu_arc=${QEMU_ARC:-$repo/../shared/tools/qemu-arc}
[ -x "$qemu_arc" ] || qemu_arc=$repo/../../shared/tools/qemu-arc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
port=$((20000 + RANDOM % 20000))

gcc -g -O2 "$here/loop.c" -o "$tmp/loop.x86-64"
aarch64-linux-gnu-gcc -g -O2 "$here/loop.c" -o "$tmp/loop.aarch64"
arc-linux-gnu-gcc-12 -g -O2 "$here/loop.c" -o "$tmp/loop.arc"

run_capture() { # run_capture NAME SERVER-PID COMMENT [--sigint PID]
  local name=$1 server=$2 comment=$3
  shift 3
  "$capture" --remote "127.0.0.1:$port" --out "$here/$name.txt" --stops 3 --run-ms 100 \
    --comment "$name: $comment" \
    --comment "captured by test/data/gdb-remote/capture.sh on $(date -u +%Y-%m-%d), loop.c built for the target" \
    --comment "'>' client to server, '<' server to client; one frame, ack or run of stray bytes a line" \
    "$@" >"$here/$name.report"
  wait "$server" || true
  port=$((port + 1))
}

gdbserver --once ":$port" "$tmp/loop.x86-64" 1500 >/dev/null 2>&1 &
run_capture gdbserver-launch $! "$(gdbserver --version | head -1), x86-64 program launched by gdbserver"

# gdbserver interrupts an attached process by SIGINT to its process group (kill(-pid)): 0x03 stops
# a group leader only, as a program started from an interactive shell is; setsid makes it one.
setsid "$tmp/loop.x86-64" 3000 &
prog=$!
gdbserver --once --attach ":$port" "$prog" >/dev/null 2>&1 &
run_capture gdbserver-attach $! "$(gdbserver --version | head -1), --attach to a running x86-64 program (setsid)"
wait "$prog" && status=0 || status=$?
echo "gdbserver-attach: the program exited with status $status after the detach" >>"$here/gdbserver-attach.report"

qemu-aarch64 -L /usr/aarch64-linux-gnu -g "$port" "$tmp/loop.aarch64" 1500 >/dev/null 2>&1 &
qemu=$!
run_capture qemu-aarch64 $qemu "$(qemu-aarch64 --version | head -1), aarch64 program; SIGINT where 0x03 is ignored" --sigint $qemu

if [ -x "$qemu_arc" ]; then
  "$qemu_arc" -L /usr/arc-linux-gnu -g "$port" "$tmp/loop.arc" 1500 >/dev/null 2>&1 &
  qemu=$!
  run_capture qemu-arc $qemu "$("$qemu_arc" --version | head -1) (Synopsys fork), ARC program from arc-linux-gnu-gcc-12; SIGINT where 0x03 is ignored" --sigint $qemu
else
  echo "capture.sh: $qemu_arc absent: qemu-arc.txt not recaptured" >&2
fi
for f in "$here"/*.report; do echo "== $f"; cat "$f"; done
