#!/usr/bin/env bash
# Regenerates docs/images/html-report.png: the HTML report (ppeout --format html --asm) of the
# bundled example simp, profiled in CPU mode and formatted with its map and listing, as headless
# Chromium shows it in a 1280x1600 window.
#   scripts/html-screenshot.sh [BUILD_DIR]     (default: build; needs chromium, see install-deps.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$browser" ] || { echo "html-screenshot: no chromium (apt-get install chromium)" >&2; exit 1; }
for f in "$build/collector/ppe" "$build/formatter/ppeout" "$build/examples/simp"; do
  [ -x "$f" ] || { echo "html-screenshot: $f: not built (cmake --build $build)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$build/examples/simp" "$build/examples/simp.map" "$build/examples/simp.lis" "$work/"
"$build/collector/ppe" -o "$work/simp.ppe" --mode cpu "$work/simp" 1000000000000000003 >/dev/null
"$build/formatter/ppeout" --format html --asm "$work/simp.map" "$work/simp.ppe" "$work/simp.html" "$work/simp.lis"
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$work/chromium" \
  --proxy-server=127.0.0.1:9 --screenshot="$work/shot.png" --window-size=1280,1600 "file://$work/simp.html" \
  >/dev/null 2>&1
mkdir -p docs/images
cp "$work/shot.png" docs/images/html-report.png
echo "html-screenshot: docs/images/html-report.png"
