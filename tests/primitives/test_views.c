/* Every kernel kind reading and writing through views (lg_md_submemory):
 * reorder, shuffle, eltwise, binary and conv, with the views' parents in
 * every layout family (plain, channels-last, blocked with padding,
 * strided), against a scalar reference on logical indices. A parent buffer
 * is filled with a sentinel; after the run, every element outside the dst
 * view (its logical elements and the padding it owns) must still hold the
 * sentinel, and the view's padding must be zero. Run at every ISA level
 * this CPU has. */
#include "memory/md.h"
#include "primitives/cpu.h"
#include "test_util.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENTINEL 12345.0f

enum { FAM_PLAIN, FAM_CLAST, FAM_BLOCKED, FAM_STRIDED, FAM_COUNT };
static const char *const fam_name[] = {"plain", "channels-last", "blocked", "strided"};

static bool next_index(int64_t *idx, const int64_t *ext, int nd) {
    for (int d = nd - 1; d >= 0; d--) {
        if (++idx[d] < ext[d]) return true;
        idx[d] = 0;
    }
    return false;
}

/* The blocked family's tag: the channel block of the ISA level under test
 * (so that the conv's direct path can take the views). */
static const char *blocked_tag = "nChw16c";

static void set_level(lg__isa isa) {
    lg__cpu_set_isa_cap(isa);
    blocked_tag = isa == LG_ISA_AVX512 ? "nChw16c" : "nChw8c";
}

/* A view of logical dims D (4D, f32) inside a bigger parent of family f:
 * the parent has extra rows/columns around it; along a blocked channel dim
 * the view starts on a block and, unless whole blocks, reaches the end. */
typedef struct view {
    lg_md parent, md;
    float *buf; /* lg_md_size(parent) bytes */
    size_t n;   /* elements of buf */
} view;

static void make_view(lg_rng *r, int f, const int64_t *D, int64_t coff, view *v) {
    int64_t P[4], off[4];
    const int64_t blk = strcmp(blocked_tag, "nChw8c") == 0 ? 8 : 16;
    for (int d = 0; d < 4; d++) {
        off[d] = d == 1 ? coff : lg_rng_int(r, 0, 2);
        P[d] = off[d] + D[d] + (d == 1 ? 0 : lg_rng_int(r, 0, 2));
    }
    if (f == FAM_BLOCKED) {
        off[1] = coff / blk * blk;
        P[1] = off[1] + D[1] + (D[1] % blk == 0 ? blk * lg_rng_int(r, 0, 1) : 0);
    } else if (coff == 0) {
        off[1] = lg_rng_int(r, 0, 5);
        P[1] = off[1] + D[1] + lg_rng_int(r, 0, 5);
    } else {
        P[1] += lg_rng_int(r, 0, 5);
    }
    if (f == FAM_STRIDED) {
        int64_t st[4] = {0, 0, 0, 1}; /* w, c, h, n order with gaps */
        st[1] = P[3] + 3;
        st[2] = st[1] * P[1] + 1;
        st[0] = st[2] * P[2] + 5;
        cr_assert_eq(lg_md_init_strides(&v->parent, 4, P, LG_F32, st), LG_OK, "%s",
                     lg_last_error());
    } else {
        const char *tag = f == FAM_PLAIN ? "nchw" : f == FAM_CLAST ? "nhwc" : blocked_tag;
        cr_assert_eq(lg_md_init_tag(&v->parent, 4, P, LG_F32, tag), LG_OK, "%s", lg_last_error());
    }
    cr_assert_eq(lg_md_submemory(&v->parent, D, off, &v->md), LG_OK, "%s: %s", fam_name[f],
                 lg_last_error());
    v->n = lg_md_size(&v->parent) / 4;
    v->buf = malloc(v->n * 4 + 64);
    cr_assert(v->buf);
    for (size_t i = 0; i < v->n; i++) v->buf[i] = SENTINEL;
}

/* Fill the view's logical elements with random values; its padding (owned
 * parent padding) with zeros, as the contract of a src assumes. */
static void fill_view(lg_rng *r, view *v) {
    int64_t idx[4] = {0};
    do {
        bool pad = false;
        for (int d = 0; d < 4; d++) pad = pad || idx[d] >= v->md.dims[d];
        v->buf[lg__md_off(&v->md, idx)] = pad ? 0.0f : lg_rng_float(r, -2.0f, 2.0f);
    } while (next_index(idx, v->md.padded_dims, 4));
}

static float at(const view *v, const int64_t *idx) {
    return v->buf[lg_md_offset(&v->md, idx)];
}

/* Check the dst view: want(idx) for its elements (tolerance tol), zeros on
 * its padding, the sentinel everywhere else in the parent. */
typedef float (*want_fn)(const int64_t *idx, const void *ctx);

static void check_dst(const view *v, want_fn want, const void *ctx, float tol, const char *what) {
    bool *mine = calloc(v->n, 1);
    cr_assert(mine);
    int64_t idx[4] = {0};
    do {
        int64_t o = lg__md_off(&v->md, idx);
        cr_assert(o >= 0 && (size_t)o < v->n, "%s: offset %lld outside the parent", what,
                  (long long)o);
        mine[o] = true;
        bool pad = false;
        for (int d = 0; d < 4; d++) pad = pad || idx[d] >= v->md.dims[d];
        float got = v->buf[o];
        if (pad) {
            cr_assert_eq(got, 0.0f, "%s: padding at %lld is %g", what, (long long)o, got);
            continue;
        }
        float w = want(idx, ctx);
        cr_assert(fabsf(got - w) <= tol * (1.0f + fabsf(w)),
                  "%s: at (%lld,%lld,%lld,%lld) got %.8g want %.8g", what, (long long)idx[0],
                  (long long)idx[1], (long long)idx[2], (long long)idx[3], got, w);
    } while (next_index(idx, v->md.padded_dims, 4));
    for (size_t i = 0; i < v->n; i++)
        cr_assert(mine[i] || v->buf[i] == SENTINEL, "%s: element %zu outside the view written (%g)",
                  what, i, v->buf[i]);
    free(mine);
}

static void run(const lg_kernel *k, int n, const lg_arg *args, const char *what) {
    cr_assert_eq(lg_kernel_execute(k, n, args), LG_OK, "%s: %s", what, lg_last_error());
}

/* The ISA levels this CPU has, from scalar up. */
static int isa_levels(lg__isa *out) {
    int n = 0;
    for (int i = LG_ISA_SCALAR; i <= (int)lg__cpu_isa_hw(); i++) out[n++] = (lg__isa)i;
    return n;
}

/* ---------------------------------------------------------------- reorder */

static float want_copy(const int64_t *idx, const void *ctx) {
    return at(ctx, idx);
}

static void reorder_case(lg_rng *r, int fs, int fd, const int64_t *D, int64_t soff, int64_t doff,
                         const char *what) {
    view s, d;
    make_view(r, fs, D, soff, &s);
    make_view(r, fd, D, doff, &d);
    fill_view(r, &s);
    lg_kernel *k;
    cr_assert_eq(lg_reorder_create(&k, &s.md, &d.md, NULL), LG_OK, "%s: %s", what, lg_last_error());
    lg_arg args[2] = {{LG_ARG_SRC, s.buf}, {LG_ARG_DST, d.buf}};
    run(k, 2, args, what);
    char w[160];
    snprintf(w, sizeof w, "%s %s->%s [%s]", what, fam_name[fs], fam_name[fd], lg_kernel_impl(k));
    check_dst(&d, want_copy, &s, 0.0f, w);
    lg_kernel_destroy(k);
    free(s.buf);
    free(d.buf);
}

Test(views, reorder_split_and_concat) {
    lg__isa lv[4];
    int nl = isa_levels(lv);
    lg_rng r = {58};
    for (int l = 0; l < nl; l++) {
        set_level(lv[l]);
        /* A split reading channels 58..115, into every family. */
        int64_t D[4] = {2, 58, 5, 5};
        for (int fs = 0; fs < FAM_COUNT; fs++)
            for (int fd = 0; fd < FAM_COUNT; fd++)
                if (fs != FAM_BLOCKED) reorder_case(&r, fs, fd, D, 58, 0, "split 58..115");
        /* A concat writing at channel offset 64 (the tail of a 122-channel buffer). */
        for (int fs = 0; fs < FAM_COUNT; fs++)
            for (int fd = 0; fd < FAM_COUNT; fd++) reorder_case(&r, fs, fd, D, 0, 64, "concat @64");
        /* Random shapes and views on both sides. */
        for (int it = 0; it < 48; it++) {
            int64_t Dr[4] = {lg_rng_int(&r, 1, 3), lg_rng_int(&r, 1, 40), lg_rng_int(&r, 1, 6),
                             lg_rng_int(&r, 1, 9)};
            reorder_case(&r, it % FAM_COUNT, (it / FAM_COUNT) % FAM_COUNT, Dr,
                         16 * lg_rng_int(&r, 0, 3), 16 * lg_rng_int(&r, 0, 3), "random");
        }
    }
    set_level(LG_ISA_AVX512);
}

/* ---------------------------------------------------------------- shuffle */

typedef struct shuf_ctx {
    const view *s;
    int64_t C, G;
} shuf_ctx;

static float want_shuffle(const int64_t *idx, const void *ctx) {
    const shuf_ctx *c = ctx;
    int64_t i[4] = {idx[0], idx[1], idx[2], idx[3]};
    int64_t u = idx[1] % (c->C / c->G), v = idx[1] / (c->C / c->G);
    i[1] = u * c->G + v;
    return at(c->s, i);
}

Test(views, shuffle) {
    lg__isa lv[4];
    int nl = isa_levels(lv);
    lg_rng r = {96};
    for (int l = 0; l < nl; l++) {
        set_level(lv[l]);
        for (int it = 0; it < 24; it++) {
            int f = it % FAM_COUNT;
            int64_t G = lg_rng_int(&r, 0, 1) ? 4 : 2, C = G * lg_rng_int(&r, 2, 12);
            int64_t D[4] = {lg_rng_int(&r, 1, 2), C, lg_rng_int(&r, 1, 5), lg_rng_int(&r, 1, 7)};
            int64_t coff = 16 * lg_rng_int(&r, 0, 2);
            view s, d;
            make_view(&r, f, D, coff, &s);
            /* src and dst are two views of one layout: the same md in two buffers */
            d = s;
            d.buf = malloc(d.n * 4 + 64);
            for (size_t i = 0; i < d.n; i++) d.buf[i] = SENTINEL;
            fill_view(&r, &s);
            lg_kernel *k;
            cr_assert_eq(lg_shuffle_create(&k, LG_FORWARD, &s.md, 1, G), LG_OK, "%s",
                         lg_last_error());
            lg_arg args[2] = {{LG_ARG_SRC, s.buf}, {LG_ARG_DST, d.buf}};
            char w[128];
            snprintf(w, sizeof w, "shuffle %s C=%lld G=%lld @%lld [%s]", fam_name[f], (long long)C,
                     (long long)G, (long long)coff, lg_kernel_impl(k));
            run(k, 2, args, w);
            shuf_ctx c = {&s, C, G};
            check_dst(&d, want_shuffle, &c, 0.0f, w);
            lg_kernel_destroy(k);
            free(s.buf);
            free(d.buf);
        }
    }
    set_level(LG_ISA_AVX512);
}

/* ---------------------------------------------------------------- eltwise */

static float want_relu(const int64_t *idx, const void *ctx) {
    float x = at(ctx, idx);
    return x > 0 ? x : 0.25f * x;
}

static float want_tanh(const int64_t *idx, const void *ctx) {
    return tanhf(at(ctx, idx));
}

Test(views, eltwise) {
    lg__isa lv[4];
    int nl = isa_levels(lv);
    lg_rng r = {7};
    for (int l = 0; l < nl; l++) {
        set_level(lv[l]);
        for (int it = 0; it < 24; it++) {
            int f = it % FAM_COUNT;
            int64_t D[4] = {lg_rng_int(&r, 1, 2), lg_rng_int(&r, 1, 40), lg_rng_int(&r, 1, 5),
                            lg_rng_int(&r, 1, 9)};
            view s, d;
            make_view(&r, f, D, 16 * lg_rng_int(&r, 0, 2), &s);
            d = s;
            d.buf = malloc(d.n * 4 + 64);
            for (size_t i = 0; i < d.n; i++) d.buf[i] = SENTINEL;
            fill_view(&r, &s);
            bool relu = it % 2 == 0;
            lg_kernel *k;
            cr_assert_eq(lg_eltwise_create(&k, relu ? LG_ELTWISE_RELU : LG_ELTWISE_TANH, 0.25f,
                                           0.0f, &s.md, &d.md),
                         LG_OK, "%s", lg_last_error());
            lg_arg args[2] = {{LG_ARG_SRC, s.buf}, {LG_ARG_DST, d.buf}};
            char w[128];
            snprintf(w, sizeof w, "eltwise %s %s [%s]", relu ? "relu" : "tanh", fam_name[f],
                     lg_kernel_impl(k));
            run(k, 2, args, w);
            check_dst(&d, relu ? want_relu : want_tanh, &s, relu ? 0.0f : 1e-5f, w);
            /* in place through the same view */
            view copy = s;
            copy.buf = malloc(s.n * 4 + 64);
            memcpy(copy.buf, s.buf, s.n * 4);
            lg_arg ip[2] = {{LG_ARG_SRC, s.buf}, {LG_ARG_DST, s.buf}};
            run(k, 2, ip, w);
            check_dst(&s, relu ? want_relu : want_tanh, &copy, relu ? 0.0f : 1e-5f, w);
            lg_kernel_destroy(k);
            free(copy.buf);
            free(s.buf);
            free(d.buf);
        }
    }
    set_level(LG_ISA_AVX512);
}

/* ----------------------------------------------------------------- binary */

typedef struct bin_ctx {
    const view *a, *b;
    bool bcast;
} bin_ctx;

static float want_add(const int64_t *idx, const void *ctx) {
    const bin_ctx *c = ctx;
    int64_t j[4] = {0, idx[1], 0, 0};
    return at(c->a, idx) + at(c->b, c->bcast ? j : idx);
}

Test(views, binary) {
    lg__isa lv[4];
    int nl = isa_levels(lv);
    lg_rng r = {11};
    for (int l = 0; l < nl; l++) {
        set_level(lv[l]);
        for (int it = 0; it < 32; it++) {
            int64_t D[4] = {lg_rng_int(&r, 1, 2), lg_rng_int(&r, 1, 40), lg_rng_int(&r, 1, 5),
                            lg_rng_int(&r, 1, 9)};
            bool bcast = it % 2 == 1;
            int64_t B[4] = {1, D[1], 1, 1};
            view a, b, d;
            make_view(&r, it % FAM_COUNT, D, 16 * lg_rng_int(&r, 0, 2), &a);
            make_view(&r, (it / 2) % FAM_COUNT, bcast ? B : D, 16 * lg_rng_int(&r, 0, 2), &b);
            make_view(&r, (it / 3) % FAM_COUNT, D, 16 * lg_rng_int(&r, 0, 2), &d);
            fill_view(&r, &a);
            fill_view(&r, &b);
            lg_kernel *k;
            cr_assert_eq(lg_binary_create(&k, LG_BINARY_ADD, &a.md, &b.md, &d.md), LG_OK, "%s",
                         lg_last_error());
            lg_arg args[3] = {{LG_ARG_SRC, a.buf}, {LG_ARG_SRC + 1, b.buf}, {LG_ARG_DST, d.buf}};
            char w[128];
            snprintf(w, sizeof w, "binary it %d %s [%s]", it, bcast ? "bcast" : "full",
                     lg_kernel_impl(k));
            run(k, 3, args, w);
            bin_ctx c = {&a, &b, bcast};
            check_dst(&d, want_add, &c, 0.0f, w);
            lg_kernel_destroy(k);
            free(a.buf);
            free(b.buf);
            free(d.buf);
        }
    }
    set_level(LG_ISA_AVX512);
}

/* ------------------------------------------------------------------- conv */

typedef struct conv_ctx {
    const view *s;
    const float *w, *bias; /* oihw, OC */
    int64_t IC, KH, KW;
} conv_ctx;

/* 3x3 (or KHxKW), stride 1, padding 1, in double. */
static float want_conv(const int64_t *idx, const void *ctx) {
    const conv_ctx *c = ctx;
    double acc = c->bias[idx[1]];
    for (int64_t ic = 0; ic < c->IC; ic++)
        for (int64_t kh = 0; kh < c->KH; kh++)
            for (int64_t kw = 0; kw < c->KW; kw++) {
                int64_t ih = idx[2] + kh - 1, iw = idx[3] + kw - 1;
                if (ih < 0 || iw < 0 || ih >= c->s->md.dims[2] || iw >= c->s->md.dims[3]) continue;
                int64_t si[4] = {idx[0], ic, ih, iw};
                acc +=
                    (double)at(c->s, si) * c->w[((idx[1] * c->IC + ic) * c->KH + kh) * c->KW + kw];
            }
    return (float)acc;
}

Test(views, conv_into_concat_buffer) {
    lg__isa lv[4];
    int nl = isa_levels(lv);
    lg_rng r = {64};
    for (int l = 0; l < nl; l++) {
        set_level(lv[l]);
        for (int it = 0; it < 2 * FAM_COUNT; it++) {
            int fs = it % FAM_COUNT, fd = (it + it / FAM_COUNT) % FAM_COUNT;
            int64_t IC = 16, OC = it < FAM_COUNT ? 16 : 24, H = 6, W = 7;
            int64_t SD[4] = {2, IC, H, W}, DD[4] = {2, OC, H, W};
            view s, d;
            make_view(&r, fs, SD, 16, &s); /* src: channels 16..31 of a bigger buffer */
            make_view(&r, fd, DD, 64, &d); /* dst: at channel offset 64 */
            fill_view(&r, &s);
            float *w = malloc(sizeof(float) * (size_t)(OC * IC * 9)), *bias = malloc(4 * OC);
            for (int64_t i = 0; i < OC * IC * 9; i++) w[i] = lg_rng_float(&r, -0.5f, 0.5f);
            for (int64_t i = 0; i < OC; i++) bias[i] = lg_rng_float(&r, -1.0f, 1.0f);
            lg_md wm, bm, wany, wk;
            int64_t wd[4] = {OC, IC, 3, 3}, bd[1] = {OC};
            cr_assert_eq(lg_md_init_tag(&wm, 4, wd, LG_F32, "oihw"), LG_OK);
            cr_assert_eq(lg_md_init_tag(&wany, 4, wd, LG_F32, "any"), LG_OK);
            cr_assert_eq(lg_md_init_tag(&bm, 1, bd, LG_F32, "a"), LG_OK);
            lg_conv_params p;
            memset(&p, 0, sizeof p);
            for (int i = 0; i < 3; i++) {
                p.strides[i] = 1;
                p.pad_l[i] = p.pad_r[i] = 1;
            }
            p.groups = 1;
            /* weights in the layout the kernel picks (oihw on odd iterations) */
            lg_kernel *k, *wr;
            cr_assert_eq(lg_conv_create(&k, &p, &s.md, it % 2 ? &wm : &wany, &bm, &d.md, NULL),
                         LG_OK, "%s", lg_last_error());
            cr_assert_eq(lg_kernel_query_md(k, LG_ARG_WEIGHTS, &wk), LG_OK);
            float *wb = aligned_alloc(64, (lg_md_size(&wk) + 63) / 64 * 64);
            cr_assert_eq(lg_reorder_create(&wr, &wm, &wk, NULL), LG_OK);
            lg_arg wa[2] = {{LG_ARG_SRC, w}, {LG_ARG_DST, wb}};
            run(wr, 2, wa, "weights");
            lg_kernel_destroy(wr);
            lg_arg args[4] = {{LG_ARG_SRC, s.buf},
                              {LG_ARG_WEIGHTS, wb},
                              {LG_ARG_BIAS, bias},
                              {LG_ARG_DST, d.buf}};
            char what[128];
            snprintf(what, sizeof what, "conv %s -> %s @64 OC %lld [%s]", fam_name[fs],
                     fam_name[fd], (long long)OC, lg_kernel_impl(k));
            run(k, 4, args, what);
            conv_ctx c = {&s, w, bias, IC, 3, 3};
            check_dst(&d, want_conv, &c, 1e-5f, what);
            lg_kernel_destroy(k);
            free(w);
            free(wb);
            free(bias);
            free(s.buf);
            free(d.buf);
        }
    }
    set_level(LG_ISA_AVX512);
}
