#!/usr/bin/env bash
# Installs the Debian 12 packages ppe needs to build, test and run its examples. Installs only
# what is missing, so it is quick to run again. Needs root (or sudo).
set -euo pipefail

packages=(
  # compilers and build
  gcc g++ gfortran make cmake ninja-build libc6-dev
  # the linkers whose maps ppeout reads (GNU ld and gold come with binutils)
  binutils lld mold
  # libraries: LLVM Object/DebugInfo, Boost.Program_options, fmt, GoogleTest
  llvm-14-dev libfmt-dev libboost-program-options-dev libgtest-dev libgmock-dev
  # LLVM's CMake package refers to these
  zlib1g-dev libzstd-dev libtinfo-dev libxml2-dev libedit-dev libffi-dev
  # CI's checks: clang with libFuzzer and the sanitizer runtimes, clang-format (.clang-format)
  clang libclang-rt-14-dev clang-format-14
  # split debug info of libc and libm under /usr/lib/debug/.build-id: function names in the
  # shared-object table (what a perf or gdb user installs too)
  libc6-dbg
  # ppe-arc and its tests: real GDB remote servers (gdbserver, qemu-user's -g stub) and the
  # cross compilers of the programs they run (ARC for ../shared/tools/qemu-arc, aarch64)
  gdbserver qemu-user gcc-12-arc-linux-gnu binutils-arc-linux-gnu libc6-dev-arc-cross
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross
  # the batch-system tests: a one-node Slurm and its authentication (test/slurm/cluster.sh)
  slurm-wlm munge
  # the MPI example and tests (issue 20): Open MPI's mpicc and mpirun; GNU time for bench/merge.sh's
  # peak RSS
  openmpi-bin libopenmpi-dev time
  # the formats' tests: callgrind_annotate reads --format callgrind, jsonschema checks the JSON,
  # script (util-linux) gives the progress line a terminal
  valgrind python3-jsonschema util-linux
  # the benchmarks that compare ppe with the alternatives (bench/accuracy.sh, bench/overhead.sh,
  # bench/plot_overhead.sh): perf, gperftools' CPU profiler and its pprof, gprof (binutils),
  # callgrind (valgrind) for the true split, gnuplot for the plot, bc for the scripts' arithmetic
  linux-perf google-perftools libgoogle-perftools-dev gnuplot-nox bc
)
# The HTML report's browser tests and its screenshot in docs (scripts/html-screenshot.sh): headless
# Chromium, about 300 MB with its libraries. PPE_NO_CHROMIUM=1 leaves it out; those tests then skip.
[ -n "${PPE_NO_CHROMIUM:-}" ] || packages+=(chromium)

missing=()
for p in "${packages[@]}"; do
  if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "ppe: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
