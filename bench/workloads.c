/* The graph workloads of WORKLOADS.md: specs, seeded constants, the lgraph
 * builder (public API only) and the scalar reference. See workloads.h. */
#include "workloads.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONV(oc_, k_, s_, p_, g_)                                                                  \
    { .kind = WL_CONV, .oc = (oc_), .k = (k_), .stride = (s_), .pad = (p_), .groups = (g_) }
#define RELU                                                                                       \
    { .kind = WL_RELU }
#define SHUFFLE(gs)                                                                                \
    { .kind = WL_SHUFFLE, .group_size = (gs) }
#define ADD_INPUT                                                                                  \
    { .kind = WL_ADD_INPUT }

static const wl_spec specs[WL_COUNT] = {
    /* ShuffleNet v1 unit, g = 3: the shuffle of 3 groups of 60 channels is
     * group_size 60 / 3 = 20. */
    {"W1",
     "ShuffleNet v1 unit (g = 3)",
     240,
     28,
     28,
     7,
     {CONV(60, 1, 1, 0, 3), RELU, SHUFFLE(20), CONV(60, 3, 1, 1, 60), CONV(240, 1, 1, 0, 3),
      ADD_INPUT, RELU}},
    {"W2",
     "ResNet-50 bottleneck (conv2_x)",
     256,
     56,
     56,
     7,
     {CONV(64, 1, 1, 0, 1), RELU, CONV(64, 3, 1, 1, 1), RELU, CONV(256, 1, 1, 0, 1), ADD_INPUT,
      RELU}},
    {"W3",
     "MobileNet-style stem",
     3,
     224,
     224,
     6,
     {CONV(32, 3, 2, 1, 1), RELU, CONV(32, 3, 1, 1, 32), RELU, CONV(64, 1, 1, 0, 1), RELU}},
};

const wl_spec *wl_spec_get(wl_id id) {
    return (int)id >= 0 && id < WL_COUNT ? &specs[id] : NULL;
}

/* xorshift32 stepped from a seed mixed so that 0 and nearby seeds differ. */
typedef struct rng {
    uint32_t s;
} rng;
static rng rng_seed(uint32_t seed) {
    uint32_t s = seed * 2654435761u + 0x9e3779b9u;
    return (rng){s ? s : 1u};
}
/* Uniform in [-1, 1). */
static float rng_uniform(rng *r) {
    uint32_t x = r->s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    r->s = x;
    return (float)((double)(x >> 8) / 8388608.0 - 1.0);
}

static int64_t dims_elems(const int64_t d[4]) {
    return d[0] * d[1] * d[2] * d[3];
}

static int64_t conv_out_size(int64_t in, const wl_op *op) {
    return (in + 2 * op->pad - op->k) / op->stride + 1;
}

int wl_create(wl_workload *w, wl_id id, int64_t n, uint32_t seed) {
    memset(w, 0, sizeof *w);
    const wl_spec *s = wl_spec_get(id);
    if (!s || n < 1) return -1;
    w->spec = s;
    w->n = n;
    int64_t *d = w->dims[0];
    d[0] = n, d[1] = s->c, d[2] = s->h, d[3] = s->w;
    rng r = rng_seed(seed);
    for (int i = 0; i < s->nops; i++) {
        const wl_op *op = &s->ops[i];
        int64_t *in = w->dims[i], *out = w->dims[i + 1];
        memcpy(out, in, sizeof(int64_t) * 4);
        if (op->kind != WL_CONV) continue;
        out[1] = op->oc;
        out[2] = conv_out_size(in[2], op);
        out[3] = conv_out_size(in[3], op);
        int64_t fan_in = in[1] / op->groups * op->k * op->k;
        int64_t nw = op->oc * fan_in;
        w->weights[i] = malloc(sizeof(float) * (size_t)nw);
        w->bias[i] = malloc(sizeof(float) * (size_t)op->oc);
        if (!w->weights[i] || !w->bias[i]) {
            wl_destroy(w);
            memset(w, 0, sizeof *w);
            return -1;
        }
        float scale = (float)sqrt(3.0 / (double)fan_in);
        for (int64_t j = 0; j < nw; j++) w->weights[i][j] = scale * rng_uniform(&r);
        for (int64_t j = 0; j < op->oc; j++) w->bias[i][j] = 0.1f * rng_uniform(&r);
    }
    return 0;
}

void wl_destroy(wl_workload *w) {
    if (!w) return;
    for (int i = 0; i < WL_MAX_OPS; i++) {
        free(w->weights[i]);
        free(w->bias[i]);
        w->weights[i] = w->bias[i] = NULL;
    }
}

size_t wl_input_elems(const wl_workload *w) {
    return (size_t)dims_elems(w->dims[0]);
}
size_t wl_output_elems(const wl_workload *w) {
    return (size_t)dims_elems(w->dims[w->spec->nops]);
}
size_t wl_input_bytes(const wl_workload *w) {
    return sizeof(float) * wl_input_elems(w);
}
size_t wl_output_bytes(const wl_workload *w) {
    return sizeof(float) * wl_output_elems(w);
}

int wl_conv_weights_dims(const wl_workload *w, int i, int64_t dims[5]) {
    const wl_op *op = &w->spec->ops[i];
    int64_t ic = w->dims[i][1], g = op->groups;
    if (g == 1) {
        dims[0] = op->oc, dims[1] = ic, dims[2] = op->k, dims[3] = op->k;
        return 4;
    }
    dims[0] = g, dims[1] = op->oc / g, dims[2] = ic / g, dims[3] = op->k, dims[4] = op->k;
    return 5;
}

double wl_macs(const wl_workload *w) {
    double macs = 0;
    for (int i = 0; i < w->spec->nops; i++) {
        const wl_op *op = &w->spec->ops[i];
        if (op->kind != WL_CONV) continue;
        macs += (double)dims_elems(w->dims[i + 1]) * (double)(w->dims[i][1] / op->groups) *
                (double)(op->k * op->k);
    }
    return macs;
}

void wl_fill_input(const wl_workload *w, float *x, uint32_t seed) {
    rng r = rng_seed(seed ^ 0x5bd1e995u);
    size_t n = wl_input_elems(w);
    for (size_t i = 0; i < n; i++) x[i] = rng_uniform(&r);
}

/* ------------------------------------------------------------------------ */
/* lgraph builder                                                           */
/* ------------------------------------------------------------------------ */

#define TRY(call)                                                                                  \
    do {                                                                                           \
        st = (call);                                                                               \
        if (st != LG_OK) goto fail;                                                                \
    } while (0)

lg_status wl_build_graph(const wl_workload *w, const char *in_tag, const char *out_tag,
                         lg_graph **out) {
    lg_status st;
    lg_graph *g = NULL;
    *out = NULL;
    TRY(lg_graph_create(&g));
    lg_md md;
    lg_value x, cur;
    TRY(lg_md_init_tag(&md, 4, w->dims[0], LG_F32, in_tag ? in_tag : "nchw"));
    TRY(lg_graph_add_input(g, WL_INPUT_NAME, &md, &x));
    cur = x;
    for (int i = 0; i < w->spec->nops; i++) {
        const wl_op *op = &w->spec->ops[i];
        switch (op->kind) {
        case WL_CONV: {
            char name[32];
            int64_t wd[5];
            int nd = wl_conv_weights_dims(w, i, wd);
            lg_value wv, bv;
            TRY(lg_md_init_tag(&md, nd, wd, LG_F32, nd == 4 ? "oihw" : "goihw"));
            snprintf(name, sizeof name, "op%d.weights", i);
            TRY(lg_graph_add_constant(g, name, &md, w->weights[i], &wv));
            TRY(lg_md_init_tag(&md, 1, &op->oc, LG_F32, "a"));
            snprintf(name, sizeof name, "op%d.bias", i);
            TRY(lg_graph_add_constant(g, name, &md, w->bias[i], &bv));
            lg_conv_params p;
            memset(&p, 0, sizeof p);
            for (int s = 0; s < 2; s++) {
                p.strides[s] = op->stride;
                p.pad_l[s] = p.pad_r[s] = op->pad;
            }
            p.groups = op->groups;
            TRY(lg_graph_add_conv(g, cur, wv, bv, &p, &cur));
            break;
        }
        case WL_RELU:
            TRY(lg_graph_add_eltwise(g, cur, LG_ELTWISE_RELU, 0.f, 0.f, &cur));
            break;
        case WL_SHUFFLE:
            TRY(lg_graph_add_shuffle(g, cur, 1, op->group_size, &cur));
            break;
        case WL_ADD_INPUT:
            TRY(lg_graph_add_binary(g, LG_BINARY_ADD, cur, x, &cur));
            break;
        }
    }
    TRY(lg_graph_add_output(g, cur, WL_OUTPUT_NAME, out_tag ? out_tag : "nchw"));
    *out = g;
    return LG_OK;
fail:
    lg_graph_destroy(g);
    return st;
}

/* ------------------------------------------------------------------------ */
/* Scalar reference                                                         */
/* ------------------------------------------------------------------------ */

/* dst[n][o][oh][ow] = bias[o] + sum over the group's input channels and the
 * kernel window of src * weights, zero outside src (nchw, [OC][IC/G][K][K]).
 * Accumulates one output plane at a time in double. Returns 0, or -1 when
 * the plane buffers cannot be allocated. */
static int ref_conv(const wl_op *op, const int64_t in[4], const int64_t out[4], const float *src,
                    const float *wei, const float *bias, float *dst) {
    const int64_t N = in[0], IC = in[1], IH = in[2], IW = in[3];
    const int64_t OC = out[1], OH = out[2], OW = out[3];
    const int64_t G = op->groups, ICG = IC / G, OCG = OC / G, K = op->k, S = op->stride;
    int failed = 0;
#pragma omp parallel
    {
        double *acc = malloc(sizeof(double) * (size_t)(OH * OW));
        if (!acc) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for collapse(2) schedule(static)
        for (int64_t n = 0; n < N; n++)
            for (int64_t o = 0; o < OC; o++) {
                if (!acc) continue;
                const int64_t g = o / OCG;
                for (int64_t j = 0; j < OH * OW; j++) acc[j] = bias[o];
                for (int64_t i = 0; i < ICG; i++) {
                    const float *s = src + ((n * IC + g * ICG + i) * IH) * IW;
                    for (int64_t kh = 0; kh < K; kh++)
                        for (int64_t kw = 0; kw < K; kw++) {
                            const double wv = wei[((o * ICG + i) * K + kh) * K + kw];
                            /* The ow whose iw = ow * S - pad + kw is inside src. */
                            int64_t ow0 = 0, ow1 = OW;
                            while (ow0 < OW && ow0 * S - op->pad + kw < 0) ow0++;
                            while (ow1 > ow0 && (ow1 - 1) * S - op->pad + kw >= IW) ow1--;
                            for (int64_t oh = 0; oh < OH; oh++) {
                                const int64_t ih = oh * S - op->pad + kh;
                                if (ih < 0 || ih >= IH) continue;
                                const float *srow = s + ih * IW - op->pad + kw;
                                double *arow = acc + oh * OW;
                                for (int64_t ow = ow0; ow < ow1; ow++)
                                    arow[ow] += (double)srow[ow * S] * wv;
                            }
                        }
                }
                float *d = dst + (n * OC + o) * OH * OW;
                for (int64_t j = 0; j < OH * OW; j++) d[j] = (float)acc[j];
            }
        free(acc);
    }
    return failed ? -1 : 0;
}

/* API.md's shuffle: dst(c) = src(c') with c = u + v * C/G, c' = u * G + v,
 * u in [0, C/G), v in [0, G), G = group_size. */
static void ref_shuffle(int64_t group_size, const int64_t d[4], const float *src, float *dst) {
    const int64_t C = d[1], G = group_size, plane = d[2] * d[3];
    for (int64_t n = 0; n < d[0]; n++)
        for (int64_t u = 0; u < C / G; u++)
            for (int64_t v = 0; v < G; v++) {
                int64_t c = u + v * (C / G), cs = u * G + v;
                memcpy(dst + (n * C + c) * plane, src + (n * C + cs) * plane,
                       sizeof(float) * (size_t)plane);
            }
}

int wl_reference(const wl_workload *w, const float *x, float *y) {
    /* Two ping-pong buffers as large as the largest intermediate. */
    int64_t big = 0;
    for (int i = 0; i <= w->spec->nops; i++)
        if (dims_elems(w->dims[i]) > big) big = dims_elems(w->dims[i]);
    float *buf[2] = {malloc(sizeof(float) * (size_t)big), malloc(sizeof(float) * (size_t)big)};
    if (!buf[0] || !buf[1]) {
        free(buf[0]);
        free(buf[1]);
        return -1;
    }
    const float *cur = x;
    int next = 0;
    for (int i = 0; i < w->spec->nops; i++) {
        const wl_op *op = &w->spec->ops[i];
        const int64_t *in = w->dims[i], *out = w->dims[i + 1];
        const int64_t ne = dims_elems(out);
        float *dst = buf[next];
        switch (op->kind) {
        case WL_CONV:
            if (ref_conv(op, in, out, cur, w->weights[i], w->bias[i], dst) != 0) {
                free(buf[0]);
                free(buf[1]);
                return -1;
            }
            break;
        case WL_RELU:
            for (int64_t j = 0; j < ne; j++) dst[j] = cur[j] > 0.f ? cur[j] : 0.f;
            break;
        case WL_SHUFFLE:
            ref_shuffle(op->group_size, in, cur, dst);
            break;
        case WL_ADD_INPUT:
            for (int64_t j = 0; j < ne; j++) dst[j] = cur[j] + x[j];
            break;
        }
        cur = dst;
        next ^= 1;
    }
    memcpy(y, cur, wl_output_bytes(w));
    free(buf[0]);
    free(buf[1]);
    return 0;
}

int wl_compare(const float *got, const float *ref, size_t n, double tol, double *max_err,
               size_t *at) {
    double worst = 0;
    size_t where = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)got[i] - (double)ref[i]) / (1.0 + fabs((double)ref[i]));
        if (e != e) e = INFINITY;
        if (e > worst) worst = e, where = i;
    }
    if (max_err) *max_err = worst;
    if (at) *at = where;
    return worst <= tol;
}
