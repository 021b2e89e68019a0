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

/* Fit e's fixed_ns, ns_per_byte, ns_per_flop and ns_per_spill (all >= 0) to the n
 * samples, minimising the squared relative error; also sets samples and
 * rms_rel_err. e->key is left as it is. */
LG_INTERNAL void lg__calib_fit(const lg__calib_sample *s, int n, lg__cost_entry *e);

/* The bound on a fitted fixed_ns (calibrate_fit.c says why). */
#define LG_CALIB_FIXED_MAX_NS 20000.0

#endif /* LG_PASSES_CALIBRATE_H */
