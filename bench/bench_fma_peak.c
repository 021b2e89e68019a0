/* Print the machine's FMA peak (all OpenMP threads) as one JSON line, for
 * scripts such as bench/nets/run.py. */
#include "fma_peak.h"

#include <omp.h>
#include <stdio.h>

int main(void) {
    int lanes;
    double g = fma_peak(&lanes);
    printf("{\"fma_peak_gflops\": %.1f, \"lanes\": %d, \"threads\": %d}\n", g, lanes,
           omp_get_max_threads());
    return 0;
}
