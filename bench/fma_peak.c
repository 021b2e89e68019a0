/* The machine's FMA peak: every OpenMP thread runs independent FMA chains on
 * registers only (AVX-512 where the CPU has it, else AVX2), best of five. */
#include "fma_peak.h"

#include "bench_util.h"

#include <immintrin.h>
#include <omp.h>
#include <stdio.h>

#define PEAK_ACC   24
#define PEAK_ITERS 2000000

__attribute__((target("avx512f"))) static double peak_thread_avx512(void) {
    __m512 acc[PEAK_ACC];
    __m512 m = _mm512_set1_ps(0.999999f), a = _mm512_set1_ps(1e-7f);
    for (int k = 0; k < PEAK_ACC; k++) acc[k] = _mm512_set1_ps((float)k);
    for (long i = 0; i < PEAK_ITERS; i++)
#pragma GCC unroll 24
        for (int k = 0; k < PEAK_ACC; k++) acc[k] = _mm512_fmadd_ps(acc[k], m, a);
    float s = 0;
    for (int k = 0; k < PEAK_ACC; k++) s += _mm512_reduce_add_ps(acc[k]);
    return s;
}

__attribute__((target("avx2,fma"))) static double peak_thread_avx2(void) {
    __m256 acc[PEAK_ACC / 2];
    __m256 m = _mm256_set1_ps(0.999999f), a = _mm256_set1_ps(1e-7f);
    for (int k = 0; k < PEAK_ACC / 2; k++) acc[k] = _mm256_set1_ps((float)k);
    for (long i = 0; i < PEAK_ITERS; i++)
#pragma GCC unroll 12
        for (int k = 0; k < PEAK_ACC / 2; k++) acc[k] = _mm256_fmadd_ps(acc[k], m, a);
    float s = 0, t[8];
    for (int k = 0; k < PEAK_ACC / 2; k++) {
        _mm256_storeu_ps(t, acc[k]);
        for (int j = 0; j < 8; j++) s += t[j];
    }
    return s;
}

/* GFLOP/s of all threads running FMAs on registers only: best of 5. */
double fma_peak(int *lanes) {
    int avx512 = __builtin_cpu_supports("avx512f");
    *lanes = avx512 ? 16 : 8;
    double best = 0, sink = 0;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = 0, t1 = 0;
        int nt = 1;
#pragma omp parallel reduction(+ : sink)
        {
#pragma omp barrier
#pragma omp master
            t0 = bench_now();
            sink += avx512 ? peak_thread_avx512() : peak_thread_avx2();
#pragma omp barrier
#pragma omp master
            {
                t1 = bench_now();
                nt = omp_get_num_threads();
            }
        }
        double flops = 2.0 * nt * PEAK_ITERS * (avx512 ? PEAK_ACC * 16 : PEAK_ACC / 2 * 8);
        double g = flops / (t1 - t0) / 1e9;
        if (g > best) best = g;
    }
    if (sink == 12345.678) printf("%g\n", sink);
    return best;
}
