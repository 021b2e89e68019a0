/* The SIMD batch-normalization rows, written once over the eltwise vector
 * layer (simd_avx2.h or simd_avx512.h). Not a normal header: bnorm_avx2.c
 * and bnorm_avx512.c include their layer, name the entry point
 * LG_BNORM_ROWS, then include this file.
 *
 * The reference's operations in its order (sqrt and division correctly
 * rounded, products and sums unfused), so results match it bit for bit.
 * Channel-inner views: the per-channel a, mean and shift of a chunk of up to
 * CH_CHUNK channels go to a stack table once per channel block and thread
 * (per row only when a block has more than CH_CHUNK channels), then every
 * point of the row runs over them; padding lanes of the last channel block are written 0.
 * Plain views: scalars per (n, c) row broadcast along w. */
#if !defined(LG_BNORM_ROWS)
#error "bnorm_simd.h is a template: include a vector layer and name the entry point first"
#endif

#include "lgraph.h"
#include "memory/convert.h"
#include "primitives/bnorm/bnorm.h"

#include <math.h>

#define CH_CHUNK 1024

typedef struct prm {
    vec eps, one, zero;
    bool scale, shift, relu;
} prm;

/* maxps returns its second operand on NaN and on equal inputs, so
 * max(0, y) is the reference's y < 0 ? 0 : y bit for bit (NaN, -0 kept). */
static inline vec finish(const prm *p, vec x, vec mean, vec a, vec b) {
    vec y = v_add(v_mul(v_sub(x, mean), a), b);
    return p->relu ? v_max(p->zero, y) : y;
}

/* A full vector y to element o of dst: non-temporal when streaming (f32,
 * address vector-aligned). */
static inline __attribute__((always_inline)) void put(lg_dtype dt, bool stream, void *dst,
                                                      int64_t o, vec y) {
    float *q = (float *)dst + o;
    if (dt == LG_F32 && stream && ((uintptr_t)q & (VL * 4 - 1)) == 0)
        v_stream(q, y);
    else
        v_store_dt(dt, dst, o, y);
}

/* a, mean and shift of channels [c0, c0 + m) into tables (VL-padded). */
static inline void chan_table(const prm *p, const lg__bnorm_stats *st, int64_t c0, int64_t m,
                              float *ta, float *tm, float *tb) {
    for (int64_t i = 0; i < m; i += VL) {
        int64_t k = m - i < VL ? m - i : VL;
        vec var = k == VL ? v_load(st->var + c0 + i) : v_load_part(st->var + c0 + i, k);
        vec g = !p->scale ? p->one
                : k == VL ? v_load(st->scale + c0 + i)
                          : v_load_part(st->scale + c0 + i, k);
        vec b = !p->shift ? p->zero
                : k == VL ? v_load(st->shift + c0 + i)
                          : v_load_part(st->shift + c0 + i, k);
        vec mean = k == VL ? v_load(st->mean + c0 + i) : v_load_part(st->mean + c0 + i, k);
        v_store(ta + i, v_div(g, v_sqrt(v_add(var, p->eps))));
        v_store(tm + i, mean);
        v_store(tb + i, b);
    }
}

/* Prefetch distance of the dense f32 loop, in bytes of src: 512 measured
 * best on one thread (8x256x56x56 nChw8c, AVX2; 0, 512, 1 KB, 2 KB tried:
 * the hardware prefetcher alone left 5-10% on the table). */
#define PF_BYTES 512

/* W points of VL channels, dense (aBcd8b on AVX2, aBcd16b on AVX-512): four
 * vectors an iteration, the stream-or-store choice made once for the run
 * (q's alignment decides it for every vector, each VL floats apart). */
static inline __attribute__((always_inline)) void rows_f32_dense(const prm *p, const float *s,
                                                                 float *q, int64_t W, vec vm,
                                                                 vec va, vec vb, bool stream) {
    const bool nt = stream && ((uintptr_t)q & (VL * 4 - 1)) == 0;
    int64_t w = 0;
#define LG_BN_DENSE4(STORE)                                                                        \
    for (; w + 4 <= W; w += 4) {                                                                   \
        const float *x = s + w * VL;                                                               \
        for (int l = 0; l < 4 * VL * 4; l += 64)                                                   \
            _mm_prefetch((const char *)x + PF_BYTES + l, _MM_HINT_T0);                             \
        vec y0 = finish(p, v_load(x), vm, va, vb), y1 = finish(p, v_load(x + VL), vm, va, vb);     \
        vec y2 = finish(p, v_load(x + 2 * VL), vm, va, vb);                                        \
        vec y3 = finish(p, v_load(x + 3 * VL), vm, va, vb);                                        \
        STORE(q + w * VL, y0);                                                                     \
        STORE(q + w * VL + VL, y1);                                                                \
        STORE(q + w * VL + 2 * VL, y2);                                                            \
        STORE(q + w * VL + 3 * VL, y3);                                                            \
    }
    if (nt) {
        LG_BN_DENSE4(v_stream)
    } else {
        LG_BN_DENSE4(v_store)
    }
#undef LG_BN_DENSE4
    for (; w < W; w++) {
        vec y = finish(p, v_load(s + w * VL), vm, va, vb);
        if (nt)
            v_stream(q + w * VL, y);
        else
            v_store(q + w * VL, y);
    }
}

/* (h, d, cb, n) of the next row. */
static inline void next_row(int64_t *h, int64_t *d, int64_t *cb, int64_t *n, int64_t H, int64_t D,
                            int64_t ncb) {
    if (++*h < H) return;
    *h = 0;
    if (++*d < D) return;
    *d = 0;
    if (++*cb < ncb) return;
    *cb = 0;
    ++*n;
}

static inline __attribute__((always_inline)) void rows_tpl(const lg__bnorm_job *j, lg_dtype dt,
                                                           const lg__bnorm_stats *st,
                                                           const void *src, void *dst, int64_t r0,
                                                           int64_t r1, bool stream) {
    const lg__chview *v = &j->v;
    const prm P = {v_set1(j->pd->eps),
                   v_set1(1.0f),
                   v_zero(),
                   (j->pd->flags & LG_BNORM_USE_SCALE) != 0,
                   (j->pd->flags & LG_BNORM_USE_SHIFT) != 0,
                   (j->pd->flags & LG_BNORM_FUSE_RELU) != 0};
    const prm *p = &P;
    const int64_t D = v->sp[0], H = v->sp[1], W = v->sp[2];
    float ta[CH_CHUNK] __attribute__((aligned(64))), tm[CH_CHUNK] __attribute__((aligned(64))),
        tb[CH_CHUNK] __attribute__((aligned(64)));
    int64_t have = -1; /* the first channel of the tables, when one chunk covers a block */
    /* Row indices by increments: a row of aBcd8b is 56 vectors at 56 x 56,
     * the six divisions of its index cost as much as moving it. */
    int64_t h = r0 % H, d = r0 / H % D, cb = r0 / H / D % v->ncb, n = r0 / H / D / v->ncb;
    const lg__chview *u = &j->dv; /* dst's: the same geometry, its own strides */
    const int64_t sws = v->ss[2], swd = u->ss[2];
    for (int64_t r = r0; r < r1; r++, next_row(&h, &d, &cb, &n, H, D, v->ncb)) {
        const int64_t bs = v->off0 + n * v->sn + cb * v->scb + d * v->ss[0] + h * v->ss[1];
        const int64_t bd = u->off0 + n * u->sn + cb * u->scb + d * u->ss[0] + h * u->ss[1];
        if (v->kind == LG_CH_PLAIN) {
            const float g = p->scale ? st->scale[cb] : 1.0f, b = p->shift ? st->shift[cb] : 0.0f;
            const float a = g / sqrtf(st->var[cb] + j->pd->eps);
            const vec va = v_set1(a), vm = v_set1(st->mean[cb]), vb = v_set1(b);
            if (sws == 1 && swd == 1) {
                int64_t w = 0;
                for (; w + VL <= W; w += VL)
                    put(dt, stream, dst, bd + w, finish(p, v_load_dt(dt, src, bs + w), vm, va, vb));
                if (w < W)
                    v_store_dt_part(dt, dst, bd + w,
                                    finish(p, v_load_dt_part(dt, src, bs + w, W - w), vm, va, vb),
                                    W - w);
            } else {
                for (int64_t w = 0; w < W; w++) {
                    float x = lg__load_f32(src, dt, bs + w * sws);
                    float y = (x - st->mean[cb]) * a;
                    y = y + b;
                    if (p->relu) y = y < 0.0f ? 0.0f : y;
                    lg__store_f32(dst, dt, bd + w * swd, y);
                }
            }
            continue;
        }
        /* Channel-inner: lanes [0, valid) are channels cb * run + lane. */
        const int64_t c_first = cb * v->run;
        const int64_t valid = v->c - c_first < v->run ? v->c - c_first : v->run;
        for (int64_t c0 = 0; c0 < valid; c0 += CH_CHUNK) {
            const int64_t m = valid - c0 < CH_CHUNK ? valid - c0 : CH_CHUNK;
            if (valid > CH_CHUNK || have != c_first) /* tables once per block and thread */
                chan_table(p, st, c_first + c0, m, ta, tm, tb);
            have = valid > CH_CHUNK ? -1 : c_first;
            if (m == VL) { /* one vector a point (aBcd8b on AVX2): tables in registers */
                const vec vm = v_load(tm), va = v_load(ta), vb = v_load(tb);
                if (dt == LG_F32 && sws == VL && swd == VL) { /* dense points: one stream */
                    rows_f32_dense(p, (const float *)src + bs + c0, (float *)dst + bd + c0, W, vm,
                                   va, vb, stream);
                    continue;
                }
                int64_t w = 0, os = bs + c0, od = bd + c0;
                for (; w + 2 <= W; w += 2, os += 2 * sws, od += 2 * swd) {
                    vec y0 = finish(p, v_load_dt(dt, src, os), vm, va, vb);
                    vec y1 = finish(p, v_load_dt(dt, src, os + sws), vm, va, vb);
                    put(dt, stream, dst, od, y0);
                    put(dt, stream, dst, od + swd, y1);
                }
                if (w < W) put(dt, stream, dst, od, finish(p, v_load_dt(dt, src, os), vm, va, vb));
                continue;
            }
            if (2 * m == VL && dt == LG_F32 && sws == m && swd == m) {
                /* half a vector a point, dense (aBcd8b on AVX-512): two
                 * points a vector against the tables twice over */
                float t2[3][VL] __attribute__((aligned(64)));
                for (int i = 0; i < VL; i++)
                    t2[0][i] = tm[i % m], t2[1][i] = ta[i % m], t2[2][i] = tb[i % m];
                const vec vm = v_load(t2[0]), va = v_load(t2[1]), vb = v_load(t2[2]);
                const float *s0 = (const float *)src + bs + c0;
                float *q0 = (float *)dst + bd + c0;
                rows_f32_dense(p, s0, q0, W / 2, vm, va, vb, stream);
                if (W % 2) {
                    const int64_t o = bd + c0 + (W - 1) * m;
                    v_store_dt_part(
                        dt, dst, o,
                        finish(p, v_load_dt_part(dt, src, bs + c0 + (W - 1) * m, m), vm, va, vb),
                        m);
                }
                continue;
            }
            if (m == 2 * VL) { /* two vectors a point (aBcd16b on AVX2) */
                const vec vm0 = v_load(tm), va0 = v_load(ta), vb0 = v_load(tb);
                const vec vm1 = v_load(tm + VL), va1 = v_load(ta + VL), vb1 = v_load(tb + VL);
                int64_t os = bs + c0, od = bd + c0;
                for (int64_t w = 0; w < W; w++, os += sws, od += swd) {
                    vec y0 = finish(p, v_load_dt(dt, src, os), vm0, va0, vb0);
                    vec y1 = finish(p, v_load_dt(dt, src, os + VL), vm1, va1, vb1);
                    put(dt, stream, dst, od, y0);
                    put(dt, stream, dst, od + VL, y1);
                }
                continue;
            }
            for (int64_t w = 0; w < W; w++) {
                const int64_t os = bs + w * sws + c0, od = bd + w * swd + c0;
                int64_t i = 0;
                for (; i + 2 * VL <= m; i += 2 * VL) {
                    vec y0 = finish(p, v_load_dt(dt, src, os + i), v_load(tm + i), v_load(ta + i),
                                    v_load(tb + i));
                    vec y1 = finish(p, v_load_dt(dt, src, os + i + VL), v_load(tm + i + VL),
                                    v_load(ta + i + VL), v_load(tb + i + VL));
                    put(dt, stream, dst, od + i, y0);
                    put(dt, stream, dst, od + i + VL, y1);
                }
                for (; i < m; i += VL) {
                    int64_t k = m - i < VL ? m - i : VL;
                    vec x =
                        k == VL ? v_load_dt(dt, src, os + i) : v_load_dt_part(dt, src, os + i, k);
                    vec y = finish(p, x, v_load(tm + i), v_load(ta + i), v_load(tb + i));
                    if (k == VL)
                        put(dt, stream, dst, od + i, y);
                    else
                        v_store_dt_part(dt, dst, od + i, y, k);
                }
            }
        }
        if (valid < v->run) /* padding lanes of the last block */
            for (int64_t w = 0; w < W; w++)
                for (int64_t i = valid; i < v->run; i += VL) {
                    int64_t k = v->run - i < VL ? v->run - i : VL;
                    v_store_dt_part(dt, dst, bd + w * swd + i, v_zero(), k);
                }
    }
}

void LG_BNORM_ROWS(const lg__bnorm_job *j, const lg__bnorm_stats *st, const void *src, void *dst,
                   int64_t r0, int64_t r1, bool stream) {
    switch (j->pd->src.dtype) {
    case LG_F16:
        rows_tpl(j, LG_F16, st, src, dst, r0, r1, false);
        break;
    case LG_BF16:
        rows_tpl(j, LG_BF16, st, src, dst, r0, r1, false);
        break;
    default:
        if (stream)
            rows_tpl(j, LG_F32, st, src, dst, r0, r1, true);
        else
            rows_tpl(j, LG_F32, st, src, dst, r0, r1, false);
        break;
    }
}
