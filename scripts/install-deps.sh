#!/usr/bin/env bash
# Installs the Debian 12 packages ppe needs, in tiers; each tier includes the one before it:
#   build  scripts/build.sh's default build: libppe, ppe, ppeout, ppe-arc, the examples and the
#          test programs (README.md's first Quick-start command, scripts/quickstart.sh)
#   test   + the outside tools the tests run, and CI's checks (scripts/test.sh, .ci/run)
#   bench  + the profilers and tools bench/ compares with, times and plots (each benchmark runs
#          `install-deps.sh bench` first); `all` is the same
# README.md ("Installing") gives each tier's size and time on a fresh Debian 12.
# Usage: scripts/install-deps.sh [TIER]         install what TIER (default test) lacks
#        scripts/install-deps.sh --list [TIER]  print TIER's packages, one a line; install nothing
# Installs only what is missing, so it is quick to run again. Needs root (or sudo) to install.
set -euo pipefail

build_packages=(
  # compilers and build
  gcc g++ gfortran cmake ninja-build libc6-dev
  # the linkers whose maps ppeout reads: the examples link with each (GNU ld and gold: binutils)
  binutils lld mold
  # libraries: LLVM Object/DebugInfo, Boost.Program_options, fmt; GoogleTest builds the test
  # programs, which the default build includes (PPE_BUILD_TESTS)
  llvm-14-dev libfmt-dev libboost-program-options-dev libgtest-dev libgmock-dev
  # LLVM's CMake package refers to these
  zlib1g-dev libzstd-dev libtinfo-dev libxml2-dev libedit-dev libffi-dev
)

test_packages=(
  # clang: the tests' clang builds (DWARF without .debug_aranges, -flto=thin with lld); CI's checks:
  # libFuzzer and the sanitizer runtimes (fuzz/), clang-format (scripts/check-format.sh)
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
  # the MPI example and tests: Open MPI's mpicc and mpirun
  openmpi-bin libopenmpi-dev
  # the formats' tests: callgrind_annotate reads --format callgrind, python3 with jsonschema checks
  # the JSON and the HTML report's screenshots, script (bsdutils) gives the progress line a terminal
  valgrind python3 python3-jsonschema bsdutils
  # the call paths' tests compare with `perf record --call-graph dwarf` of the same program
  linux-perf
)
# The HTML report's browser tests and its screenshot in docs (scripts/html-screenshot.sh): headless
# Chromium, about 300 MB with its libraries. PPE_NO_CHROMIUM=1 leaves it out; those tests then skip.
[ -n "${PPE_NO_CHROMIUM:-}" ] || test_packages+=(chromium)

bench_packages=(
  # the profilers ppe is compared with (bench/accuracy.sh, overhead.sh, format_speed.sh,
  # idle_threads.sh, fork_storm.sh): gperftools' CPU profiler and its pprof (perf comes with the
  # tests, gprof with binutils, callgrind with valgrind, qemu and gdbserver for arc_intrusion.sh)
  google-perftools libgoogle-perftools-dev
  # GNU time for bench/merge.sh's peak RSS, bc for the scripts' arithmetic, gnuplot for the plot,
  # make for bench/large_program.sh's build
  time bc gnuplot-nox make
)

usage() {
  echo "usage: scripts/install-deps.sh [--list] [build|test|bench|all]   (default: test)" >&2
  exit 2
}

# tier_packages TIER: the packages of TIER and of every tier before it, one a line.
tier_packages() {
  printf '%s\n' "${build_packages[@]}"
  [ "$1" = build ] || printf '%s\n' "${test_packages[@]}"
  [ "$1" = build ] || [ "$1" = test ] || printf '%s\n' "${bench_packages[@]}"
}

# missing_packages PACKAGE...: those not installed, one a line (one dpkg-query for them all).
missing_packages() {
  local -A installed=()
  local status name
  while read -r status name; do
    [ "$status" = ii ] && installed[$name]=1
  done < <(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "$@" 2>/dev/null || true)
  for name in "$@"; do
    [ -n "${installed[$name]:-}" ] || echo "$name"
  done
}

list=""
if [ "${1:-}" = --list ]; then
  list=1
  shift
fi
[ $# -le 1 ] || usage
tier=${1:-test}
case $tier in
build | test | bench | all) ;;
*)
  echo "scripts/install-deps.sh: unknown tier '$tier' (build, test, bench or all)" >&2
  usage
  ;;
esac
packages=()
mapfile -t packages < <(tier_packages "$tier")
if [ -n "$list" ]; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi

missing=()
mapfile -t missing < <(missing_packages "${packages[@]}")
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "ppe: installing the $tier tier's ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
