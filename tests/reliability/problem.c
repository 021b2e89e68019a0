/* Create, execute and check one problem against its kind's reference (see
 * problem.h). The reference side builds its problem descriptor here, the
 * way the creators' contracts describe it, and calls the kind's ref.c. */
#include "reliability/problem.h"

#include "memory/convert.h"
#include "primitives/binary/binary.h"
#include "primitives/eltwise/eltwise.h"
#include "primitives/reorder/reorder.h"
#include "primitives/shuffle/shuffle.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rel_problem_init(rel_problem *p, rel_kind kind) {
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->scale_mask[0] = p->scale_mask[1] = -1;
    p->zp_mask[0] = p->zp_mask[1] = -1;
    p->prop = LG_FORWARD;
}

const char *rel_kind_name(rel_kind kind) {
    static const char *const names[] = {"reorder", "shuffle", "eltwise", "binary"};
    return (unsigned)kind < REL_KIND_COUNT ? names[kind] : "unknown";
}

static lg_status create_reorder(const rel_problem *p, lg_kernel **k) {
    bool attrs = p->sum;
    for (int i = 0; i < 2; i++) attrs = attrs || p->scale_mask[i] >= 0 || p->zp_mask[i] >= 0;
    if (!attrs) return lg_reorder_create(k, &p->md[0], &p->md[1], NULL);
    lg_attr *a = NULL;
    LG_CHECK(lg_attr_create(&a));
    static const int args[2] = {LG_ARG_SRC, LG_ARG_DST};
    lg_status s = LG_OK;
    for (int i = 0; i < 2 && s == LG_OK; i++) {
        if (p->scale_mask[i] >= 0) s = lg_attr_set_scales(a, args[i], p->scale_mask[i]);
        if (s == LG_OK && p->zp_mask[i] >= 0)
            s = lg_attr_set_zero_points(a, args[i], p->zp_mask[i]);
    }
    if (s == LG_OK && p->sum) s = lg_attr_append_sum(a, p->sum_beta);
    if (s == LG_OK) s = lg_reorder_create(k, &p->md[0], &p->md[1], a);
    lg_attr_destroy(a);
    return s;
}

lg_status rel_create(const rel_problem *p, lg_kernel **k) {
    switch (p->kind) {
    case REL_REORDER:
        return create_reorder(p, k);
    case REL_SHUFFLE:
        return lg_shuffle_create(k, p->prop, &p->md[0], p->axis, p->group);
    case REL_ELTWISE:
        return lg_eltwise_create(k, (lg_eltwise_alg)p->alg, p->alpha, p->beta, &p->md[0],
                                 p->null_dst ? NULL : &p->md[1]);
    case REL_BINARY:
        return lg_binary_create(k, (lg_binary_alg)p->alg, &p->md[0], &p->md[1], &p->md[2]);
    case REL_KIND_COUNT:
        break;
    }
    return LG_INVALID_ARGUMENT;
}

/* ------------------------------------------------------------------------ */
/* Input data                                                               */
/* ------------------------------------------------------------------------ */

typedef struct gen {
    const rel_data *d;
    size_t at;
    uint64_t s;
} gen;

static uint64_t gen_u64(gen *g) {
    uint64_t z = (g->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint8_t gen_byte(gen *g) {
    if (g->d->nfill) return g->d->fill[g->at++ % g->d->nfill];
    return (uint8_t)gen_u64(g);
}

/* A moderate value in [-8, 8) with 1/64 steps (exact in every float type). */
static float gen_value(gen *g) {
    return (float)((int)(gen_u64(g) % 1024) - 512) / 64.0f;
}

static bool next_index(int64_t *idx, const int64_t *ext, int nd) {
    for (int d = nd - 1; d >= 0; d--) {
        if (++idx[d] < ext[d]) return true;
        idx[d] = 0;
    }
    return false;
}

static void zero_padding(const lg_md *md, void *buf) {
    if (!lg__md_has_padding(md) || lg__md_nelems(md) == 0) return;
    size_t esz = lg_dtype_size(md->dtype);
    int64_t idx[LG_MAX_NDIMS] = {0};
    do {
        bool pad = false;
        for (int d = 0; d < md->ndims; d++) pad = pad || idx[d] >= md->dims[d];
        if (pad) memset((char *)buf + lg__md_off(md, idx) * (int64_t)esz, 0, esz);
    } while (next_index(idx, md->padded_dims, md->ndims));
}

/* Every byte from the generator (gaps keep it); in value mode the logical
 * elements then get moderate values; padding zero if `pad0`. */
static void fill_tensor(const lg_md *md, void *buf, gen *g, bool pad0) {
    size_t n = lg_md_size(md);
    for (size_t i = 0; i < n; i++) ((uint8_t *)buf)[i] = gen_byte(g);
    if (!g->d->nfill && lg__md_nelems(md) > 0) {
        int64_t idx[LG_MAX_NDIMS] = {0};
        do {
            lg__store_f32(buf, md->dtype, lg__md_off(md, idx), gen_value(g));
        } while (next_index(idx, md->dims, md->ndims));
    }
    if (pad0) zero_padding(md, buf);
}

/* A buffer of n bytes at a generated offset (a multiple of 4) from a
 * 64-byte boundary; *base is what to free. */
static void *buffer(size_t n, gen *g, void **base) {
    size_t off = (size_t)(gen_byte(g) & 15) * 4;
    *base = aligned_alloc(64, (n + off + 64 + 63) & ~(size_t)63);
    return *base ? (char *)*base + off : NULL;
}

/* ------------------------------------------------------------------------ */
/* Comparison                                                               */
/* ------------------------------------------------------------------------ */

static double ulp_f32(float want) {
    float a = fabsf(want);
    if (a < FLT_MIN) return 0x1p-149;
    int e;
    frexpf(a, &e);
    return ldexp(1.0, e - 24);
}

/* Compare got and want over md's buffer: bytes, or within `bound` ulps; two
 * NaNs of a floating type match whatever their payloads. */
static int compare(const lg_md *md, const void *got, const void *want, double bound, char *msg,
                   size_t len) {
    size_t sz = lg_md_size(md), esz = lg_dtype_size(md->dtype);
    if (memcmp(got, want, sz) == 0) return 0;
    bool exact = bound == 0.0 || esz == 1 || md->dtype == LG_S32;
    for (size_t i = 0; i < sz / esz; i++) {
        const char *a = (const char *)got + i * esz, *b = (const char *)want + i * esz;
        if (memcmp(a, b, esz) == 0) continue;
        float g = lg__load_f32(got, md->dtype, (int64_t)i);
        float w = lg__load_f32(want, md->dtype, (int64_t)i);
        bool ok = false;
        bool floating = md->dtype == LG_F32 || md->dtype == LG_F16 || md->dtype == LG_BF16;
        if (floating && isnan(w) && isnan(g)) {
            /* NaN in, NaN out: which operand's payload an add keeps when both
             * are NaN depends on the operand order the compiler picked (the
             * reference's, at -O0 in the fuzz build, differed from the
             * kernel's); IEEE 754 does not specify it. */
            ok = true;
        } else if (!exact) {
            if (isnan(w) || isnan(g)) {
                ok = isnan(w) && isnan(g);
            } else if (!isinf(g) && !isinf(w)) {
                if (md->dtype == LG_F32) {
                    ok = fabs((double)g - (double)w) / ulp_f32(w) <= bound;
                } else {
                    int16_t x, y;
                    memcpy(&x, a, 2);
                    memcpy(&y, b, 2);
                    ok = (x ^ y) >= 0 && abs(x - y) <= 1;
                }
            }
        }
        if (!ok) {
            snprintf(msg, len, "element %zu of %zu differs: got %a, want %a (bound %.1f ulp)", i,
                     sz / esz, (double)g, (double)w, exact ? 0.0 : bound);
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Execute and check                                                        */
/* ------------------------------------------------------------------------ */

/* Values one attribute array holds: the product of the masked dims. */
static size_t mask_count(const lg_md *md, int32_t mask) {
    size_t n = 1;
    for (int d = 0; d < md->ndims; d++)
        if (mask & (1 << d)) n *= (size_t)md->dims[d];
    return n;
}

enum { MAXBUF = 8 };

typedef struct bufs {
    void *base[MAXBUF];
    int n;
} bufs;

static void *take(bufs *b, size_t n, gen *g) {
    void *base = NULL;
    void *p = buffer(n, g, &base);
    b->base[b->n++] = base;
    return p;
}

/* The md a kernel resolved for `arg` (dst "any"), checked against what the
 * contract says it must be: `want` (or equal to it but for `dt`). */
static int resolved(const lg_kernel *k, int arg, const lg_md *want, lg_dtype dt, lg_md *out,
                    char *msg, size_t len) {
    if (lg_kernel_query_md(k, arg, out) != LG_OK) {
        snprintf(msg, len, "query_md(%d): %s", arg, lg_last_error());
        return -1;
    }
    lg_md w;
    lg__md_canon(want, &w);
    w.dtype = dt;
    if (!lg_md_equal(out, &w)) {
        snprintf(msg, len, "argument %d: the kernel's md is not the one the contract gives", arg);
        return -1;
    }
    return 0;
}

static int check_kind(const rel_problem *p, const lg_kernel *k, gen *g, bufs *b, size_t max_bytes,
                      bool *skipped, char *msg, size_t len) {
    const lg_md *m = p->md;
    lg_md dst;
    switch (p->kind) {
    case REL_REORDER: {
        if (lg_md_is_any(&m[1])) {
            if (resolved(k, LG_ARG_DST, &m[0], m[1].dtype, &dst, msg, len)) return -1;
        } else {
            dst = m[1];
        }
        size_t ss = lg_md_size(&m[0]), ds = lg_md_size(&dst);
        if (ss + ds > max_bytes) return *skipped = true, 0;
        lg__reorder_pd pd;
        memset(&pd, 0, sizeof pd);
        lg__md_canon(&m[0], &pd.src);
        lg__md_canon(&dst, &pd.dst);
        pd.src_scale_mask = p->scale_mask[0];
        pd.dst_scale_mask = p->scale_mask[1];
        pd.src_zp_mask = p->zp_mask[0];
        pd.dst_zp_mask = p->zp_mask[1];
        pd.has_sum = p->sum;
        pd.sum_beta = p->sum_beta;
        void *src = take(b, ss, g), *got = take(b, ds, g), *want = take(b, ds, g);
        fill_tensor(&pd.src, src, g, true);
        fill_tensor(&pd.dst, got, g, false);
        memcpy(want, got, ds);
        lg_arg args[6] = {{LG_ARG_SRC, src}, {LG_ARG_DST, got}};
        int nargs = 2;
        lg__reorder_args ra = {.src = src, .dst = want};
        for (int i = 0; i < 2; i++) {
            const lg_md *tm = i ? &pd.dst : &pd.src;
            int which = i ? LG_ARG_DST : LG_ARG_SRC;
            if (p->scale_mask[i] >= 0) {
                size_t n = mask_count(tm, p->scale_mask[i]);
                float *v = take(b, n * sizeof *v, g);
                for (size_t j = 0; j < n; j++) {
                    if (g->d->nfill) {
                        uint32_t u = 0;
                        for (int q = 0; q < 4; q++) u = u << 8 | gen_byte(g);
                        memcpy(&v[j], &u, 4);
                    } else {
                        v[j] = 0.25f + (float)(gen_u64(g) % 16) / 4.0f;
                    }
                }
                args[nargs++] = (lg_arg){LG_ARG_ATTR_SCALES | which, v};
                *(i ? &ra.dst_scales : &ra.src_scales) = v;
            }
            if (p->zp_mask[i] >= 0) {
                size_t n = mask_count(tm, p->zp_mask[i]);
                int32_t *v = take(b, n * sizeof *v, g);
                for (size_t j = 0; j < n; j++) {
                    uint32_t u = 0;
                    for (int q = 0; q < 4; q++) u = u << 8 | gen_byte(g);
                    v[j] = g->d->nfill ? (int32_t)u : (int32_t)(u % 17) - 8;
                }
                args[nargs++] = (lg_arg){LG_ARG_ATTR_ZERO_POINTS | which, v};
                *(i ? &ra.dst_zps : &ra.src_zps) = v;
            }
        }
        if (lg_kernel_execute(k, nargs, args) != LG_OK) {
            snprintf(msg, len, "execute: %s", lg_last_error());
            return -1;
        }
        lg__reorder_ref(&pd, &ra);
        return compare(&pd.dst, got, want, 0.0, msg, len);
    }
    case REL_SHUFFLE: {
        size_t n = lg_md_size(&m[0]);
        if (2 * n > max_bytes) return *skipped = true, 0;
        lg__shuffle_pd pd;
        memset(&pd, 0, sizeof pd);
        lg__md_canon(&m[0], &pd.src);
        pd.dst = pd.src;
        pd.prop = (int32_t)p->prop;
        pd.axis = p->axis;
        pd.group = p->group;
        void *src = take(b, n, g), *got = take(b, n, g), *want = take(b, n, g);
        fill_tensor(&pd.src, src, g, true);
        fill_tensor(&pd.src, got, g, false);
        memcpy(want, got, n);
        bool fwd = p->prop == LG_FORWARD;
        lg_arg args[2] = {{fwd ? LG_ARG_SRC : LG_ARG_DIFF_DST, src},
                          {fwd ? LG_ARG_DST : LG_ARG_DIFF_SRC, got}};
        if (lg_kernel_execute(k, 2, args) != LG_OK) {
            snprintf(msg, len, "execute: %s", lg_last_error());
            return -1;
        }
        lg__shuffle_ref(&pd, src, want);
        return compare(&pd.src, got, want, 0.0, msg, len);
    }
    case REL_ELTWISE: {
        if (p->null_dst || lg_md_is_any(&m[1])) {
            if (resolved(k, LG_ARG_DST, &m[0], m[0].dtype, &dst, msg, len)) return -1;
        }
        size_t n = lg_md_size(&m[0]);
        if (3 * n > max_bytes) return *skipped = true, 0;
        lg__eltwise_pd pd;
        memset(&pd, 0, sizeof pd);
        lg__md_canon(&m[0], &pd.md);
        pd.alg = p->alg;
        pd.alpha = p->alpha;
        pd.beta = p->beta;
        void *src = take(b, n, g), *got = take(b, n, g), *want = take(b, n, g);
        fill_tensor(&pd.md, src, g, true);
        if (p->inplace) {
            memcpy(got, src, n);
            memcpy(want, src, n);
        } else {
            fill_tensor(&pd.md, got, g, false);
            memcpy(want, got, n);
        }
        lg_arg args[2] = {{LG_ARG_SRC, p->inplace ? got : src}, {LG_ARG_DST, got}};
        if (lg_kernel_execute(k, 2, args) != LG_OK) {
            snprintf(msg, len, "execute: %s", lg_last_error());
            return -1;
        }
        lg__eltwise_ref(&pd, p->inplace ? want : src, want);
        return compare(&pd.md, got, want, lg__eltwise_ulp_bound(p->alg), msg, len);
    }
    case REL_BINARY: {
        if (lg_md_is_any(&m[2])) {
            if (resolved(k, LG_ARG_DST, &m[0], m[2].dtype, &dst, msg, len)) return -1;
        } else {
            dst = m[2];
        }
        size_t n0 = lg_md_size(&m[0]), n1 = lg_md_size(&m[1]), nd = lg_md_size(&dst);
        if (n0 + n1 + 2 * nd > max_bytes) return *skipped = true, 0;
        lg__binary_pd pd;
        memset(&pd, 0, sizeof pd);
        lg__md_canon(&m[0], &pd.src0);
        lg__md_canon(&m[1], &pd.src1);
        lg__md_canon(&dst, &pd.dst);
        pd.alg = p->alg;
        void *s0 = take(b, n0, g), *s1 = take(b, n1, g), *got = take(b, nd, g),
             *want = take(b, nd, g);
        fill_tensor(&pd.src0, s0, g, true);
        fill_tensor(&pd.src1, s1, g, true);
        fill_tensor(&pd.dst, got, g, false);
        memcpy(want, got, nd);
        lg_arg args[3] = {{LG_ARG_SRC, s0}, {LG_ARG_SRC + 1, s1}, {LG_ARG_DST, got}};
        if (lg_kernel_execute(k, 3, args) != LG_OK) {
            snprintf(msg, len, "execute: %s", lg_last_error());
            return -1;
        }
        lg__binary_ref(&pd, s0, s1, want);
        return compare(&pd.dst, got, want, 0.0, msg, len);
    }
    case REL_KIND_COUNT:
        break;
    }
    snprintf(msg, len, "unknown kind %d", (int)p->kind);
    return -1;
}

int rel_check(const rel_problem *p, const lg_kernel *k, const rel_data *data, size_t max_bytes,
              bool *skipped, char *msg, size_t len) {
    gen g = {data, 0, data->seed};
    bufs b = {{NULL}, 0};
    bool skip = false;
    msg[0] = '\0';
    int r = check_kind(p, k, &g, &b, max_bytes, &skip, msg, len);
    for (int i = 0; i < b.n; i++) free(b.base[i]);
    if (skipped) *skipped = skip;
    return r;
}
