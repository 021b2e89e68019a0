/* The graph fuzz target's scalar references with error bounds (graph_model.h).
 *
 * Error model: an element of a value computed by a correct f32
 * implementation lies within err of the exact (double) value. Each
 * operation maps its inputs' bounds through its Lipschitz constant on the
 * inputs' range, and adds its own rounding: a few f32 ulps of the result's
 * magnitude for an elementwise operation (the library's transcendental
 * algorithms are within 7 ulps), n * 2^-24 of the sum of |terms| for an
 * accumulation of n products (any summation order). Inputs and constants are
 * exact (multiples of 1/32 in [-4, 4]); reorders and shuffles move values
 * exactly. The bounds are worst cases, so a correct plan never fails them,
 * whatever it fuses or reorders, while a wrong element, a wrong layout or a
 * lost post-op is off by far more. */
#include "fuzz/graph_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Rounding of one elementwise f32 operation, relative to max(|result|, 1). */
#define GM_ULPS 4e-6
/* Beyond this magnitude a value is not compared (bounds get meaningless). */
#define GM_LIMIT 1e6

int64_t gm_count(int nd, const int64_t *dims) {
    int64_t n = 1;
    for (int d = 0; d < nd; d++) n *= dims[d];
    return n;
}

bool gm_alloc(gm_value *v) {
    v->ref = calloc((size_t)gm_count(v->nd, v->dims) + 1, sizeof(double));
    v->checked = v->ref != NULL;
    v->err = 0;
    return v->checked;
}

void gm_free(gm_value *v) {
    free(v->ref);
    v->ref = NULL;
    v->checked = false;
}

void gm_finish(gm_value *v) {
    if (!v->checked) return;
    int64_t n = gm_count(v->nd, v->dims);
    double mx = 0, mn = INFINITY;
    for (int64_t i = 0; i < n; i++) {
        double a = fabs(v->ref[i]);
        if (!(a <= GM_LIMIT)) { /* also NaN */
            gm_free(v);
            return;
        }
        mx = a > mx ? a : mx;
        mn = a < mn ? a : mn;
    }
    v->amax = mx;
    v->amin = n ? mn : 0;
    if (!(v->err <= GM_LIMIT)) gm_free(v);
}

/* y takes x's shape; false (y unchecked) when x is unchecked. */
static bool start(const gm_value *x, gm_value *y) {
    y->nd = x->nd;
    memcpy(y->dims, x->dims, sizeof y->dims);
    if (!x->checked) {
        y->checked = false;
        return false;
    }
    return gm_alloc(y);
}

static double clampd(double v, double lo, double hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

static double sigmoid(double x) {
    return 1.0 / (1.0 + exp(-x));
}

void gm_eltwise(lg_eltwise_alg alg, float alpha, float beta, const gm_value *x, gm_value *y) {
    if (!start(x, y)) return;
    double a = alpha, b = beta, xm = x->amax + x->err;
    double lip; /* |f(u) - f(v)| <= lip |u - v| for |u|, |v| <= xm */
    switch (alg) {
    case LG_ELTWISE_RELU:
        lip = fmax(1, fabs(a));
        break;
    case LG_ELTWISE_ELU:
        lip = fmax(1, fabs(a));
        break;
    case LG_ELTWISE_TANH:
        lip = 1;
        break;
    case LG_ELTWISE_LOGISTIC:
        lip = 0.25;
        break;
    case LG_ELTWISE_GELU_TANH:
    case LG_ELTWISE_GELU_ERF:
        lip = 1.13;
        break;
    case LG_ELTWISE_SWISH:
        lip = 1.1 + fabs(a) * xm / 4;
        break;
    case LG_ELTWISE_ABS:
        lip = 1;
        break;
    case LG_ELTWISE_SQUARE:
        lip = 2 * xm;
        break;
    case LG_ELTWISE_LINEAR:
        lip = fabs(a);
        break;
    case LG_ELTWISE_CLIP:
        lip = 1;
        break;
    case LG_ELTWISE_HARDSWISH:
        lip = 1 + fabs(a) * xm;
        break;
    case LG_ELTWISE_HARDSIGMOID:
        lip = fabs(a);
        break;
    default:
        gm_free(y);
        return; /* not modelled (exp, log, sqrt) */
    }
    int64_t n = gm_count(x->nd, x->dims);
    for (int64_t i = 0; i < n; i++) {
        double v = x->ref[i], r;
        switch (alg) {
        case LG_ELTWISE_RELU:
            r = v > 0 ? v : a * v;
            break;
        case LG_ELTWISE_ELU:
            r = v > 0 ? v : a * expm1(v);
            break;
        case LG_ELTWISE_TANH:
            r = tanh(v);
            break;
        case LG_ELTWISE_LOGISTIC:
            r = sigmoid(v);
            break;
        case LG_ELTWISE_GELU_TANH:
            r = 0.5 * v * (1 + tanh(0.79788456080286535588 * (v + 0.044715 * v * v * v)));
            break;
        case LG_ELTWISE_GELU_ERF:
            r = 0.5 * v * (1 + erf(v / sqrt(2)));
            break;
        case LG_ELTWISE_SWISH:
            r = v * sigmoid(a * v);
            break;
        case LG_ELTWISE_ABS:
            r = fabs(v);
            break;
        case LG_ELTWISE_SQUARE:
            r = v * v;
            break;
        case LG_ELTWISE_LINEAR:
            r = a * v + b;
            break;
        case LG_ELTWISE_CLIP:
            r = fmin(fmax(v, a), b);
            break;
        case LG_ELTWISE_HARDSWISH:
            r = v * clampd(a * v + b, 0, 1);
            break;
        default:
            r = clampd(a * v + b, 0, 1);
            break; /* hardsigmoid */
        }
        y->ref[i] = r;
    }
    gm_finish(y);
    if (!y->checked) return;
    /* alpha * x and + beta round in f32 too (linear, hardsigmoid, ...). */
    double scale = 1 + fabs(a) * xm + fabs(b);
    y->err = lip * x->err + GM_ULPS * fmax(fmax(y->amax, 1), scale);
}

/* Row-major index of b's element broadcast to a's logical index. */
static int64_t bcast_index(const gm_value *b, const int64_t *idx) {
    int64_t j = 0;
    for (int d = 0; d < b->nd; d++) j = j * b->dims[d] + (b->dims[d] == 1 ? 0 : idx[d]);
    return j;
}

static void unflatten(int nd, const int64_t *dims, int64_t i, int64_t *idx) {
    for (int d = nd - 1; d >= 0; d--) {
        idx[d] = dims[d] ? i % dims[d] : 0;
        i = dims[d] ? i / dims[d] : 0;
    }
}

void gm_binary(lg_binary_alg alg, const gm_value *a, const gm_value *b, gm_value *y) {
    if (!start(a, y)) return;
    if (!b->checked) {
        gm_free(y);
        return;
    }
    double ea = a->err, eb = b->err, am = a->amax, bm = b->amax;
    if (alg == LG_BINARY_DIV && !(b->amin - eb > 0.1)) { /* too close to a pole */
        gm_free(y);
        return;
    }
    int64_t n = gm_count(a->nd, a->dims), idx[LG_MAX_NDIMS];
    for (int64_t i = 0; i < n; i++) {
        unflatten(a->nd, a->dims, i, idx);
        double u = a->ref[i], v = b->ref[bcast_index(b, idx)], r;
        switch (alg) {
        case LG_BINARY_ADD:
            r = u + v;
            break;
        case LG_BINARY_SUB:
            r = u - v;
            break;
        case LG_BINARY_MUL:
            r = u * v;
            break;
        case LG_BINARY_DIV:
            r = u / v;
            break;
        case LG_BINARY_MIN:
            r = fmin(u, v);
            break;
        default:
            r = fmax(u, v);
            break;
        }
        y->ref[i] = r;
    }
    gm_finish(y);
    if (!y->checked) return;
    double e;
    switch (alg) {
    case LG_BINARY_ADD:
    case LG_BINARY_SUB:
        e = ea + eb + GM_ULPS * (am + bm + 1);
        break;
    case LG_BINARY_MUL:
        e = ea * bm + eb * am + ea * eb + GM_ULPS * (y->amax + 1);
        break;
    case LG_BINARY_DIV: {
        double lo = b->amin - eb;
        e = (ea * bm + am * eb) / (b->amin * lo) + ea / lo + GM_ULPS * (y->amax + 1);
        break;
    }
    default:
        e = fmax(ea, eb);
        break;
    }
    y->err = e;
}

void gm_shuffle(int axis, int64_t g, const gm_value *x, gm_value *y) {
    if (!start(x, y)) return;
    int64_t c = x->dims[axis], cg = c / g, n = gm_count(x->nd, x->dims), idx[LG_MAX_NDIMS];
    for (int64_t i = 0; i < n; i++) {
        unflatten(x->nd, x->dims, i, idx);
        int64_t cc = idx[axis], u = cc % cg, v = cc / cg;
        idx[axis] = u * g + v;
        int64_t j = 0;
        for (int d = 0; d < x->nd; d++) j = j * x->dims[d] + idx[d];
        y->ref[i] = x->ref[j];
    }
    y->err = x->err;
    gm_finish(y);
}

void gm_conv(const lg_conv_params *p, const gm_value *src, const gm_value *w, const gm_value *b,
             gm_value *y) {
    if (!src->checked || !w->checked || (b && !b->checked) || !gm_alloc(y)) {
        y->checked = false;
        return;
    }
    /* Three spatial dims; the missing ones have extent, kernel and stride 1. */
    int sp = src->nd - 2, wnd = w->nd;
    int64_t g = p->groups, ic = src->dims[1], oc = y->dims[1], icg = ic / g, ocg = oc / g;
    int64_t I[3] = {1, 1, 1}, O[3] = {1, 1, 1}, K[3] = {1, 1, 1}, S[3] = {1, 1, 1};
    int64_t D[3] = {1, 1, 1}, P[3] = {0, 0, 0};
    for (int d = 0; d < sp; d++) {
        int e = 3 - sp + d;
        I[e] = src->dims[2 + d];
        O[e] = y->dims[2 + d];
        K[e] = w->dims[wnd - sp + d];
        S[e] = p->strides[d];
        D[e] = p->dilates[d] + 1;
        P[e] = p->pad_l[d];
    }
    int64_t kvol = K[0] * K[1] * K[2], isp = I[0] * I[1] * I[2], osp = O[0] * O[1] * O[2];
    double worst = 0; /* max over outputs of sum |w||x| (+ |bias|) */
    double wsum = 0;  /* max over output channels of sum |w| */
    for (int64_t o = 0; o < oc; o++) {
        double s = 0;
        for (int64_t k = 0; k < icg * kvol; k++) s += fabs(w->ref[o * icg * kvol + k]);
        wsum = s > wsum ? s : wsum;
    }
    for (int64_t n = 0; n < src->dims[0]; n++)
        for (int64_t o = 0; o < oc; o++) {
            int64_t grp = o / ocg;
            const double *wo = w->ref + o * icg * kvol;
            for (int64_t q = 0; q < osp; q++) {
                int64_t oz = q / (O[1] * O[2]), oy = q / O[2] % O[1], ox = q % O[2];
                double acc = b ? b->ref[o] : 0, mag = b ? fabs(b->ref[o]) : 0;
                for (int64_t i = 0; i < icg; i++) {
                    const double *xs = src->ref + (n * ic + grp * icg + i) * isp;
                    for (int64_t kz = 0; kz < K[0]; kz++) {
                        int64_t z = oz * S[0] - P[0] + kz * D[0];
                        if (z < 0 || z >= I[0]) continue;
                        for (int64_t ky = 0; ky < K[1]; ky++) {
                            int64_t yy = oy * S[1] - P[1] + ky * D[1];
                            if (yy < 0 || yy >= I[1]) continue;
                            for (int64_t kx = 0; kx < K[2]; kx++) {
                                int64_t xx = ox * S[2] - P[2] + kx * D[2];
                                if (xx < 0 || xx >= I[2]) continue;
                                double t = wo[((i * K[0] + kz) * K[1] + ky) * K[2] + kx] *
                                           xs[(z * I[1] + yy) * I[2] + xx];
                                acc += t;
                                mag += fabs(t);
                            }
                        }
                    }
                }
                y->ref[(n * oc + o) * osp + q] = acc;
                worst = mag > worst ? mag : worst;
            }
        }
    gm_finish(y);
    if (!y->checked) return;
    double terms = (double)(icg * kvol + 2), xm = src->amax;
    y->err = src->err * wsum + w->err * xm * (double)(icg * kvol) +
             src->err * w->err * (double)(icg * kvol) + (b ? b->err : 0) +
             terms * 0x1p-23 * (worst + 1);
}
