# Strong and weak scaling over GPUs, from a table of bench/scaling.sh (model, study,
# particles, gpus, rate, ratio; one model; lines starting with # are comments): the speed-up
# over one GPU at each size, and where the table has weak-scaling rows, their efficiency, each
# against its ideal.
# usage: gnuplot -e "data='TABLE'; out='PNG'; title='...'[; unit='atoms']" bench/scaling_chart.gp
set terminal pngcairo size 960,400 font ",11"
set output out
set datafile separator "\t"
sizes = system(sprintf("awk -F'\\t' '$2 == \"strong\" {print $3}' '%s' | uniq", data))
most = real(system(sprintf("awk -F'\\t' '$2 ~ /^(strong|weak)$/ && $4 + 0 > m {m = $4 + 0} END {print m}' '%s'", data)))
weak = int(system(sprintf("awk -F'\\t' '$2 == \"weak\"' '%s' | wc -l", data)))
if (weak == 0) set terminal pngcairo size 520,400 font ",11"
set multiplot layout 1,(weak > 0 ? 2 : 1) title title
set xlabel "GPUs (one MPI rank each)"
set logscale x 2
set xrange [0.8:most * 1.25]
set xtics 2
set grid
set key top left
set ylabel "speed-up over one GPU"
set logscale y 2
set yrange [0.5:most * 2]
plot x title "ideal" dashtype 2 lc rgb "#666666", \
     for [s in sizes] data using 4:(strcol(2) eq "strong" && strcol(3) eq s ? $6 : NaN) \
         with linespoints pt 7 title sprintf("%.1fM %s", real(s) / 1e6, exists("unit") ? unit : "particles")
if (weak == 0) { unset multiplot; exit }
set ylabel "weak-scaling efficiency"
unset logscale y
set yrange [0:1.15]
set key bottom left
plot 1 title "ideal" dashtype 2 lc rgb "#666666", \
     data using 4:(strcol(2) eq "weak" ? $6 : NaN) with linespoints pt 7 \
         title "the same particles per GPU"
unset multiplot
