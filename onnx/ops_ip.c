/* Fully connected layers and the reshapes around them: Gemm and MatMul with
 * constant weights become inner-product nodes (weights OC x K, the bias
 * from Gemm's C), Flatten and the Reshape of a tensor become reshape nodes
 * (a flatten read only by inner products then costs nothing: the compiler
 * folds it, see lg_graph_add_reshape). */
#include "onnx_int.h"

#include <stdlib.h>
#include <string.h>

lg_status lg__onnx_op_gemm(importer *im);
lg_status lg__onnx_op_matmul(importer *im);
lg_status lg__onnx_op_flatten(importer *im);

lg_status lg__onnx_reshape_tensor(importer *im, oval *x, oval *y, int nd, const int64_t *dims) {
    LG_ONNX_CHECK(lg__onnx_tensor(im, x));
    if (lg_graph_add_reshape(im->g, x->v, nd, dims, &y->v) != LG_OK)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "%s", lg_last_error());
    y->kind = OV_TENSOR;
    y->nd = nd;
    memset(y->dims, 0, sizeof y->dims);
    memcpy(y->dims, dims, (size_t)nd * sizeof *dims);
    return LG_OK;
}

lg_status lg__onnx_op_flatten(importer *im) {
    oval *x, *y;
    int64_t a;
    LG_ONNX_CHECK(lg__onnx_input(im, 0, false, &x));
    LG_ONNX_CHECK(lg__onnx_attr_int(im, "axis", 1, &a));
    if (a < 0) a += x->nd;
    if (a < 0 || a > x->nd)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "axis %lld for a %d-dim input", (long long)a,
                             x->nd);
    int64_t dims[2] = {1, 1};
    for (int d = 0; d < x->nd; d++) dims[d >= a] *= x->dims[d];
    LG_ONNX_CHECK(lg__onnx_output(im, 0, &y));
    if (x->kind == OV_CONST) {
        LG_ONNX_CHECK(lg__onnx_const_alloc(im, y, 2, dims, x->i != NULL));
        if (x->i)
            memcpy(y->i, x->i, (size_t)x->n * sizeof *x->i);
        else
            memcpy(y->f, x->f, (size_t)x->n * sizeof *x->f);
        return LG_OK;
    }
    if (x->nd == 2 && x->dims[0] == dims[0]) { /* already flat */
        LG_ONNX_CHECK(lg__onnx_tensor(im, x));
        y->kind = OV_TENSOR;
        y->v = x->v;
        y->nd = 2;
        memcpy(y->dims, x->dims, sizeof y->dims);
        return LG_OK;
    }
    return lg__onnx_reshape_tensor(im, x, y, 2, dims);
}

/* y = x (N x K tensor) w^T + b as an inner-product node; w is OC x K row
 * major (taken over), b OC values or NULL (taken over). */
static lg_status emit_ip(importer *im, oval *x, oval *y, int64_t oc, int64_t k, float *w,
                         float *b) {
    lg_value wv, bv = LG_NO_VALUE;
    int64_t wd[2] = {oc, k};
    lg_status st = lg__onnx_add_constant(im, y->name, "#weights", 2, wd, w, &wv);
    if (st == LG_OK && b) st = lg__onnx_add_constant(im, y->name, "#bias", 1, &oc, b, &bv);
    free(w);
    free(b);
    LG_ONNX_CHECK(st);
    if (lg_graph_add_inner_product(im->g, x->v, wv, bv, &y->v) != LG_OK)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "%s", lg_last_error());
    y->kind = OV_TENSOR;
    y->nd = 2;
    memset(y->dims, 0, sizeof y->dims);
    y->dims[0] = x->dims[0];
    y->dims[1] = oc;
    return LG_OK;
}

/* Weights OC x K from the constant B (K x OC, or OC x K when trans), times
 * alpha; NULL when out of memory. */
static float *weights_of(const oval *b, bool trans, float alpha, int64_t *oc, int64_t *k) {
    *oc = trans ? b->dims[0] : b->dims[1];
    *k = trans ? b->dims[1] : b->dims[0];
    float *w = lg__onnx_big_alloc((size_t)(*oc * *k) * sizeof *w + 1);
    if (!w) return NULL;
    for (int64_t o = 0; o < *oc; o++)
        for (int64_t j = 0; j < *k; j++)
            w[o * *k + j] = alpha * lg__onnx_const_f(b, trans ? o * *k + j : j * *oc + o);
    return w;
}

lg_status lg__onnx_op_gemm(importer *im) {
    oval *a, *b, *c, *y;
    LG_ONNX_CHECK(lg__onnx_input(im, 0, false, &a));
    LG_ONNX_CHECK(lg__onnx_input(im, 1, false, &b));
    LG_ONNX_CHECK(lg__onnx_input(im, 2, true, &c));
    float alpha, beta;
    int64_t ta, tb;
    LG_ONNX_CHECK(lg__onnx_attr_float(im, "alpha", 1.0f, &alpha));
    LG_ONNX_CHECK(lg__onnx_attr_float(im, "beta", 1.0f, &beta));
    LG_ONNX_CHECK(lg__onnx_attr_int(im, "transA", 0, &ta));
    LG_ONNX_CHECK(lg__onnx_attr_int(im, "transB", 0, &tb));
    if (ta)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED,
                             "transA = 1 (lgraph's inner product reads A as N x K)");
    if (a->kind == OV_CONST)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "A '%s' is a constant (a tensor is needed)",
                             a->name);
    if (a->nd != 2)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "A '%s' has %d dims (Gemm takes 2)", a->name,
                             a->nd);
    if (b->kind != OV_CONST || b->nd != 2 || !b->f)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED,
                             "B '%s' must be a 2D float constant (the weights)", b->name);
    int64_t oc, k;
    if ((tb ? b->dims[1] : b->dims[0]) != a->dims[1])
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT,
                             "A has %lld columns, B (transB %lld) %lld rows", (long long)a->dims[1],
                             (long long)tb, (long long)(tb ? b->dims[1] : b->dims[0]));
    /* C: a constant broadcast along the rows (1, OC, 1 x OC or 1 x 1). */
    float *bias = NULL;
    if (c && beta != 0.0f) {
        int64_t cn = tb ? b->dims[0] : b->dims[1];
        bool rowwise = c->kind == OV_CONST && c->f &&
                       ((c->nd <= 1 && (c->n == cn || c->n == 1)) ||
                        (c->nd == 2 && c->dims[0] == 1 && (c->dims[1] == cn || c->dims[1] == 1)));
        if (!rowwise)
            return lg__onnx_fail(im, LG_UNIMPLEMENTED,
                                 "C '%s' must be a constant of OC (or 1) values broadcast along "
                                 "the rows (a bias)",
                                 c->name);
        bias = malloc((size_t)cn * sizeof *bias + 1);
        if (!bias) return lg__onnx_fail(im, LG_OUT_OF_MEMORY, "out of memory");
        for (int64_t o = 0; o < cn; o++) bias[o] = beta * lg__onnx_const_f(c, c->n == 1 ? 0 : o);
    }
    float *w = weights_of(b, tb != 0, alpha, &oc, &k);
    if (!w) {
        free(bias);
        return lg__onnx_fail(im, LG_OUT_OF_MEMORY, "out of memory");
    }
    lg_status st = lg__onnx_tensor(im, a);
    if (st != LG_OK) {
        free(w);
        free(bias);
        return st;
    }
    st = lg__onnx_output(im, 0, &y);
    if (st != LG_OK) {
        free(w);
        free(bias);
        return st;
    }
    return emit_ip(im, a, y, oc, k, w, bias);
}

/* MatMul of a tensor [..., K] by a constant K x OC: an inner product over
 * the rows (with reshapes around it when the tensor has more than 2 dims). */
lg_status lg__onnx_op_matmul(importer *im) {
    oval *a, *b, *y = NULL;
    LG_ONNX_CHECK(lg__onnx_input(im, 0, false, &a));
    LG_ONNX_CHECK(lg__onnx_input(im, 1, false, &b));
    if (a->kind == OV_CONST || b->kind != OV_CONST || b->nd != 2 || !b->f)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED,
                             "MatMul is taken for a tensor times a 2D float constant only "
                             "('%s' x '%s')",
                             a->name, b->name);
    if (a->nd < 2 || a->dims[a->nd - 1] != b->dims[0])
        return lg__onnx_fail(
            im, LG_INVALID_ARGUMENT, "'%s' (%d dims, last %lld) x '%s' (%lld rows)", a->name, a->nd,
            (long long)(a->nd ? a->dims[a->nd - 1] : 0), b->name, (long long)b->dims[0]);
    int64_t oc, k;
    float *w = weights_of(b, false, 1.0f, &oc, &k);
    if (!w) return lg__onnx_fail(im, LG_OUT_OF_MEMORY, "out of memory");
    lg_status st = lg__onnx_output(im, 0, &y);
    oval rows = {.name = y ? y->name : "matmul", .kind = OV_UNSET}, *src = a;
    int64_t rd[2] = {1, k};
    for (int d = 0; d < a->nd - 1; d++) rd[0] *= a->dims[d];
    if (st == LG_OK && a->nd > 2) {
        st = lg__onnx_reshape_tensor(im, a, &rows, 2, rd);
        src = &rows;
    } else if (st == LG_OK) {
        st = lg__onnx_tensor(im, a);
    }
    if (st != LG_OK) {
        free(w);
        return st;
    }
    if (a->nd == 2) return emit_ip(im, src, y, oc, k, w, NULL);
    oval flat = {.name = y->name, .kind = OV_UNSET};
    LG_ONNX_CHECK(emit_ip(im, src, &flat, oc, k, w, NULL));
    int64_t od[LG_MAX_NDIMS];
    memcpy(od, a->dims, sizeof od);
    od[a->nd - 1] = oc;
    return lg__onnx_reshape_tensor(im, &flat, y, a->nd, od);
}
