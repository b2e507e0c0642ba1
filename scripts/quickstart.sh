#!/usr/bin/env bash
# Quick start: install what is missing, build, and profile the bundled example end to end.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh build # what building needs; scripts/test.sh adds the tests' tools
scripts/build.sh
echo
echo "== profiling examples/simp.c (PPE's Table 1 program), linked with libppe"
rm -f build/examples/simp.ppe
PPE_ON=1 build/examples/simp 9000000000000000041
if [ -x build/formatter/ppeout ]; then
  echo
  echo "== ppeout build/examples/simp.map build/examples/simp.ppe - build/examples/simp.lis"
  build/formatter/ppeout build/examples/simp.map build/examples/simp.ppe - build/examples/simp.lis
else
  echo
  echo "== the profile (ppeout, the formatter, is not built yet):"
  sed -n '1,40p' build/examples/simp.ppe
fi
