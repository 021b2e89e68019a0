/* Shape-only operators, folded at load time when their operands are
 * constants (exporters emit Shape -> Gather -> Unsqueeze -> Concat around
 * every reshape), and the reshapes of tensors: one that keeps the shape is
 * the same value, the Reshape -> Transpose -> Reshape of a channel shuffle
 * becomes one shuffle node, any other a reshape node (ops_ip.c). */
#include "onnx_int.h"

#include <stdlib.h>
#include <string.h>

lg_status lg__onnx_op_constant(importer *im);
lg_status lg__onnx_op_shape(importer *im);
lg_status lg__onnx_op_gather(importer *im);
lg_status lg__onnx_op_unsqueeze(importer *im);
lg_status lg__onnx_op_concat(importer *im);
lg_status lg__onnx_op_cast(importer *im);
lg_status lg__onnx_op_reshape(importer *im);
lg_status lg__onnx_op_transpose(importer *im);
lg_status lg__onnx_op_identity(importer *im);
lg_status lg__onnx_op_slice(importer *im);

/* y = a copy of the constant x with dims (same element count). */
static lg_status copy_const(importer *im, const oval *x, oval *y, int nd, const int64_t *dims) {
    LG_ONNX_CHECK(lg__onnx_const_alloc(im, y, nd, dims, x->i != NULL));
    if (y->n != x->n)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "%lld elements reshaped to %lld",
                             (long long)x->n, (long long)y->n);
    if (x->i)
        memcpy(y->i, x->i, (size_t)x->n * sizeof *x->i);
    else
        memcpy(y->f, x->f, (size_t)x->n * sizeof *x->f);
    return LG_OK;
}

static lg_status need_const(importer *im, const oval *x, const char *what) {
    if (x->kind == OV_CONST) return LG_OK;
    return lg__onnx_fail(im, LG_UNIMPLEMENTED, "%s '%s' is a tensor (only constants here)", what,
                         x->name);
}

lg_status lg__onnx_op_constant(importer *im) {
    oval *y;
    LG_ONNX_CHECK(lg__onnx_output(im, 0, &y));
    const Onnx__AttributeProto *a = lg__onnx_attr(im, "value");
    if (a && a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR && a->t)
        return lg__onnx_const_from_tensor(im, a->t, y);
    if ((a = lg__onnx_attr(im, "value_float")) &&
        a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT) {
        LG_ONNX_CHECK(lg__onnx_const_alloc(im, y, 0, NULL, false));
        y->f[0] = a->f;
        return LG_OK;
    }
    if ((a = lg__onnx_attr(im, "value_int")) &&
        a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT) {
        LG_ONNX_CHECK(lg__onnx_const_alloc(im, y, 0, NULL, true));
        y->i[0] = a->i;
        return LG_OK;
    }
    if ((a = lg__onnx_attr(im, "value_ints")) &&
        a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS) {
        int64_t n = (int64_t)a->n_ints;
        LG_ONNX_CHECK(lg__onnx_const_alloc(im, y, 1, &n, true));
        if (n) memcpy(y->i, a->ints, a->n_ints * sizeof *a->ints); /* no ints: a->ints NULL */
        return LG_OK;
    }
    if ((a = lg__onnx_attr(im, "value_floats")) &&
        a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS) {
        int64_t n = (int64_t)a->n_floats;
        LG_ONNX_CHECK(lg__onnx_const_alloc(im, y, 1, &n, false));
        if (n) memcpy(y->f, a->floats, a->n_floats * sizeof *a->floats);
        return LG_OK;
    }
    return lg__onnx_fail(im, LG_UNIMPLEMENTED, "a Constant without a tensor, float(s) or int(s)");
}

lg_status lg__onnx_op_constant_of_shape(importer *im) {
    oval *sh, *y;
    LG_ONNX_CHECK(lg__onnx_input(im, 0, false, &sh));
    LG_ONNX_CHECK(need_const(im, sh, "shape"));
    if (sh->n > LG_MAX_NDIMS)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "rank %lld", (long long)sh->n);
    int64_t dims[LG_MAX_NDIMS];
    for (int d = 0; d < (int)sh->n; d++) dims[d] = lg__onnx_const_i(sh, d);
    oval fill = {.name = "value"};
    const Onnx__AttributeProto *a = lg__onnx_attr(im, "value");
    if (a && a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR && a->t) {
        LG_ONNX_CHECK(lg__onnx_const_from_tensor(im, a->t, &fill));
        if (fill.n != 1) {
            free(fill.f);
            free(fill.i);
            return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "value holds %lld elements",
                                 (long long)fill.n);
        }
    }
    LG_ONNX_CHECK(lg__onnx_output(im, 0, &y));
    lg_status st = lg__onnx_const_alloc(im, y, (int)sh->n, dims, fill.i != NULL || !fill.f);
    for (int64_t k = 0; st == LG_OK && k < y->n; k++) {
        if (y->i)
            y->i[k] = fill.i ? fill.i[0] : 0;
        else
            y->f[k] = fill.f[0];
    }
    free(fill.f);
    free(fill.i);
    return st;
}

lg_status lg__onnx_op_shape(importer *im) {
    oval *x, *y;
    LG_ONNX_CHECK(lg__onnx_input(im, 0, false, &x));
    LG_ONNX_CHECK(lg__onnx_output(im, 0, &y));
    int64_t start, end, nd = x->nd;
    LG_ONNX_CHECK(lg__onnx_attr_int(im, "start", 0, &start));
    LG_ONNX_CHECK(lg__onnx_attr_int(im, "end", nd, &end));
    if (start < 0) start += nd;
    if (end < 0) end += nd;
    start = start < 0 ? 0 : start > nd ? nd : start;
    end = end < start ? start : end > nd ? nd : end;
    int64_t n = end - start;
    LG_ONNX_CHECK(lg__onnx_const_alloc(im, y, 1, &n, true));
    memcpy(y->i, x->dims + start, (size_t)n * sizeof *y->i);
    return LG_OK;
}

/* An axis attribute or value normalised to 0..nd-1; -1 when out of range. */
static int norm_axis(int64_t axis, int nd) {
    if (axis < 0) axis += nd;
    return axis >= 0 && axis < nd ? (int)axis : -1;
}

lg_status lg__onnx_op_gather(importer *im) {
    oval *x, *ix, *y;
    LG_ONNX_CHECK(lg__onnx_input(im, 0, false, &x));
    LG_ONNX_CHECK(lg__onnx_input(im, 1, false, &ix));
    LG_ONNX_CHECK(need_const(im, x, "data"));
    LG_ONNX_CHECK(need_const(im, ix, "indices"));
    int64_t a;
    LG_ONNX_CHECK(lg__onnx_attr_int(im, "axis", 0, &a));
    int axis = norm_axis(a, x->nd);
    if (axis < 0 || x->nd + ix->nd - 1 > LG_MAX_NDIMS)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "axis %lld out of range", (long long)a);
    int64_t dims[LG_MAX_NDIMS], outer = 1, inner = 1, len = x->dims[axis];
    int nd = 0;
    for (int d = 0; d < axis; d++) outer *= (dims[nd++] = x->dims[d]);
    for (int d = 0; d < ix->nd; d++) dims[nd++] = ix->dims[d];
    for (int d = axis + 1; d < x->nd; d++) inner *= (dims[nd++] = x->dims[d]);
    LG_ONNX_CHECK(lg__onnx_output(im, 0, &y));
    LG_ONNX_CHECK(lg__onnx_const_alloc(im, y, nd, dims, x->i != NULL));
    for (int64_t j = 0; j < ix->n; j++) {
        int64_t at = lg__onnx_const_i(ix, j);
        if (at < -len || at >= len)
            return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "index %lld out of range", (long long)at);
    }
    /* a 0 dim: nothing to copy (an empty `inner` would still cost a step
     * per outer index and index, however many there are) */
    if (y->n == 0) return LG_OK;
    int64_t k = 0;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t j = 0; j < ix->n; j++) {
            int64_t at = lg__onnx_const_i(ix, j);
            if (at < 0) at += len;
            for (int64_t e = 0; e < inner; e++, k++) {
                int64_t from = (o * len + at) * inner + e;
                if (x->i)
                    y->i[k] = x->i[from];
                else
                    y->f[k] = x->f[from];
            }
        }
    return LG_OK;
}

/* Unsqueeze and Squeeze of a constant: the data stays, the dims change. */
lg_status lg__onnx_op_unsqueeze(importer *im) {
    oval *x, *ax, *y;
    bool squeeze = strcmp(im->node->op_type, "Squeeze") == 0;
    LG_ONNX_CHECK(lg__onnx_input(im, 0, false, &x));
    LG_ONNX_CHECK(need_const(im, x, "data"));
    int64_t axes[LG_MAX_NDIMS];
    int n = -1;
    if (im->opset >= 13) {
        LG_ONNX_CHECK(lg__onnx_input(im, 1, true, &ax));
        if (ax) {
            LG_ONNX_CHECK(need_const(im, ax, "axes"));
            if (ax->n > LG_MAX_NDIMS)
                return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "too many axes");
            n = (int)ax->n;
            for (int k = 0; k < n; k++) axes[k] = lg__onnx_const_i(ax, k);
        }
    } else {
        LG_ONNX_CHECK(lg__onnx_attr_ints(im, "axes", LG_MAX_NDIMS, axes, &n));
    }
    bool mark[LG_MAX_NDIMS] = {false};
    int nd = squeeze ? x->nd : x->nd + (n > 0 ? n : 0);
    if (nd > LG_MAX_NDIMS || (!squeeze && n < 1))
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "axes out of range");
    for (int k = 0; k < n; k++) {
        int a = norm_axis(axes[k], nd);
        if (a < 0 || mark[a]) return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "axes out of range");
        mark[a] = true;
    }
    int64_t dims[LG_MAX_NDIMS];
    int out = 0, src = 0;
    for (int d = 0; d < nd; d++) {
        if (squeeze) {
            bool drop = n < 0 ? x->dims[d] == 1 : mark[d];
            if (drop && x->dims[d] != 1)
                return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "squeezing a dim of %lld",
                                     (long long)x->dims[d]);
            if (!drop) dims[out++] = x->dims[d];
        } else {
            dims[out++] = mark[d] ? 1 : x->dims[src++];
        }
    }
    LG_ONNX_CHECK(lg__onnx_output(im, 0, &y));
    return copy_const(im, x, y, out, dims);
}

lg_status lg__onnx_op_concat(importer *im) {
    oval *y, *first;
    int64_t a;
    LG_ONNX_CHECK(lg__onnx_attr_int(im, "axis", 0, &a));
    LG_ONNX_CHECK(lg__onnx_input(im, 0, false, &first));
    int n = (int)im->node->n_input, axis = norm_axis(a, first->nd);
    if (axis < 0) return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "axis %lld", (long long)a);
    int64_t dims[LG_MAX_NDIMS], outer = 1, inner = 1, total = 0;
    bool is_int = true;
    for (int k = 0; k < n; k++) {
        oval *x;
        LG_ONNX_CHECK(lg__onnx_input(im, k, false, &x));
        LG_ONNX_CHECK(need_const(im, x, "input"));
        if (x->nd != first->nd) return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "ranks differ");
        for (int d = 0; d < x->nd; d++)
            if (d != axis && x->dims[d] != first->dims[d])
                return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "dims differ");
        if (__builtin_add_overflow(total, x->dims[axis], &total))
            return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "the concatenated dim overflows");
        is_int = is_int && x->i;
    }
    memcpy(dims, first->dims, sizeof dims);
    dims[axis] = total;
    for (int d = 0; d < axis; d++) outer *= dims[d];
    for (int d = axis + 1; d < first->nd; d++) inner *= dims[d];
    LG_ONNX_CHECK(lg__onnx_output(im, 0, &y));
    LG_ONNX_CHECK(lg__onnx_const_alloc(im, y, first->nd, dims, is_int));
    if (y->n == 0) return LG_OK; /* a 0 dim: nothing to copy, however large `outer` is */
    /* The inputs that hold elements, looked up once: those of length 0
     * along the axis cost a step per outer index otherwise (a model of
     * many such inputs around a long outer dim hung the loader). */
    oval **xs = malloc((size_t)n * sizeof *xs);
    if (!xs) return lg__onnx_fail(im, LG_OUT_OF_MEMORY, "%d concat inputs", n);
    int m = 0;
    for (int j = 0; j < n; j++) {
        oval *x = lg__onnx_find(im, im->node->input[j]);
        if (x->dims[axis]) xs[m++] = x;
    }
    int64_t k = 0;
    for (int64_t o = 0; o < outer; o++)
        for (int j = 0; j < m; j++) {
            const oval *x = xs[j];
            int64_t len = x->dims[axis] * inner;
            for (int64_t e = 0; e < len; e++, k++) {
                if (is_int)
                    y->i[k] = x->i[o * len + e];
                else
                    y->f[k] = lg__onnx_const_f(x, o * len + e);
            }
        }
    free(xs);
    return LG_OK;
}

lg_status lg__onnx_op_cast(importer *im) {
    oval *x, *y;
    int64_t to;
    LG_ONNX_CHECK(lg__onnx_input(im, 0, false, &x));
    LG_ONNX_CHECK(lg__onnx_attr_int(im, "to", 0, &to));
    bool to_float =
        to == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT || to == ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE;
    bool to_int =
        to == ONNX__TENSOR_PROTO__DATA_TYPE__INT64 || to == ONNX__TENSOR_PROTO__DATA_TYPE__INT32;
    if (!to_float && !to_int)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "cast to ONNX type %lld", (long long)to);
    if (x->kind != OV_CONST) {
        if (to_float) return lg__onnx_op_identity(im); /* float tensors only */
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "cast of tensor '%s' to an integer type",
                             x->name);
    }
    LG_ONNX_CHECK(lg__onnx_output(im, 0, &y));
    LG_ONNX_CHECK(lg__onnx_const_alloc(im, y, x->nd, x->dims, to_int));
    for (int64_t k = 0; k < x->n; k++) {
        if (to_int)
            y->i[k] = lg__onnx_const_i(x, k);
        else
            y->f[k] = lg__onnx_const_f(x, k);
    }
    return LG_OK;
}

/* y is the same value as x. */
static lg_status alias(importer *im, oval *x, oval *y) {
    if (x->kind == OV_CONST) return copy_const(im, x, y, x->nd, x->dims);
    LG_ONNX_CHECK(lg__onnx_tensor(im, x));
    y->kind = OV_TENSOR;
    y->v = x->v;
    y->nd = x->nd;
    memcpy(y->dims, x->dims, sizeof y->dims);
    return LG_OK;
}

lg_status lg__onnx_op_identity(importer *im) {
    oval *x, *y;
    LG_ONNX_CHECK(lg__onnx_input(im, 0, false, &x));
    LG_ONNX_CHECK(lg__onnx_output(im, 0, &y));
    return alias(im, x, y);
}

lg_status lg__onnx_op_reshape(importer *im) {
    oval *x, *s, *y;
    LG_ONNX_CHECK(lg__onnx_input(im, 0, false, &x));
    LG_ONNX_CHECK(lg__onnx_input(im, 1, false, &s));
    LG_ONNX_CHECK(need_const(im, s, "shape"));
    int64_t allowzero;
    LG_ONNX_CHECK(lg__onnx_attr_int(im, "allowzero", 0, &allowzero));
    if (s->n < 1 || s->n > LG_MAX_NDIMS)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "a shape of %lld dims", (long long)s->n);
    int nd = (int)s->n, infer = -1;
    int64_t dims[LG_MAX_NDIMS], known = 1, total = 1;
    for (int d = 0; d < x->nd; d++) total *= x->dims[d];
    for (int d = 0; d < nd; d++) {
        int64_t v = lg__onnx_const_i(s, d);
        if (v == 0 && !allowzero) v = d < x->nd ? x->dims[d] : -2;
        if (v == -1 && infer < 0) {
            infer = d;
            v = 1;
        } else if (v < 0 || __builtin_mul_overflow(known, v, &known)) {
            return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "shape entry %d is invalid", d);
        }
        dims[d] = v;
    }
    if (infer >= 0) {
        if (!known || total % known)
            return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "cannot infer the -1 dim");
        dims[infer] = total / known;
        known = total;
    }
    if (known != total)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "%lld elements reshaped to %lld",
                             (long long)total, (long long)known);
    LG_ONNX_CHECK(lg__onnx_output(im, 0, &y));
    if (x->kind == OV_CONST) return copy_const(im, x, y, nd, dims);
    bool same = nd == x->nd && memcmp(dims, x->dims, (size_t)nd * sizeof *dims) == 0;
    if (x->kind == OV_LAZY && x->lz == LZ_SHUFFLED && nd == 4 && x->uses == 1 &&
        memcmp(dims, x->base->dims, 4 * sizeof *dims) == 0) {
        /* [N, C, H, W] -> [N, g, C/g, H, W] -> swap 1, 2 -> [N, C, H, W]: the
         * channel shuffle of g groups, lgraph's group size C/g. */
        oval *b = x->base;
        if (lg_graph_add_shuffle(im->g, b->v, 1, x->dims[1], &y->v) != LG_OK)
            return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "%s", lg_last_error());
        y->kind = OV_TENSOR;
        y->nd = 4;
        memcpy(y->dims, b->dims, sizeof y->dims);
        return LG_OK;
    }
    if (nd == 5 && x->nd == 4 && dims[0] == x->dims[0] && dims[1] * dims[2] == x->dims[1] &&
        dims[3] == x->dims[2] && dims[4] == x->dims[3] && x->kind != OV_LAZY) {
        y->kind = OV_LAZY;
        y->lz = LZ_RESHAPE5;
        y->base = x;
        y->nd = 5;
        memcpy(y->dims, dims, sizeof y->dims);
        return LG_OK;
    }
    if (same) return alias(im, x, y);
    return lg__onnx_reshape_tensor(im, x, y, nd, dims);
}

lg_status lg__onnx_op_transpose(importer *im) {
    oval *x, *y;
    int64_t perm[LG_MAX_NDIMS];
    int n;
    LG_ONNX_CHECK(lg__onnx_input(im, 0, false, &x));
    LG_ONNX_CHECK(lg__onnx_attr_ints(im, "perm", LG_MAX_NDIMS, perm, &n));
    if (n < 0)
        for (n = 0; n < x->nd; n++) perm[n] = x->nd - 1 - n;
    bool seen[LG_MAX_NDIMS] = {false}, identity = true;
    if (n != x->nd) return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "perm has %d entries", n);
    for (int d = 0; d < n; d++) {
        if (perm[d] < 0 || perm[d] >= n || seen[perm[d]])
            return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "perm is not a permutation");
        seen[perm[d]] = true;
        identity = identity && perm[d] == d;
    }
    LG_ONNX_CHECK(lg__onnx_output(im, 0, &y));
    if (x->kind == OV_LAZY && x->lz == LZ_RESHAPE5 && x->uses == 1 && perm[0] == 0 &&
        perm[1] == 2 && perm[2] == 1 && perm[3] == 3 && perm[4] == 4) {
        y->kind = OV_LAZY;
        y->lz = LZ_SHUFFLED;
        y->base = x->base;
        y->nd = 5;
        for (int d = 0; d < 5; d++) y->dims[d] = x->dims[perm[d]];
        return LG_OK;
    }
    if (identity) return alias(im, x, y);
    if (x->kind == OV_CONST) {
        int64_t dims[LG_MAX_NDIMS], idx[LG_MAX_NDIMS] = {0}, stride[LG_MAX_NDIMS];
        for (int d = 0; d < n; d++) dims[d] = x->dims[perm[d]];
        LG_ONNX_CHECK(lg__onnx_const_alloc(im, y, n, dims, x->i != NULL));
        for (int64_t d = n - 1, st = 1; d >= 0; d--) { /* const dims: within 2^40 */
            stride[d] = st;
            st *= x->dims[d];
        }
        for (int64_t k = 0; k < y->n; k++) {
            int64_t from = 0;
            for (int d = 0; d < n; d++) from += idx[d] * stride[perm[d]];
            if (x->i)
                y->i[k] = x->i[from];
            else
                y->f[k] = x->f[from];
            for (int d = n - 1; d >= 0 && ++idx[d] == dims[d]; d--) idx[d] = 0;
        }
        return LG_OK;
    }
    return lg__onnx_fail(im, LG_UNIMPLEMENTED,
                         "transpose of tensor '%s' (only the channel shuffle pattern)", x->name);
}

lg_status lg__onnx_op_slice(importer *im) {
    oval *x, *in[4], *y;
    LG_ONNX_CHECK(lg__onnx_input(im, 0, false, &x));
    LG_ONNX_CHECK(need_const(im, x, "data"));
    for (int k = 0; k < 4; k++) {
        LG_ONNX_CHECK(lg__onnx_input(im, 1 + k, k >= 2, &in[k]));
        if (in[k]) LG_ONNX_CHECK(need_const(im, in[k], "starts, ends, axes and steps"));
    }
    int64_t start[LG_MAX_NDIMS] = {0}, step[LG_MAX_NDIMS], dims[LG_MAX_NDIMS];
    for (int d = 0; d < x->nd; d++) {
        step[d] = 1;
        dims[d] = x->dims[d];
    }
    int64_t n = in[0]->n;
    if (in[1]->n != n || (in[2] && in[2]->n != n) || (in[3] && in[3]->n != n) || n > x->nd)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "starts, ends, axes, steps differ in length");
    for (int64_t k = 0; k < n; k++) {
        int a = norm_axis(in[2] ? lg__onnx_const_i(in[2], k) : k, x->nd);
        int64_t len = x->dims[a], s = lg__onnx_const_i(in[0], k), e = lg__onnx_const_i(in[1], k);
        int64_t st = in[3] ? lg__onnx_const_i(in[3], k) : 1;
        if (a < 0 || st == 0) return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "axis or step");
        /* a step past the length takes one element, as that length does (and
         * the counts below then cannot overflow, INT64_MIN included) */
        const int64_t lmax = len > 0 ? len : 1;
        st = st > lmax ? lmax : st < -lmax ? -lmax : st;
        if (s < 0) s += len;
        if (e < 0) e += len;
        if (st > 0) {
            s = s < 0 ? 0 : s > len ? len : s;
            e = e < 0 ? 0 : e > len ? len : e;
            dims[a] = e > s ? (e - s + st - 1) / st : 0;
        } else {
            s = s < 0 ? -1 : s > len - 1 ? len - 1 : s;
            e = e < -1 ? -1 : e > len - 1 ? len - 1 : e;
            dims[a] = s > e ? (s - e - st - 1) / -st : 0;
        }
        start[a] = s;
        step[a] = st;
    }
    LG_ONNX_CHECK(lg__onnx_output(im, 0, &y));
    LG_ONNX_CHECK(lg__onnx_const_alloc(im, y, x->nd, dims, x->i != NULL));
    int64_t idx[LG_MAX_NDIMS] = {0};
    for (int64_t k = 0; k < y->n; k++) {
        int64_t from = 0;
        for (int d = 0; d < x->nd; d++) from = from * x->dims[d] + start[d] + idx[d] * step[d];
        if (x->i)
            y->i[k] = x->i[from];
        else
            y->f[k] = x->f[from];
        for (int d = x->nd - 1; d >= 0 && ++idx[d] == dims[d]; d--) idx[d] = 0;
    }
    return LG_OK;
}
