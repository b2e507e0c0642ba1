#!/usr/bin/env bash
# Builds ppe and runs the whole test suite, in parallel. Arguments go to CMake (e.g. -DPPE_WERROR=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh test # what building and the tests need
scripts/build.sh "$@"
ctest --test-dir build -j "$(nproc)" --output-on-failure
