/* The hand-built oneDNN chain of a workload. See graph_dnnl.h. */
#include "graph_dnnl.h"

#include <stdio.h>
#include <string.h>

#define DN(call)                                                                                   \
    do {                                                                                           \
        dnnl_status_t s_ = (call);                                                                 \
        if (s_ != dnnl_success) {                                                                  \
            fprintf(stderr, "graph_dnnl: %s failed (status %d) at line %d\n", #call, (int)s_,      \
                    __LINE__);                                                                     \
            return -1;                                                                             \
        }                                                                                          \
    } while (0)
#define OK(call)                                                                                   \
    do {                                                                                           \
        if ((call) != 0) return -1;                                                                \
    } while (0)

/* Building state: the chain, its engine, and the running tensor. */
typedef struct builder {
    gd_chain *c;
    dnnl_engine_t eng;
    const wl_workload *w;
    dnnl_memory_t x_user, y_user;
    dnnl_memory_t x_copy; /* x in a layout a conv asked for, or NULL */
    dnnl_memory_t cur;    /* the running tensor */
} builder;

/* dnnl_memory_desc_init_by_tag with dims copied into a full dnnl_dims_t (the
 * function's prototype takes an array of DNNL_MAX_NDIMS). */
static dnnl_status_t md_init(dnnl_memory_desc_t *md, int ndims, const int64_t *dims,
                             dnnl_format_tag_t tag) {
    dnnl_dims_t d = {0};
    memcpy(d, dims, sizeof(int64_t) * (size_t)ndims);
    return dnnl_memory_desc_init_by_tag(md, ndims, d, dnnl_f32, tag);
}

static const dnnl_memory_desc_t *md_of(dnnl_memory_t m) {
    const dnnl_memory_desc_t *md = NULL;
    dnnl_memory_get_memory_desc(m, &md);
    return md;
}

static int add_mem(builder *b, const dnnl_memory_desc_t *md, void *data, dnnl_memory_t *out) {
    if (b->c->nmems == GD_MAX_MEMS) {
        fprintf(stderr, "graph_dnnl: too many memories\n");
        return -1;
    }
    DN(dnnl_memory_create(out, md, b->eng, data));
    b->c->mems[b->c->nmems++] = *out;
    return 0;
}

/* A blocked md's generic tag ("acdb", "aBcd16b"): dims by decreasing outer
 * stride, upper case when blocked, then the inner blocks. */
static void md_tag(const dnnl_memory_desc_t *md, char *buf, size_t len) {
    const dnnl_blocking_desc_t *bd = &md->format_desc.blocking;
    int order[DNNL_MAX_NDIMS], blocked[DNNL_MAX_NDIMS] = {0};
    if (md->format_kind != dnnl_blocked) {
        snprintf(buf, len, "?");
        return;
    }
    for (int i = 0; i < bd->inner_nblks; i++) blocked[(int)bd->inner_idxs[i]] = 1;
    for (int d = 0; d < md->ndims; d++) order[d] = d;
    for (int i = 1; i < md->ndims; i++) /* stable insertion sort, outermost first */
        for (int j = i; j > 0 && bd->strides[order[j]] > bd->strides[order[j - 1]]; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    size_t n = 0;
    for (int d = 0; d < md->ndims && n + 1 < len; d++)
        buf[n++] = (char)((blocked[order[d]] ? 'A' : 'a') + order[d]);
    buf[n] = 0;
    for (int i = 0; i < bd->inner_nblks && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%d%c", (int)bd->inner_blks[i],
                              (char)('a' + bd->inner_idxs[i]));
}

/* Append "kind(impl: src->dst layouts)" to the chain's description. */
static void note_impl(builder *b, const char *kind, const_dnnl_primitive_desc_t pd) {
    const char *impl = "?";
    char st[32], dt[32];
    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
    md_tag(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), st, sizeof st);
    md_tag(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), dt, sizeof dt);
    size_t len = strlen(b->c->impls);
    snprintf(b->c->impls + len, sizeof b->c->impls - len, "%s%s(%s %s->%s)", len ? " " : "", kind,
             impl, st, dt);
}

/* Create the primitive of pd (then released) as the next step with args. */
static int add_step(builder *b, dnnl_primitive_desc_t pd, const char *kind, int nargs,
                    const dnnl_exec_arg_t *args) {
    gd_chain *c = b->c;
    if (c->nsteps == GD_MAX_STEPS) {
        fprintf(stderr, "graph_dnnl: too many steps\n");
        dnnl_primitive_desc_destroy(pd);
        return -1;
    }
    note_impl(b, kind, pd);
    gd_step *s = &c->steps[c->nsteps];
    dnnl_status_t st = dnnl_primitive_create(&s->prim, pd);
    dnnl_primitive_desc_destroy(pd);
    DN(st);
    s->nargs = nargs;
    memcpy(s->args, args, sizeof(dnnl_exec_arg_t) * (size_t)nargs);
    c->nsteps++;
    return 0;
}

/* A reorder src -> dst: a runtime step (counted) or, with `now`, run once here. */
static int reorder(builder *b, dnnl_memory_t src, dnnl_memory_t dst, int now) {
    dnnl_primitive_desc_t pd;
    DN(dnnl_reorder_primitive_desc_create(&pd, md_of(src), b->eng, md_of(dst), b->eng, NULL));
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
    if (now) {
        dnnl_primitive_t p;
        dnnl_status_t st = dnnl_primitive_create(&p, pd);
        dnnl_primitive_desc_destroy(pd);
        DN(st);
        st = dnnl_primitive_execute(p, b->c->stream, 2, args);
        if (st == dnnl_success) st = dnnl_stream_wait(b->c->stream);
        dnnl_primitive_destroy(p);
        DN(st);
        return 0;
    }
    b->c->runtime_reorders++;
    b->c->reorder_bytes +=
        (int64_t)(dnnl_memory_desc_get_size(md_of(src)) + dnnl_memory_desc_get_size(md_of(dst)));
    return add_step(b, pd, "reorder", 2, args);
}

/* A new intermediate buffer of md. */
static int new_inter(builder *b, const dnnl_memory_desc_t *md, dnnl_memory_t *out) {
    OK(add_mem(b, md, DNNL_MEMORY_ALLOCATE, out));
    b->c->inter_bytes += (int64_t)dnnl_memory_desc_get_size(md);
    return 0;
}

/* A constant (weights or bias) in the layout `want`: wrap the user's plain
 * array and reorder it once if the layouts differ. */
static int constant(builder *b, int ndims, const int64_t *dims, dnnl_format_tag_t tag,
                    const float *data, const dnnl_memory_desc_t *want, dnnl_memory_t *out) {
    dnnl_memory_desc_t md;
    DN(md_init(&md, ndims, dims, tag));
    dnnl_memory_t user;
    OK(add_mem(b, &md, (void *)data, &user));
    if (dnnl_memory_desc_equal(&md, want)) {
        *out = user;
        return 0;
    }
    OK(add_mem(b, want, DNNL_MEMORY_ALLOCATE, out));
    b->c->weights_bytes += (int64_t)dnnl_memory_desc_get_size(want);
    return reorder(b, user, *out, 1);
}

/* Is op `from` or a later one another use of the input x? */
static int x_used_from(const wl_spec *s, int from) {
    for (int j = from; j < s->nops; j++)
        if (s->ops[j].kind == WL_ADD_INPUT) return 1;
    return 0;
}

/* The conv of op i with the relu / residual-add ops right after it as
 * post-ops; returns the index of the last op consumed through *last. */
static int conv(builder *b, int i, int *last) {
    const wl_workload *w = b->w;
    const wl_op *op = &w->spec->ops[i];
    dnnl_post_ops_t po;
    DN(dnnl_post_ops_create(&po));
    int j = i + 1, has_sum = 0;
    for (; j < w->spec->nops; j++) {
        wl_op_kind k = w->spec->ops[j].kind;
        if (k == WL_RELU)
            dnnl_post_ops_append_eltwise(po, 1.f, dnnl_eltwise_relu, 0.f, 0.f);
        else if (k == WL_ADD_INPUT && !has_sum)
            dnnl_post_ops_append_sum(po, 1.f), has_sum = 1;
        else
            break;
    }
    *last = j - 1;
    dnnl_primitive_attr_t attr;
    DN(dnnl_primitive_attr_create(&attr));
    dnnl_primitive_attr_set_post_ops(attr, po);
    dnnl_post_ops_destroy(po);

    int64_t wd[5];
    int wnd = wl_conv_weights_dims(w, i, wd);
    dnnl_memory_desc_t src_any, wei_any, bia_any, dst_any;
    DN(md_init(&src_any, 4, w->dims[i], dnnl_format_tag_any));
    DN(md_init(&wei_any, wnd, wd, dnnl_format_tag_any));
    DN(md_init(&bia_any, 1, &op->oc, dnnl_format_tag_any));
    DN(md_init(&dst_any, 4, w->dims[i + 1], dnnl_format_tag_any));
    dnnl_dims_t strides = {op->stride, op->stride}, pad = {op->pad, op->pad};
    dnnl_primitive_desc_t pd = NULL;
    /* src `any` first; if the conv wants a layout other than the running
     * tensor's (and that is not the user's input, where a reorder is
     * expected), ask again for the running tensor's layout. */
    for (int attempt = 0; attempt < 2; attempt++) {
        dnnl_convolution_desc_t cd;
        const dnnl_memory_desc_t *src = attempt ? md_of(b->cur) : &src_any;
        DN(dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_auto,
                                              src, &wei_any, &bia_any, &dst_any, strides, pad,
                                              pad));
        if (pd) dnnl_primitive_desc_destroy(pd);
        dnnl_status_t st = dnnl_primitive_desc_create(&pd, &cd, attr, b->eng, NULL);
        if (st != dnnl_success) {
            dnnl_primitive_attr_destroy(attr);
            DN(st);
        }
        if (b->cur == b->x_user ||
            dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0),
                                   md_of(b->cur)))
            break;
    }
    dnnl_primitive_attr_destroy(attr);
    const dnnl_memory_desc_t *src_md = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
    const dnnl_memory_desc_t *wei_md = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    const dnnl_memory_desc_t *bia_md = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 1);
    const dnnl_memory_desc_t *dst_md = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);

    int rc = 0;
    dnnl_memory_t src = b->cur, wei, bia, dst;
    if (!dnnl_memory_desc_equal(src_md, md_of(b->cur))) {
        /* At the input this is the expected nchw -> blocked reorder; anywhere
         * else it is a reorder an expert would have avoided (counted all the
         * same). The input's blocked copy may serve a later residual sum. */
        rc = new_inter(b, src_md, &src);
        if (!rc) rc = reorder(b, b->cur, src, 0);
        if (!rc && b->cur == b->x_user) b->x_copy = src;
    }
    int64_t oc = op->oc;
    if (!rc)
        rc = constant(b, wnd, wd, wnd == 4 ? dnnl_oihw : dnnl_goihw, w->weights[i], wei_md, &wei);
    if (!rc) rc = constant(b, 1, &oc, dnnl_x, w->bias[i], bia_md, &bia);
    if (!rc && has_sum) {
        /* dst must hold x before the conv runs. In place in x's blocked copy
         * when its layout matches and x is not needed afterwards; otherwise a
         * reorder of the user's input into a fresh dst. */
        if (b->x_copy && dnnl_memory_desc_equal(md_of(b->x_copy), dst_md) &&
            !x_used_from(w->spec, *last + 1)) {
            dst = b->x_copy;
        } else {
            rc = new_inter(b, dst_md, &dst);
            if (!rc) rc = reorder(b, b->x_user, dst, 0);
        }
    } else if (!rc) {
        rc = new_inter(b, dst_md, &dst);
    }
    if (rc) {
        dnnl_primitive_desc_destroy(pd);
        return -1;
    }
    dnnl_exec_arg_t args[4] = {
        {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_BIAS, bia}, {DNNL_ARG_DST, dst}};
    OK(add_step(b, pd, "conv", 4, args));
    b->cur = dst;
    return 0;
}

/* The shuffle of op i on the running tensor's layout, into a new buffer. */
static int shuffle(builder *b, int i) {
    dnnl_shuffle_desc_t sd;
    DN(dnnl_shuffle_forward_desc_init(&sd, dnnl_forward_inference, md_of(b->cur), 1,
                                      b->w->spec->ops[i].group_size));
    dnnl_primitive_desc_t pd;
    DN(dnnl_primitive_desc_create(&pd, &sd, NULL, b->eng, NULL));
    dnnl_memory_t dst;
    if (new_inter(b, md_of(b->cur), &dst)) {
        dnnl_primitive_desc_destroy(pd);
        return -1;
    }
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_SRC, b->cur}, {DNNL_ARG_DST, dst}};
    OK(add_step(b, pd, "shuffle", 2, args));
    b->cur = dst;
    return 0;
}

/* A relu that follows no conv: an eltwise primitive in place. */
static int relu(builder *b) {
    dnnl_eltwise_desc_t ed;
    DN(dnnl_eltwise_forward_desc_init(&ed, dnnl_forward_inference, dnnl_eltwise_relu, md_of(b->cur),
                                      0.f, 0.f));
    dnnl_primitive_desc_t pd;
    DN(dnnl_primitive_desc_create(&pd, &ed, NULL, b->eng, NULL));
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_SRC, b->cur}, {DNNL_ARG_DST, b->cur}};
    return add_step(b, pd, "eltwise", 2, args);
}

static int build(builder *b, const float *x, float *y) {
    const wl_workload *w = b->w;
    dnnl_memory_desc_t xmd, ymd;
    DN(md_init(&xmd, 4, w->dims[0], dnnl_nchw));
    DN(md_init(&ymd, 4, w->dims[w->spec->nops], dnnl_nchw));
    OK(add_mem(b, &xmd, (void *)x, &b->x_user));
    OK(add_mem(b, &ymd, y, &b->y_user));
    b->cur = b->x_user;
    for (int i = 0; i < w->spec->nops; i++) {
        switch (w->spec->ops[i].kind) {
        case WL_CONV:
            OK(conv(b, i, &i));
            break;
        case WL_SHUFFLE:
            OK(shuffle(b, i));
            break;
        case WL_RELU:
            OK(relu(b));
            break;
        case WL_ADD_INPUT:
            fprintf(stderr, "graph_dnnl: a residual add must follow a conv\n");
            return -1;
        }
    }
    /* The output leaves in nchw (a copy if the last layout already is). */
    return reorder(b, b->cur, b->y_user, 0);
}

int gd_create(gd_chain *c, const wl_workload *w, dnnl_engine_t eng, dnnl_stream_t stream,
              const float *x, float *y) {
    memset(c, 0, sizeof *c);
    c->stream = stream;
    builder b = {.c = c, .eng = eng, .w = w};
    if (build(&b, x, y) != 0) {
        gd_destroy(c);
        return -1;
    }
    return 0;
}

int gd_execute(const gd_chain *c) {
    for (int i = 0; i < c->nsteps; i++)
        DN(dnnl_primitive_execute(c->steps[i].prim, c->stream, c->steps[i].nargs,
                                  c->steps[i].args));
    DN(dnnl_stream_wait(c->stream));
    return 0;
}

void gd_destroy(gd_chain *c) {
    for (int i = 0; i < c->nsteps; i++) dnnl_primitive_destroy(c->steps[i].prim);
    for (int i = 0; i < c->nmems; i++) dnnl_memory_destroy(c->mems[i]);
    c->nsteps = c->nmems = 0;
}
