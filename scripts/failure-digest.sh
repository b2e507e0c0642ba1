#!/usr/bin/env bash
# After a ctest run that failed: what each failed test said, in a few lines each, printed last so
# that the end of a long log (all a CI summary keeps) shows why, not only which.
# Usage: scripts/failure-digest.sh BUILD_DIR
set -uo pipefail
dir=${1:?usage: scripts/failure-digest.sh BUILD_DIR}
failed=$dir/Testing/Temporary/LastTestsFailed.log
log=$dir/Testing/Temporary/LastTest.log
[[ -s $failed && -s $log ]] || exit 0
echo "== what the failed tests said (from $log)"
# LastTestsFailed.log: "NUMBER:NAME" per line. In LastTest.log each test's output follows
# "K/N Test: NAME" and ends at "<end of output>". Kept: gtest's failure lines and the few after
# each, sanitizer reports' first lines, at most 40 lines a test.
awk -v failed="$failed" '
    BEGIN { while ((getline line < failed) > 0) { sub(/^[0-9]+:/, "", line); want[line] = 1 } }
    /^[0-9]+\/[0-9]+ Test: / { name = $0; sub(/^[0-9]+\/[0-9]+ Test: /, "", name); on = (name in want); shown = 0; after = 0
                               if (on) print "-- " name; next }
    /^<end of output>/ { on = 0; next }
    on && shown < 40 {
        if ($0 ~ /Failure$|: error|ERROR: |runtime error|FAILED|Timeout|Segmentation|Aborted/) after = 6
        if (after > 0) { print "   " $0; --after; ++shown }
    }' "$log"
