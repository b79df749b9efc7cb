#!/usr/bin/env bash
# doc/fpr.png: the false-positive rate LevelDB's probe scheme gives, by
# bits_per_key, against the ideal filter's formula.  Lines: the table
# bench/micro/scheme_table.c measured (10^4, 10^6 and 10^7 keys); points: real
# md5-like keys measured by test/stats/stats_accuracy at 10^6 keys.
# Needs gnuplot (Debian: gnuplot-nox).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
command -v gnuplot >/dev/null || { echo "plot_fpr: needs gnuplot (apt-get install gnuplot-nox)" >&2; exit 1; }
make -s bench/micro/scheme_table test/stats/stats_accuracy
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bench/micro/scheme_table --plot-data >"$tmp/table"
test/stats/stats_accuracy --quick |
	sed -nE 's/^case keys=1000000 bpk=([0-9]+) .* measured=([0-9.e-]+) .*/\1 \2/p' >"$tmp/real"
gnuplot <<GP
set terminal pngcairo size 900,560 font ",11"
set output "doc/fpr.png"
set logscale y
set format y "10^{%L}"
set xlabel "bits_per_key" noenhanced
set ylabel "false-positive rate"
set key top right
set grid
set xrange [1:20]
plot "$tmp/table" using 1:2 with lines lw 2 dt 2 title "ideal filter: (1 - e^{-k/bpk})^k", \
     "$tmp/table" using 1:6 with lines lw 2 title "LevelDB scheme, 10^4 keys", \
     "$tmp/table" using 1:12 with lines lw 2 title "LevelDB scheme, 10^6 keys", \
     "$tmp/table" using 1:15 with lines lw 2 title "LevelDB scheme, 10^7 keys", \
     "$tmp/real" using 1:2 with points pt 7 ps 1.2 lc rgb "black" title "measured, 10^6 md5 keys"
GP
echo "plot_fpr: wrote doc/fpr.png"
