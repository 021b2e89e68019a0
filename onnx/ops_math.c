/* Activations (eltwise nodes) and Add/Sub/Mul/Div: folded at load time when
 * every operand is a constant (shape arithmetic), else binary nodes with
 * numpy broadcasting. Sigmoid and HardSigmoid are held back (LZ_GATE) so
 * that x * sigmoid(x) becomes one swish node and x * hardsigmoid(x) with
 * HardSwish's constants one hardswish node (how PyTorch exports SiLU, and
 * Hardswish below opset 14). */
#include "onnx_int.h"

#include <float.h>
#include <math.h>
#include <string.h>

lg_status lg__onnx_op_unary(importer *im);
lg_status lg__onnx_op_clip(importer *im);
lg_status lg__onnx_op_gate(importer *im);
lg_status lg__onnx_op_binary(importer *im);
lg_status lg__onnx_op_prelu(importer *im);

/* Emit an eltwise node on input 0 as output 0. */
static lg_status eltwise(importer *im, lg_eltwise_alg alg, float alpha, float beta) {
    oval *x, *y;
    LG_ONNX_CHECK(lg__onnx_input(im, 0, false, &x));
    LG_ONNX_CHECK(lg__onnx_tensor(im, x));
    LG_ONNX_CHECK(lg__onnx_output(im, 0, &y));
    if (lg_graph_add_eltwise(im->g, x->v, alg, alpha, beta, &y->v) != LG_OK)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "%s", lg_last_error());
    y->kind = OV_TENSOR;
    y->nd = x->nd;
    memcpy(y->dims, x->dims, sizeof y->dims);
    return LG_OK;
}

lg_status lg__onnx_op_unary(importer *im) {
    const char *op = im->node->op_type;
    float a;
    if (strcmp(op, "Relu") == 0) return eltwise(im, LG_ELTWISE_RELU, 0, 0);
    if (strcmp(op, "Tanh") == 0) return eltwise(im, LG_ELTWISE_TANH, 0, 0);
    if (strcmp(op, "LeakyRelu") == 0) {
        LG_ONNX_CHECK(lg__onnx_attr_float(im, "alpha", 0.01f, &a));
        return eltwise(im, LG_ELTWISE_RELU, a, 0);
    }
    if (strcmp(op, "Elu") == 0) {
        LG_ONNX_CHECK(lg__onnx_attr_float(im, "alpha", 1.0f, &a));
        return eltwise(im, LG_ELTWISE_ELU, a, 0);
    }
    /* HardSwish: x * max(0, min(1, x / 6 + 1 / 2)), oneDNN's with alpha 1/6, beta 1/2. */
    return eltwise(im, LG_ELTWISE_HARDSWISH, 1.0f / 6.0f, 0.5f);
}

lg_status lg__onnx_op_clip(importer *im) {
    float lo = -FLT_MAX, hi = FLT_MAX;
    oval *b[2];
    for (int k = 0; k < 2; k++) {
        LG_ONNX_CHECK(lg__onnx_input(im, 1 + k, true, &b[k]));
        if (!b[k]) continue;
        if (b[k]->kind != OV_CONST || b[k]->n != 1)
            return lg__onnx_fail(im, LG_UNIMPLEMENTED, "clip bounds must be scalar constants");
        *(k ? &hi : &lo) = lg__onnx_const_f(b[k], 0);
    }
    return eltwise(im, LG_ELTWISE_CLIP, lo, hi);
}

lg_status lg__onnx_op_gate(importer *im) {
    oval *x, *y;
    float a = 0, b = 0;
    bool hard = strcmp(im->node->op_type, "HardSigmoid") == 0;
    if (hard) {
        LG_ONNX_CHECK(lg__onnx_attr_float(im, "alpha", 0.2f, &a));
        LG_ONNX_CHECK(lg__onnx_attr_float(im, "beta", 0.5f, &b));
    }
    LG_ONNX_CHECK(lg__onnx_input(im, 0, false, &x));
    LG_ONNX_CHECK(lg__onnx_tensor(im, x));
    LG_ONNX_CHECK(lg__onnx_output(im, 0, &y));
    y->kind = OV_LAZY;
    y->lz = LZ_GATE;
    y->alg = hard ? LG_ELTWISE_HARDSIGMOID : LG_ELTWISE_LOGISTIC;
    y->alpha = a;
    y->beta = b;
    y->base = x;
    y->nd = x->nd;
    memcpy(y->dims, x->dims, sizeof y->dims);
    return LG_OK;
}

/* The numpy broadcast of a's and b's shapes into out (rank of the larger);
 * false when they do not broadcast. */
static bool broadcast(const oval *a, const oval *b, int *nd, int64_t *out) {
    *nd = a->nd > b->nd ? a->nd : b->nd;
    for (int d = 0; d < *nd; d++) {
        int da = d - (*nd - a->nd), db = d - (*nd - b->nd);
        int64_t x = da >= 0 ? a->dims[da] : 1, y = db >= 0 ? b->dims[db] : 1;
        if (x != y && x != 1 && y != 1) return false;
        out[d] = x == 1 ? y : x;
    }
    return true;
}

/* Offset into v (of rank <= nd, aligned right) of the broadcast index idx. */
static int64_t bcast_offset(const oval *v, int nd, const int64_t *idx) {
    int64_t off = 0;
    for (int d = 0; d < v->nd; d++) {
        int64_t i = idx[d + nd - v->nd];
        off = off * v->dims[d] + (v->dims[d] == 1 ? 0 : i);
    }
    return off;
}

static double apply(const char *op, double x, double y, bool is_int) {
    switch (op[0]) {
    case 'A':
        return x + y;
    case 'S':
        return x - y;
    case 'M':
        return x * y;
    default:
        if (is_int) return y == 0 ? 0 : (double)((int64_t)x / (int64_t)y);
        return x / y;
    }
}

/* Both operands constant: compute the result at load time. */
static lg_status fold(importer *im, const oval *a, const oval *b, oval *y) {
    int nd;
    int64_t dims[LG_MAX_NDIMS], idx[LG_MAX_NDIMS] = {0};
    if (!broadcast(a, b, &nd, dims))
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "operands do not broadcast");
    bool is_int = a->i && b->i;
    LG_ONNX_CHECK(lg__onnx_const_alloc(im, y, nd, dims, is_int));
    for (int64_t k = 0; k < y->n; k++) {
        int64_t oa = bcast_offset(a, nd, idx), ob = bcast_offset(b, nd, idx);
        if (is_int) {
            int64_t x = a->i[oa], z = b->i[ob], r;
            switch (im->node->op_type[0]) {
            case 'A':
                if (__builtin_add_overflow(x, z, &r)) r = 0;
                break;
            case 'S':
                if (__builtin_sub_overflow(x, z, &r)) r = 0;
                break;
            case 'M':
                if (__builtin_mul_overflow(x, z, &r)) r = 0;
                break;
            default:
                r = z == 0 || (x == INT64_MIN && z == -1) ? 0 : x / z;
            }
            y->i[k] = r;
        } else {
            y->f[k] = (float)apply(im->node->op_type, lg__onnx_const_f(a, oa),
                                   lg__onnx_const_f(b, ob), false);
        }
        for (int d = nd - 1; d >= 0 && ++idx[d] == dims[d]; d--) idx[d] = 0;
    }
    return LG_OK;
}

/* A constant operand as a graph constant of rank nd (ones prepended). */
static lg_status const_operand(importer *im, oval *c, int nd) {
    if (c->nd < nd && c->v != LG_NO_VALUE)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "constant '%s' used at two ranks", c->name);
    if (c->nd < nd) {
        int sh = nd - c->nd;
        memmove(c->dims + sh, c->dims, (size_t)c->nd * sizeof *c->dims);
        for (int d = 0; d < sh; d++) c->dims[d] = 1;
        c->nd = nd;
    }
    return lg__onnx_tensor(im, c);
}

lg_status lg__onnx_op_binary(importer *im) {
    oval *a, *b, *y;
    LG_ONNX_CHECK(lg__onnx_input(im, 0, false, &a));
    LG_ONNX_CHECK(lg__onnx_input(im, 1, false, &b));
    const char *op = im->node->op_type;
    bool commutes = op[0] == 'A' || op[0] == 'M';
    LG_ONNX_CHECK(lg__onnx_output(im, 0, &y));
    if (a->kind == OV_CONST && b->kind == OV_CONST) return fold(im, a, b, y);
    /* x * sigmoid(x) and x * hardsigmoid(x) (alpha 1/6, beta 1/2), either
     * order: one swish or hardswish node. */
    if (op[0] == 'M') {
        for (int k = 0; k < 2; k++) {
            oval *s = k ? a : b, *x = k ? b : a;
            if (s->kind != OV_LAZY || s->lz != LZ_GATE || s->base != x || s->uses != 1) continue;
            bool swish = s->alg == LG_ELTWISE_LOGISTIC;
            bool hswish = s->alg == LG_ELTWISE_HARDSIGMOID && fabsf(s->alpha - 1.0f / 6) < 1e-7f &&
                          s->beta == 0.5f;
            if (swish || hswish) {
                lg_eltwise_alg alg = swish ? LG_ELTWISE_SWISH : LG_ELTWISE_HARDSWISH;
                float al = swish ? 1.0f : 1.0f / 6, be = swish ? 0 : 0.5f;
                if (lg_graph_add_eltwise(im->g, x->v, alg, al, be, &y->v) != LG_OK)
                    return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "%s", lg_last_error());
                y->kind = OV_TENSOR;
                y->nd = x->nd;
                memcpy(y->dims, x->dims, sizeof y->dims);
                s->kind = OV_UNSET; /* its only reader was this node */
                return LG_OK;
            }
        }
    }
    int nd;
    int64_t dims[LG_MAX_NDIMS];
    if (!broadcast(a, b, &nd, dims))
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "operands do not broadcast");
    /* lgraph's binary broadcasts src1 into src0's shape: the operand of the
     * output's shape goes first (swapped only where the op commutes). */
    bool a_full = a->nd == nd && memcmp(a->dims, dims, (size_t)nd * sizeof *dims) == 0;
    bool b_full = b->nd == nd && memcmp(b->dims, dims, (size_t)nd * sizeof *dims) == 0;
    if (!a_full && !(b_full && commutes))
        return lg__onnx_fail(im, LG_UNIMPLEMENTED,
                             "the first operand is broadcast (only the second may be, for %s)", op);
    if (!a_full) {
        oval *t = a;
        a = b;
        b = t;
    }
    if (a->kind == OV_CONST) LG_ONNX_CHECK(const_operand(im, a, nd));
    if (b->kind == OV_CONST) LG_ONNX_CHECK(const_operand(im, b, nd));
    LG_ONNX_CHECK(lg__onnx_tensor(im, a));
    LG_ONNX_CHECK(lg__onnx_tensor(im, b));
    if (b->nd != nd)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "operands of ranks %d and %d", a->nd, b->nd);
    lg_binary_alg alg = op[0] == 'A'   ? LG_BINARY_ADD
                        : op[0] == 'S' ? LG_BINARY_SUB
                        : op[0] == 'M' ? LG_BINARY_MUL
                                       : LG_BINARY_DIV;
    if (lg_graph_add_binary(im->g, alg, a->v, b->v, &y->v) != LG_OK)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "%s", lg_last_error());
    y->kind = OV_TENSOR;
    y->nd = nd;
    memcpy(y->dims, dims, sizeof y->dims);
    return LG_OK;
}

/* PRelu(X, slope): y = x > 0 ? x : slope * x, slope broadcast to X's shape
 * (ONNX's unidirectional broadcast: numpy, right-aligned). One constant
 * slope is a relu with that alpha; any other is lowered onto eltwise and
 * binary nodes as r = relu(x), y = r + slope * (x - r), which is exact: for
 * x > 0, x - r is 0 and y is x; otherwise r is a zero, x - r is x and y is
 * slope * x. */
lg_status lg__onnx_op_prelu(importer *im) {
    oval *x, *s, *y;
    LG_ONNX_CHECK(lg__onnx_input(im, 0, false, &x));
    LG_ONNX_CHECK(lg__onnx_input(im, 1, false, &s));
    if (s->kind == OV_CONST && s->n == 1)
        return eltwise(im, LG_ELTWISE_RELU, lg__onnx_const_f(s, 0), 0);
    LG_ONNX_CHECK(lg__onnx_output(im, 0, &y));
    int nd;
    int64_t dims[LG_MAX_NDIMS];
    if (!broadcast(x, s, &nd, dims) || nd != x->nd ||
        memcmp(dims, x->dims, (size_t)nd * sizeof *dims) != 0)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "slope does not broadcast to X's shape");
    if (s->kind == OV_CONST) LG_ONNX_CHECK(const_operand(im, s, nd));
    LG_ONNX_CHECK(lg__onnx_tensor(im, x));
    LG_ONNX_CHECK(lg__onnx_tensor(im, s));
    if (s->nd != nd)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "slope of rank %d for X of rank %d", s->nd, nd);
    lg_value r, d, m;
    lg_graph *g = im->g;
    if (lg_graph_add_eltwise(g, x->v, LG_ELTWISE_RELU, 0, 0, &r) != LG_OK ||
        lg_graph_add_binary(g, LG_BINARY_SUB, x->v, r, &d) != LG_OK ||
        lg_graph_add_binary(g, LG_BINARY_MUL, d, s->v, &m) != LG_OK ||
        lg_graph_add_binary(g, LG_BINARY_ADD, r, m, &y->v) != LG_OK)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "%s", lg_last_error());
    y->kind = OV_TENSOR;
    y->nd = nd;
    memcpy(y->dims, dims, sizeof y->dims);
    return LG_OK;
}
