#!/usr/bin/env bash
# Regenerates docs/images/html-report.png: the HTML report (ppeout --format html --asm) of the
# bundled example simp, built with its map and listing as examples/CMakeLists.txt builds it,
# profiled in CPU mode and shown by headless Chromium in a 1280x1600 window. So that the picture
# shows no path of this machine (a worktree, a temporary directory), simp is built and run in
# /home/user/simp, a directory that exists only in a private mount namespace (unshare, as root).
#   scripts/html-screenshot.sh [BUILD_DIR]     (default: build; needs chromium, see install-deps.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(cd "${1:-build}" && pwd)
source=$(pwd)/examples/simp.c
if [ -z "${PPE_SCREENSHOT_NAMESPACE:-}" ]; then
  browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
  [ -n "$browser" ] || { echo "html-screenshot: no chromium (apt-get install chromium)" >&2; exit 1; }
  for f in "$build/collector/ppe" "$build/formatter/ppeout"; do
    [ -x "$f" ] || { echo "html-screenshot: $f: not built (cmake --build $build)" >&2; exit 1; }
  done
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  PPE_SCREENSHOT_NAMESPACE=1 PPE_SCREENSHOT_WORK="$work" PPE_SCREENSHOT_BROWSER="$browser" \
    unshare --mount -- "$0" "$build" \
    || { echo "html-screenshot: unshare --mount failed (run as root)" >&2; exit 1; }
  mkdir -p docs/images
  cp "$work/shot.png" docs/images/html-report.png
  echo "html-screenshot: docs/images/html-report.png"
  exit 0
fi
# In the private namespace: /home is a fresh tmpfs here only.
mount --make-rprivate /
mount -t tmpfs none /home
home=/home/user/simp
mkdir -p "$home"
cp "$source" "$home/simp.c"
cd "$home"
gcc -O2 -g -w -Wa,-adhln=simp.lis -c simp.c -o simp.o # compiled apart: the map names simp.o, not a temporary
gcc -Wl,-Map=simp.map simp.o -lm -o simp
"$build/collector/ppe" -o simp.ppe --mode cpu ./simp 1000000000000000003 >/dev/null
"$build/formatter/ppeout" --format html --asm simp.map simp.ppe simp.html simp.lis
"$PPE_SCREENSHOT_BROWSER" --headless --no-sandbox --disable-gpu --hide-scrollbars \
  --user-data-dir="$PPE_SCREENSHOT_WORK/chromium" --proxy-server=127.0.0.1:9 \
  --screenshot="$PPE_SCREENSHOT_WORK/shot.png" --window-size=1280,1600 "file://$home/simp.html" >/dev/null 2>&1
