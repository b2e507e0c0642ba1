#!/usr/bin/env bash
# Checks that the C and C++ code agrees with .clang-format (clang-format 14, as Debian 12 ships it).
# The example and fixture programs keep their own layout (their .clang-format disables formatting):
# their line numbers are test data. Prints the files that would change; exit 1 if any.
set -euo pipefail
cd "$(dirname "$0")/.."
format=$(command -v clang-format-14 || command -v clang-format)
mapfile -t files < <(git ls-files '*.c' '*.cc' '*.h' ':!:test/data/*')
bad=()
for f in "${files[@]}"; do
  "$format" --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  printf 'not formatted (clang-format -i FILE): %s\n' "${bad[@]}"
  exit 1
fi
echo "format: ${#files[@]} files agree with .clang-format"
