/* The choice of path for a conv kernel and the execution dispatch.
 *
 * Paths:
 *  - ref: lg__conv_ref (any layout combination; scalar). */
#include "primitives/conv/conv.h"

#include <stdio.h>

enum { LG_CONV_PATH_REF };

lg_status lg__conv_plan(lg__conv_kernel *c) {
    c->path = LG_CONV_PATH_REF;
    snprintf(c->impl, sizeof c->impl, "conv:ref");
    return LG_OK;
}

lg_status lg__conv_run(const lg__conv_kernel *c, const float *src, const float *wei,
                       const float *bias, float *dst) {
    switch (c->path) {
    default:
        lg__conv_ref(&c->pd, &c->tabs, src, wei, bias, dst);
        return LG_OK;
    }
}
