#!/usr/bin/env bash
# Builds ppe and runs the whole test suite, in parallel. Arguments go to CMake (e.g. -DPPE_WERROR=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh test # what building and the tests need
scripts/build.sh "$@"
# A failure's own lines come last too (scripts/failure-digest.sh): a log's end is what a summary keeps.
ctest --test-dir build -j "$(nproc)" --output-on-failure || { scripts/failure-digest.sh build; exit 1; }
