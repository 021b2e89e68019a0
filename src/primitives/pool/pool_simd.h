/* The SIMD pooling rows, written once over the shared vector layer
 * (simd/simd_avx2.h or simd_avx512.h). Not a normal header: pool_avx2.c and
 * pool_avx512.c include their layer, name the entry point LG_POOL_ROWS, then
 * include this file.
 *
 * f32, f16 and bf16 (converted in registers as convert.h converts).
 * Channel-inner views: lanes along the channel run, every tap a vector load,
 * four vectors per step where the run allows; the operations are the
 * reference's in its order, so results match it bit for bit. Plain views:
 * lanes along the output width where every tap of the window is inside the
 * input (unit-stride loads, or gathers for a wider stride in f32), the
 * reference's scalar loop at the borders; global average pooling sums the
 * plane in vectors (a different summation order than the reference's). */
#if !defined(LG_POOL_ROWS)
#error "pool_simd.h is a template: include a vector layer and name the entry point first"
#endif

#include "memory/convert.h"
#include "primitives/pool/pool.h"

#include <math.h>

/* Accumulate one tap: max (NaN-propagating as the reference) or sum. */
#define ACC(IS_MAX, a, x) ((IS_MAX) ? v_max((a), (x)) : v_add((a), (x)))

static inline __attribute__((always_inline)) vec finish(bool is_max, vec acc, vec vcnt) {
    return is_max ? acc : v_div(acc, vcnt);
}

/* One output point of a channel-inner view: lanes [0, run) of the window's
 * taps, src at element sbase (n, cb), dst at element doff. */
static inline __attribute__((always_inline)) void
inner_point(const lg__pool_job *j, lg_dtype dt, bool is_max, const void *src, void *dst,
            int64_t sbase, int64_t doff, const lg__pool_taps *td, const lg__pool_taps *th,
            const lg__pool_taps *tw) {
    const lg__pool_geom *g = j->g;
    const lg__chview *sv = &j->sv;
    const int64_t R = sv->run;
    const bool empty = td->hi == td->lo || th->hi == th->lo || tw->hi == tw->lo;
    if (empty) {
        for (int64_t c0 = 0; c0 < R; c0 += VL) {
            int64_t m = R - c0 < VL ? R - c0 : VL;
            if (m == VL)
                v_store_dt(dt, dst, doff + c0, v_zero());
            else
                v_store_dt_part(dt, dst, doff + c0, v_zero(), m);
        }
        return;
    }
    const vec vcnt = v_set1((float)lg__pool_count(j->pd->alg, g, td, th, tw));
    const vec init = is_max ? v_set1(-INFINITY) : v_zero();
    const int64_t sd = sv->ss[0] * g->step[0], sh = sv->ss[1] * g->step[1],
                  sw = sv->ss[2] * g->step[2];
    const int64_t b0 = sbase + td->in0 * sv->ss[0] + th->in0 * sv->ss[1] + tw->in0 * sv->ss[2];
    int64_t c0 = 0;
    for (; c0 + 4 * VL <= R; c0 += 4 * VL) {
        vec a0 = init, a1 = init, a2 = init, a3 = init;
        for (int64_t a = td->lo; a < td->hi; a++)
            for (int64_t b = th->lo; b < th->hi; b++) {
                int64_t p = b0 + a * sd + b * sh + tw->lo * sw + c0;
                for (int64_t e = tw->lo; e < tw->hi; e++, p += sw) {
                    a0 = ACC(is_max, a0, v_load_dt(dt, src, p));
                    a1 = ACC(is_max, a1, v_load_dt(dt, src, p + VL));
                    a2 = ACC(is_max, a2, v_load_dt(dt, src, p + 2 * VL));
                    a3 = ACC(is_max, a3, v_load_dt(dt, src, p + 3 * VL));
                }
            }
        v_store_dt(dt, dst, doff + c0, finish(is_max, a0, vcnt));
        v_store_dt(dt, dst, doff + c0 + VL, finish(is_max, a1, vcnt));
        v_store_dt(dt, dst, doff + c0 + 2 * VL, finish(is_max, a2, vcnt));
        v_store_dt(dt, dst, doff + c0 + 3 * VL, finish(is_max, a3, vcnt));
    }
    for (; c0 < R; c0 += VL) {
        int64_t m = R - c0 < VL ? R - c0 : VL;
        vec a0 = init;
        for (int64_t a = td->lo; a < td->hi; a++)
            for (int64_t b = th->lo; b < th->hi; b++) {
                int64_t p = b0 + a * sd + b * sh + tw->lo * sw + c0;
                for (int64_t e = tw->lo; e < tw->hi; e++, p += sw)
                    a0 = ACC(is_max, a0,
                             m == VL ? v_load_dt(dt, src, p) : v_load_dt_part(dt, src, p, m));
            }
        if (m == VL)
            v_store_dt(dt, dst, doff + c0, finish(is_max, a0, vcnt));
        else
            v_store_dt_part(dt, dst, doff + c0, finish(is_max, a0, vcnt), m);
    }
}

/* Four consecutive output points (n, cb, od, oh, ow .. ow + 3) of a
 * channel-inner view whose run is one vector (the blocked layouts, nChw16c
 * at VL 16), when the four windows are whole along w and share their
 * divisor: one accumulator each, the tap loops shared (one point at a time
 * spent more on its loop set-up than on its nine loads). Each point's taps
 * are taken in inner_point's order, so the results are its results. Returns
 * false (nothing written) where the four do not qualify. */
static inline __attribute__((always_inline)) bool
inner_quad(const lg__pool_job *j, lg_dtype dt, bool is_max, const void *src, void *dst,
           int64_t sbase, int64_t dbase, int64_t ow, const lg__pool_taps *td,
           const lg__pool_taps *th) {
    const lg__pool_geom *g = j->g;
    const lg__chview *sv = &j->sv;
    const lg__pool_taps *tw = &g->tab[2][ow];
    const int32_t K = (int32_t)j->pd->k[2];
    if (ow + 4 > g->o[2] || td->hi == td->lo || th->hi == th->lo) return false;
    const int64_t cnt = lg__pool_count(j->pd->alg, g, td, th, tw);
    for (int i = 0; i < 4; i++)
        if (tw[i].lo != 0 || tw[i].hi != K || lg__pool_count(j->pd->alg, g, td, th, &tw[i]) != cnt)
            return false;
    const vec vcnt = v_set1((float)cnt), init = is_max ? v_set1(-INFINITY) : v_zero();
    const int64_t sd = sv->ss[0] * g->step[0], sh = sv->ss[1] * g->step[1],
                  sw = sv->ss[2] * g->step[2], so = (tw[1].in0 - tw[0].in0) * sv->ss[2];
    const int64_t b0 = sbase + td->in0 * sv->ss[0] + th->in0 * sv->ss[1] + tw->in0 * sv->ss[2];
    vec a0 = init, a1 = init, a2 = init, a3 = init;
    for (int64_t a = td->lo; a < td->hi; a++)
        for (int64_t b = th->lo; b < th->hi; b++) {
            int64_t p = b0 + a * sd + b * sh;
            for (int32_t e = 0; e < K; e++, p += sw) {
                a0 = ACC(is_max, a0, v_load_dt(dt, src, p));
                a1 = ACC(is_max, a1, v_load_dt(dt, src, p + so));
                a2 = ACC(is_max, a2, v_load_dt(dt, src, p + 2 * so));
                a3 = ACC(is_max, a3, v_load_dt(dt, src, p + 3 * so));
            }
        }
    const int64_t ds = j->dv.ss[2];
    v_store_dt(dt, dst, dbase + ow * ds, finish(is_max, a0, vcnt));
    v_store_dt(dt, dst, dbase + (ow + 1) * ds, finish(is_max, a1, vcnt));
    v_store_dt(dt, dst, dbase + (ow + 2) * ds, finish(is_max, a2, vcnt));
    v_store_dt(dt, dst, dbase + (ow + 3) * ds, finish(is_max, a3, vcnt));
    return true;
}

/* One output point of a plain view, the reference's scalar loop. */
static inline float plain_point(const lg__pool_job *j, lg_dtype dt, bool is_max, const void *src,
                                int64_t sbase, const lg__pool_taps *td, const lg__pool_taps *th,
                                const lg__pool_taps *tw) {
    const lg__pool_geom *g = j->g;
    const lg__chview *sv = &j->sv;
    if (td->hi == td->lo || th->hi == th->lo || tw->hi == tw->lo) return 0.0f;
    float m = -INFINITY, s = 0.0f;
    for (int64_t a = td->lo; a < td->hi; a++)
        for (int64_t b = th->lo; b < th->hi; b++)
            for (int64_t e = tw->lo; e < tw->hi; e++) {
                int64_t p = sbase + (td->in0 + a * g->step[0]) * sv->ss[0] +
                            (th->in0 + b * g->step[1]) * sv->ss[1] +
                            (tw->in0 + e * g->step[2]) * sv->ss[2];
                float x = lg__load_f32(src, dt, p);
                m = m > x ? m : x;
                s += x;
            }
    return is_max ? m : s / (float)lg__pool_count(j->pd->alg, g, td, th, tw);
}

/* One row (n, c, od, oh) of a plain view: VL outputs at a time where the
 * whole window along w is inside the input. */
static inline __attribute__((always_inline)) void
plain_row(const lg__pool_job *j, lg_dtype dt, bool is_max, const void *src, void *dst,
          int64_t sbase, int64_t dbase, const lg__pool_taps *td, const lg__pool_taps *th) {
    const lg__pool_pd *pd = j->pd;
    const lg__pool_geom *g = j->g;
    const lg__chview *sv = &j->sv, *dv = &j->dv;
    const int64_t OW = g->o[2], K = pd->k[2], s = pd->s[2];
    const bool unit = sv->ss[2] == 1 && dv->ss[2] == 1 && (s == 1 || dt == LG_F32);
    const bool empty = td->hi == td->lo || th->hi == th->lo;
    const vec init = is_max ? v_set1(-INFINITY) : v_zero();
    int64_t ow = 0;
    while (ow < OW) {
        const lg__pool_taps *tw = &g->tab[2][ow];
        if (unit && !empty && ow + VL <= OW && tw->lo == 0 && tw->hi == K &&
            g->tab[2][ow + VL - 1].hi == K) {
            const vec vcnt = v_set1((float)lg__pool_count(pd->alg, g, td, th, tw));
            vec acc = init;
            for (int64_t a = td->lo; a < td->hi; a++)
                for (int64_t b = th->lo; b < th->hi; b++) {
                    int64_t p = sbase + (td->in0 + a * g->step[0]) * sv->ss[0] +
                                (th->in0 + b * g->step[1]) * sv->ss[1] + tw->in0;
                    for (int64_t e = 0; e < K; e++, p += g->step[2])
                        acc = ACC(is_max, acc,
                                  s == 1 ? v_load_dt(dt, src, p)
                                         : v_gather((const float *)src + p, s));
                }
            v_store_dt(dt, dst, dbase + ow, finish(is_max, acc, vcnt));
            ow += VL;
            continue;
        }
        lg__store_f32(dst, dt, dbase + ow * dv->ss[2],
                      plain_point(j, dt, is_max, src, sbase, td, th, tw));
        ow++;
    }
}

/* Global average pooling, one row: (n, cb, chunk) of a channel-inner view
 * or (n, c) of a plain one. */
static inline __attribute__((always_inline)) void
global_row(const lg__pool_job *j, lg_dtype dt, const void *src, void *dst, int64_t r) {
    const lg__chview *sv = &j->sv, *dv = &j->dv;
    const int64_t q = r / j->nchunk, ch = r % j->nchunk;
    const int64_t n = q / sv->ncb, cb = q % sv->ncb;
    const int64_t sbase = sv->off0 + n * sv->sn + cb * sv->scb;
    const int64_t dbase = dv->off0 + n * dv->sn + cb * dv->scb;
    const int64_t D = sv->sp[0], H = sv->sp[1], W = sv->sp[2];
    const float cnt = (float)(D * H * W);
    if (sv->kind == LG_CH_PLAIN) {
        float total;
        if (sv->ss[2] == 1 && sv->ss[1] == W && sv->ss[0] == H * W) {
            const int64_t P = D * H * W;
            vec a0 = v_zero(), a1 = v_zero(), a2 = v_zero(), a3 = v_zero();
            int64_t i = 0;
            for (; i + 4 * VL <= P; i += 4 * VL) {
                a0 = v_add(a0, v_load_dt(dt, src, sbase + i));
                a1 = v_add(a1, v_load_dt(dt, src, sbase + i + VL));
                a2 = v_add(a2, v_load_dt(dt, src, sbase + i + 2 * VL));
                a3 = v_add(a3, v_load_dt(dt, src, sbase + i + 3 * VL));
            }
            for (; i + VL <= P; i += VL) a0 = v_add(a0, v_load_dt(dt, src, sbase + i));
            if (i < P) a1 = v_add(a1, v_load_dt_part(dt, src, sbase + i, P - i));
            total = v_hsum(v_add(v_add(a0, a1), v_add(a2, a3)));
        } else {
            total = 0.0f;
            for (int64_t d = 0; d < D; d++)
                for (int64_t h = 0; h < H; h++)
                    for (int64_t w = 0; w < W; w++)
                        total += lg__load_f32(
                            src, dt, sbase + d * sv->ss[0] + h * sv->ss[1] + w * sv->ss[2]);
        }
        lg__store_f32(dst, dt, dbase, total / cnt);
        return;
    }
    const vec vcnt = v_set1(cnt);
    const int64_t lo = ch * j->chunk, hi = lo + j->chunk < sv->run ? lo + j->chunk : sv->run;
    int64_t c0 = lo;
    /* Eight accumulators: the adds' latency hidden behind the loads (the
     * order of each channel's sum is the same as with four or one). */
    for (; c0 + 8 * VL <= hi; c0 += 8 * VL) {
        vec a[8];
        for (int u = 0; u < 8; u++) a[u] = v_zero();
        for (int64_t d = 0; d < D; d++)
            for (int64_t h = 0; h < H; h++) {
                int64_t p = sbase + d * sv->ss[0] + h * sv->ss[1] + c0;
                for (int64_t w = 0; w < W; w++, p += sv->ss[2])
                    for (int u = 0; u < 8; u++) a[u] = v_add(a[u], v_load_dt(dt, src, p + u * VL));
            }
        for (int u = 0; u < 8; u++) v_store_dt(dt, dst, dbase + c0 + u * VL, v_div(a[u], vcnt));
    }
    for (; c0 + 4 * VL <= hi; c0 += 4 * VL) {
        vec a0 = v_zero(), a1 = v_zero(), a2 = v_zero(), a3 = v_zero();
        for (int64_t d = 0; d < D; d++)
            for (int64_t h = 0; h < H; h++) {
                int64_t p = sbase + d * sv->ss[0] + h * sv->ss[1] + c0;
                for (int64_t w = 0; w < W; w++, p += sv->ss[2]) {
                    a0 = v_add(a0, v_load_dt(dt, src, p));
                    a1 = v_add(a1, v_load_dt(dt, src, p + VL));
                    a2 = v_add(a2, v_load_dt(dt, src, p + 2 * VL));
                    a3 = v_add(a3, v_load_dt(dt, src, p + 3 * VL));
                }
            }
        v_store_dt(dt, dst, dbase + c0, v_div(a0, vcnt));
        v_store_dt(dt, dst, dbase + c0 + VL, v_div(a1, vcnt));
        v_store_dt(dt, dst, dbase + c0 + 2 * VL, v_div(a2, vcnt));
        v_store_dt(dt, dst, dbase + c0 + 3 * VL, v_div(a3, vcnt));
    }
    for (; c0 < hi; c0 += VL) {
        int64_t m = hi - c0 < VL ? hi - c0 : VL;
        vec a0 = v_zero();
        for (int64_t d = 0; d < D; d++)
            for (int64_t h = 0; h < H; h++) {
                int64_t p = sbase + d * sv->ss[0] + h * sv->ss[1] + c0;
                for (int64_t w = 0; w < W; w++, p += sv->ss[2])
                    a0 = v_add(a0, m == VL ? v_load_dt(dt, src, p) : v_load_dt_part(dt, src, p, m));
            }
        if (m == VL)
            v_store_dt(dt, dst, dbase + c0, v_div(a0, vcnt));
        else
            v_store_dt_part(dt, dst, dbase + c0, v_div(a0, vcnt), m);
    }
}

static inline __attribute__((always_inline)) void rows_tpl(const lg__pool_job *j, lg_dtype dt,
                                                           bool is_max, const void *src, void *dst,
                                                           int64_t r0, int64_t r1) {
    const lg__pool_geom *g = j->g;
    const lg__chview *sv = &j->sv, *dv = &j->dv;
    if (j->global) {
        for (int64_t r = r0; r < r1; r++) global_row(j, dt, src, dst, r);
        return;
    }
    const int64_t OD = g->o[0], OH = g->o[1], OW = g->o[2];
    for (int64_t r = r0; r < r1; r++) {
        int64_t oh = r % OH, q = r / OH, od = q % OD;
        q /= OD;
        int64_t cb = q % sv->ncb, n = q / sv->ncb;
        const lg__pool_taps *td = &g->tab[0][od], *th = &g->tab[1][oh];
        int64_t sbase = sv->off0 + n * sv->sn + cb * sv->scb;
        int64_t dbase = dv->off0 + n * dv->sn + cb * dv->scb + od * dv->ss[0] + oh * dv->ss[1];
        if (sv->kind == LG_CH_PLAIN) {
            plain_row(j, dt, is_max, src, dst, sbase, dbase, td, th);
            continue;
        }
        for (int64_t ow = 0; ow < OW;) {
            if (sv->run == VL && inner_quad(j, dt, is_max, src, dst, sbase, dbase, ow, td, th)) {
                ow += 4;
                continue;
            }
            inner_point(j, dt, is_max, src, dst, sbase, dbase + ow * dv->ss[2], td, th,
                        &g->tab[2][ow]);
            ow++;
        }
    }
}

void LG_POOL_ROWS(const lg__pool_job *j, const void *src, void *dst, int64_t r0, int64_t r1) {
    const bool is_max = j->pd->alg == 0;
    switch (j->pd->src.dtype) {
    case LG_F16:
        if (is_max)
            rows_tpl(j, LG_F16, true, src, dst, r0, r1);
        else
            rows_tpl(j, LG_F16, false, src, dst, r0, r1);
        break;
    case LG_BF16:
        if (is_max)
            rows_tpl(j, LG_BF16, true, src, dst, r0, r1);
        else
            rows_tpl(j, LG_BF16, false, src, dst, r0, r1);
        break;
    default:
        if (is_max)
            rows_tpl(j, LG_F32, true, src, dst, r0, r1);
        else
            rows_tpl(j, LG_F32, false, src, dst, r0, r1);
        break;
    }
}
