/*
 * The graph workloads of WORKLOADS.md (W1 ShuffleNet v1 unit, W2 ResNet-50
 * bottleneck, W3 MobileNet stem) as data, with seeded weights, an lgraph
 * builder that uses only the public API, and a scalar reference evaluation.
 * Shared by the end-to-end benchmark and by samples and tests.
 *
 *     wl_workload w;
 *     if (wl_create(&w, WL_W2, 16, 42) != 0) ...;     // weights and biases
 *     lg_graph *g;
 *     wl_build_graph(&w, NULL, NULL, &g);             // input "x", output "y"
 *     float *x = malloc(wl_input_bytes(&w)), *ref = malloc(wl_output_bytes(&w));
 *     wl_fill_input(&w, x, 7);
 *     wl_reference(&w, x, ref);                       // the truth, nchw
 *     ... compile g, execute, then wl_compare(y, ref, wl_output_elems(&w), ...)
 *     wl_destroy(&w);
 *
 * Every workload is a chain of ops on one running tensor (f32, N x C x H x W);
 * WL_ADD_INPUT adds the graph input x (the residual). Every conv has a bias.
 * Weights are stored as oihw for groups == 1 and goihw for groups > 1; both
 * are the same row-major array [OC][IC/groups][K][K].
 */
#ifndef LG_BENCH_WORKLOADS_H
#define LG_BENCH_WORKLOADS_H

#include <lgraph.h>

#include <stddef.h>
#include <stdint.h>

/* Names of the graph's input and output. */
#define WL_INPUT_NAME  "x"
#define WL_OUTPUT_NAME "y"

typedef enum wl_id { WL_W1, WL_W2, WL_W3, WL_COUNT } wl_id;

typedef enum wl_op_kind {
    WL_CONV,      /* 2D convolution with bias: oc, k, stride, pad (both sides), groups */
    WL_RELU,      /* max(x, 0) */
    WL_SHUFFLE,   /* channel shuffle, axis 1, group_size as in lg_shuffle_create */
    WL_ADD_INPUT, /* + the graph input x (same dims) */
} wl_op_kind;

typedef struct wl_op {
    wl_op_kind kind;
    int64_t oc, k, stride, pad, groups; /* WL_CONV */
    int64_t group_size;                 /* WL_SHUFFLE */
} wl_op;

#define WL_MAX_OPS 10

/* A workload's shape, independent of the batch size. */
typedef struct wl_spec {
    const char *name;  /* "W1" */
    const char *title; /* "ShuffleNet v1 unit (g = 3)" */
    int64_t c, h, w;   /* the input's channels and spatial size */
    int nops;
    wl_op ops[WL_MAX_OPS];
} wl_spec;

/* The spec of workload id; NULL for an id out of range. */
const wl_spec *wl_spec_get(wl_id id);

/* A workload at one batch size with its constants. dims[i] are the dims of
 * the running tensor before op i (dims[0]: the input x; dims[nops]: the
 * output y). For a conv op i, weights[i] holds OC * IC/groups * K * K floats
 * and bias[i] OC floats; other ops have NULL there. */
typedef struct wl_workload {
    const wl_spec *spec;
    int64_t n;
    int64_t dims[WL_MAX_OPS + 1][4];
    float *weights[WL_MAX_OPS];
    float *bias[WL_MAX_OPS];
} wl_workload;

/* Fill *w for workload id at batch n, with weights uniform in
 * +-sqrt(3 / fan_in) (activations keep their scale) and biases in +-0.1,
 * drawn from `seed` (the same seed gives the same values). Returns 0, or -1
 * for a bad id or n < 1, or when memory runs out (w is then left empty,
 * safe to pass to wl_destroy). */
int wl_create(wl_workload *w, wl_id id, int64_t n, uint32_t seed);

/* Free the constants; w may be zeroed or already destroyed. */
void wl_destroy(wl_workload *w);

/* Element counts and byte sizes of the input x and output y (nchw f32). */
size_t wl_input_elems(const wl_workload *w);
size_t wl_output_elems(const wl_workload *w);
size_t wl_input_bytes(const wl_workload *w);
size_t wl_output_bytes(const wl_workload *w);

/* The conv of op i: its weights' dims as given to lgraph and oneDNN (oihw
 * for groups == 1: 4 dims; goihw otherwise: 5 dims). Returns ndims. */
int wl_conv_weights_dims(const wl_workload *w, int i, int64_t dims[5]);

/* Multiply-accumulates of one execution (for GFLOP/s). */
double wl_macs(const wl_workload *w);

/* Fill x (wl_input_elems floats, nchw) with values uniform in [-1, 1) drawn
 * from seed. */
void wl_fill_input(const wl_workload *w, float *x, uint32_t seed);

/*
 * Build the workload as an lgraph graph through the public API: input
 * WL_INPUT_NAME of x's dims in layout in_tag (NULL: "nchw"; "any" allowed),
 * every weight and bias a constant, output WL_OUTPUT_NAME wanted in out_tag
 * (NULL: "nchw"). On failure returns the failing call's status (its message
 * is in lg_last_error()) and *g is NULL.
 */
lg_status wl_build_graph(const wl_workload *w, const char *in_tag, const char *out_tag,
                         lg_graph **g);

/* The scalar reference: y (wl_output_elems floats, nchw) from x (nchw), with
 * straightforward loops (double accumulation in convs). Returns 0, or -1 when
 * memory for the intermediates runs out. */
int wl_reference(const wl_workload *w, const float *x, float *y);

/* Compare got against ref over n elements: the largest
 * |got - ref| / (1 + |ref|) (NaN counts as infinite) goes to *max_err and
 * its index to *at. Returns 1 if it is at most tol, else 0. */
int wl_compare(const float *got, const float *ref, size_t n, double tol, double *max_err,
               size_t *at);

#endif /* LG_BENCH_WORKLOADS_H */
