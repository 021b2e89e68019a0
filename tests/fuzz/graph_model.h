/* The graph fuzz target's model of a graph (tests/fuzz/fuzz_graph.c): for
 * every value its logical shape and type, and, while everything upstream is
 * f32 and moderate, its exact value computed in double by an independent
 * scalar reference of each node (no library kernel is used), with a bound on
 * how far a correct f32 implementation may be from it (error propagated
 * through each operation by its Lipschitz constant, plus each operation's own
 * rounding). A plan's outputs are checked against these. */
#ifndef LG_TESTS_FUZZ_GRAPH_MODEL_H
#define LG_TESTS_FUZZ_GRAPH_MODEL_H

#include "lgraph.h"

#include <stdbool.h>
#include <stdint.h>

/* A value of the fuzzed graph. */
typedef struct gm_value {
    int nd;
    int64_t dims[LG_MAX_NDIMS];
    lg_dtype dt;
    bool checked; /* ref holds the exact value; outputs of it are compared */
    double *ref;  /* row-major logical values (NULL when !checked) */
    double err;   /* |implementation - ref| <= err for every element */
    double amax;  /* max |ref| */
    double amin;  /* min |ref| */
} gm_value;

/* Number of elements. */
int64_t gm_count(int nd, const int64_t *dims);

/* Allocate v->ref for v's dims (checked, err 0). False when out of memory. */
bool gm_alloc(gm_value *v);

/* Recompute amax / amin; a value that is not finite or too large to bound
 * the rounding usefully becomes unchecked (its ref is freed). */
void gm_finish(gm_value *v);

void gm_free(gm_value *v);

/* y = eltwise(x); y has x's shape. */
void gm_eltwise(lg_eltwise_alg alg, float alpha, float beta, const gm_value *x, gm_value *y);

/* y = a (op) b, b broadcast to a. */
void gm_binary(lg_binary_alg alg, const gm_value *a, const gm_value *b, gm_value *y);

/* Forward channel shuffle on axis with group size g. */
void gm_shuffle(int axis, int64_t g, const gm_value *x, gm_value *y);

/* Convolution (1, 2 or 3 spatial dims) of src with weights (oi.. or goi..)
 * and optional bias; y's dims are already the output's. */
void gm_conv(const lg_conv_params *p, const gm_value *src, const gm_value *w, const gm_value *b,
             gm_value *y);

#endif /* LG_TESTS_FUZZ_GRAPH_MODEL_H */
