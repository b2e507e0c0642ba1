#!/usr/bin/env bash
# ppe-arc's intrusion: how long the target stands stopped per sample (mean, p90) and what share of
# the wall time it is stopped, through each debug server here, at 1 ms and 10 ms intervals.
# examples/split.c runs SECONDS under gdbserver (native), qemu-aarch64 (static aarch64 build) and
# qemu-arc (ARC HS build); ppe-arc starts each server with --spawn and writes the figures into
# the .ppe (intrusion-stop-time, intrusion-stopped), which this script tabulates. A server or
# cross compiler that is missing is skipped with the reason. gdbserver is measured in both modes:
# all-stop (--threads stopped: the stopped thread's PC, as before; and --threads all: every
# thread's, which costs the thread list and Hg per stop) and non-stop (one thread stopped a sample);
# and with examples/threads.cc (four busy workers and the main thread) in both modes.
# Usage: bench/arc_intrusion.sh [BUILD_DIR] [SECONDS]      (after scripts/build.sh)
set -euo pipefail
# What the benchmarks run (perf, gperftools, gnuplot, ... and the tests' tools), when missing.
"$(dirname "$0")/../scripts/install-deps.sh" bench
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

# row NAME INTERVAL ELF SPAWN-PREFIX ARG [PPE-ARC OPTIONS...]: one sampling run and its line of
# the table ("stops": intrusion-stops; "samples": PCs counted, several a stop with --threads all).
row() {
  local name=$1 interval=$2 elf=$3 prefix=$4 arg=$5 p out
  shift 5
  p=$(port)
  out=$tmp/run.ppe
  "$arc" sample --remote 127.0.0.1:$p --elf "$elf" -o "$out" --interval "$interval" "$@" \
    --spawn "${prefix//PORT/$p} $elf $arg" 2>"$tmp/err" >/dev/null || { echo "$name: $(tail -1 "$tmp/err")"; return; }
  read -r mean p90 < <(sed -n 's/^intrusion-stop-time //p' "$out")
  read -r stopped ratio < <(sed -n 's/^intrusion-stopped //p' "$out")
  # non-stop: from the thread's stop notification to its resume (ppe-arc's note), the stop proper
  held=$(sed -n 's/.*a thread stood \([0-9.]*%\) of the time, \([0-9.]*\) ms a stop.*/\2 (\1)/p' "$tmp/err")
  printf '%-28s %6s ms %7s %8s %9.3f %9.3f %9.2f %10s  %s\n' "$name" "$interval" \
    "$(sed -n 's/^intrusion-stops //p' "$out")" "$(sed -n 's/^count total //p' "$out")" \
    "$(echo "$mean * 1000" | bc -l)" "$(echo "$p90 * 1000" | bc -l)" "$(echo "$ratio * 100" | bc -l)" \
    "$(sed -n 's/^achieved-rate //p' "$out")" "${held:--}"
}

printf '%-28s %9s %7s %8s %9s %9s %9s %10s  %s\n' "server" "interval" "stops" "samples" "mean ms" "p90 ms" "stopped %" \
  "samples/s" "held ms (%)"
if command -v gdbserver >/dev/null; then
  cc -O2 -g -o "$tmp/split" "$src"
  c++ -O2 -g -pthread -o "$tmp/threads" "$here/../examples/threads.cc"
  units=$((seconds * 40)) # about SECONDS on this machine (2 vCPUs)
  for i in 1 10; do
    row "gdbserver all-stop" $i "$tmp/split" "gdbserver :PORT" $ms --mode all-stop --threads stopped
    row "gdbserver all-stop, all thr." $i "$tmp/split" "gdbserver :PORT" $ms --mode all-stop --threads all
    row "gdbserver non-stop" $i "$tmp/split" "gdbserver :PORT" $ms --mode non-stop
    row "threads all-stop, all thr." $i "$tmp/threads" "gdbserver :PORT" $units --mode all-stop --threads all
    row "threads non-stop" $i "$tmp/threads" "gdbserver :PORT" $units --mode non-stop
  done
else
  echo "gdbserver: not installed (Debian: gdbserver)"
fi
if command -v qemu-aarch64 >/dev/null && command -v aarch64-linux-gnu-gcc >/dev/null; then
  aarch64-linux-gnu-gcc -O2 -g -static -o "$tmp/split.aarch64" "$src"
  for i in 1 10; do row qemu-aarch64 $i "$tmp/split.aarch64" "qemu-aarch64 -g PORT" $ms; done
else
  echo "qemu-aarch64: qemu-user or gcc-aarch64-linux-gnu not installed"
fi
if [ -x "$qemu_arc" ] && command -v arc-linux-gnu-gcc-12 >/dev/null; then
  arc-linux-gnu-gcc-12 -O2 -g -o "$tmp/split.arc" "$src"
  for i in 1 10; do row qemu-arc $i "$tmp/split.arc" "$qemu_arc -L /usr/arc-linux-gnu -g PORT" $ms; done
else
  echo "qemu-arc: ../shared/tools/qemu-arc (or \$QEMU_ARC) or arc-linux-gnu-gcc-12 absent"
fi
