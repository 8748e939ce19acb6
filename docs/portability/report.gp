set terminal pngcairo size 2700,900 font ',10'
set output 'report.png'
set termoption noenhanced
set multiplot layout 2,1 title 'clpart portability report (error bars: from the least to the most of the timed runs)'
set style data histograms
set style histogram errorbars lw 1 gap 1
set style fill solid 0.8 border -1
set xtics rotate by 20 right scale 0
set key outside right top vertical
set grid ytics
set yrange [0:*]
set offsets 0, 0, graph 0.05, 0
set ylabel 'architectural efficiency (%)'
plot 'report.dat' using 2:3:4:xtic(1) title '0: NVIDIA H200', \
   'report.dat' using 8:9:10 title '1: cpu-skylake-avx512-Intel(R) Xeon(R) Processor', \
   'report.dat' using 14:15:16 title '2: pthread-skylake-avx512-AMD EPYC', \
   'report.dat' using 20:21:22 title '3: llvmpipe (LLVM 15.0.6, 256 bits)', \
   'report.dat' using 26:27:28 title '4: AMD EPYC'
set ylabel 'application efficiency (%)'
plot 'report.dat' using 5:6:7:xtic(1) title '0: NVIDIA H200', \
   'report.dat' using 11:12:13 title '1: cpu-skylake-avx512-Intel(R) Xeon(R) Processor', \
   'report.dat' using 17:18:19 title '2: pthread-skylake-avx512-AMD EPYC', \
   'report.dat' using 23:24:25 title '3: llvmpipe (LLVM 15.0.6, 256 bits)', \
   'report.dat' using 29:30:31 title '4: AMD EPYC'
unset multiplot
