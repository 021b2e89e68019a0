/* Pooling, softmax and the reductions that are pooling: MaxPool and
 * AveragePool (kernel_shape, strides, pads, dilations, auto_pad, ceil_mode
 * as extra right padding, count_include_pad), GlobalAveragePool and
 * GlobalMaxPool (a kernel over the whole spatial extent), ReduceMean over
 * exactly the spatial axes (a global average pool; with keepdims 0 its
 * N x C x 1... result is reshaped to N x C), Softmax and LogSoftmax (opset 13:
 * one axis; below 13 the input is coerced to 2D at `axis`, which is one axis
 * when at most one of the coerced dims exceeds 1). */
#include "onnx_int.h"

#include <string.h>

lg_status lg__onnx_op_pool(importer *im);
lg_status lg__onnx_op_global_pool(importer *im);
lg_status lg__onnx_op_reduce_mean(importer *im);
lg_status lg__onnx_op_softmax(importer *im);

/* Emit a pool node reading x (a tensor of rank 3-5) as output 0. */
static lg_status emit_pool(importer *im, oval *x, const lg_pool_params *p) {
    oval *y;
    LG_ONNX_CHECK(lg__onnx_output(im, 0, &y));
    if (lg_graph_add_pool(im->g, x->v, p, &y->v) != LG_OK)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "%s", lg_last_error());
    int sp = x->nd - 2;
    y->kind = OV_TENSOR;
    y->nd = x->nd;
    memcpy(y->dims, x->dims, sizeof y->dims);
    for (int d = 0; d < sp; d++) {
        int64_t ext = (p->kernel[d] - 1) * (p->dilates[d] + 1) + 1;
        y->dims[2 + d] = (x->dims[2 + d] + p->pad_l[d] + p->pad_r[d] - ext) / p->strides[d] + 1;
    }
    return LG_OK;
}

/* The input as a tensor of rank 3 to 5 (N x C x spatial). */
static lg_status spatial_input(importer *im, oval **x) {
    LG_ONNX_CHECK(lg__onnx_input(im, 0, false, x));
    LG_ONNX_CHECK(lg__onnx_tensor(im, *x));
    if ((*x)->nd < 3 || (*x)->nd > 5)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "input of rank %d (pooling takes 3 to 5)",
                             (*x)->nd);
    return LG_OK;
}

/* Spatial dim d of MaxPool / AveragePool: pads from auto_pad or pads, then
 * ceil_mode's extra right padding *ceil, added to *pr (the last window must
 * start inside the input or its left padding, as PyTorch and ONNX Runtime
 * count it). */
static lg_status pool_dim(importer *im, const char *autopad, bool ceil_mode, int64_t in,
                          int64_t ext, int64_t s, int64_t *pl, int64_t *pr, int64_t *ceil) {
    *ceil = 0;
    if (strcmp(autopad, "SAME_UPPER") == 0 || strcmp(autopad, "SAME_LOWER") == 0) {
        int64_t out = (in + s - 1) / s, total = (out - 1) * s + ext - in;
        if (total < 0) total = 0;
        *pl = autopad[5] == 'U' ? total / 2 : total - total / 2;
        *pr = total - *pl;
        return LG_OK;
    }
    if (strcmp(autopad, "VALID") == 0) {
        *pl = *pr = 0;
    } else if (strcmp(autopad, "NOTSET") != 0) {
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "auto_pad '%s'", autopad);
    }
    int64_t span = in + *pl + *pr - ext;
    if (span < 0)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT,
                             "kernel spans %lld, wider than the padded input %lld", (long long)ext,
                             (long long)(in + *pl + *pr));
    if (ceil_mode && span % s) {
        int64_t out = (span + s - 1) / s + 1;
        if ((out - 1) * s >= in + *pl) out--;
        int64_t need = (out - 1) * s + ext - in - *pl;
        if (need > *pr) {
            *ceil = need - *pr;
            *pr = need;
        }
    }
    return LG_OK;
}

lg_status lg__onnx_op_pool(importer *im) {
    bool is_max = strcmp(im->node->op_type, "MaxPool") == 0;
    oval *x;
    LG_ONNX_CHECK(lg__onnx_input(im, 0, false, &x));
    /* A zero Pad before the pool (PyTorch exports AvgPool2d's
     * count_include_pad padding so): nothing when it pads nothing; else an
     * average including padding over the Pad's and the pool's own pads. */
    int64_t zpad[6] = {0};
    bool padded = false;
    if (x->kind == OV_LAZY && x->lz == LZ_PAD) {
        memcpy(zpad, x->pads, sizeof zpad);
        for (int k = 0; k < 6; k++) padded = padded || zpad[k] != 0;
        x = x->base;
    }
    LG_ONNX_CHECK(lg__onnx_tensor(im, x));
    if (x->nd < 3 || x->nd > 5)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "input of rank %d (pooling takes 3 to 5)",
                             x->nd);
    if (im->node->n_output > 1)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "MaxPool's Indices output");
    int sp = x->nd - 2, n;
    int64_t ks[3], strides[3] = {1, 1, 1}, dil[3] = {1, 1, 1}, pads[6] = {0}, ceil_mode, cip;
    char autopad[32];
    LG_ONNX_CHECK(lg__onnx_attr_ints(im, "kernel_shape", 3, ks, &n));
    if (n != sp)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT,
                             "kernel_shape has %d values for %d spatial dims", n, sp);
    LG_ONNX_CHECK(lg__onnx_attr_ints(im, "strides", 3, strides, &n));
    if (n >= 0 && n != sp)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "strides has %d values", n);
    LG_ONNX_CHECK(lg__onnx_attr_ints(im, "dilations", 3, dil, &n));
    if (n >= 0 && n != sp)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "dilations has %d values", n);
    LG_ONNX_CHECK(lg__onnx_attr_ints(im, "pads", 6, pads, &n));
    if (n >= 0 && n != 2 * sp)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "pads has %d values", n);
    LG_ONNX_CHECK(lg__onnx_attr_int(im, "ceil_mode", 0, &ceil_mode));
    LG_ONNX_CHECK(lg__onnx_attr_int(im, "count_include_pad", 0, &cip));
    LG_ONNX_CHECK(lg__onnx_attr_string(im, "auto_pad", "NOTSET", autopad, sizeof autopad));
    int64_t order;
    LG_ONNX_CHECK(lg__onnx_attr_int(im, "storage_order", 0, &order));
    if (order != 0)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "storage_order %lld", (long long)order);
    lg_pool_params p;
    memset(&p, 0, sizeof p);
    p.alg = is_max ? LG_POOL_MAX : cip ? LG_POOL_AVG_INCLUDE_PADDING : LG_POOL_AVG_EXCLUDE_PADDING;
    if (padded) {
        bool own = false;
        for (int k = 0; k < 2 * sp; k++) own = own || pads[k] != 0;
        if (is_max || (own && !cip) || strcmp(autopad, "NOTSET") != 0)
            return lg__onnx_fail(im, LG_UNIMPLEMENTED,
                                 "a zero Pad before %s (zeros that count as input)",
                                 is_max ? "a max pool" : "an average pool with its own padding");
        p.alg = LG_POOL_AVG_INCLUDE_PADDING;
        for (int d = 0; d < sp; d++) {
            pads[d] += zpad[d];
            pads[sp + d] += zpad[3 + d];
        }
    }
    for (int d = 0; d < sp; d++) {
        if (ks[d] < 1 || strides[d] < 1 || dil[d] < 1 || pads[d] < 0 || pads[sp + d] < 0)
            return lg__onnx_fail(im, LG_INVALID_ARGUMENT,
                                 "kernel, stride, dilation or pads of spatial dim %d out of range",
                                 d);
        int64_t pl = pads[d], pr = pads[sp + d], ext = (ks[d] - 1) * dil[d] + 1;
        int64_t ceil;
        LG_ONNX_CHECK(pool_dim(im, autopad, ceil_mode != 0, x->dims[2 + d], ext, strides[d], &pl,
                               &pr, &ceil));
        /* ceil_mode's extra window: PyTorch (and ONNX) divide it by the part
         * of the kernel inside the input and the given padding, so the
         * padding that ceil_mode adds is not counted. */
        if (p.alg == LG_POOL_AVG_INCLUDE_PADDING) p.pad_r_ceil[d] = ceil;
        p.kernel[d] = ks[d];
        p.strides[d] = strides[d];
        p.dilates[d] = dil[d] - 1;
        p.pad_l[d] = pl;
        p.pad_r[d] = pr;
    }
    return emit_pool(im, x, &p);
}

/* A kernel over the whole spatial extent of x. */
static lg_pool_params global_params(const oval *x, lg_pool_alg alg) {
    lg_pool_params p;
    memset(&p, 0, sizeof p);
    p.alg = alg;
    for (int d = 0; d < x->nd - 2; d++) {
        p.kernel[d] = x->dims[2 + d];
        p.strides[d] = 1;
    }
    return p;
}

lg_status lg__onnx_op_global_pool(importer *im) {
    oval *x;
    LG_ONNX_CHECK(spatial_input(im, &x));
    bool is_max = strcmp(im->node->op_type, "GlobalMaxPool") == 0;
    lg_pool_params p = global_params(x, is_max ? LG_POOL_MAX : LG_POOL_AVG_EXCLUDE_PADDING);
    return emit_pool(im, x, &p);
}

lg_status lg__onnx_op_reduce_mean(importer *im) {
    oval *x, *ax = NULL;
    LG_ONNX_CHECK(lg__onnx_input(im, 0, false, &x));
    int64_t axes[LG_MAX_NDIMS], keepdims;
    int n = -1;
    if (im->node->n_input > 1) {
        LG_ONNX_CHECK(lg__onnx_input(im, 1, true, &ax));
        if (ax && (ax->kind != OV_CONST || ax->n > LG_MAX_NDIMS))
            return lg__onnx_fail(im, LG_UNIMPLEMENTED, "axes must be a constant");
        if (ax) {
            n = (int)ax->n;
            for (int k = 0; k < n; k++) axes[k] = lg__onnx_const_i(ax, k);
        }
    } else {
        LG_ONNX_CHECK(lg__onnx_attr_ints(im, "axes", LG_MAX_NDIMS, axes, &n));
    }
    LG_ONNX_CHECK(lg__onnx_attr_int(im, "keepdims", 1, &keepdims));
    int nd = x->nd;
    /* The axes must be exactly 2 .. nd-1 (in any order, negative allowed). */
    bool seen[LG_MAX_NDIMS] = {false}, ok = nd >= 3 && nd <= 5 && n == nd - 2;
    for (int k = 0; ok && k < n; k++) {
        int64_t a = axes[k] < 0 ? axes[k] + nd : axes[k];
        ok = a >= 2 && a < nd && !seen[a];
        if (ok) seen[a] = true;
    }
    if (!ok)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED,
                             "ReduceMean over axes other than exactly the spatial ones (2..%d) of "
                             "a rank-3 to 5 input",
                             nd - 1);
    LG_ONNX_CHECK(lg__onnx_tensor(im, x));
    lg_pool_params p = global_params(x, LG_POOL_AVG_EXCLUDE_PADDING);
    LG_ONNX_CHECK(emit_pool(im, x, &p));
    if (keepdims) return LG_OK;
    /* keepdims 0: the N x C x 1 ... result seen as N x C (a view). */
    oval *y = lg__onnx_get(im, im->node->output[0]); /* emit_pool's result */
    int64_t dims[2] = {y->dims[0], y->dims[1]};
    if (lg_graph_add_reshape(im->g, y->v, 2, dims, &y->v) != LG_OK)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "%s", lg_last_error());
    y->nd = 2;
    return LG_OK;
}

lg_status lg__onnx_op_softmax(importer *im) {
    oval *x, *y;
    LG_ONNX_CHECK(lg__onnx_input(im, 0, false, &x));
    LG_ONNX_CHECK(lg__onnx_tensor(im, x));
    bool log_ = strcmp(im->node->op_type, "LogSoftmax") == 0;
    bool coerce = im->opset < 13;
    int64_t axis;
    int nd = x->nd;
    LG_ONNX_CHECK(lg__onnx_attr_int(im, "axis", coerce ? 1 : -1, &axis));
    if (axis < -nd || axis >= nd)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "axis %lld out of range for rank %d",
                             (long long)axis, nd);
    if (axis < 0) axis += nd;
    if (coerce) {
        /* Softmax over the flattened dims axis..nd-1: one axis when at most
         * one of them exceeds 1. */
        int big = -1, nbig = 0;
        for (int d = (int)axis; d < nd; d++)
            if (x->dims[d] > 1) {
                big = d;
                nbig++;
            }
        if (nbig > 1)
            return lg__onnx_fail(im, LG_UNIMPLEMENTED,
                                 "opset %lld softmax over the %d dims from axis %lld flattened",
                                 (long long)im->opset, nd - (int)axis, (long long)axis);
        if (big >= 0) axis = big;
    }
    LG_ONNX_CHECK(lg__onnx_output(im, 0, &y));
    if (lg_graph_add_softmax(im->g, x->v, log_ ? LG_LOGSOFTMAX : LG_SOFTMAX, (int)axis, &y->v) !=
        LG_OK)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "%s", lg_last_error());
    y->kind = OV_TENSOR;
    y->nd = nd;
    memcpy(y->dims, x->dims, sizeof y->dims);
    return LG_OK;
}
