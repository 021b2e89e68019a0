/* The prelu post-op (lg_attr_append_prelu) through the public API: a
 * hand-computed case; seeded random problems on the eltwise, binary and
 * conv kernels in nchw, nhwc, nChw8c and nChw16c (channels padded), every
 * mask of the weights, chains mixing sums and eltwise ops, every data type
 * the kernels take, at every ISA cap this CPU has; against a truth computed
 * here from logical indices, bit for bit (every step is one f32 operation
 * on both sides; the conv problems use small integers, so their sums are
 * exact in any order). Then the weights' md, every bad input with its
 * message and the kernels that refuse prelu. */
#include "memory/convert.h"
#include "memory/md.h"
#include "primitives/cpu.h"
#include "test_util.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool next_idx(int64_t *idx, const int64_t *dims, int nd) {
    for (int d = nd - 1; d >= 0; d--) {
        if (++idx[d] < dims[d]) return true;
        idx[d] = 0;
    }
    return false;
}

static const char *const tags[] = {"abx", "axb", "aBx8b", "aBx16b"};
static const lg_dtype dts[] = {LG_F32, LG_BF16, LG_F16, LG_S8, LG_U8};

/* ---- the truth ---- */

/* One op of a chain: kind 0 sum (scale a), 1 relu (slope a), 2 linear
 * (a * x + b), 3 prelu (mask, weights w laid out as wmd). */
typedef struct top {
    int kind, mask;
    float a, b;
    lg_md wmd;
    float *w;
} top;

typedef struct tchain {
    int n;
    top op[4];
} tchain;

static float t_chain(const tchain *c, const int64_t *idx, float v, float old) {
    for (int i = 0; i < c->n; i++) {
        const top *o = &c->op[i];
        if (o->kind == 0) {
            float t = o->a * old;
            v = v + t;
        } else if (o->kind == 1) {
            v = v > 0.0f ? v : o->a * v;
        } else if (o->kind == 2) {
            float t = o->a * v;
            v = t + o->b;
        } else {
            int64_t j[LG_MAX_NDIMS];
            for (int d = 0; d < o->wmd.ndims; d++) j[d] = o->mask & (1 << d) ? idx[d] : 0;
            float w = o->w[lg_md_offset(&o->wmd, j)];
            v = v > 0.0f ? v : w * v;
        }
    }
    return v;
}

/* A random chain of 1 to 3 ops on an nd-dim dst, at least one prelu (its
 * mask any of 2^nd) and at most max_sum sums, appended to attr. */
static void random_chain(lg_rng *r, int nd, int max_sum, lg_attr *attr, tchain *c, char *what,
                         size_t len) {
    c->n = (int)lg_rng_int(r, 1, 3);
    int pre = (int)lg_rng_int(r, 0, c->n - 1);
    size_t at = strlen(what);
    for (int i = 0; i < c->n; i++) {
        top *o = &c->op[i];
        memset(o, 0, sizeof *o);
        o->kind = i == pre ? 3 : (int)lg_rng_int(r, 0, 3);
        if (o->kind == 0 && max_sum-- <= 0) o->kind = 1;
        if (o->kind == 0) {
            o->a = (float)lg_rng_int(r, -4, 4) * 0.25f;
            cr_assert_eq(lg_attr_append_sum(attr, o->a), LG_OK);
        } else if (o->kind == 1) {
            o->a = (float)lg_rng_int(r, -2, 2) * 0.5f;
            cr_assert_eq(lg_attr_append_eltwise(attr, LG_ELTWISE_RELU, o->a, 0.0f), LG_OK);
        } else if (o->kind == 2) {
            o->a = (float)lg_rng_int(r, -2, 2) * 0.5f;
            o->b = (float)lg_rng_int(r, -2, 2);
            cr_assert_eq(lg_attr_append_eltwise(attr, LG_ELTWISE_LINEAR, o->a, o->b), LG_OK);
        } else {
            o->mask = (int)lg_rng_int(r, 0, (1 << nd) - 1);
            cr_assert_eq(lg_attr_append_prelu(attr, o->mask), LG_OK, "%s", lg_last_error());
        }
        at += (size_t)snprintf(what + at, len - at, " op%d:%g:%g:m%d", o->kind, (double)o->a,
                               (double)o->b, o->mask);
    }
}

/* After creation: each prelu's weights md from the kernel (checked against
 * oneDNN's plain layout: dims from the mask, channels innermost from 3 dims
 * on), weights of both signs, arguments appended. */
static void chain_bufs(const lg_kernel *k, const lg_md *dst, tchain *c, lg_rng *r, lg_arg *args,
                       int *nargs) {
    for (int i = 0; i < c->n; i++) {
        top *o = &c->op[i];
        if (o->kind != 3) continue;
        cr_assert_eq(lg_kernel_query_md(k, LG_ARG_ATTR_POST_OP_WEIGHTS(i), &o->wmd), LG_OK, "%s",
                     lg_last_error());
        int nd = dst->ndims;
        int64_t wd[LG_MAX_NDIMS];
        for (int d = 0; d < nd; d++) wd[d] = o->mask & (1 << d) ? dst->dims[d] : 1;
        lg_md want;
        cr_assert_eq(lg_md_init_tag(&want, nd, wd, LG_F32, nd >= 3 ? "axb" : "abx"), LG_OK);
        cr_assert(lg_md_equal(&o->wmd, &want), "prelu weights md of post-op %d", i);
        size_t n = lg_md_size(&o->wmd) / 4;
        o->w = malloc(n * 4 + 4);
        for (size_t j = 0; j < n; j++) o->w[j] = (float)lg_rng_int(r, -8, 8) * 0.25f;
        args[(*nargs)++] = (lg_arg){LG_ARG_ATTR_POST_OP_WEIGHTS(i), o->w};
    }
}

static void chain_args(const tchain *c, lg_arg *args, int *nargs) {
    for (int i = 0; i < c->n; i++)
        if (c->op[i].kind == 3)
            args[(*nargs)++] = (lg_arg){LG_ARG_ATTR_POST_OP_WEIGHTS(i), c->op[i].w};
}

static void chain_free(tchain *c) {
    for (int i = 0; i < c->n; i++) free(c->op[i].w);
}

/* A buffer for md: padding zero, elements drawn from [lo, hi] as
 * integers / 4 (integers for integer types). */
static void *make_buf(const lg_md *md, lg_rng *r, int lo, int hi) {
    size_t sz = lg_md_size(md);
    void *p = calloc(1, sz + 64);
    bool ints = md->dtype == LG_S8 || md->dtype == LG_U8 || md->dtype == LG_S32;
    int64_t idx[LG_MAX_NDIMS] = {0};
    if (sz == 0) return p;
    do {
        float v = (float)lg_rng_int(r, lo, hi) * (ints ? 1.0f : 0.25f);
        lg__store_f32(p, md->dtype, lg_md_offset(md, idx), v);
    } while (next_idx(idx, md->dims, md->ndims));
    return p;
}

/* got against want on md's logical elements (bit for bit), padding zero. */
static void compare(const lg_md *md, const void *got, const void *want, const char *what) {
    size_t esz = lg_dtype_size(md->dtype);
    int64_t idx[LG_MAX_NDIMS] = {0};
    if (lg_md_size(md) == 0) return;
    do {
        int64_t off = lg__md_off(md, idx);
        bool pad = false;
        for (int d = 0; d < md->ndims; d++) pad = pad || idx[d] >= md->dims[d];
        const char *g = (const char *)got + off * (int64_t)esz;
        if (pad) {
            for (size_t b = 0; b < esz; b++)
                cr_assert_eq(g[b], 0, "%s: padding element %lld is not zero", what, (long long)off);
        } else {
            cr_assert(memcmp(g, (const char *)want + off * (int64_t)esz, esz) == 0,
                      "%s: element at offset %lld: got %g, want %g", what, (long long)off,
                      (double)lg__load_f32(got, md->dtype, off),
                      (double)lg__load_f32(want, md->dtype, off));
        }
    } while (next_idx(idx, md->padded_dims, md->ndims));
}

static float sat(lg_dtype dt, float v) {
    float t;
    lg__store_f32(&t, dt, 0, v);
    return lg__load_f32(&t, dt, 0);
}

/* ---- hand-computed ---- */

Test(postops_prelu, hand_values) {
    /* eltwise linear (identity) then prelu per channel on 1 x 2 x 1 x 3:
     * channel 0 slope 0.5, channel 1 slope -2 */
    const int64_t dims[4] = {1, 2, 1, 3};
    lg_md md;
    cr_assert_eq(lg_md_init_tag(&md, 4, dims, LG_F32, "nchw"), LG_OK);
    lg_attr *a = NULL;
    cr_assert_eq(lg_attr_create(&a), LG_OK);
    cr_assert_eq(lg_attr_append_prelu(a, 2), LG_OK);
    lg_kernel *k = NULL;
    cr_assert_eq(lg_eltwise_create_attr(&k, LG_ELTWISE_LINEAR, 1.0f, 0.0f, &md, NULL, a), LG_OK,
                 "%s", lg_last_error());
    lg_attr_destroy(a);
    const float src[6] = {-4.0f, 0.0f, 3.0f, -1.5f, 2.0f, -0.25f};
    const float w[2] = {0.5f, -2.0f};
    const float want[6] = {-2.0f, 0.0f, 3.0f, 3.0f, 2.0f, 0.5f};
    float dst[6];
    lg_arg args[3] = {
        {LG_ARG_SRC, (void *)src}, {LG_ARG_DST, dst}, {LG_ARG_ATTR_POST_OP_WEIGHTS(0), (void *)w}};
    cr_assert_eq(lg_kernel_execute(k, 3, args), LG_OK, "%s", lg_last_error());
    for (int i = 0; i < 6; i++)
        cr_assert_eq(dst[i], want[i], "element %d: %g, want %g", i, (double)dst[i],
                     (double)want[i]);
    lg_kernel_destroy(k);
}

/* ---- random problems ---- */

static int random_dims(lg_rng *r, int64_t *dims) {
    int nd = (int)lg_rng_int(r, 3, 5);
    for (int d = 0; d < nd; d++) dims[d] = lg_rng_int(r, 1, d == 1 ? 40 : 5);
    return nd;
}

Test(postops_prelu, eltwise_random) {
    lg_rng r = {4200};
    for (int it = 0; it < 120; it++) {
        int64_t dims[LG_MAX_NDIMS];
        int nd = random_dims(&r, dims);
        const char *tag = tags[lg_rng_int(&r, 0, 3)];
        lg_dtype dt = dts[lg_rng_int(&r, 0, 4)];
        bool ints = dt == LG_S8 || dt == LG_U8;
        lg_md md;
        cr_assert_eq(lg_md_init_tag(&md, nd, dims, dt, tag), LG_OK);
        char what[300];
        snprintf(what, sizeof what, "eltwise it %d %s %s:", it, tag, lg_dtype_str(dt));
        lg_attr *attr = NULL;
        cr_assert_eq(lg_attr_create(&attr), LG_OK);
        tchain c;
        random_chain(&r, nd, 3, attr, &c, what, sizeof what);
        void *src = make_buf(&md, &r, ints ? 0 : -32, 32);
        void *old = make_buf(&md, &r, ints ? 0 : -32, 32);
        size_t sz = lg_md_size(&md) + 64;
        void *want = malloc(sz), *got = malloc(sz);
        memcpy(want, old, sz);
        bool first = true;
        for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
            lg__cpu_set_isa_cap(isa);
            lg_kernel *k = NULL;
            cr_assert_eq(lg_eltwise_create_attr(&k, LG_ELTWISE_ABS, 0, 0, &md, NULL, attr), LG_OK,
                         "%s: %s", what, lg_last_error());
            char impl[64];
            snprintf(impl, sizeof impl, "eltwise:%s:dense_po", lg__isa_name(lg__cpu_isa()));
            cr_assert_str_eq(lg_kernel_impl(k), impl, "%s", what);
            lg_arg args[2 + LG_MAX_POST_OPS] = {{LG_ARG_SRC, src}, {LG_ARG_DST, got}};
            int nargs = 2;
            if (first) {
                chain_bufs(k, &md, &c, &r, args, &nargs);
                int64_t idx[LG_MAX_NDIMS] = {0};
                do {
                    int64_t off = lg_md_offset(&md, idx);
                    float x = fabsf(lg__load_f32(src, dt, off));
                    lg__store_f32(want, dt, off, t_chain(&c, idx, x, lg__load_f32(old, dt, off)));
                } while (next_idx(idx, md.dims, nd));
                first = false;
            } else {
                chain_args(&c, args, &nargs);
            }
            memcpy(got, old, sz);
            cr_assert_eq(lg_kernel_execute(k, nargs, args), LG_OK, "%s: %s", what, lg_last_error());
            compare(&md, got, want, what);
            lg_kernel_destroy(k);
        }
        lg__cpu_set_isa_cap(-1);
        lg_attr_destroy(attr);
        chain_free(&c);
        free(src), free(old), free(want), free(got);
    }
}

Test(postops_prelu, binary_random) {
    lg_rng r = {4217};
    for (int it = 0; it < 120; it++) {
        int64_t dims[LG_MAX_NDIMS], d1[LG_MAX_NDIMS];
        int nd = random_dims(&r, dims);
        for (int d = 0; d < nd; d++) d1[d] = d == 1 ? dims[d] : 1; /* src1 per channel */
        const char *tag = tags[lg_rng_int(&r, 0, 3)];
        lg_dtype dt = dts[lg_rng_int(&r, 0, 4)];
        bool ints = dt == LG_S8 || dt == LG_U8;
        lg_md md, m1;
        cr_assert_eq(lg_md_init_tag(&md, nd, dims, dt, tag), LG_OK);
        cr_assert_eq(lg_md_init_tag(&m1, nd, d1, LG_F32, "abx"), LG_OK);
        char what[300];
        snprintf(what, sizeof what, "binary it %d %s %s:", it, tag, lg_dtype_str(dt));
        lg_attr *attr = NULL;
        cr_assert_eq(lg_attr_create(&attr), LG_OK);
        tchain c;
        random_chain(&r, nd, 3, attr, &c, what, sizeof what);
        void *s0 = make_buf(&md, &r, ints ? 0 : -32, 32);
        void *s1 = make_buf(&m1, &r, -8, 8);
        void *old = make_buf(&md, &r, ints ? 0 : -32, 32);
        size_t sz = lg_md_size(&md) + 64;
        void *want = malloc(sz), *got = malloc(sz);
        memcpy(want, old, sz);
        bool first = true;
        for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
            lg__cpu_set_isa_cap(isa);
            lg_kernel *k = NULL;
            cr_assert_eq(lg_binary_create_attr(&k, LG_BINARY_SUB, &md, &m1, &md, attr), LG_OK,
                         "%s: %s", what, lg_last_error());
            char impl[64];
            snprintf(impl, sizeof impl, "binary:%s:attr", lg__isa_name(lg__cpu_isa()));
            cr_assert_str_eq(lg_kernel_impl(k), impl, "%s", what);
            lg_arg args[3 + LG_MAX_POST_OPS] = {
                {LG_ARG_SRC, s0}, {LG_ARG_SRC + 1, s1}, {LG_ARG_DST, got}};
            int nargs = 3;
            if (first) {
                chain_bufs(k, &md, &c, &r, args, &nargs);
                int64_t idx[LG_MAX_NDIMS] = {0}, j[LG_MAX_NDIMS];
                do {
                    int64_t off = lg_md_offset(&md, idx);
                    for (int d = 0; d < nd; d++) j[d] = d == 1 ? idx[d] : 0;
                    float v = lg__load_f32(s0, dt, off) - ((float *)s1)[lg_md_offset(&m1, j)];
                    lg__store_f32(want, dt, off, t_chain(&c, idx, v, lg__load_f32(old, dt, off)));
                } while (next_idx(idx, md.dims, nd));
                first = false;
            } else {
                chain_args(&c, args, &nargs);
            }
            memcpy(got, old, sz);
            cr_assert_eq(lg_kernel_execute(k, nargs, args), LG_OK, "%s: %s", what, lg_last_error());
            compare(&md, got, want, what);
            lg_kernel_destroy(k);
        }
        lg__cpu_set_isa_cap(-1);
        lg_attr_destroy(attr);
        chain_free(&c);
        free(s0), free(s1), free(old), free(want), free(got);
    }
}

/* Conv 2D: src, weights and bias small integers (sums exact in f32 in any
 * order), every tag family on src and dst, weights oihw, src / weights
 * f32, bf16 or f16 and dst f32, bf16, f16, s8 or u8 (saturated). */
Test(postops_prelu, conv_random) {
    static const char *const ctags[] = {"nchw", "nhwc", "nChw8c", "nChw16c"};
    static const lg_dtype fdt[] = {LG_F32, LG_BF16, LG_F16};
    lg_rng r = {4242};
    for (int it = 0; it < 48; it++) {
        int64_t n = lg_rng_int(&r, 1, 2), ic = lg_rng_int(&r, 1, 20), oc = lg_rng_int(&r, 1, 20);
        int64_t ih = lg_rng_int(&r, 1, 6), iw = lg_rng_int(&r, 1, 6), kh = lg_rng_int(&r, 1, 3),
                kw = lg_rng_int(&r, 1, 3), ph = lg_rng_int(&r, 0, kh - 1),
                pw = lg_rng_int(&r, 0, kw - 1);
        int64_t oh = ih + 2 * ph - kh + 1, ow = iw + 2 * pw - kw + 1;
        if (oh < 1 || ow < 1) continue;
        const char *tag = ctags[it % 4];
        lg_dtype sdt = fdt[lg_rng_int(&r, 0, 2)], ddt = dts[lg_rng_int(&r, 0, 4)];
        lg_conv_params p;
        memset(&p, 0, sizeof p);
        p.groups = 1;
        p.strides[0] = p.strides[1] = 1;
        p.pad_l[0] = p.pad_r[0] = ph;
        p.pad_l[1] = p.pad_r[1] = pw;
        lg_md s, w, b, d;
        cr_assert_eq(lg_md_init_tag(&s, 4, (int64_t[4]){n, ic, ih, iw}, sdt, tag), LG_OK);
        cr_assert_eq(lg_md_init_tag(&w, 4, (int64_t[4]){oc, ic, kh, kw}, sdt, "oihw"), LG_OK);
        cr_assert_eq(lg_md_init_tag(&b, 1, &oc, LG_F32, "a"), LG_OK);
        cr_assert_eq(lg_md_init_tag(&d, 4, (int64_t[4]){n, oc, oh, ow}, ddt, tag), LG_OK);
        char what[300];
        snprintf(what, sizeof what,
                 "conv it %d %s %s->%s %lldx%lldx%lldx%lld oc %lld k%lldx%lld:", it, tag,
                 lg_dtype_str(sdt), lg_dtype_str(ddt), (long long)n, (long long)ic, (long long)ih,
                 (long long)iw, (long long)oc, (long long)kh, (long long)kw);
        lg_attr *attr = NULL;
        cr_assert_eq(lg_attr_create(&attr), LG_OK);
        tchain c;
        random_chain(&r, 4, 1, attr, &c, what, sizeof what);
        bool ints = ddt == LG_S8 || ddt == LG_U8;
        void *sb = make_buf(&s, &r, -12, 12), *bb = make_buf(&b, &r, -8, 8);
        void *old = make_buf(&d, &r, ints ? 0 : -32, 32);
        size_t sz = lg_md_size(&d) + 64;
        void *want = malloc(sz), *got = malloc(sz), *wb = NULL;
        memcpy(want, old, sz);
        lg_md wq;
        bool first = true;
        for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
            lg__cpu_set_isa_cap(isa);
            lg_kernel *k = NULL;
            cr_assert_eq(lg_conv_create(&k, &p, &s, &w, &b, &d, attr), LG_OK, "%s: %s", what,
                         lg_last_error());
            lg_arg args[4 + LG_MAX_POST_OPS] = {
                {LG_ARG_SRC, sb}, {LG_ARG_WEIGHTS, NULL}, {LG_ARG_BIAS, bb}, {LG_ARG_DST, got}};
            int nargs = 4;
            if (first) {
                cr_assert_eq(lg_kernel_query_md(k, LG_ARG_WEIGHTS, &wq), LG_OK);
                wb = make_buf(&wq, &r, -8, 8);
                chain_bufs(k, &d, &c, &r, args, &nargs);
                int64_t idx[4] = {0};
                do {
                    float acc = ((float *)bb)[idx[1]];
                    for (int64_t ci = 0; ci < ic; ci++)
                        for (int64_t y = 0; y < kh; y++)
                            for (int64_t x = 0; x < kw; x++) {
                                int64_t hy = idx[2] + y - ph, wx = idx[3] + x - pw;
                                if (hy < 0 || hy >= ih || wx < 0 || wx >= iw) continue;
                                float sv = lg__load_f32(
                                    sb, sdt, lg_md_offset(&s, (int64_t[4]){idx[0], ci, hy, wx}));
                                float wv = lg__load_f32(
                                    wb, sdt, lg_md_offset(&wq, (int64_t[4]){idx[1], ci, y, x}));
                                acc += sv * wv;
                            }
                    int64_t off = lg_md_offset(&d, idx);
                    float v = t_chain(&c, idx, acc, lg__load_f32(old, ddt, off));
                    lg__store_f32(want, ddt, off, sat(ddt, v));
                } while (next_idx(idx, d.dims, 4));
                first = false;
            } else {
                chain_args(&c, args, &nargs);
            }
            args[1].data = wb;
            memcpy(got, old, sz);
            cr_assert_eq(lg_kernel_execute(k, nargs, args), LG_OK, "%s: %s", what, lg_last_error());
            compare(&d, got, want, what);
            lg_kernel_destroy(k);
        }
        lg__cpu_set_isa_cap(-1);
        lg_attr_destroy(attr);
        chain_free(&c);
        free(sb), free(bb), free(wb), free(old), free(want), free(got);
    }
}

/* ---- errors ---- */

Test(postops_prelu, errors) {
    lg_attr *a = NULL;
    cr_assert_eq(lg_attr_append_prelu(NULL, 0), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "lg_attr_append_prelu") && strstr(lg_last_error(), "attr"),
              "%s", lg_last_error());
    cr_assert_eq(lg_attr_create(&a), LG_OK);
    cr_assert_eq(lg_attr_append_prelu(a, -1), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "lg_attr_append_prelu") && strstr(lg_last_error(), "mask"),
              "%s", lg_last_error());
    cr_assert_eq(lg_attr_append_prelu(a, 1 << LG_MAX_NDIMS), LG_INVALID_ARGUMENT);
    for (int i = 0; i < LG_MAX_POST_OPS; i++) cr_assert_eq(lg_attr_append_prelu(a, 0), LG_OK);
    cr_assert_eq(lg_attr_append_prelu(a, 0), LG_INVALID_ARGUMENT); /* full chain */
    cr_assert(strstr(lg_last_error(), "post-ops"), "%s", lg_last_error());
    lg_attr_destroy(a);

    /* a mask naming a dim dst lacks, at creation */
    const int64_t dims[2] = {3, 5};
    lg_md md;
    cr_assert_eq(lg_md_init_tag(&md, 2, dims, LG_F32, "ab"), LG_OK);
    cr_assert_eq(lg_attr_create(&a), LG_OK);
    cr_assert_eq(lg_attr_append_prelu(a, 4), LG_OK);
    lg_kernel *k = NULL;
    cr_assert_eq(lg_eltwise_create_attr(&k, LG_ELTWISE_RELU, 0, 0, &md, NULL, a),
                 LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "lg_eltwise_create_attr") &&
                  strstr(lg_last_error(), "post-op 0 (prelu)"),
              "%s", lg_last_error());
    cr_assert_eq(lg_binary_create_attr(&k, LG_BINARY_ADD, &md, &md, &md, a), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "lg_binary_create_attr"), "%s", lg_last_error());
    lg_attr_destroy(a);

    /* a missing weights buffer at execution */
    cr_assert_eq(lg_attr_create(&a), LG_OK);
    cr_assert_eq(lg_attr_append_eltwise(a, LG_ELTWISE_RELU, 0, 0), LG_OK);
    cr_assert_eq(lg_attr_append_prelu(a, 3), LG_OK);
    cr_assert_eq(lg_eltwise_create_attr(&k, LG_ELTWISE_RELU, 0, 0, &md, NULL, a), LG_OK);
    lg_md wmd;
    cr_assert_eq(lg_kernel_query_md(k, LG_ARG_ATTR_POST_OP_WEIGHTS(1), &wmd), LG_OK);
    cr_assert_eq(wmd.dims[0], 3);
    cr_assert_eq(wmd.dims[1], 5);
    cr_assert_eq(wmd.dtype, LG_F32);
    cr_assert_neq(lg_kernel_query_md(k, LG_ARG_ATTR_POST_OP_SRC1(1), &wmd), LG_OK);
    float buf[15] = {0};
    lg_arg args[2] = {{LG_ARG_SRC, buf}, {LG_ARG_DST, buf}};
    cr_assert_eq(lg_kernel_execute(k, 2, args), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "missing"), "%s", lg_last_error());
    lg_kernel_destroy(k);

    /* the kernels that take no prelu say so */
    lg_md s, w, d;
    cr_assert_eq(lg_md_init_tag(&s, 2, (int64_t[2]){2, 4}, LG_F32, "ab"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&w, 2, (int64_t[2]){3, 4}, LG_F32, "ab"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&d, 2, (int64_t[2]){2, 3}, LG_F32, "ab"), LG_OK);
    cr_assert_eq(lg_inner_product_create(&k, &s, &w, NULL, &d, a), LG_UNIMPLEMENTED);
    cr_assert(strstr(lg_last_error(), "lg_inner_product_create") &&
                  strstr(lg_last_error(), "prelu"),
              "%s", lg_last_error());
    lg_attr_destroy(a);
}
