/* The machine's measured FMA peak, for "share of peak" figures. */
#ifndef LG_BENCH_FMA_PEAK_H
#define LG_BENCH_FMA_PEAK_H

/* GFLOP/s of all OpenMP threads running FMAs on registers only, best of
 * five runs; *lanes gets the f32 lanes of the widest vector used (16 or 8). */
double fma_peak(int *lanes);

#endif
