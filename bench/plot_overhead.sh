#!/usr/bin/env bash
# The plot of overhead against the asked sampling rate, one line per tool, from the sweep that
# bench/overhead.sh writes: CPU time (the profiler's processes included) over the plain run's.
# Usage: bench/plot_overhead.sh [DATA] [PNG]
#   defaults docs/images/overhead.dat and docs/images/overhead.png; needs gnuplot (gnuplot-nox).
set -euo pipefail
# What the benchmarks run (perf, gperftools, gnuplot, ... and the tests' tools), when missing.
"$(dirname "$0")/../scripts/install-deps.sh" bench
data=${1:-docs/images/overhead.dat}
png=${2:-docs/images/overhead.png}
[ -s "$data" ] || { echo "plot_overhead.sh: $data: no data (run bench/overhead.sh first)" >&2; exit 1; }
tools=$(awk '!/^#/ && !seen[$1]++ { printf "%s ", $1 }' "$data")
title=$(sed -n '1s/^# //p' "$data")
gnuplot <<PLOT
set terminal pngcairo size 900,560 noenhanced font ",11"
set output "$png"
set title "CPU time under each profiler / plain run  ($title)"
set xlabel "asked sampling rate, Hz"
set ylabel "CPU time ratio to the plain run"
set logscale x
set logscale y
set yrange [0.9:*]
set xtics (500, 1000, 2000, 5000, 10000, 20000)
set grid
set key top left
set datafile missing NaN
plot for [t in "$tools"] "$data" using 2:(strcol(1) eq t ? \$4 : NaN) with linespoints title t
PLOT
echo "plot_overhead.sh: wrote $png"
