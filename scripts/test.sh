#!/usr/bin/env bash
# Builds ppe and runs the whole test suite, in parallel.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
ctest --test-dir build -j "$(nproc)" --output-on-failure
