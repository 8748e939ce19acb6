set terminal pngcairo size 900,800 font ',10'
set output 'bench-cascade.png'
set termoption noenhanced
set multiplot layout 2,1 title 'clpart bench, suite quick: cascade over the 6 workloads every device ran'
set xrange [0.5:1.5]
set xtics 1
set yrange [0:*]
set offsets 0, 0, graph 0.15, 0
set grid ytics
set key outside right top vertical
set ylabel 'mean efficiency (%)'
set xlabel 'rank: the devices from the most to the least efficient (labels: device numbers)'
plot 'bench-cascade.dat' index 0 using 1:2 with linespoints lc 1 pt 7 title 'application', \
  '' index 0 using 1:2:4 with labels offset 0,1 tc lt 1 notitle, \
  '' index 1 using 1:2 with linespoints lc 2 pt 5 title 'architectural', \
  '' index 1 using 1:2:4 with labels offset 0,1 tc lt 2 notitle
set ylabel 'Φ of the first k devices (%)'
set xlabel 'k'
plot 'bench-cascade.dat' index 0 using 1:3 with linespoints lc 1 pt 7 title 'application', \
  '' index 1 using 1:3 with linespoints lc 2 pt 5 title 'architectural'
unset multiplot
