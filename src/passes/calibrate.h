/* lg_calibrate (issue 20): measurement graphs (calibrate.c) and the
 * least-squares fit of the cost model's coefficients (calibrate_fit.c). */
#ifndef LG_PASSES_CALIBRATE_H
#define LG_PASSES_CALIBRATE_H

#include "passes/cost_coefs.h"

/* One measured step: the model's key, bytes and flops, and its time. */
typedef struct lg__calib_sample {
    char key[LG_COST_KEY_LEN];
    double bytes, flops, ns;
} lg__calib_sample;

/* Fit e's fixed_ns, ns_per_byte and ns_per_flop (all >= 0) to the n
 * samples, minimising the squared relative error; also sets samples and
 * rms_rel_err. e->key is left as it is. */
LG_INTERNAL void lg__calib_fit(const lg__calib_sample *s, int n, lg__cost_entry *e);

#endif /* LG_PASSES_CALIBRATE_H */
