# Sourced by bench/accuracy.sh and bench/overhead.sh: builds the workloads and runs them under each
# profiler the same way. Needs `build` (ppe's build directory) and `tmp` (a scratch directory).
#
# Tools: "ppe:MODE:TIMER" (MODE cpu or real; TIMER default for the collector's own choice, perf-ring
# where the kernel allows it, or a PPE_TIMER value such as perf, the signal mechanism), perf,
# gperftools, gprof, plain (no profiler).
# PPE_CONFIGS lists the ppe rows; a PPE_TIMER that this build does not have falls back to another
# mechanism, which the .ppe's `mechanism` record shows: such a row is "n/a (not in this build)".
PPE_CONFIGS=${PPE_CONFIGS:-"ppe:cpu:default ppe:real:default ppe:cpu:perf ppe:real:perf"}
OTHER_TOOLS=${OTHER_TOOLS:-"perf gperftools gprof"}
workloads_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ppe_lib=$(readlink -f "$build/collector/libppe.so")
ppeout=$(readlink -f "$build/formatter/ppeout")
gperf_lib=$(ls /usr/lib/*-linux-gnu/libprofiler.so.0 2>/dev/null | head -n 1 || true)
# The mechanism record each PPE_TIMER value must produce (the user guide's table).
declare -A ppe_mechanism=([ring]=perf-ring [perf]=perf-task-clock [itimer]=itimer-prof [posix]=posix-timer)

# build_workloads: every bench/workloads/*.c as $tmp/wl/NAME (-O2 -g) and NAME.pg (the same with -pg).
build_workloads() {
  mkdir -p "$tmp/wl"
  local src name
  for src in "$workloads_dir"/*.c; do
    name=$(basename "$src" .c)
    cc -O2 -g -pthread -o "$tmp/wl/$name" "$src"
    cc -O2 -g -pthread -pg -o "$tmp/wl/$name.pg" "$src"
  done
}

# default_mechanism: the mechanism ppe's default (no PPE_TIMER) takes on this machine, read off
# the profile of one short run (perf-ring where the kernel allows it).
default_mechanism() {
  if [ -z "${default_mechanism_seen:-}" ]; then
    local d
    d=$(mktemp -d)
    env PPE_ON=1 PPE_OUT="$d/m.ppe" LD_PRELOAD="$ppe_lib" "$build/examples/simp_plain" 1000003 >/dev/null 2>&1 || true
    default_mechanism_seen=$(sed -n 's/^mechanism "\(.*\)"$/\1/p' "$d/m.ppe" 2>/dev/null)
    rm -rf "$d"
  fi
  echo "${default_mechanism_seen:-unknown}"
}
default_mechanism_seen=$(default_mechanism)

# tool_label TOOL: the row name; the default ppe rows name the mechanism the default took.
tool_label() {
  case $1 in
    ppe:*:default) echo "ppe ${1#ppe:}" | sed 's/:default$//;s/cpu$/cpu time/;s/real$/real time/;s/$/ ('"$(default_mechanism)"')/' ;;
    ppe:*) IFS=: read -r _ m t <<<"$1"; echo "ppe $m PPE_TIMER=$t" ;;
    perf) echo "perf record -e cpu-clock" ;;
    gperftools) echo "gperftools CPUPROFILE" ;;
    gprof) echo "gprof (-pg)" ;;
    *) echo "$1" ;;
  esac
}

# tool_available TOOL: whether the tool can run here at all.
tool_available() {
  case $1 in
    perf) command -v perf >/dev/null && perf record -q -o /dev/null true >/dev/null 2>&1 ;;
    gperftools) [ -n "$gperf_lib" ] && command -v google-pprof >/dev/null ;;
    gprof) command -v gprof >/dev/null ;;
    *) true ;;
  esac
}

# tool_run TOOL RATE OUTDIR WORKLOAD ARGS...: runs the workload under TOOL at RATE samples per
# second, its profile in OUTDIR (emptied first). Its output is discarded.
tool_run() {
  local tool=$1 rate=$2 out=$3 prog=$tmp/wl/$4
  shift 4
  rm -rf "$out" && mkdir -p "$out"
  case $tool in
    plain) "$prog" "$@" ;;
    ppe:*)
      local mode timer
      IFS=: read -r _ mode timer <<<"$tool"
      local -a env=(PPE_ON=1 PPE_MODE="$mode" PPE_INT=$((10000000 / rate)) PPE_OUT="$out/p.ppe" LD_PRELOAD="$ppe_lib")
      [ "$timer" = default ] || env+=(PPE_TIMER="$timer")
      env "${env[@]}" "$prog" "$@" ;;
    perf) perf record -q -e cpu-clock -F "$rate" -o "$out/perf.data" "$prog" "$@" ;;
    gperftools) env CPUPROFILE="$out/g.prof" CPUPROFILE_FREQUENCY="$rate" LD_PRELOAD="$gperf_lib" "$prog" "$@" ;;
    gprof) env GMON_OUT_PREFIX="$out/gmon" "$prog.pg" "$@" ;;
  esac >/dev/null 2>&1
}

# tool_fell_back TOOL OUTDIR: true when a ppe row asked for a PPE_TIMER and the profile records
# another mechanism (the collector fell back: not in this build or not allowed here).
tool_fell_back() {
  case $1 in ppe:*:default) return 1 ;; ppe:*) ;; *) return 1 ;; esac
  local timer=${1##*:} got
  got=$(sed -n 's/^mechanism "\(.*\)"$/\1/p' "$2/p.ppe" 2>/dev/null)
  [ "$got" != "${ppe_mechanism[$timer]:-$timer}" ]
}

# tool_profile TOOL OUTDIR WORKLOAD: the profile as lines "FUNCTION SAMPLES ERROR" (ERROR: the
# tool's own stated standard error in percentage points, or - when it states none), after one
# line "total SAMPLES" with every sample the tool took.
tool_profile() {
  local tool=$1 out=$2 prog=$tmp/wl/$3
  case $tool in
    ppe:*)
      "$ppeout" --by function --format csv "$out/p.ppe" - 2>/dev/null | python3 -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
print("total", sum(float(r["hits"]) for r in rows if r["kind"] == "count"))
for r in rows:
    if r["kind"] == "module" and r["object"] == "" and r["function"]:
        print(r["function"], r["hits"], r["error"])' ;;
    perf)
      perf report -i "$out/perf.data" --stdio --sort sym -n --field-separator=';' 2>/dev/null |
        awk -F';' '/^#/ || NF < 3 { next } { n = $2 + 0; t += n; sub(/^\[.\] /, "", $3); gsub(/ +$/, "", $3); r = r $3 " " n " -\n" }
                   END { print "total", t + 0; printf "%s", r }' ;;
    gperftools)
      google-pprof --text "$prog" "$out/g.prof" 2>/dev/null |
        awk '/^Total:/ { print "total", $2 } $2 ~ /%$/ && NF >= 6 { print $6, $1, "-" }' ;;
    gprof)
      gprof -b -p "$prog.pg" "$out"/gmon.* 2>/dev/null |
        awk '/Each sample counts as/ { s = $5 } $1 ~ /^[0-9.]+$/ && NF >= 4 { n = $3 / s; t += n; r = r $NF " " n " -\n" }
             END { print "total", t + 0; printf "%s", r }' ;;
  esac
}

# tool_achieved_rate TOOL OUTDIR WORKLOAD CPU_SECONDS: samples per second of the workload's CPU
# time (ppe: its own achieved-rate record; gprof: profil()'s fixed rate, from its sample size).
tool_achieved_rate() {
  local tool=$1 out=$2 cpu=$4 total
  case $tool in
    plain) echo "-" ;;
    ppe:*) sed -n 's/^achieved-rate //p' "$out/p.ppe" ;;
    *)
      total=$(tool_profile "$tool" "$out" "$3" | awk '$1 == "total" { print $2 }')
      echo "${total:-0} / $cpu" | bc -l | xargs printf '%.0f\n' ;;
  esac
}
