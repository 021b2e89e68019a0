/* benchdnn's convolution problem descriptors, e.g. mb8ic64ih56oc64oh56kh3ph1
 * or g3mb1ic240ih28oc60oh28kh1n"shufflenet:gconv": parsed with benchdnn's
 * rules, printed back in short form, and turned into lgraph's shapes and
 * lg_conv_params. Pure functions, unit-tested by
 * tests/lgbench/test_conv_desc.c. */
#ifndef LGBENCH_CONV_DESC_H
#define LGBENCH_CONV_DESC_H

#include <lgraph.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A parsed descriptor. Spatial arrays are indexed [0] depth, [1] height,
 * [2] width; dims a problem does not have hold 1 (sizes, strides) or 0
 * (padding, dilation). Dilation is benchdnn's (0: dense). */
typedef struct lgb_conv_desc {
    int64_t g, mb, ic, oc;
    int64_t i[3], o[3], k[3], s[3], p[3], p_r[3], d[3];
    int ndims;       /* of src and dst: 3 (1D), 4 (2D) or 5 (3D) */
    bool has_groups; /* "g" was given (even g1) */
    char name[128];  /* from n"..." (quotes dropped), or "" */
} lgb_conv_desc;

/*
 * Parse a descriptor. Entries, in any order, '_' ignored: g, mb, ic, id, ih,
 * iw, oc, od, oh, ow, kd, kh, kw, sd, sh, sw, pd, ph, pw, dd, dh, dw, each
 * followed by a non-negative integer; n<name> ends it. benchdnn's rules:
 *  - mb defaults to 2, g to 1, strides to 1, dilations to 0;
 *  - a spatial dim is present if any of its i/o/k/d entries is non-zero, its
 *    stride is not 1 or its padding is positive; a present dim needs i and k;
 *  - an output left out is computed, with padding 0 if that is left out too:
 *    o = (i - ((k - 1) * (d + 1) + 1) + 2 * p) / s + 1 (must be positive);
 *  - a padding left out is computed from the output:
 *    p = ((o - 1) * s - i + ((k - 1) * (d + 1) + 1)) / 2;
 *  - only h given: square (w = h); only d given: cubic (h = w = d); only w:
 *    1D; d with only one of h and w, or no spatial dim at all, is an error;
 *  - the right padding is whatever makes the output exact:
 *    p_r = (o - 1) * s - i + ((k - 1) * (d + 1) + 1) - p.
 * Also rejects ic or oc of 0, g of 0, and g not dividing ic and oc.
 */
bool lgb_conv_desc_parse(const char *s, lgb_conv_desc *d, char *err, size_t len);

/* The short form benchdnn prints: g only if given, mb only if not 2, one
 * entry per group of equal spatial values (ih56 for ih56iw56), strides only
 * if not all 1, dilations only if not all 0, then n<name>. */
void lgb_conv_desc_str(const lgb_conv_desc *d, char *buf, size_t len);

/*
 * lgraph's view: src dims (mb, ic, spatial), weights dims (oc, ic, k...) or,
 * for g > 1, (g, oc/g, ic/g, k...), dst dims, and the params (pad_r as
 * above; a negative one, which lgraph does not take, is raised to 0 when that
 * leaves the output size unchanged, as it does whenever |p_r| < stride, and
 * is an error otherwise). *wnd gets the weights' ndims.
 */
bool lgb_conv_desc_lg(const lgb_conv_desc *d, lg_conv_params *p, int64_t *src, int64_t *wei,
                      int *wnd, int64_t *dst, char *err, size_t len);

/* Multiply-adds times 2 that touch real input (taps in the padding do not
 * count), as benchdnn counts a convolution's operations. */
double lgb_conv_desc_flops(const lgb_conv_desc *d);

#endif /* LGBENCH_CONV_DESC_H */
