/* lg_calibrate (issue 20): measurement graphs (calibrate.c) and the
 * least-squares fit of the cost model's coefficients (calibrate_fit.c). */
#ifndef LG_PASSES_CALIBRATE_H
#define LG_PASSES_CALIBRATE_H

#include "passes/cost_coefs.h"

/* One measured step: the model's key, bytes, flops (a memory-bound step:
 * its spilled bytes), spilled bytes of a step with flops (else 0; see
 * lg__cost_eval), and its time. */
typedef struct lg__calib_sample {
    char key[LG_COST_KEY_LEN];
    double bytes, flops, spill, ns;
} lg__calib_sample;

/* Fit e's fixed_ns (at most LG_CALIB_FIXED_MAX_NS), ns_per_byte, ns_per_flop and
 * ns_per_spill (all >= 0) to the n
 * samples, minimising the squared relative error; also sets samples and
 * rms_rel_err. e->key is left as it is. */
LG_INTERNAL void lg__calib_fit(const lg__calib_sample *s, int n, lg__cost_entry *e);

/* A step's fixed cost is its own overhead (starting the threads, setting
 * up the kernel's loops): a few microseconds. A fit that wants more trades
 * the per-flop or per-byte rate for it on a family's small samples and
 * then prices that family's large steps too low (conv_kxk.direct:cl once
 * fitted 84 us + 0.0052 ns per flop against the pooled 1.5 us + 0.0067:
 * ResNet-50's channels-last 3x3 stride-2 convs priced 17% below the
 * blocked ones, which measured 5% faster, and OPTIMAL moved them to
 * channels-last with 21 runtime reorders). Hence a bound on the fitted fixed_ns. */
#define LG_CALIB_FIXED_MAX_NS 20000.0

#endif /* LG_PASSES_CALIBRATE_H */
