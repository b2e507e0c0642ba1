#!/usr/bin/env bash
# scripts/install-deps.sh's tiers (README.md, "Installing"): build, test and bench each include the
# tier before and add to it, `all` is bench and no tier is the Quick start's (test); every package
# named is one apt knows by that name (dpkg-query would never find a misspelt or purely virtual one
# installed, so each run would call apt-get again); PPE_NO_CHROMIUM=1 leaves only Chromium out;
# an unknown tier is refused with one line; and every benchmark installs the bench tier itself.
# Usage: install_deps_tiers.sh SOURCE_DIR    (exit 77: skipped, no apt-cache here)
set -euo pipefail
source=$(cd "$1" && pwd)
deps=$source/scripts/install-deps.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# list [TIER]: the tier's packages, sorted; when the script fails, says so and stops the check.
list() {
  local status=0
  "$deps" --list "$@" >"$work/list" || status=$?
  [ "$status" -eq 0 ] || { echo "FAIL: install-deps.sh --list $* exited with $status" >&2; exit 1; }
  sort "$work/list"
}

# only_in A B: the names in sorted list A that are not in sorted list B, on one line.
only_in() { comm -23 <(printf '%s\n' "$1") <(printf '%s\n' "$2") | grep -v '^$' | tr '\n' ' ' || true; }

declare -A tier
for t in build test bench all; do
  tier[$t]=$(list "$t")
  [ -n "${tier[$t]}" ] || fail "tier $t names no package"
  dups=$(printf '%s\n' "${tier[$t]}" | uniq -d | tr '\n' ' ')
  [ -z "$dups" ] || fail "tier $t names twice: $dups"
done
previous=""
for t in build test bench; do
  lost=$(only_in "$previous" "${tier[$t]}")
  [ -z "$lost" ] || fail "tier $t lacks what the tier before it installs: $lost"
  [ -n "$(only_in "${tier[$t]}" "$previous")" ] || fail "tier $t adds nothing to the tier before it"
  previous=${tier[$t]}
done
[ "${tier[all]}" = "${tier[bench]}" ] || fail "tier all is not tier bench"
[ "$(list)" = "${tier[test]}" ] || fail "the default tier is not test (the Quick start's)"

grep -qx chromium <<<"${tier[test]}" || fail "tier test lacks chromium"
! grep -qx chromium <<<"${tier[build]}" || fail "tier build installs chromium"
without=$(PPE_NO_CHROMIUM=1 list test)
[ "$(only_in "${tier[test]}" "$without")" = "chromium " ] ||
  fail "PPE_NO_CHROMIUM=1 leaves out '$(only_in "${tier[test]}" "$without")', not 'chromium '"
[ -z "$(only_in "$without" "${tier[test]}")" ] || fail "PPE_NO_CHROMIUM=1 adds packages"

status=0
out=$("$deps" --list nonsense 2>"$work/err") || status=$?
err=$(<"$work/err")
[ "$status" -eq 2 ] || fail "an unknown tier exits with $status, not 2"
[ -z "$out" ] || fail "an unknown tier still lists: $(tr '\n' ' ' <<<"$out")"
[[ $(head -1 <<<"$err") == *"unknown tier 'nonsense'"* ]] || fail "an unknown tier is not named: $err"

for script in "$source"/bench/*.sh; do
  [ -x "$script" ] || continue # sourced by the others (timing.sh)
  # shellcheck disable=SC2016 # the line as the benchmark has it, unexpanded
  grep -qxF '"$(dirname "$0")/../scripts/install-deps.sh" bench' "$script" ||
    fail "${script#"$source"/} does not install the bench tier"
done

if ! command -v apt-cache >/dev/null; then
  [ "$failures" -eq 0 ] || exit 1
  echo "SKIP: no apt-cache here to check the package names"
  exit 77
fi
# apt-cache show prints each real package's record; purely virtual or unknown names print none.
mapfile -t all <<<"${tier[all]}"
known=$(apt-cache show --no-all-versions "${all[@]}" 2>/dev/null | sed -n 's/^Package: //p' | sort -u || true)
unknown=$(only_in "$(uniq <<<"${tier[all]}")" "$known")
[ -z "$unknown" ] || fail "not packages apt knows (apt-cache show): $unknown"

[ "$failures" -eq 0 ] || exit 1
echo "install-deps.sh: tiers of $(wc -l <<<"${tier[build]}"), $(wc -l <<<"${tier[test]}") and" \
  "$(wc -l <<<"${tier[bench]}") packages, nested, all known to apt"
