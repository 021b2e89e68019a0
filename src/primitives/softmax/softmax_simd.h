/* The SIMD softmax rows, written once over the shared vector layer
 * (simd/simd_avx2.h or simd_avx512.h) and its exp / log. Not a normal
 * header: softmax_avx2.c and softmax_avx512.c include their layer, name the
 * entry point LG_SMX_ROWS, then include this file.
 *
 * Three passes per row: the maximum; the sum of exp(x - max) (softmax in f32
 * keeps exp(x - max) in dst); the result, e / sum or (x - max) - log(sum)
 * (other types recompute exp from src, so in place stays right). The
 * horizontal rows reduce across lanes (four vectors in flight); the vertical
 * ones keep one maximum and sum per lane. */
#if !defined(LG_SMX_ROWS)
#error "softmax_simd.h is a template: include a vector layer and name the entry point first"
#endif

#include "primitives/softmax/softmax.h"

#include <math.h>

/* The element offset of outer row index r. */
static inline int64_t outer_off(const lg__softmax_plan *p, int64_t r, int64_t *vidx) {
    int64_t off = 0;
    for (int i = p->nouter - 1; i >= 0; i--) {
        int64_t q = r % p->ext[i];
        r /= p->ext[i];
        off += q * p->st[i];
        if (i == p->vdim) *vidx = q;
    }
    return off;
}

/* Valid elements of segment s of a horizontal row. */
static inline int64_t seg_valid(const lg__softmax_plan *p, int64_t s) {
    return s == p->nseg - 1 ? p->last_valid : p->seglen;
}

static inline __attribute__((always_inline)) void
hrow(const lg__softmax_plan *p, lg_dtype dt, bool logsm, const void *src, void *dst, int64_t base) {
    const vec ninf = v_set1(-INFINITY);
    /* Pass 1: the maximum. */
    vec m0 = ninf, m1 = ninf, m2 = ninf, m3 = ninf;
    for (int64_t s = 0; s < p->nseg; s++) {
        const int64_t o = base + s * p->seg_stride, L = seg_valid(p, s);
        int64_t i = 0;
        for (; i + 4 * VL <= L; i += 4 * VL) {
            m0 = v_max(m0, v_load_dt(dt, src, o + i));
            m1 = v_max(m1, v_load_dt(dt, src, o + i + VL));
            m2 = v_max(m2, v_load_dt(dt, src, o + i + 2 * VL));
            m3 = v_max(m3, v_load_dt(dt, src, o + i + 3 * VL));
        }
        for (; i + VL <= L; i += VL) m0 = v_max(m0, v_load_dt(dt, src, o + i));
        if (i < L)
            m1 = v_max(
                m1, v_sel_first(L - i, v_load_dt_part(dt, src, o + i, L - i), v_set1(-INFINITY)));
    }
    const vec vm = v_set1(v_hmax(v_max(v_max(m0, m1), v_max(m2, m3))));
    /* Pass 2: the sum of exp(x - max). */
    const bool keep = !logsm && dt == LG_F32;
    vec s0 = v_zero(), s1 = v_zero(), s2 = v_zero(), s3 = v_zero();
    for (int64_t s = 0; s < p->nseg; s++) {
        const int64_t o = base + s * p->seg_stride, L = seg_valid(p, s);
        int64_t i = 0;
        for (; i + 4 * VL <= L; i += 4 * VL) {
            vec e0 = v_exp(v_sub(v_load_dt(dt, src, o + i), vm));
            vec e1 = v_exp(v_sub(v_load_dt(dt, src, o + i + VL), vm));
            vec e2 = v_exp(v_sub(v_load_dt(dt, src, o + i + 2 * VL), vm));
            vec e3 = v_exp(v_sub(v_load_dt(dt, src, o + i + 3 * VL), vm));
            s0 = v_add(s0, e0);
            s1 = v_add(s1, e1);
            s2 = v_add(s2, e2);
            s3 = v_add(s3, e3);
            if (keep) {
                v_store((float *)dst + o + i, e0);
                v_store((float *)dst + o + i + VL, e1);
                v_store((float *)dst + o + i + 2 * VL, e2);
                v_store((float *)dst + o + i + 3 * VL, e3);
            }
        }
        for (; i + VL <= L; i += VL) {
            vec e = v_exp(v_sub(v_load_dt(dt, src, o + i), vm));
            s0 = v_add(s0, e);
            if (keep) v_store((float *)dst + o + i, e);
        }
        if (i < L) {
            vec e = v_keep_first(v_exp(v_sub(v_load_dt_part(dt, src, o + i, L - i), vm)), L - i);
            s1 = v_add(s1, e);
            if (keep) v_store_part((float *)dst + o + i, e, L - i);
        }
    }
    const float sum = v_hsum(v_add(v_add(s0, s1), v_add(s2, s3)));
    const vec vs = v_set1(sum), vl = v_set1(logf(sum));
    /* Pass 3: the result; padding lanes of the last segment get 0. */
    for (int64_t s = 0; s < p->nseg; s++) {
        const int64_t o = base + s * p->seg_stride, L = seg_valid(p, s);
        int64_t i = 0;
        for (; i < L; i += VL) {
            int64_t k = L - i < VL ? L - i : VL;
            vec y;
            if (keep) {
                vec e = k == VL ? v_load((const float *)dst + o + i)
                                : v_load_part((const float *)dst + o + i, k);
                y = v_div(e, vs);
            } else {
                vec x = k == VL ? v_load_dt(dt, src, o + i) : v_load_dt_part(dt, src, o + i, k);
                vec d = v_sub(x, vm);
                y = logsm ? v_sub(d, vl) : v_div(v_exp(d), vs);
            }
            if (k == VL)
                v_store_dt(dt, dst, o + i, y);
            else
                v_store_dt_part(dt, dst, o + i, y, k);
        }
        for (int64_t j = L; j < p->seglen; j += VL) {
            int64_t k = p->seglen - j < VL ? p->seglen - j : VL;
            v_store_dt_part(dt, dst, o + j, v_zero(), k);
        }
    }
}

/* A vertical row: lanes [c0, c0 + k) of the run at base, k <= VL valid
 * (the rest of the chunk up to kk lanes is padding, written 0). */
static inline __attribute__((always_inline)) void vrow(const lg__softmax_plan *p, lg_dtype dt,
                                                       bool logsm, const void *src, void *dst,
                                                       int64_t base, int64_t k) {
    const int64_t A = p->A, as = p->ax_stride;
    const bool keep = !logsm && dt == LG_F32, full = k == VL;
#define LD(o) (full ? v_load_dt(dt, src, (o)) : v_load_dt_part(dt, src, (o), k))
    vec m0 = v_set1(-INFINITY), m1 = m0;
    int64_t a = 0;
    for (; a + 2 <= A; a += 2) {
        m0 = v_max(m0, LD(base + a * as));
        m1 = v_max(m1, LD(base + (a + 1) * as));
    }
    if (a < A) m0 = v_max(m0, LD(base + a * as));
    const vec vm = v_max(m0, m1);
    vec s0 = v_zero(), s1 = v_zero();
    for (a = 0; a < A; a++) {
        vec e = v_exp(v_sub(LD(base + a * as), vm));
        if (a & 1)
            s1 = v_add(s1, e);
        else
            s0 = v_add(s0, e);
        if (keep) {
            if (full)
                v_store((float *)dst + base + a * as, e);
            else
                v_store_part((float *)dst + base + a * as, e, k);
        }
    }
    const vec vs = v_add(s0, s1), vl = v_log(vs);
    for (a = 0; a < A; a++) {
        const int64_t o = base + a * as;
        vec y;
        if (keep) {
            y = v_div(
                full ? v_load((const float *)dst + o) : v_load_part((const float *)dst + o, k), vs);
        } else {
            vec d = v_sub(LD(o), vm);
            y = logsm ? v_sub(d, vl) : v_div(v_exp(d), vs);
        }
        if (full)
            v_store_dt(dt, dst, o, y);
        else
            v_store_dt_part(dt, dst, o, y, k);
    }
#undef LD
}

static inline __attribute__((always_inline)) void rows_tpl(const lg__softmax_plan *p, lg_dtype dt,
                                                           bool logsm, const void *src, void *dst,
                                                           int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; r++) {
        int64_t vi = 0;
        if (p->horizontal) {
            hrow(p, dt, logsm, src, dst, p->pd->src.offset0 + outer_off(p, r, &vi));
            continue;
        }
        const int64_t ch = r % p->nchunk;
        const int64_t base = p->pd->src.offset0 + outer_off(p, r / p->nchunk, &vi);
        int64_t valid = p->run;
        if (p->vdim >= 0 && p->vlim - vi * p->run < valid) valid = p->vlim - vi * p->run;
        const int64_t lo = ch * p->chunk, hi = lo + p->chunk < p->run ? lo + p->chunk : p->run;
        for (int64_t c0 = lo; c0 < hi; c0 += VL) {
            int64_t kk = hi - c0 < VL ? hi - c0 : VL;
            int64_t k = valid - c0 < kk ? valid - c0 : kk;
            if (k > 0) vrow(p, dt, logsm, src, dst, base + c0, k);
            if (k < kk) /* padding lanes, every step of the axis */
                for (int64_t a = 0; a < p->A; a++) {
                    int64_t z = k > 0 ? k : 0;
                    v_store_dt_part(dt, dst, base + c0 + z + a * p->ax_stride, v_zero(), kk - z);
                }
        }
    }
}

void LG_SMX_ROWS(const lg__softmax_plan *p, const void *src, void *dst, int64_t r0, int64_t r1) {
    const bool logsm = p->pd->alg == 1;
    switch (p->pd->src.dtype) {
    case LG_F16:
        if (logsm)
            rows_tpl(p, LG_F16, true, src, dst, r0, r1);
        else
            rows_tpl(p, LG_F16, false, src, dst, r0, r1);
        break;
    case LG_BF16:
        if (logsm)
            rows_tpl(p, LG_BF16, true, src, dst, r0, r1);
        else
            rows_tpl(p, LG_BF16, false, src, dst, r0, r1);
        break;
    default:
        if (logsm)
            rows_tpl(p, LG_F32, true, src, dst, r0, r1);
        else
            rows_tpl(p, LG_F32, false, src, dst, r0, r1);
        break;
    }
}
