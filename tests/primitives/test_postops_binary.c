/* Binary post-ops and binary scales (lg_attr_append_binary,
 * lg_eltwise_create_attr, lg_binary_create_attr) through the public API:
 * seeded random shapes in every layout family (plain, channels-last,
 * blocked with padded channels, plain with gaps), each broadcast policy of
 * the post-ops' src1 (one value, per channel, per element, per dim 0, per
 * (dim 0, dim 1), per batch and spatial position, per last dim, random
 * masks), src1 types and layouts, chains mixing sums, eltwise and binary
 * post-ops, every data type the kernels take, at every ISA cap; against a
 * truth computed here element by element from logical indices (bit for bit:
 * every step is one f32 operation on both sides). Then hand-computed
 * values and every bad input with its message. */
#include "memory/convert.h"
#include "memory/md.h"
#include "primitives/attr.h"
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

/* ---- the truth, written independently of the library's chain ---- */

static float t_bin(int alg, float a, float b) {
    switch (alg) {
    case LG_BINARY_ADD:
        return a + b;
    case LG_BINARY_SUB:
        return a - b;
    case LG_BINARY_MUL:
        return a * b;
    case LG_BINARY_DIV:
        return a / b;
    case LG_BINARY_MIN:
        return a < b ? a : b;
    case LG_BINARY_MAX:
        return a > b ? a : b;
    case LG_BINARY_GE:
        return a >= b ? 1.0f : 0.0f;
    case LG_BINARY_GT:
        return a > b ? 1.0f : 0.0f;
    case LG_BINARY_LE:
        return a <= b ? 1.0f : 0.0f;
    case LG_BINARY_LT:
        return a < b ? 1.0f : 0.0f;
    case LG_BINARY_EQ:
        return a == b ? 1.0f : 0.0f;
    default:
        return a != b ? 1.0f : 0.0f;
    }
}

/* The exact eltwise algorithms the random chains use. */
static const int elt_algs[] = {LG_ELTWISE_RELU, LG_ELTWISE_LINEAR, LG_ELTWISE_CLIP, LG_ELTWISE_ABS,
                               LG_ELTWISE_SQUARE};

static float t_elt(int alg, float alpha, float beta, float x) {
    switch (alg) {
    case LG_ELTWISE_RELU:
        return x > 0.0f ? x : alpha * x;
    case LG_ELTWISE_LINEAR:
        return alpha * x + beta;
    case LG_ELTWISE_CLIP: {
        float s = x > alpha ? x : alpha;
        return s > beta ? beta : s;
    }
    case LG_ELTWISE_ABS:
        return fabsf(x);
    default:
        return x * x;
    }
}

typedef struct top {
    int kind; /* LG_POST_SUM / _ELTWISE / _BINARY */
    int alg;
    float alpha, beta;
    lg_md md; /* binary: src1 as the kernel took it */
    void *buf;
} top;

typedef struct tchain {
    int n;
    top op[LG_MAX_POST_OPS];
} tchain;

static float t_chain(const tchain *c, const int64_t *idx, float v, float old) {
    for (int i = 0; i < c->n; i++) {
        const top *o = &c->op[i];
        if (o->kind == LG_POST_SUM) {
            float t = o->alpha * old;
            v = v + t;
        } else if (o->kind == LG_POST_ELTWISE) {
            v = t_elt(o->alg, o->alpha, o->beta, v);
        } else {
            int64_t j[LG_MAX_NDIMS];
            for (int d = 0; d < o->md.ndims; d++) j[d] = o->md.dims[d] == 1 ? 0 : idx[d];
            v = t_bin(o->alg, v, lg__load_f32(o->buf, o->md.dtype, lg_md_offset(&o->md, j)));
        }
    }
    return v;
}

/* ---- problems ---- */

static const char *const tags[] = {"abx", "axb", "aBx8b", "aBx16b", NULL /* gaps */};
static const lg_dtype dts[] = {LG_F32, LG_BF16, LG_F16, LG_S8, LG_U8};
static const lg_dtype src1_dts[] = {LG_F32, LG_BF16, LG_F16, LG_S32, LG_S8, LG_U8};

/* A tag's md, or plain strides with gaps (tag NULL). */
static lg_md make_md(int nd, const int64_t *dims, lg_dtype dt, const char *tag) {
    lg_md md;
    if (tag) {
        cr_assert_eq(lg_md_init_tag(&md, nd, dims, dt, tag), LG_OK, "%s: %s", tag, lg_last_error());
        return md;
    }
    int64_t st[LG_MAX_NDIMS], s = 1;
    for (int d = nd - 1; d >= 0; d--) {
        st[d] = s;
        s *= dims[d] + (d == nd - 1 ? 2 : 1);
    }
    cr_assert_eq(lg_md_init_strides(&md, nd, dims, dt, st), LG_OK, "%s", lg_last_error());
    return md;
}

/* A buffer for md: every byte 0x5a (gaps keep it), padding zero, the
 * elements drawn from [lo, hi) (integers for integer types). */
static void *make_buf(const lg_md *md, lg_rng *r, float lo, float hi) {
    size_t sz = lg_md_size(md);
    void *p = malloc(sz + 64);
    memset(p, md->blocking.inner_nblks ? 0 : 0x5a, sz + 64);
    int64_t idx[LG_MAX_NDIMS] = {0};
    bool ints = md->dtype == LG_S8 || md->dtype == LG_U8 || md->dtype == LG_S32;
    if (lg_md_size(md) == 0) return p;
    do {
        float v = lg_rng_float(r, lo, hi);
        lg__store_f32(p, md->dtype, lg_md_offset(md, idx), ints ? nearbyintf(v) : v);
    } while (next_idx(idx, md->dims, md->ndims));
    return p;
}

/* A random policy: the dims of src1 against dst's. */
static void policy_dims(lg_rng *r, int nd, const int64_t *dims, int64_t *d1, const char **name) {
    int p = (int)lg_rng_int(r, 0, 7), mask = 0;
    static const char *const names[] = {"common",    "per_oc",     "per_tensor",
                                        "per_dim_0", "per_dim_01", "per_mb_spatial",
                                        "per_w",     "random mask"};
    switch (p) {
    case 0:
        mask = 0;
        break;
    case 1:
        mask = 2;
        break;
    case 2:
        mask = (1 << nd) - 1;
        break;
    case 3:
        mask = 1;
        break;
    case 4:
        mask = 3;
        break;
    case 5:
        mask = ((1 << nd) - 1) & ~2;
        break;
    case 6:
        mask = 1 << (nd - 1);
        break;
    default:
        mask = (int)lg_rng_int(r, 0, (1 << nd) - 1);
        break;
    }
    for (int d = 0; d < nd; d++) d1[d] = mask & (1 << d) ? dims[d] : 1;
    *name = names[p];
}

/* A random chain on dst md (1 to 3 ops, at least one binary), appended to
 * attr; the src1 mds in `c` are filled in after creation. */
static void random_chain(lg_rng *r, const lg_md *dst, lg_attr *attr, tchain *c, char *what,
                         size_t len) {
    int n = (int)lg_rng_int(r, 1, 3), bin = (int)lg_rng_int(r, 0, n - 1);
    c->n = n;
    size_t at = strlen(what);
    for (int i = 0; i < n; i++) {
        top *o = &c->op[i];
        memset(o, 0, sizeof *o);
        int kind = i == bin ? 2 : (int)lg_rng_int(r, 0, 2);
        if (kind == 0) {
            o->kind = LG_POST_SUM;
            o->alpha = (float)lg_rng_int(r, -4, 4) * 0.25f;
            cr_assert_eq(lg_attr_append_sum(attr, o->alpha), LG_OK);
            at += (size_t)snprintf(what + at, len - at, " sum:%g", (double)o->alpha);
        } else if (kind == 1) {
            o->kind = LG_POST_ELTWISE;
            o->alg = elt_algs[lg_rng_int(r, 0, 4)];
            o->alpha = (float)lg_rng_int(r, -3, 3) * 0.5f;
            o->beta = o->alpha + (float)lg_rng_int(r, 0, 6);
            cr_assert_eq(lg_attr_append_eltwise(attr, o->alg, o->alpha, o->beta), LG_OK);
            at += (size_t)snprintf(what + at, len - at, " elt%d", o->alg);
        } else {
            o->kind = LG_POST_BINARY;
            o->alg = (int)lg_rng_int(r, LG_BINARY_ADD, LG_BINARY_NE);
            int64_t d1[LG_MAX_NDIMS];
            const char *pol;
            policy_dims(r, dst->ndims, dst->dims, d1, &pol);
            lg_dtype dt = src1_dts[lg_rng_int(r, 0, 5)];
            int lay = (int)lg_rng_int(r, 0, 3); /* any, abx, axb, dst's tag */
            lg_md m;
            char tag[64] = "";
            if (lay == 3 && lg_md_tag(dst, tag, sizeof tag) != LG_OK) lay = 1;
            const char *t = lay == 0 ? "any" : lay == 1 ? "abx" : lay == 2 ? "axb" : tag;
            cr_assert_eq(lg_md_init_tag(&m, dst->ndims, d1, dt, t), LG_OK, "%s: %s", t,
                         lg_last_error());
            cr_assert_eq(lg_attr_append_binary(attr, o->alg, &m), LG_OK, "%s", lg_last_error());
            at += (size_t)snprintf(what + at, len - at, " bin%d:%s:%s:%s", o->alg, lg_dtype_str(dt),
                                   pol, t);
        }
    }
}

/* After creation: each binary op's md from the kernel, buffers filled. */
static void chain_bufs(const lg_kernel *k, tchain *c, lg_rng *r, lg_arg *args, int *nargs) {
    for (int i = 0; i < c->n; i++) {
        top *o = &c->op[i];
        if (o->kind != LG_POST_BINARY) continue;
        cr_assert_eq(lg_kernel_query_md(k, LG_ARG_ATTR_POST_OP_SRC1(i), &o->md), LG_OK, "%s",
                     lg_last_error());
        o->buf = make_buf(&o->md, r, -4.0f, 4.0f);
        args[(*nargs)++] = (lg_arg){LG_ARG_ATTR_POST_OP_SRC1(i), o->buf};
    }
}

static void chain_free(tchain *c) {
    for (int i = 0; i < c->n; i++) free(c->op[i].buf);
}

/* got against want over md's logical elements (bit for bit) and its
 * padding (zero). */
static void compare(const lg_md *md, const void *got, const void *want, const char *what) {
    size_t esz = lg_dtype_size(md->dtype);
    int64_t idx[LG_MAX_NDIMS] = {0};
    if (lg_md_size(md) == 0) return;
    do {
        int64_t off = lg__md_off(md, idx); /* lg_md_offset refuses padding indices */
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

/* Random dims: 2 to 5 dims, channels up to 40 (blocked layouts pad them). */
static int random_dims(lg_rng *r, int64_t *dims) {
    int nd = (int)lg_rng_int(r, 2, 5);
    for (int d = 0; d < nd; d++) dims[d] = lg_rng_int(r, 1, d == 1 ? 40 : 6);
    return nd;
}

/* The path lg_kernel_impl should name. */
static void expect_impl(const lg_kernel *k, const char *want, const char *what) {
    cr_assert_str_eq(lg_kernel_impl(k), want, "%s", what);
}

Test(postops_binary, eltwise_random) {
    lg_rng r = {1700};
    for (int it = 0; it < 160; it++) {
        int64_t dims[LG_MAX_NDIMS];
        int nd = random_dims(&r, dims);
        const char *tag = tags[lg_rng_int(&r, 0, 4)];
        lg_dtype dt = dts[lg_rng_int(&r, 0, 4)];
        int alg = elt_algs[lg_rng_int(&r, 0, 4)];
        float alpha = (float)lg_rng_int(&r, -2, 2) * 0.5f, beta = alpha + 3.0f;
        if (alg == LG_ELTWISE_ABS || alg == LG_ELTWISE_SQUARE) alpha = beta = 0.0f;
        bool ints = dt == LG_S8 || dt == LG_U8;
        if (ints && alg == LG_ELTWISE_SQUARE) alg = LG_ELTWISE_ABS;
        lg_md md = make_md(nd, dims, dt, tag);
        char what[400];
        snprintf(what, sizeof what, "eltwise it %d %s %s alg %d:", it, tag ? tag : "gaps",
                 lg_dtype_str(dt), alg);
        lg_attr *attr = NULL;
        cr_assert_eq(lg_attr_create(&attr), LG_OK);
        tchain c;
        random_chain(&r, &md, attr, &c, what, sizeof what);
        void *src = make_buf(&md, &r, ints ? 0.0f : -8.0f, 8.0f);
        void *old = make_buf(&md, &r, ints ? 0.0f : -8.0f, 8.0f);
        size_t sz = lg_md_size(&md) + 64;
        void *want = malloc(sz), *got = malloc(sz), *inp = malloc(sz), *want_in = malloc(sz);
        /* The truth, out of place (old is dst_old) and in place (src is). */
        memcpy(want, old, sz);
        memcpy(want_in, src, sz);
        bool first = true;
        for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
            lg__cpu_set_isa_cap(isa);
            lg_kernel *k = NULL;
            cr_assert_eq(lg_eltwise_create_attr(&k, alg, alpha, beta, &md, NULL, attr), LG_OK,
                         "%s: %s", what, lg_last_error());
            char impl[64];
            if (tag)
                snprintf(impl, sizeof impl, "eltwise:%s:dense_po", lg__isa_name(lg__cpu_isa()));
            else
                snprintf(impl, sizeof impl, "eltwise:ref");
            expect_impl(k, impl, what);
            lg_arg args[2 + LG_MAX_POST_OPS] = {{LG_ARG_SRC, src}, {LG_ARG_DST, got}};
            int nargs = 2;
            if (first) {
                chain_bufs(k, &c, &r, args, &nargs);
                int64_t idx[LG_MAX_NDIMS] = {0};
                do {
                    int64_t off = lg_md_offset(&md, idx);
                    float x = lg__load_f32(src, dt, off);
                    float f = t_elt(alg, alpha, beta, x);
                    lg__store_f32(want, dt, off, t_chain(&c, idx, f, lg__load_f32(old, dt, off)));
                    lg__store_f32(want_in, dt, off, t_chain(&c, idx, f, x));
                } while (next_idx(idx, md.dims, nd));
                first = false;
            } else {
                for (int i = 0; i < c.n; i++)
                    if (c.op[i].kind == LG_POST_BINARY)
                        args[nargs++] = (lg_arg){LG_ARG_ATTR_POST_OP_SRC1(i), c.op[i].buf};
            }
            memcpy(got, old, sz);
            cr_assert_eq(lg_kernel_execute(k, nargs, args), LG_OK, "%s: %s", what, lg_last_error());
            compare(&md, got, want, what);
            memcpy(inp, src, sz);
            args[0].data = args[1].data = inp;
            cr_assert_eq(lg_kernel_execute(k, nargs, args), LG_OK, "%s in place: %s", what,
                         lg_last_error());
            compare(&md, inp, want_in, what);
            lg_kernel_destroy(k);
        }
        lg__cpu_set_isa_cap(-1);
        lg_attr_destroy(attr);
        chain_free(&c);
        free(src), free(old), free(want), free(got), free(inp), free(want_in);
    }
}

Test(postops_binary, binary_random) {
    lg_rng r = {1717};
    for (int it = 0; it < 160; it++) {
        int64_t dims[LG_MAX_NDIMS], d1[LG_MAX_NDIMS], d0[LG_MAX_NDIMS];
        int nd = random_dims(&r, dims);
        const char *pol, *pol0 = "full";
        policy_dims(&r, nd, dims, d1, &pol);
        /* One case in four broadcasts src0 too; dst: the broadcast of the two. */
        memcpy(d0, dims, sizeof d0);
        if (lg_rng_int(&r, 0, 3) == 0) policy_dims(&r, nd, dims, d0, &pol0);
        for (int d = 0; d < nd; d++) dims[d] = d0[d] == 1 && d1[d] == 1 ? 1 : dims[d];
        const char *td = tags[lg_rng_int(&r, 0, 4)];
        /* src0 mostly in dst's layout (the vector path), else any other */
        const char *t0 = lg_rng_int(&r, 0, 3) ? td : tags[lg_rng_int(&r, 0, 4)];
        const char *t1 = tags[lg_rng_int(&r, 0, 3)];
        lg_dtype dt0 = dts[lg_rng_int(&r, 0, 4)], dt1 = dts[lg_rng_int(&r, 0, 4)],
                 dtd = dts[lg_rng_int(&r, 0, 4)];
        int alg = (int)lg_rng_int(&r, LG_BINARY_ADD, LG_BINARY_NE);
        lg_md m0 = make_md(nd, d0, dt0, t0), m1 = make_md(nd, d1, dt1, t1),
              md = make_md(nd, dims, dtd, td);
        char what[400];
        snprintf(what, sizeof what, "binary it %d src0 %s %s:%s:%s %s:%s:%s src1 %s alg %d:", it,
                 pol0, t0 ? t0 : "gaps", t1 ? t1 : "gaps", td ? td : "gaps", lg_dtype_str(dt0),
                 lg_dtype_str(dt1), lg_dtype_str(dtd), pol, alg);
        lg_attr *attr = NULL;
        cr_assert_eq(lg_attr_create(&attr), LG_OK);
        float sc[2] = {1.0f, 1.0f};
        bool has[2] = {lg_rng_int(&r, 0, 2) == 0, lg_rng_int(&r, 0, 2) == 0};
        for (int i = 0; i < 2; i++)
            if (has[i]) {
                sc[i] = (float)lg_rng_int(&r, 1, 8) * 0.25f;
                cr_assert_eq(lg_attr_set_scales(attr, i ? LG_ARG_SRC + 1 : LG_ARG_SRC, 0), LG_OK);
            }
        tchain c;
        c.n = 0;
        if (lg_rng_int(&r, 0, 4)) random_chain(&r, &md, attr, &c, what, sizeof what);
        void *b0 = make_buf(&m0, &r, dt0 == LG_U8 ? 0.0f : -8.0f, 8.0f);
        void *b1 = make_buf(&m1, &r, dt1 == LG_U8 ? 0.0f : -8.0f, 8.0f);
        void *old = make_buf(&md, &r, dtd == LG_U8 ? 0.0f : -8.0f, 8.0f);
        size_t sz = lg_md_size(&md) + 64;
        void *want = malloc(sz), *got = malloc(sz);
        memcpy(want, old, sz);
        bool first = true;
        for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
            lg__cpu_set_isa_cap(isa);
            lg_kernel *k = NULL;
            cr_assert_eq(lg_binary_create_attr(&k, alg, &m0, &m1, &md, attr), LG_OK, "%s: %s", what,
                         lg_last_error());
            char impl[64];
            lg_md s0 = m0;
            s0.dtype = md.dtype;
            bool vec = (has[0] || has[1] || c.n) && td && lg_md_equal(&s0, &md);
            if (vec) snprintf(impl, sizeof impl, "binary:%s:attr", lg__isa_name(lg__cpu_isa()));
            if (vec || has[0] || has[1] || c.n) expect_impl(k, vec ? impl : "binary:ref", what);
            lg_arg args[5 + LG_MAX_POST_OPS] = {
                {LG_ARG_SRC, b0}, {LG_ARG_SRC + 1, b1}, {LG_ARG_DST, got}};
            int nargs = 3;
            for (int i = 0; i < 2; i++)
                if (has[i])
                    args[nargs++] =
                        (lg_arg){LG_ARG_ATTR_SCALES | (i ? LG_ARG_SRC + 1 : LG_ARG_SRC), &sc[i]};
            if (first) {
                chain_bufs(k, &c, &r, args, &nargs);
                int64_t idx[LG_MAX_NDIMS] = {0}, j[LG_MAX_NDIMS], i0[LG_MAX_NDIMS];
                do {
                    for (int d = 0; d < nd; d++) {
                        j[d] = d1[d] == 1 ? 0 : idx[d];
                        i0[d] = d0[d] == 1 ? 0 : idx[d];
                    }
                    float a = lg__load_f32(b0, dt0, lg_md_offset(&m0, i0));
                    float b = lg__load_f32(b1, dt1, lg_md_offset(&m1, j));
                    if (has[0]) a = a * sc[0];
                    if (has[1]) b = b * sc[1];
                    int64_t off = lg_md_offset(&md, idx);
                    lg__store_f32(want, dtd, off,
                                  t_chain(&c, idx, t_bin(alg, a, b), lg__load_f32(old, dtd, off)));
                } while (next_idx(idx, dims, nd));
                first = false;
            } else {
                for (int i = 0; i < c.n; i++)
                    if (c.op[i].kind == LG_POST_BINARY)
                        args[nargs++] = (lg_arg){LG_ARG_ATTR_POST_OP_SRC1(i), c.op[i].buf};
            }
            memcpy(got, old, sz);
            cr_assert_eq(lg_kernel_execute(k, nargs, args), LG_OK, "%s: %s", what, lg_last_error());
            compare(&md, got, want, what);
            lg_kernel_destroy(k);
        }
        lg__cpu_set_isa_cap(-1);
        lg_attr_destroy(attr);
        chain_free(&c);
        free(b0), free(b1), free(old), free(want), free(got);
    }
}

/* Hand-computed: relu, then + one value, then * a per-channel value, on a
 * 1x2x1x3 f32 tensor in nchw and in nChw8c. */
Test(postops_binary, eltwise_hand_values) {
    const int64_t dims[4] = {1, 2, 1, 3}, dc[4] = {1, 2, 1, 1}, d0[4] = {1, 1, 1, 1};
    const float x[6] = {-1, 2, -3, 4, 5, -6};
    const float want[6] = {(0 + 1) * 10, (2 + 1) * 10, (0 + 1) * 10,
                           (4 + 1) * -2, (5 + 1) * -2, (0 + 1) * -2};
    const float one = 1.0f, chan[2] = {10.0f, -2.0f};
    const char *const lay[2] = {"nchw", "nChw8c"};
    for (int l = 0; l < 2; l++) {
        lg_md md, mc, m0;
        cr_assert_eq(lg_md_init_tag(&md, 4, dims, LG_F32, lay[l]), LG_OK);
        cr_assert_eq(lg_md_init_tag(&mc, 4, dc, LG_F32, "nchw"), LG_OK);
        cr_assert_eq(lg_md_init_tag(&m0, 4, d0, LG_F32, "any"), LG_OK);
        lg_attr *a = NULL;
        cr_assert_eq(lg_attr_create(&a), LG_OK);
        cr_assert_eq(lg_attr_append_binary(a, LG_BINARY_ADD, &m0), LG_OK);
        cr_assert_eq(lg_attr_append_binary(a, LG_BINARY_MUL, &mc), LG_OK);
        lg_kernel *k = NULL;
        cr_assert_eq(lg_eltwise_create_attr(&k, LG_ELTWISE_RELU, 0, 0, &md, NULL, a), LG_OK, "%s",
                     lg_last_error());
        lg_attr_destroy(a); /* copied into the kernel */
        /* "any" became dst's tag on src1's dims: 8 floats in nChw8c. */
        lg_md q;
        cr_assert_eq(lg_kernel_query_md(k, LG_ARG_ATTR_POST_OP_SRC1(0), &q), LG_OK);
        cr_assert(q.format_kind == LG_FMT_BLOCKED && q.dims[1] == 1);
        cr_assert_eq(lg_md_size(&q), l ? 32u : 4u);
        float ones[8] = {one};
        size_t bytes = (lg_md_size(&md) + 127) / 64 * 64; /* a multiple of the alignment */
        float *src = aligned_alloc(64, bytes);
        float *dst = aligned_alloc(64, bytes);
        memset(src, 0, lg_md_size(&md));
        for (int c = 0; c < 2; c++)
            for (int w = 0; w < 3; w++)
                src[lg_md_offset(&md, (int64_t[4]){0, c, 0, w})] = x[c * 3 + w];
        lg_arg args[4] = {{LG_ARG_SRC, src},
                          {LG_ARG_DST, dst},
                          {LG_ARG_ATTR_POST_OP_SRC1(0), ones},
                          {LG_ARG_ATTR_POST_OP_SRC1(1), (void *)chan}};
        cr_assert_eq(lg_kernel_execute(k, 4, args), LG_OK, "%s", lg_last_error());
        for (int c = 0; c < 2; c++)
            for (int w = 0; w < 3; w++)
                cr_assert_eq(dst[lg_md_offset(&md, (int64_t[4]){0, c, 0, w})], want[c * 3 + w],
                             "%s c %d w %d", lay[l], c, w);
        if (l == 1) /* nChw8c on 1x2x1x3: element (0, c, 0, w) at w * 8 + c */
            for (int w = 0; w < 3; w++)
                for (int c = 2; c < 8; c++)
                    cr_assert_eq(dst[w * 8 + c], 0.0f, "padding c %d w %d", c, w);
        /* A missing post-op argument is an error naming it. */
        cr_assert_eq(lg_kernel_execute(k, 3, args), LG_INVALID_ARGUMENT);
        cr_assert(strstr(lg_last_error(), "32770"), "%s", lg_last_error());
        lg_kernel_destroy(k);
        free(src), free(dst);
    }
}

/* Hand-computed: binary with scales, (0.5 a + 2 b) then - per-channel. */
Test(postops_binary, binary_hand_values) {
    const int64_t dims[2] = {2, 3}, dc[2] = {1, 3};
    lg_md md, mc;
    cr_assert_eq(lg_md_init_tag(&md, 2, dims, LG_F32, "ab"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&mc, 2, dc, LG_F32, "ab"), LG_OK);
    lg_attr *a = NULL;
    cr_assert_eq(lg_attr_create(&a), LG_OK);
    cr_assert_eq(lg_attr_set_scales(a, LG_ARG_SRC, 0), LG_OK);
    cr_assert_eq(lg_attr_set_scales(a, LG_ARG_SRC + 1, 0), LG_OK);
    cr_assert_eq(lg_attr_append_binary(a, LG_BINARY_SUB, &mc), LG_OK);
    cr_assert_eq(lg_attr_append_sum(a, 1.0f), LG_OK);
    lg_kernel *k = NULL;
    cr_assert_eq(lg_binary_create_attr(&k, LG_BINARY_ADD, &md, &md, &md, a), LG_OK, "%s",
                 lg_last_error());
    lg_attr_destroy(a);
    float s0[6] = {2, 4, 6, 8, 10, 12}, s1[6] = {1, 1, 1, 2, 2, 2}, c[3] = {1, 2, 3};
    float d[6] = {100, 100, 100, 100, 100, 100}, f0 = 0.5f, f1 = 2.0f;
    lg_arg args[7] = {{LG_ARG_SRC, s0},
                      {LG_ARG_SRC + 1, s1},
                      {LG_ARG_DST, d},
                      {LG_ARG_ATTR_SCALES | LG_ARG_SRC, &f0},
                      {LG_ARG_ATTR_SCALES | (LG_ARG_SRC + 1), &f1},
                      {LG_ARG_ATTR_POST_OP_SRC1(0), c}};
    cr_assert_eq(lg_kernel_execute(k, 6, args), LG_OK, "%s", lg_last_error());
    const float want[6] = {1 + 2 - 1 + 100, 2 + 2 - 2 + 100, 3 + 2 - 3 + 100,
                           4 + 4 - 1 + 100, 5 + 4 - 2 + 100, 6 + 4 - 3 + 100};
    for (int i = 0; i < 6; i++) cr_assert_eq(d[i], want[i], "element %d: %g", i, (double)d[i]);
    lg_kernel_destroy(k);
}

Test(postops_binary, errors) {
    const int64_t dims[4] = {2, 3, 4, 5}, bad[4] = {2, 2, 1, 1}, d3[3] = {2, 3, 1};
    lg_md md, mb, m3, f8;
    cr_assert_eq(lg_md_init_tag(&md, 4, dims, LG_F32, "nchw"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&mb, 4, bad, LG_F32, "nchw"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&m3, 3, d3, LG_F32, "abc"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&f8, 4, dims, LG_F8_E4M3, "nchw"), LG_OK);
    lg_attr *a = NULL;
    cr_assert_eq(lg_attr_create(&a), LG_OK);
    /* lg_attr_append_binary's own checks. */
    cr_assert_eq(lg_attr_append_binary(NULL, LG_BINARY_ADD, &md), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "lg_attr_append_binary") && strstr(lg_last_error(), "attr"));
    cr_assert_eq(lg_attr_append_binary(a, LG_BINARY_ADD, NULL), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "src1"), "%s", lg_last_error());
    cr_assert_eq(lg_attr_append_binary(a, (lg_binary_alg)99, &md), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "alg 99"), "%s", lg_last_error());
    cr_assert_eq(lg_attr_append_binary(a, LG_BINARY_ADD, &f8), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "src1 md data type f8"), "%s", lg_last_error());
    cr_assert_eq(a->npost, 0);
    for (int i = 0; i < LG_MAX_POST_OPS; i++)
        cr_assert_eq(lg_attr_append_binary(a, LG_BINARY_ADD, &md), LG_OK);
    cr_assert_eq(lg_attr_append_binary(a, LG_BINARY_ADD, &md), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "more than 8 post-ops"), "%s", lg_last_error());
    lg_attr_destroy(a);
    /* Broadcast checked at creation, naming the post-op and the dim. */
    lg_kernel *k = NULL;
    cr_assert_eq(lg_attr_create(&a), LG_OK);
    cr_assert_eq(lg_attr_append_eltwise(a, LG_ELTWISE_RELU, 0, 0), LG_OK);
    cr_assert_eq(lg_attr_append_binary(a, LG_BINARY_ADD, &mb), LG_OK);
    cr_assert_eq(lg_eltwise_create_attr(&k, LG_ELTWISE_RELU, 0, 0, &md, NULL, a),
                 LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "lg_eltwise_create_attr") &&
                  strstr(lg_last_error(), "post-op 1") && strstr(lg_last_error(), "dims[1] = 2"),
              "%s", lg_last_error());
    cr_assert_eq(lg_binary_create_attr(&k, LG_BINARY_ADD, &md, &md, &md, a), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "lg_binary_create_attr") &&
                  strstr(lg_last_error(), "post-op 1"),
              "%s", lg_last_error());
    lg_attr_destroy(a);
    cr_assert_eq(lg_attr_create(&a), LG_OK);
    cr_assert_eq(lg_attr_append_binary(a, LG_BINARY_ADD, &m3), LG_OK);
    cr_assert_eq(lg_eltwise_create_attr(&k, LG_ELTWISE_RELU, 0, 0, &md, NULL, a),
                 LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "src1 has 3 dims, dst 4"), "%s", lg_last_error());
    lg_attr_destroy(a);
    /* Scales and zero points: eltwise takes none; binary src0 / src1, mask 0. */
    cr_assert_eq(lg_attr_create(&a), LG_OK);
    cr_assert_eq(lg_attr_set_scales(a, LG_ARG_SRC, 0), LG_OK);
    cr_assert_eq(lg_eltwise_create_attr(&k, LG_ELTWISE_RELU, 0, 0, &md, NULL, a), LG_UNIMPLEMENTED);
    cr_assert(strstr(lg_last_error(), "scales"), "%s", lg_last_error());
    cr_assert_eq(lg_attr_set_scales(a, LG_ARG_SRC + 1, 2), LG_OK);
    cr_assert_eq(lg_binary_create_attr(&k, LG_BINARY_ADD, &md, &md, &md, a), LG_UNIMPLEMENTED);
    cr_assert(strstr(lg_last_error(), "src1 scale mask 0x2"), "%s", lg_last_error());
    cr_assert_eq(lg_attr_set_scales(a, LG_ARG_SRC + 1, 0), LG_OK);
    cr_assert_eq(lg_attr_set_scales(a, LG_ARG_DST, 0), LG_OK);
    cr_assert_eq(lg_binary_create_attr(&k, LG_BINARY_ADD, &md, &md, &md, a), LG_UNIMPLEMENTED);
    cr_assert(strstr(lg_last_error(), "dst scales"), "%s", lg_last_error());
    cr_assert_eq(lg_attr_set_zero_points(a, LG_ARG_SRC + 1, 0), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "lg_attr_set_zero_points"), "%s", lg_last_error());
    lg_attr_destroy(a);
    /* Kernels without binary post-ops refuse them (conv's check). */
    cr_assert_eq(lg_attr_create(&a), LG_OK);
    cr_assert_eq(lg_attr_append_binary(a, LG_BINARY_MUL, &md), LG_OK);
    cr_assert_eq(lg__attr_check_post_only(a, "conv", "lg_conv_create"), LG_UNIMPLEMENTED);
    cr_assert(strstr(lg_last_error(), "binary post-op"), "%s", lg_last_error());
    lg_attr_destroy(a);
}

/* Select: hand values (cond broadcast per channel), then random shapes and
 * layouts against the truth, then its bad inputs. */
Test(postops_binary, select) {
    const int64_t dims[2] = {2, 3}, dc[2] = {1, 3};
    lg_md md, mc;
    cr_assert_eq(lg_md_init_tag(&md, 2, dims, LG_F32, "ab"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&mc, 2, dc, LG_S8, "ab"), LG_OK);
    lg_kernel *k = NULL;
    cr_assert_eq(lg_binary_create_select(&k, &md, &md, &mc, &md, NULL), LG_OK, "%s",
                 lg_last_error());
    float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {-1, -2, -3, -4, -5, -6}, d[6];
    int8_t c[3] = {1, 0, -7};
    lg_arg args[4] = {{LG_ARG_SRC, a}, {LG_ARG_SRC + 1, b}, {LG_ARG_SRC + 2, c}, {LG_ARG_DST, d}};
    cr_assert_eq(lg_kernel_execute(k, 4, args), LG_OK, "%s", lg_last_error());
    const float hand[6] = {1, -2, 3, 4, -5, 6};
    for (int i = 0; i < 6; i++) cr_assert_eq(d[i], hand[i], "element %d: %g", i, (double)d[i]);
    cr_assert_eq(lg_kernel_execute(k, 3, (lg_arg[]){args[0], args[1], args[3]}),
                 LG_INVALID_ARGUMENT);
    lg_kernel_destroy(k);

    lg_rng r = {1777};
    for (int it = 0; it < 40; it++) {
        int64_t full[LG_MAX_NDIMS], d0[LG_MAX_NDIMS], d1[LG_MAX_NDIMS], d2[LG_MAX_NDIMS];
        int nd = random_dims(&r, full);
        const char *p;
        policy_dims(&r, nd, full, d0, &p);
        policy_dims(&r, nd, full, d1, &p);
        policy_dims(&r, nd, full, d2, &p);
        int64_t dd[LG_MAX_NDIMS];
        for (int i = 0; i < nd; i++) {
            dd[i] = d0[i] == 1 && d1[i] == 1 ? 1 : full[i];
            if (dd[i] == 1) d2[i] = 1;
        }
        const char *t = tags[lg_rng_int(&r, 0, 4)];
        lg_dtype dt = dts[lg_rng_int(&r, 0, 4)];
        lg_md m0 = make_md(nd, d0, dt, t), m1 = make_md(nd, d1, dt, "abx"),
              m2 = make_md(nd, d2, LG_S8, "abx"), mdst = make_md(nd, dd, dt, t);
        void *b0 = make_buf(&m0, &r, 0.0f, 8.0f), *b1 = make_buf(&m1, &r, 0.0f, 8.0f),
             *b2 = make_buf(&m2, &r, 0.0f, 2.0f);
        size_t sz = lg_md_size(&mdst) + 64;
        void *got = malloc(sz), *want = malloc(sz);
        memset(got, 0x5a, sz);
        memset(want, 0x5a, sz);
        int64_t idx[LG_MAX_NDIMS] = {0}, i0[LG_MAX_NDIMS], i1[LG_MAX_NDIMS], i2[LG_MAX_NDIMS];
        do {
            for (int i = 0; i < nd; i++) {
                i0[i] = d0[i] == 1 ? 0 : idx[i];
                i1[i] = d1[i] == 1 ? 0 : idx[i];
                i2[i] = d2[i] == 1 ? 0 : idx[i];
            }
            bool c2 = ((int8_t *)b2)[lg_md_offset(&m2, i2)] != 0;
            float v = c2 ? lg__load_f32(b0, dt, lg_md_offset(&m0, i0))
                         : lg__load_f32(b1, dt, lg_md_offset(&m1, i1));
            lg__store_f32(want, dt, lg_md_offset(&mdst, idx), v);
        } while (next_idx(idx, dd, nd));
        for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
            lg__cpu_set_isa_cap(isa);
            cr_assert_eq(lg_binary_create_select(&k, &m0, &m1, &m2, &mdst, NULL), LG_OK,
                         "it %d: %s", it, lg_last_error());
            expect_impl(k, "binary:ref", "select");
            lg_arg a4[4] = {
                {LG_ARG_SRC, b0}, {LG_ARG_SRC + 1, b1}, {LG_ARG_SRC + 2, b2}, {LG_ARG_DST, got}};
            cr_assert_eq(lg_kernel_execute(k, 4, a4), LG_OK, "%s", lg_last_error());
            compare(&mdst, got, want, "select");
            lg_kernel_destroy(k);
        }
        lg__cpu_set_isa_cap(-1);
        free(b0), free(b1), free(b2), free(got), free(want);
    }

    const int64_t bad[2] = {2, 2};
    lg_md mb, many;
    cr_assert_eq(lg_md_init_tag(&mb, 2, bad, LG_S8, "ab"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&many, 2, dims, LG_S8, "any"), LG_OK);
    cr_assert_eq(lg_binary_create_select(&k, &md, &md, NULL, &md, NULL), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "lg_binary_create_select") && strstr(lg_last_error(), "cond"),
              "%s", lg_last_error());
    cr_assert_eq(lg_binary_create_select(&k, &md, &md, &mb, &md, NULL), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "cond dims[1] = 2"), "%s", lg_last_error());
    cr_assert_eq(lg_binary_create_select(&k, &md, &md, &many, &md, NULL), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "cond md is 'any'"), "%s", lg_last_error());
}
