set terminal pngcairo size 1260,900 font ',10'
set output 'bench.png'
set termoption noenhanced
set multiplot layout 2,1 title 'clpart bench, suite quick (error bars: from the least to the most of the timed runs)'
set style data histograms
set style histogram errorbars lw 1 gap 1
set style fill solid 0.8 border -1
set xtics rotate by 20 right scale 0
set key outside right top vertical
set grid ytics
set yrange [0:*]
set offsets 0, 0, graph 0.05, 0
set ylabel 'architectural efficiency (%)'
plot 'bench.dat' using 2:3:4:xtic(1) title '0: llvmpipe (LLVM 15.0.6, 256 bits)'
set ylabel 'application efficiency (%)'
plot 'bench.dat' using 5:6:7:xtic(1) title '0: llvmpipe (LLVM 15.0.6, 256 bits)'
unset multiplot
