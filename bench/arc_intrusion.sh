#!/usr/bin/env bash
# ppe-arc's intrusion: how long the target stands stopped per sample (mean, p90) and what share of
# the wall time it is stopped, through each debug server here, at 1 ms and 10 ms intervals.
# examples/split.c runs SECONDS under gdbserver (native), qemu-aarch64 (static aarch64 build) and
# qemu-arc (ARC HS build); ppe-arc starts each server with --spawn and writes the figures into
# the .ppe (intrusion-stop-time, intrusion-stopped), which this script tabulates. A server or
# cross compiler that is missing is skipped with the reason.
# Usage: bench/arc_intrusion.sh [BUILD_DIR] [SECONDS]      (after scripts/build.sh)
set -euo pipefail
build=${1:-build}
seconds=${2:-5}
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../examples/split.c
arc=$(readlink -f "$build/arc-target/ppe-arc")
qemu_arc=${QEMU_ARC:-$here/../../shared/tools/qemu-arc}
[ -x "$qemu_arc" ] || qemu_arc=$here/../../../shared/tools/qemu-arc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ms=$((seconds * 1000))

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# row NAME INTERVAL ELF SPAWN-PREFIX: one sampling run and its line of the table.
row() {
  local name=$1 interval=$2 elf=$3 prefix=$4 p out
  p=$(port)
  out=$tmp/$name-$interval.ppe
  "$arc" sample --remote 127.0.0.1:$p --elf "$elf" -o "$out" --interval "$interval" \
    --spawn "${prefix//PORT/$p} $elf $ms" 2>"$tmp/err" >/dev/null || { echo "$name: $(tail -1 "$tmp/err")"; return; }
  read -r mean p90 < <(sed -n 's/^intrusion-stop-time //p' "$out")
  read -r stopped ratio < <(sed -n 's/^intrusion-stopped //p' "$out")
  printf '%-14s %6s ms %8s %10.3f %10.3f %9.2f %10s\n' "$name" "$interval" "$(sed -n 's/^intrusion-stops //p' "$out")" \
    "$(echo "$mean * 1000" | bc -l)" "$(echo "$p90 * 1000" | bc -l)" "$(echo "$ratio * 100" | bc -l)" \
    "$(sed -n 's/^achieved-rate //p' "$out")"
}

printf '%-14s %9s %8s %10s %10s %9s %10s\n' "server" "interval" "samples" "mean ms" "p90 ms" "stopped %" "samples/s"
if command -v gdbserver >/dev/null; then
  cc -O2 -g -o "$tmp/split" "$src"
  for i in 1 10; do row gdbserver $i "$tmp/split" "gdbserver :PORT"; done
else
  echo "gdbserver: not installed (Debian: gdbserver)"
fi
if command -v qemu-aarch64 >/dev/null && command -v aarch64-linux-gnu-gcc >/dev/null; then
  aarch64-linux-gnu-gcc -O2 -g -static -o "$tmp/split.aarch64" "$src"
  for i in 1 10; do row qemu-aarch64 $i "$tmp/split.aarch64" "qemu-aarch64 -g PORT"; done
else
  echo "qemu-aarch64: qemu-user or gcc-aarch64-linux-gnu not installed"
fi
if [ -x "$qemu_arc" ] && command -v arc-linux-gnu-gcc-12 >/dev/null; then
  arc-linux-gnu-gcc-12 -O2 -g -o "$tmp/split.arc" "$src"
  for i in 1 10; do row qemu-arc $i "$tmp/split.arc" "$qemu_arc -L /usr/arc-linux-gnu -g PORT"; done
else
  echo "qemu-arc: ../shared/tools/qemu-arc (or \$QEMU_ARC) or arc-linux-gnu-gcc-12 absent"
fi
