/* Concat, Split and Slice of graph tensors. Concat and Slice of constants
 * stay host computations (ops_shape.c: shape arithmetic around Reshape);
 * the handlers here take every other case: Concat becomes a concat node,
 * Split one slice node per output (sizes from opset 13's 'split' input or
 * the older attribute, equal parts when absent), Slice one slice node per
 * sliced axis (steps of 1 only; ShuffleNetV2's x.chunk(2, dim=1) exports as
 * Split or as two Slices). */
#include "onnx_int.h"

#include <string.h>

lg_status lg__onnx_op_concat(importer *im);
lg_status lg__onnx_op_slice(importer *im);
lg_status lg__onnx_op_concat_any(importer *im);
lg_status lg__onnx_op_slice_any(importer *im);
lg_status lg__onnx_op_split(importer *im);

static int norm_axis(int64_t axis, int nd) {
    if (axis < 0) axis += nd;
    return axis >= 0 && axis < nd ? (int)axis : -1;
}

/* y: a tensor of x's rank and dims but `len` on `axis`, value v. */
static void set_tensor(oval *y, const oval *x, int axis, int64_t len, lg_value v) {
    y->kind = OV_TENSOR;
    y->v = v;
    y->nd = x->nd;
    memcpy(y->dims, x->dims, sizeof y->dims);
    y->dims[axis] = len;
}

lg_status lg__onnx_op_concat_any(importer *im) {
    int n = (int)im->node->n_input;
    bool all_const = true;
    for (int k = 0; k < n; k++) {
        oval *x;
        LG_ONNX_CHECK(lg__onnx_input(im, k, false, &x));
        all_const = all_const && x->kind == OV_CONST;
    }
    if (all_const) return lg__onnx_op_concat(im);
    if (n > LG_CONCAT_MAX_SRCS)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "a concat of %d inputs (at most %d)", n,
                             LG_CONCAT_MAX_SRCS);
    int64_t a;
    LG_ONNX_CHECK(lg__onnx_attr_int(im, "axis", 0, &a));
    lg_value vs[LG_CONCAT_MAX_SRCS];
    oval *first = NULL;
    int64_t total = 0;
    int axis = -1;
    for (int k = 0; k < n; k++) {
        oval *x;
        LG_ONNX_CHECK(lg__onnx_input(im, k, false, &x));
        LG_ONNX_CHECK(lg__onnx_tensor(im, x));
        if (!first) {
            first = x;
            axis = norm_axis(a, x->nd);
            if (axis < 0)
                return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "axis %lld for %d dims", (long long)a,
                                     x->nd);
        }
        if (x->nd != first->nd)
            return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "input %d has %d dims, input 0 %d", k,
                                 x->nd, first->nd);
        vs[k] = x->v;
        total += x->dims[axis];
    }
    oval *y;
    LG_ONNX_CHECK(lg__onnx_output(im, 0, &y));
    lg_value out;
    if (lg_graph_add_concat(im->g, axis, n, vs, &out) != LG_OK)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "%s", lg_last_error());
    set_tensor(y, first, axis, total, out);
    return LG_OK;
}

/* The split sizes: opset 13's input 1, else the attribute, else equal
 * parts (the last one smaller when the dim does not divide, as opset 18). */
static lg_status split_sizes(importer *im, int64_t dim, int n, int64_t *sizes) {
    oval *s = NULL;
    if (im->node->n_input > 1) LG_ONNX_CHECK(lg__onnx_input(im, 1, true, &s));
    int got = 0;
    if (s) {
        if (s->kind != OV_CONST)
            return lg__onnx_fail(im, LG_UNIMPLEMENTED, "split sizes '%s' are not a constant",
                                 s->name);
        if (s->n != n)
            return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "%lld split sizes for %d outputs",
                                 (long long)s->n, n);
        for (int k = 0; k < n; k++) sizes[k] = lg__onnx_const_i(s, k);
        got = n;
    } else {
        LG_ONNX_CHECK(lg__onnx_attr_ints(im, "split", LG_CONCAT_MAX_SRCS, sizes, &got));
        if (got && got != n)
            return lg__onnx_fail(im, LG_INVALID_ARGUMENT,
                                 "attribute split has %d sizes for %d "
                                 "outputs",
                                 got, n);
    }
    if (!got) {
        int64_t part = (dim + n - 1) / n;
        for (int k = 0; k < n; k++) sizes[k] = k < n - 1 ? part : dim - part * (n - 1);
    }
    return LG_OK;
}

lg_status lg__onnx_op_split(importer *im) {
    oval *x;
    LG_ONNX_CHECK(lg__onnx_input(im, 0, false, &x));
    int64_t a;
    LG_ONNX_CHECK(lg__onnx_attr_int(im, "axis", 0, &a));
    int axis = norm_axis(a, x->nd), n = (int)im->node->n_output;
    if (axis < 0)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "axis %lld for %d dims", (long long)a, x->nd);
    if (n < 1 || n > LG_CONCAT_MAX_SRCS)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "a split into %d outputs", n);
    int64_t sizes[LG_CONCAT_MAX_SRCS];
    lg_value outs[LG_CONCAT_MAX_SRCS];
    LG_ONNX_CHECK(split_sizes(im, x->dims[axis], n, sizes));
    LG_ONNX_CHECK(lg__onnx_tensor(im, x));
    if (lg_graph_add_split(im->g, x->v, axis, n, sizes, outs) != LG_OK)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "%s", lg_last_error());
    for (int k = 0; k < n; k++) {
        oval *y;
        LG_ONNX_CHECK(lg__onnx_output(im, k, &y));
        set_tensor(y, x, axis, sizes[k], outs[k]);
    }
    return LG_OK;
}

lg_status lg__onnx_op_slice_any(importer *im) {
    oval *x, *in[4];
    LG_ONNX_CHECK(lg__onnx_input(im, 0, false, &x));
    if (x->kind == OV_CONST) return lg__onnx_op_slice(im);
    for (int k = 0; k < 4; k++) {
        LG_ONNX_CHECK(lg__onnx_input(im, 1 + k, k >= 2, &in[k]));
        if (in[k] && in[k]->kind != OV_CONST)
            return lg__onnx_fail(im, LG_UNIMPLEMENTED,
                                 "starts, ends, axes and steps must be constants ('%s' is not)",
                                 in[k]->name);
    }
    int64_t n = in[0]->n;
    if (in[1]->n != n || (in[2] && in[2]->n != n) || (in[3] && in[3]->n != n) || n > x->nd)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "starts, ends, axes, steps differ in length");
    LG_ONNX_CHECK(lg__onnx_tensor(im, x));
    oval cur = *x;
    for (int64_t k = 0; k < n; k++) {
        int a = norm_axis(in[2] ? lg__onnx_const_i(in[2], k) : k, x->nd);
        if (a < 0) return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "axis entry %lld", (long long)k);
        if (in[3] && lg__onnx_const_i(in[3], k) != 1)
            return lg__onnx_fail(im, LG_UNIMPLEMENTED, "a slice of a tensor with step %lld",
                                 (long long)lg__onnx_const_i(in[3], k));
        int64_t len = x->dims[a], s = lg__onnx_const_i(in[0], k), e = lg__onnx_const_i(in[1], k);
        if (s < 0) s += len;
        if (e < 0) e += len;
        s = s < 0 ? 0 : s > len ? len : s;
        e = e < 0 ? 0 : e > len ? len : e;
        if (e <= s) return lg__onnx_fail(im, LG_UNIMPLEMENTED, "an empty slice on axis %d", a);
        if (s == 0 && e == len) continue;
        lg_value v;
        if (lg_graph_add_slice(im->g, cur.v, a, s, e - s, &v) != LG_OK)
            return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "%s", lg_last_error());
        set_tensor(&cur, &cur, a, e - s, v);
    }
    oval *y;
    LG_ONNX_CHECK(lg__onnx_output(im, 0, &y));
    set_tensor(y, &cur, 0, cur.dims[0], cur.v);
    return LG_OK;
}
