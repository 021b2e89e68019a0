/* Conv, BatchNormalization and Pad. A conv is held back (LZ_CONV) until its
 * consumer is known, so that a batch norm that alone reads it folds into its
 * weights and bias; a constant zero Pad (LZ_PAD) folds into the conv that
 * reads it. */
#include "onnx_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

lg_status lg__onnx_emit_conv(importer *im, oval *v);
lg_status lg__onnx_op_conv(importer *im);
lg_status lg__onnx_op_batchnorm(importer *im);
lg_status lg__onnx_op_pad(importer *im);

static void free_weights(void *w) {
    free(w);
}

/* The conv's weights as a graph constant, handed over without a copy: the
 * graph takes c->w (a reference to the arena when the weights live there,
 * the buffer itself when the importer allocated it); copied only where the
 * buffer is not 64-byte aligned. c->w is NULL afterwards (the graph's or
 * freed). */
static lg_status add_weights(importer *im, const char *name, pending_conv *c, lg_value *w) {
    lg_md md;
    char full[512];
    snprintf(full, sizeof full, "%s#weights", name);
    if (lg_md_init_tag(&md, c->wnd, c->wdims, LG_F32, lg__onnx_plain_tag(c->wnd)) != LG_OK)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "constant '%s': %s", full, lg_last_error());
    lg_status st;
    if ((uintptr_t)c->w % 64) {
        st = lg_graph_add_constant(im->g, full, &md, c->w, w);
        if (!c->w_borrowed) free(c->w);
    } else if (c->w_borrowed) {
        lg__onnx_arena_ref(im->arena);
        st = lg_graph_add_constant_ref(im->g, full, &md, c->w, lg__onnx_arena_unref, im->arena, w);
        if (st != LG_OK) lg__onnx_arena_unref(im->arena);
    } else {
        st = lg_graph_add_constant_ref(im->g, full, &md, c->w, free_weights, c->w, w);
        if (st != LG_OK) free(c->w);
    }
    c->w = NULL;
    c->w_borrowed = false;
    if (st != LG_OK)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "constant '%s': %s", full, lg_last_error());
    return LG_OK;
}

/* Add the held-back conv of v to the graph. */
lg_status lg__onnx_emit_conv(importer *im, oval *v) {
    pending_conv *c = v->conv;
    lg_value w, b = LG_NO_VALUE;
    LG_ONNX_CHECK(add_weights(im, v->name, c, &w));
    if (c->b) LG_ONNX_CHECK(lg__onnx_add_constant(im, v->name, "#bias", 1, &c->oc, c->b, &b));
    if (lg_graph_add_conv(im->g, c->src->v, w, b, &c->p, &v->v) != LG_OK)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "conv '%s': %s", c->node, lg_last_error());
    free(c->b);
    free(c);
    v->conv = NULL;
    v->kind = OV_TENSOR;
    return LG_OK;
}

/* Output size of one spatial dim, or -1 when it is not positive or the
 * arithmetic overflows. */
static int64_t conv_out(int64_t in, int64_t k, int64_t s, int64_t d, int64_t pl, int64_t pr) {
    int64_t ext, span, t;
    if (__builtin_mul_overflow(k - 1, d, &ext) || __builtin_add_overflow(ext, 1, &ext) ||
        __builtin_add_overflow(in, pl, &span) || __builtin_add_overflow(span, pr, &span))
        return -1;
    t = span - ext;
    return t < 0 ? -1 : t / s + 1;
}

lg_status lg__onnx_op_conv(importer *im) {
    oval *x, *w, *b, *y;
    LG_ONNX_CHECK(lg__onnx_input(im, 0, false, &x));
    LG_ONNX_CHECK(lg__onnx_input(im, 1, false, &w));
    LG_ONNX_CHECK(lg__onnx_input(im, 2, true, &b));
    if (w->kind != OV_CONST || !w->f || (b && (b->kind != OV_CONST || !b->f)))
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "weights and bias must be float initializers");
    int64_t extra[6] = {0};
    oval *src = x;
    if (x->kind == OV_LAZY && x->lz == LZ_PAD) {
        memcpy(extra, x->pads, sizeof extra);
        src = x->base;
    }
    LG_ONNX_CHECK(lg__onnx_tensor(im, src));
    int nd = src->nd, sp = nd - 2;
    if (sp < 1 || sp > 3 || w->nd != nd)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED,
                             "input of rank %d, weights of rank %d (1D to 3D "
                             "convs: ranks 3 to 5, equal)",
                             nd, w->nd);
    int64_t group, strides[3] = {1, 1, 1}, dil[3] = {1, 1, 1}, pads[6] = {0}, ks[3];
    int n;
    char autopad[32];
    LG_ONNX_CHECK(lg__onnx_attr_int(im, "group", 1, &group));
    LG_ONNX_CHECK(lg__onnx_attr_ints(im, "strides", 3, strides, &n));
    if (n >= 0 && n != sp)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "strides has %d values", n);
    LG_ONNX_CHECK(lg__onnx_attr_ints(im, "dilations", 3, dil, &n));
    if (n >= 0 && n != sp)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "dilations has %d values", n);
    LG_ONNX_CHECK(lg__onnx_attr_ints(im, "pads", 6, pads, &n));
    if (n >= 0 && n != 2 * sp)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "pads has %d values", n);
    LG_ONNX_CHECK(lg__onnx_attr_ints(im, "kernel_shape", 3, ks, &n));
    if (n >= 0 && (n != sp || memcmp(ks, w->dims + 2, (size_t)sp * sizeof *ks) != 0))
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "kernel_shape disagrees with the weights");
    LG_ONNX_CHECK(lg__onnx_attr_string(im, "auto_pad", "NOTSET", autopad, sizeof autopad));
    int64_t c = src->dims[1], oc = w->dims[0], icg = w->dims[1];
    if (group < 1 || oc % group || icg * group != c)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT,
                             "group %lld with %lld input channels and weights %lldx%lld",
                             (long long)group, (long long)c, (long long)oc, (long long)icg);
    pending_conv *pc = calloc(1, sizeof *pc);
    if (!pc) return lg__onnx_fail(im, LG_OUT_OF_MEMORY, "conv");
    pc->node = im->node->name ? im->node->name : "";
    pc->src = src;
    pc->oc = oc;
    pc->p.groups = group;
    int64_t odims[LG_MAX_NDIMS] = {src->dims[0], oc};
    lg_status st = LG_OK;
    for (int d = 0; d < sp && st == LG_OK; d++) {
        int64_t in = src->dims[2 + d], k = w->dims[2 + d], s = strides[d], dl = dil[d];
        int64_t pl = pads[d], pr = pads[sp + d];
        if (s < 1 || dl < 1 || pl < 0 || pr < 0 || k < 1) {
            st = lg__onnx_fail(im, LG_INVALID_ARGUMENT,
                               "stride, dilation, pads or kernel of "
                               "spatial dim %d out of range",
                               d);
            break;
        }
        if (strcmp(autopad, "SAME_UPPER") == 0 || strcmp(autopad, "SAME_LOWER") == 0) {
            int64_t out = (in + s - 1) / s, ext = (k - 1) * dl + 1;
            int64_t total = (out - 1) * s + ext - in;
            if (total < 0) total = 0;
            pl = autopad[5] == 'U' ? total / 2 : total - total / 2;
            pr = total - pl;
        } else if (strcmp(autopad, "VALID") == 0) {
            pl = pr = 0;
        } else if (strcmp(autopad, "NOTSET") != 0) {
            st = lg__onnx_fail(im, LG_INVALID_ARGUMENT, "auto_pad '%s'", autopad);
            break;
        }
        pl += extra[d];
        pr += extra[3 + d];
        pc->p.strides[d] = s;
        pc->p.dilates[d] = dl - 1;
        pc->p.pad_l[d] = pl;
        pc->p.pad_r[d] = pr;
        odims[2 + d] = conv_out(in, k, s, dl, pl, pr);
        if (odims[2 + d] < 1)
            st = lg__onnx_fail(im, LG_INVALID_ARGUMENT, "spatial dim %d has no output", d);
    }
    /* Weights as lgraph takes them: oihw, or goihw with a leading G dim. */
    pc->wnd = group > 1 ? nd + 1 : nd;
    int off = group > 1;
    if (group > 1) {
        pc->wdims[0] = group;
        pc->wdims[1] = oc / group;
    } else {
        pc->wdims[0] = oc;
    }
    for (int d = 1; d < nd; d++) pc->wdims[d + off] = w->dims[d];
    pc->nw = w->n;
    /* Weights that this conv alone reads are taken, not copied: a batch
     * norm folds into them in place. */
    bool take = w->uses == 1;
    pc->w = st != LG_OK ? NULL : take ? w->f : lg__onnx_big_alloc((size_t)w->n * sizeof *pc->w);
    pc->w_borrowed = take && w->f_borrowed;
    pc->b = st == LG_OK && b ? malloc((size_t)oc * sizeof *pc->b) : NULL;
    if (st == LG_OK && (!pc->w || (b && !pc->b)))
        st = lg__onnx_fail(im, LG_OUT_OF_MEMORY, "conv weights");
    if (st == LG_OK && b && b->n != oc)
        st = lg__onnx_fail(im, LG_INVALID_ARGUMENT, "bias has %lld values for %lld channels",
                           (long long)b->n, (long long)oc);
    if (st == LG_OK) st = lg__onnx_output(im, 0, &y);
    if (st != LG_OK) {
        if (!take) free(pc->w);
        free(pc->b);
        free(pc);
        return st;
    }
    if (take) {
        w->f = NULL; /* now pc's: w has no other reader */
        w->f_borrowed = false;
        w->kind = OV_UNSET;
    } else {
        memcpy(pc->w, w->f, (size_t)w->n * sizeof *pc->w);
    }
    if (b) memcpy(pc->b, b->f, (size_t)oc * sizeof *pc->b);
    y->kind = OV_LAZY;
    y->lz = LZ_CONV;
    y->conv = pc;
    y->nd = nd;
    memcpy(y->dims, odims, sizeof y->dims);
    return LG_OK;
}

lg_status lg__onnx_op_batchnorm(importer *im) {
    oval *x, *p[4], *y;
    LG_ONNX_CHECK(lg__onnx_input(im, 0, false, &x));
    for (int k = 0; k < 4; k++) LG_ONNX_CHECK(lg__onnx_input(im, 1 + k, false, &p[k]));
    float eps;
    int64_t training;
    LG_ONNX_CHECK(lg__onnx_attr_float(im, "epsilon", 1e-5f, &eps));
    LG_ONNX_CHECK(lg__onnx_attr_int(im, "training_mode", 0, &training));
    if (training || im->node->n_output > 1)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "training mode (inference only)");
    if (x->nd < 2) return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "input of rank %d", x->nd);
    int64_t c = x->dims[1];
    if (c < 1) /* the fold below divides by it */
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "input of %lld channels", (long long)c);
    for (int k = 0; k < 4; k++)
        if (p[k]->kind != OV_CONST || p[k]->n != c)
            return lg__onnx_fail(im, LG_UNIMPLEMENTED,
                                 "scale, bias, mean and var must be initializers of %lld values",
                                 (long long)c);
    float *s = malloc((size_t)c * sizeof *s), *t = malloc((size_t)c * sizeof *t);
    if (!s || !t) {
        free(s);
        free(t);
        return lg__onnx_fail(im, LG_OUT_OF_MEMORY, "batch norm");
    }
    /* y = s * x + t with s = gamma / sqrt(var + eps), t = beta - mean * s. */
    for (int64_t k = 0; k < c; k++) {
        s[k] = lg__onnx_const_f(p[0], k) / sqrtf(lg__onnx_const_f(p[3], k) + eps);
        t[k] = lg__onnx_const_f(p[1], k) - lg__onnx_const_f(p[2], k) * s[k];
    }
    lg_status st = lg__onnx_output(im, 0, &y);
    if (st == LG_OK && x->kind == OV_LAZY && x->lz == LZ_CONV && x->uses == 1) {
        /* Fold into the conv: w'[o] = s[o] w[o], b'[o] = s[o] b[o] + t[o]. */
        pending_conv *pc = x->conv;
        if (!pc->b && !(pc->b = calloc((size_t)c, sizeof *pc->b)))
            st = lg__onnx_fail(im, LG_OUT_OF_MEMORY, "batch norm");
        for (int64_t k = 0; st == LG_OK && k < pc->nw; k++) pc->w[k] *= s[k / (pc->nw / c)];
        for (int64_t k = 0; st == LG_OK && k < c; k++) pc->b[k] = s[k] * pc->b[k] + t[k];
        if (st == LG_OK) {
            *y = (oval){.name = y->name,
                        .uses = y->uses,
                        .kind = OV_LAZY,
                        .lz = LZ_CONV,
                        .conv = pc,
                        .nd = x->nd,
                        .v = LG_NO_VALUE};
            memcpy(y->dims, x->dims, sizeof y->dims);
            x->conv = NULL;
            x->kind = OV_UNSET; /* its only reader was this node */
        }
    } else if (st == LG_OK) {
        /* A batch-norm node (statistics as 1D constants: scale, bias, mean, var). */
        st = lg__onnx_tensor(im, x);
        lg_value pv[4];
        static const char *const sfx[4] = {"#gamma", "#beta", "#mean", "#var"};
        for (int k = 0; k < 4 && st == LG_OK; k++) {
            float *d = k == 0 ? s : t; /* reuse the buffers for the raw values */
            for (int64_t j = 0; j < c; j++) d[j] = lg__onnx_const_f(p[k], j);
            st = lg__onnx_add_constant(im, y->name, sfx[k], 1, &c, d, &pv[k]);
        }
        if (st == LG_OK && lg_graph_add_batchnorm(im->g, x->v, pv[2], pv[3], pv[0], pv[1], eps,
                                                  false, &y->v) != LG_OK)
            st = lg__onnx_fail(im, LG_INVALID_ARGUMENT, "%s", lg_last_error());
        if (st == LG_OK) {
            y->kind = OV_TENSOR;
            y->nd = x->nd;
            memcpy(y->dims, x->dims, sizeof y->dims);
        }
    }
    free(s);
    free(t);
    return st;
}

lg_status lg__onnx_op_pad(importer *im) {
    oval *x, *pv, *cv, *y;
    LG_ONNX_CHECK(lg__onnx_input(im, 0, false, &x));
    int64_t pads[2 * LG_MAX_NDIMS];
    int n;
    char mode[32];
    LG_ONNX_CHECK(lg__onnx_attr_string(im, "mode", "constant", mode, sizeof mode));
    if (strcmp(mode, "constant") != 0)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "mode '%s' (constant zero padding only)", mode);
    LG_ONNX_CHECK(lg__onnx_input(im, 1, false, &pv));
    LG_ONNX_CHECK(lg__onnx_input(im, 2, true, &cv));
    if (pv->kind != OV_CONST || pv->n > 2 * LG_MAX_NDIMS)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "pads must be a constant");
    n = (int)pv->n;
    for (int k = 0; k < n; k++) pads[k] = lg__onnx_const_i(pv, k);
    if (cv && (cv->kind != OV_CONST || cv->n != 1 || lg__onnx_const_f(cv, 0) != 0.0f))
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "constant_value other than 0");
    int nd = x->nd, sp = nd - 2;
    if (n != 2 * nd || sp < 1 || sp > 3)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "%d pads on a tensor of rank %d", n, nd);
    if (pads[0] || pads[1] || pads[nd] || pads[nd + 1])
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "padding of the batch or channel dim");
    LG_ONNX_CHECK(lg__onnx_tensor(im, x));
    LG_ONNX_CHECK(lg__onnx_output(im, 0, &y));
    y->kind = OV_LAZY;
    y->lz = LZ_PAD;
    y->base = x;
    y->nd = nd;
    memcpy(y->dims, x->dims, sizeof y->dims);
    for (int d = 0; d < sp; d++) {
        int64_t a = pads[2 + d], b = pads[nd + 2 + d];
        if (a < 0 || b < 0 || a > ((int64_t)1 << 40) || b > ((int64_t)1 << 40))
            return lg__onnx_fail(im, LG_UNIMPLEMENTED, "pads of spatial dim %d out of range", d);
        y->pads[d] = a;
        y->pads[3 + d] = b;
        y->dims[2 + d] += a + b;
    }
    return LG_OK;
}
