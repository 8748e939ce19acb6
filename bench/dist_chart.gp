# The speed-up of a split 3D dam break over one device, from a table of bench/dist.sh figures
# (docs/benchmarks/dist/*.tsv: particles, then the speed-ups in columns 5 and 6).
# usage: gnuplot -e "data='TABLE'; out='PNG'" bench/dist_chart.gp
set terminal pngcairo size 720,420 font ",11"
set output out
set datafile separator "\t"
set title "3D dam break split over two H100s: speed-up over one"
set ylabel "speed-up over one H100"
set yrange [0:2.5]
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key top left
set grid ytics
set arrow from graph 0, first 2 to graph 1, first 2 nohead dashtype 2 lc rgb "#666666"
set label "ideal" at graph 0.9, first 2.07
plot data every ::1 using 5:xtic(sprintf("%.1fM particles", $1 / 1e6)) title "2 GPUs, one process", \
     '' every ::1 using 6 title "2 MPI ranks"
