# Sourced by the benchmarks: medians of wall times and rows of ratios to a base figure.
# Needs `runs` (runs per figure), for `row` `base` (seconds) and `width` (name column), for `timed2`
# `tmp` (a scratch directory).

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# Median wall seconds of "$@" over $runs runs (output discarded).
timed() {
  for _ in $(seq "$runs"); do
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l
  done | median
}

# row NAME COMMAND...: prints NAME, the median seconds of COMMAND and its ratio to $base.
row() {
  local name=$1; shift
  local t
  t=$(timed "$@")
  printf "%-${width}s %8.3f %8.3f\n" "$name" "$t" "$(echo "$t / $base" | bc -l)"
}

# timed2 COMMAND...: "WALL CPU" medians of $runs runs (CPU: user + system of every process).
timed2() {
  local TIMEFORMAT='%R %U %S' times=$tmp/times2
  : >"$times"
  for _ in $(seq "$runs"); do
    { time "$@" >/dev/null 2>&1; } 2>>"$times"
  done
  echo "$(awk '{ print $1 }' "$times" | median) $(awk '{ print $2 + $3 }' "$times" | median)"
}
