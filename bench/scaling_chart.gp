# Strong and weak scaling over GPUs, from a table of bench/scaling.sh (model, study,
# particles, gpus, rate, ratio; one model): the speed-up over one GPU at each size, and the
# weak-scaling efficiency, each against its ideal.
# usage: gnuplot -e "data='TABLE'; out='PNG'; title='...'" bench/scaling_chart.gp
set terminal pngcairo size 960,400 font ",11"
set output out
set datafile separator "\t"
sizes = system(sprintf("awk -F'\\t' '$2 == \"strong\" {print $3}' '%s' | uniq", data))
most = real(system(sprintf("awk -F'\\t' 'NR > 1 && $4 > m {m = $4} END {print m}' '%s'", data)))
set multiplot layout 1,2 title title
set xlabel "GPUs (one MPI rank each)"
set logscale x 2
set xrange [0.8:most * 1.25]
set xtics 2
set grid
set key top left
set ylabel "speed-up over one GPU"
set logscale y 2
set yrange [0.5:most * 1.5]
plot x title "ideal" dashtype 2 lc rgb "#666666", \
     for [s in sizes] data using 4:(strcol(2) eq "strong" && strcol(3) eq s ? $6 : NaN) \
         with linespoints pt 7 title sprintf("%.1fM particles", real(s) / 1e6)
set ylabel "weak-scaling efficiency"
unset logscale y
set yrange [0:1.15]
set key bottom left
plot 1 title "ideal" dashtype 2 lc rgb "#666666", \
     data using 4:(strcol(2) eq "weak" ? $6 : NaN) with linespoints pt 7 \
         title "the same particles per GPU"
unset multiplot
