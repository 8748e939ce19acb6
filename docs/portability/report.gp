set terminal pngcairo size 2700,900 font ',10'
set output 'report.png'
set termoption noenhanced
set multiplot layout 2,1 title 'clpart portability report'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set xtics rotate by 20 right scale 0
set key outside right top vertical
set grid ytics
set yrange [0:*]
set ylabel 'architectural efficiency (%)'
plot 'report.dat' using 2:xtic(1) title '0: NVIDIA H100 80GB HBM3', \
   'report.dat' using 4 title '1: cpu-skylake-avx512-Intel(R) Xeon(R) Processor', \
   'report.dat' using 6 title '2: pthread-skylake-avx512-Intel(R) Xeon(R) Processor'
set ylabel 'application efficiency (%)'
plot 'report.dat' using 3:xtic(1) title '0: NVIDIA H100 80GB HBM3', \
   'report.dat' using 5 title '1: cpu-skylake-avx512-Intel(R) Xeon(R) Processor', \
   'report.dat' using 7 title '2: pthread-skylake-avx512-Intel(R) Xeon(R) Processor'
unset multiplot
