/* The SIMD kernels of the fast reorder engine, written once over a small
 * set of vector primitives. Not a normal header: fast_avx2.c and
 * fast_avx512.c each define the primitives below for their ISA, then include
 * this file, which defines the kernels and the entry points LG_RF_ENTRY
 * and LG_RF_CVT (the row conversion of cvt.h).
 *
 * Primitives (vectors of VL 32-bit lanes; n is a lane count 1..VL, lanes
 * past n are loaded as zero and never stored):
 *   vec                          the vector type (float lanes)
 *   vec v_ld(lk, p, n)           load n elements of load kind lk
 *   void v_st(sk, p, v, n, nt)   store n lanes as store kind sk; nt allows a
 *                                non-temporal store when the vector is full
 *                                and aligned
 *   void v_tr(vec r[VL])         transpose the VL x VL matrix of rows r
 *   void v_ld_tr(s, sa, r)       load VL rows of VL 32-bit elements, row a at
 *                                s + a * sa bytes, into r transposed
 *   void v_ld_tr_rows(rows, r)   the same with row a at rows[a]
 *   vec v_attr_f(p, s, n)        n floats p[0], p[s], ... (s may be 0)
 *   vec v_attr_i(p, s, n)        the same for int32, converted to float
 *   vec v_keep_n(v, n)           v with the lanes from n on zeroed
 *   v_zero, v_set1, v_add, v_sub, v_mul, v_div (from eltwise/simd_<isa>.h)
 *   void v_copy_bytes(d, s, nbytes, nt), v_zero_bytes(d, nbytes)
 *
 * Values: a load kind LK_B* moves raw bits (widened to 32-bit lanes), the
 * other load kinds convert exactly to f32; store kinds SK_B* narrow raw bits,
 * the others convert from f32 as convert.h does (bit for bit). A bit copy
 * therefore never changes a payload, and a conversion equals the scalar
 * one. The attribute pipeline (v_ops) is lg__reorder_ref's, term for term,
 * with plain multiplies and adds (the build does not contract to FMA). */
#if !defined(LG_RF_ENTRY) || !defined(LG_RF_CVT)
#error "fast_simd.h is a template: define the primitives, LG_RF_ENTRY and LG_RF_CVT first"
#endif

#include "primitives/simd/cvt.h"

#include <stdint.h>
#include <xmmintrin.h>

#define LG_RF_INLINE static inline __attribute__((always_inline))

/* The converting load and store kinds of dt (bit copies use LK_B* / SK_B*
 * directly; f32's conversion is the identity, so it moves raw bits). */
static int load_kind(lg_dtype dt) {
    switch (dt) {
    case LG_F16:
        return LK_F16;
    case LG_BF16:
        return LK_BF16;
    case LG_S32:
        return LK_S32;
    case LG_S8:
        return LK_S8;
    case LG_U8:
        return LK_U8;
    case LG_F8_E4M3:
        return LK_E4M3;
    case LG_F8_E5M2:
        return LK_E5M2;
    default:
        return LK_B32;
    }
}

static int store_kind(lg_dtype dt) {
    switch (dt) {
    case LG_F16:
        return SK_F16;
    case LG_BF16:
        return SK_BF16;
    case LG_S32:
        return SK_S32;
    case LG_S8:
        return SK_S8;
    case LG_U8:
        return SK_U8;
    case LG_F8_E4M3:
        return SK_E4M3;
    case LG_F8_E5M2:
        return SK_E5M2;
    default:
        return SK_B32;
    }
}

/* Apply the attributes to v, whose lanes are n consecutive elements of a dim
 * with strides st; ao[] are the attribute offsets of lane 0 and dold the dst
 * row (for the sum, read with load kind dk). */
LG_RF_INLINE vec v_ops(const lg__rf_plan *p, const lg__rf_ptrs *q, vec v, const int64_t *ao,
                       const int64_t *st, const char *dold, int n, int dk) {
    if (q->szp) v = v_sub(v, v_attr_i(q->szp + ao[LG_RF_SZP], st[LG_RF_SZP], n));
    if (q->ss || q->ds) {
        vec f;
        if (!q->ds) /* ss / 1.0f is ss (a signalling NaN aside, which f * v quiets alike) */
            f = v_attr_f(q->ss + ao[LG_RF_SS], st[LG_RF_SS], n);
        else
            f = v_div(q->ss ? v_attr_f(q->ss + ao[LG_RF_SS], st[LG_RF_SS], n) : v_set1(1.0f),
                      v_attr_f(q->ds + ao[LG_RF_DS], st[LG_RF_DS], n));
        v = v_mul(f, v);
    }
    if (p->has_sum) v = v_add(v, v_mul(v_set1(p->beta), v_ld(dk, dold, n)));
    if (q->dzp) v = v_add(v, v_attr_i(q->dzp + ao[LG_RF_DZP], st[LG_RF_DZP], n));
    return v;
}

/* Offsets of element (i2, i1, i0) of the kernel dims, per array. */
LG_RF_INLINE void kd_offsets(const lg__rf_job *j, int64_t i2, int64_t i1, int64_t i0, int64_t *o) {
    for (int k = 0; k < LG_RF_NARR; k++)
        o[k] = i2 * j->kd[2].st[k] + i1 * j->kd[1].st[k] + i0 * j->kd[0].st[k];
}

/* TRANS: tiles of VL (along A = kd[0], dst-contiguous) by VL (along B =
 * kd[1], src-contiguous). Each tile loads up to VL src rows along B,
 * transposes them in registers and stores up to VL dst rows along A. With
 * bflat, B is the flat run kd[1] x kd[2]. Src rows are prefetched PF_ELEMS
 * ahead along B. */
#define PF_ELEMS 256

/* What the tiles of one call share. */
typedef struct tr_ctx {
    const char *src;
    char *dst;
    int64_t sa, db, dc, n0, nas, nb_all, n1, i2;
} tr_ctx;

/* Store one transposed row v (element (c2, c1) of B, lanes from a0) at d,
 * after the attributes. */
LG_RF_INLINE void tile_row(const lg__rf_plan *p, const lg__rf_job *j, const lg__rf_ptrs *q,
                           const tr_ctx *t, vec v, char *d, int64_t c1, int64_t c2, int64_t a0,
                           int na, int nv, int sk, int dk, bool arith, bool nt) {
    if (arith && nv > 0) {
        int64_t ao[LG_RF_NARR];
        kd_offsets(j, t->i2 + c2, c1, a0, ao);
        v = v_ops(p, q, v, ao, j->kd[0].st, d, nv, dk);
        if (nv < na) v = v_keep_n(v, nv);
    }
    v_st(sk, d, v, na, nt);
}

/* The tile at (a0, b0); (c1, c2) is b0's position in (kd[1], kd[2]). It
 * stores na lanes, the first nv of them data and the rest padding, for nb
 * rows; full tiles come with these constant, so their masks fold away. */
LG_RF_INLINE void tile_body(const lg__rf_plan *p, const lg__rf_job *j, const lg__rf_ptrs *q,
                            const tr_ctx *t, int64_t a0, int64_t b0, int64_t c1, int64_t c2, int na,
                            int nv, int nb, int lk, int sk, int dk, bool arith, bool nt) {
    const int64_t ssz = p->ssz, dsz = p->dsz;
    const char *s = t->src + a0 * t->sa + b0 * ssz;
    if (b0 + PF_ELEMS < t->nb_all)
        for (int a = 0; a < nv; a++) _mm_prefetch(s + a * t->sa + PF_ELEMS * ssz, _MM_HINT_T0);
    vec r[VL];
    if (lk == LK_B32 && nv == VL && nb == VL) {
        v_ld_tr(s, t->sa, r);
    } else {
        for (int a = 0; a < VL; a++) r[a] = a < nv ? v_ld(lk, s + a * t->sa, nb) : v_zero();
        v_tr(r);
    }
    char *d0 = t->dst + c1 * t->db + c2 * t->dc + a0 * dsz;
    if (c1 + nb <= t->n1) { /* the rows do not wrap into kd[2]: d0, d0 + db, ... */
        for (int b = 0; b < VL; b++) {
            if (b >= nb) break;
            tile_row(p, j, q, t, r[b], d0 + b * t->db, c1 + b, c2, a0, na, nv, sk, dk, arith, nt);
        }
        return;
    }
    for (int b = 0; b < VL; b++) {
        if (b >= nb) break;
        char *d = t->dst + c1 * t->db + c2 * t->dc + a0 * dsz;
        tile_row(p, j, q, t, r[b], d, c1, c2, a0, na, nv, sk, dk, arith, nt);
        if (++c1 == t->n1) {
            c1 = 0;
            c2++;
        }
    }
}

LG_RF_INLINE void trans_tile(const lg__rf_plan *p, const lg__rf_job *j, const lg__rf_ptrs *q,
                             const tr_ctx *t, int64_t a0, int64_t b0, int64_t c1, int64_t c2,
                             int lk, int sk, int dk, bool arith, bool nt) {
    int na = t->nas - a0 < VL ? (int)(t->nas - a0) : VL;
    int nv = t->n0 - a0 >= VL ? VL : (t->n0 > a0 ? (int)(t->n0 - a0) : 0);
    int nb = t->nb_all - b0 < VL ? (int)(t->nb_all - b0) : VL;
    if (na == VL && nv == VL && nb == VL)
        tile_body(p, j, q, t, a0, b0, c1, c2, VL, VL, VL, lk, sk, dk, arith, nt);
    else
        tile_body(p, j, q, t, a0, b0, c1, c2, na, nv, nb, lk, sk, dk, arith, nt);
}

LG_RF_INLINE void trans_tpl(const lg__rf_plan *p, const lg__rf_job *j, const lg__rf_ptrs *q,
                            const int64_t n[3], int lk, int sk, int dk, bool arith, bool nt) {
    tr_ctx t;
    t.sa = j->kd[0].st[LG_RF_SRC] * p->ssz;
    t.db = j->kd[1].st[LG_RF_DST] * p->dsz;
    t.dc = j->kd[2].st[LG_RF_DST] * p->dsz;
    t.n0 = n[0];
    t.nas = n[0] + j->apad;
    t.n1 = n[1];
    t.nb_all = j->bflat ? n[1] * n[2] : n[1];
    /* A run of at most two cache lines in dst: finish it (all A tiles)
     * before moving along B, so that dst lines are written whole. (The
     * planner's scattered() mirrors this choice.) */
    const bool b_outer = t.nas * p->dsz <= 128;
    for (int64_t i2 = 0; i2 < (j->bflat ? 1 : n[2]); i2++) {
        t.i2 = i2;
        t.src = q->src + i2 * j->kd[2].st[LG_RF_SRC] * p->ssz;
        t.dst = q->dst + i2 * t.dc;
        if (b_outer) {
            int64_t c1 = 0, c2 = 0;
            for (int64_t b0 = 0; b0 < t.nb_all; b0 += VL) {
                for (int64_t a0 = 0; a0 < t.nas; a0 += VL)
                    trans_tile(p, j, q, &t, a0, b0, c1, c2, lk, sk, dk, arith, nt);
                for (c1 += VL; c1 >= t.n1; c1 -= t.n1) c2++;
            }
        } else {
            for (int64_t a0 = 0; a0 < t.nas; a0 += VL) {
                int64_t c1 = 0, c2 = 0;
                for (int64_t b0 = 0; b0 < t.nb_all; b0 += VL) {
                    trans_tile(p, j, q, &t, a0, b0, c1, c2, lk, sk, dk, arith, nt);
                    for (c1 += VL; c1 >= t.n1; c1 -= t.n1) c2++;
                }
            }
        }
    }
}

/* A full tile of a 32-bit bit-copy transpose: VL rows at s, sa bytes apart,
 * to VL rows at d, db bytes apart. Callers pass sa or db as a constant
 * where the rows are contiguous, so that the addresses fold into offsets. */
LG_RF_INLINE void tile32(const char *s, int64_t sa, char *d, int64_t db, bool pf, bool nt) {
    if (pf)
        for (int a = 0; a < VL; a++) _mm_prefetch(s + a * sa + PF_ELEMS * 4, _MM_HINT_T0);
    vec r[VL];
    v_ld_tr(s, sa, r);
    for (int b = 0; b < VL; b++) v_st(SK_B32, d + b * db, r[b], VL, nt);
}

/* 64 zero bytes: the rows a partial tile lacks. */
static const _Alignas(64) char zero_row[64];

/* A tile of a 32-bit bit-copy transpose whose rows beyond nv (< VL) are
 * padding: those rows load as zeros, and na lanes are stored. */
LG_RF_INLINE void tile32_rows(const char *s, int64_t sa, int nv, char *d, int64_t db, int na,
                              bool nt) {
    const char *rows[VL];
    for (int a = 0; a < VL; a++) rows[a] = a < nv ? s + a * sa : zero_row;
    vec r[VL];
    v_ld_tr_rows(rows, r);
    for (int b = 0; b < VL; b++) v_st(SK_B32, d + b * db, r[b], na, nt);
}

/* trans_b32 with a flat B run (weights: the 3x3 of oihw -> OIhw16i16o):
 * full tiles load through v_ld_tr and store their rows walking (c1, c2)
 * incrementally; the rest go through trans_tile. */
static void trans_b32_flat(const lg__rf_plan *p, const lg__rf_job *j, const lg__rf_ptrs *q,
                           const int64_t n[3], bool nt) {
    tr_ctx t;
    t.sa = j->kd[0].st[LG_RF_SRC] * 4;
    t.db = j->kd[1].st[LG_RF_DST] * 4;
    t.dc = j->kd[2].st[LG_RF_DST] * 4;
    t.n0 = n[0];
    t.nas = n[0] + j->apad;
    t.n1 = n[1];
    t.nb_all = n[1] * n[2];
    t.i2 = 0;
    t.src = q->src;
    t.dst = q->dst;
    const int64_t sa = t.sa, db = t.db, wrap = t.dc - t.n1 * t.db, n1 = t.n1;
    const bool b_outer = t.nas * 4 <= 128;
    const int64_t nx = b_outer ? t.nb_all : t.nas, ny = b_outer ? t.nas : t.nb_all;
    for (int64_t x = 0; x < nx; x += VL)
        for (int64_t y = 0; y < ny; y += VL) {
            int64_t a0 = b_outer ? y : x, b0 = b_outer ? x : y, c1 = b0 % n1, c2 = b0 / n1;
            if (a0 + VL > t.n0 || b0 + VL > t.nb_all) {
                trans_tile(p, j, q, &t, a0, b0, c1, c2, LK_B32, SK_B32, LK_B32, false, nt);
                continue;
            }
            vec r[VL];
            v_ld_tr(t.src + a0 * sa + b0 * 4, sa, r);
            char *d = t.dst + c1 * db + c2 * t.dc + a0 * 4;
            for (int b = 0; b < VL; b++) {
                v_st(SK_B32, d, r[b], VL, nt);
                d += db;
                if (++c1 == n1) {
                    c1 = 0;
                    d += wrap;
                }
            }
        }
}

/* 32-bit bit-copy transposes (the f32 layout changes): tiles whose B rows
 * are all there through tile32 / tile32_rows, with the strides in locals;
 * the others (a partial B run) through trans_tile; the tile order is
 * trans_tpl's. Flat B runs go to trans_b32_flat. */
static void trans_b32(const lg__rf_plan *p, const lg__rf_job *j, const lg__rf_ptrs *q,
                      const int64_t n[3], bool nt) {
    if (j->bflat) {
        trans_b32_flat(p, j, q, n, nt);
        return;
    }
    const int64_t sa = j->kd[0].st[LG_RF_SRC] * 4, db = j->kd[1].st[LG_RF_DST] * 4;
    const int64_t s2 = j->kd[2].st[LG_RF_SRC] * 4, d2 = j->kd[2].st[LG_RF_DST] * 4;
    const int64_t n0 = n[0], n1 = n[1], n2 = n[2], nas = n0 + j->apad;
    tr_ctx t;
    t.sa = sa;
    t.db = db;
    t.dc = d2;
    t.n0 = n0;
    t.nas = nas;
    t.n1 = t.nb_all = n1;
    const bool b_outer = nas * 4 <= 128;
    const int64_t nx = b_outer ? n1 : nas, ny = b_outer ? nas : n1; /* outer, inner extents */
    for (int64_t i2 = 0; i2 < n2; i2++) {
        t.i2 = i2;
        t.src = q->src + i2 * s2;
        t.dst = q->dst + i2 * d2;
        for (int64_t x = 0; x < nx; x += VL)
            for (int64_t y = 0; y < ny; y += VL) {
                int64_t a0 = b_outer ? y : x, b0 = b_outer ? x : y;
                if (b0 + VL > n1) {
                    trans_tile(p, j, q, &t, a0, b0, b0, 0, LK_B32, SK_B32, LK_B32, false, nt);
                    continue;
                }
                const char *s = t.src + a0 * sa + b0 * 4;
                char *d = t.dst + b0 * db + a0 * 4;
                if (a0 + VL > n0) { /* rows of padding (apad) or a partial A run */
                    int nv = n0 > a0 ? (int)(n0 - a0) : 0,
                        na = nas - a0 < VL ? (int)(nas - a0) : VL;
                    tile32_rows(s, sa, nv, d, db, na, nt);
                    continue;
                }
                bool pf = b0 + PF_ELEMS < n1;
                if (db == VL * 4)
                    tile32(s, sa, d, VL * 4, pf, nt);
                else if (sa == VL * 4)
                    tile32(s, VL * 4, d, db, pf, nt);
                else
                    tile32(s, sa, d, db, pf, nt);
            }
    }
}

/* COPY: rows along kd[0], contiguous on both sides (then apad zeros). */
LG_RF_INLINE void copy_tpl(const lg__rf_plan *p, const lg__rf_job *j, const lg__rf_ptrs *q,
                           const int64_t n[3], int lk, int sk, int dk, bool arith, bool nt) {
    const int64_t ssz = p->ssz, dsz = p->dsz, n0s = n[0] + j->apad;
    for (int64_t i2 = 0; i2 < n[2]; i2++)
        for (int64_t i1 = 0; i1 < n[1]; i1++) {
            const char *s =
                q->src + (i2 * j->kd[2].st[LG_RF_SRC] + i1 * j->kd[1].st[LG_RF_SRC]) * ssz;
            char *d = q->dst + (i2 * j->kd[2].st[LG_RF_DST] + i1 * j->kd[1].st[LG_RF_DST]) * dsz;
            for (int64_t x = 0; x < n0s; x += VL) {
                /* m lanes stored, the first mv of them data, the rest padding */
                int m = n0s - x < VL ? (int)(n0s - x) : VL;
                int mv = n[0] - x >= m ? m : (n[0] > x ? (int)(n[0] - x) : 0);
                vec v = mv ? v_ld(lk, s + x * ssz, mv) : v_zero();
                if (arith && mv) {
                    int64_t ao[LG_RF_NARR];
                    kd_offsets(j, i2, i1, x, ao);
                    v = v_ops(p, q, v, ao, j->kd[0].st, d + x * dsz, mv, dk);
                    if (mv < m) v = v_keep_n(v, mv);
                }
                v_st(sk, d + x * dsz, v, m, nt);
            }
        }
}

/* How far ahead copy_bits prefetches each src stream of a pair copy: the
 * hardware prefetchers alone leave nChw8c -> nChw16c (8x256x56x56 f32, two
 * threads) about 7% slower than with it (0.94x -> 1.01-1.03x oneDNN in a
 * standalone A/B; 512 B to 4 KB measured alike). */
#define COPY_PF_BYTES 2048

/* COPY of bits: rows of bytes. */
static void copy_bits(const lg__rf_plan *p, const lg__rf_job *j, const lg__rf_ptrs *q,
                      const int64_t n[3], bool nt) {
    /* Byte strides in locals: stores through char * could alias the job,
     * which would make the compiler reload them on every row. */
    const int64_t sz = p->dsz, bytes = n[0] * sz, pad = j->apad * sz;
    const int64_t s1 = j->kd[1].st[LG_RF_SRC] * sz, s2 = j->kd[2].st[LG_RF_SRC] * sz;
    const int64_t d1 = j->kd[1].st[LG_RF_DST] * sz, d2 = j->kd[2].st[LG_RF_DST] * sz;
    const int64_t n1 = n[1], n2 = n[2];
    if (bytes == 32 && !pad && d1 == 32 && n1 % 2 == 0) {
        /* Pairs of half-line rows that are neighbours in dst: one store. */
        if (n1 == 2) { /* nChw8c -> nChw16c: one pair per step of kd[2] */
            const char *s = q->src;
            char *d = q->dst;
            int64_t i2 = 0;
            if (s2 == 32) /* two sequential src streams: prefetch both a line at a time */
                for (; i2 + 2 <= n2; i2 += 2, s += 64, d += 2 * d2) {
                    _mm_prefetch(s + COPY_PF_BYTES, _MM_HINT_T0);
                    _mm_prefetch(s + s1 + COPY_PF_BYTES, _MM_HINT_T0);
                    v_copy_2x32(d, s, s + s1, nt);
                    v_copy_2x32(d + d2, s + 32, s + s1 + 32, nt);
                }
            for (; i2 < n2; i2++, s += s2, d += d2) v_copy_2x32(d, s, s + s1, nt);
            return;
        }
        for (int64_t i2 = 0; i2 < n2; i2++) {
            const char *s = q->src + i2 * s2;
            char *d = q->dst + i2 * d2;
            for (int64_t i1 = 0; i1 < n1; i1 += 2)
                v_copy_2x32(d + i1 * d1, s + i1 * s1, s + i1 * s1 + s1, nt);
        }
        return;
    }
    for (int64_t i2 = 0; i2 < n2; i2++)
        for (int64_t i1 = 0; i1 < n1; i1++) {
            const char *s = q->src + i2 * s2 + i1 * s1;
            char *d = q->dst + i2 * d2 + i1 * d1;
            v_copy_bytes(d, s, bytes, nt);
            if (pad) v_zero_bytes(d + bytes, pad);
        }
}

/* ZERO with dst-contiguous rows. */
static void zero_rows(const lg__rf_plan *p, const lg__rf_job *j, const lg__rf_ptrs *q,
                      const int64_t n[3]) {
    const int64_t sz = p->dsz, bytes = n[0] * sz;
    const int64_t d1 = j->kd[1].st[LG_RF_DST] * sz, d2 = j->kd[2].st[LG_RF_DST] * sz;
    const int64_t n1 = n[1], n2 = n[2];
    for (int64_t i2 = 0; i2 < n2; i2++)
        for (int64_t i1 = 0; i1 < n1; i1++) v_zero_bytes(q->dst + i2 * d2 + i1 * d1, bytes);
}

/* Instances with the kinds fixed at compile time for the common cases; the
 * rest go through one instance that switches at run time. */
static void trans_b16(const lg__rf_plan *p, const lg__rf_job *j, const lg__rf_ptrs *q,
                      const int64_t n[3], bool nt) {
    trans_tpl(p, j, q, n, LK_B16, SK_B16, LK_B16, false, nt);
}
static void trans_b8(const lg__rf_plan *p, const lg__rf_job *j, const lg__rf_ptrs *q,
                     const int64_t n[3], bool nt) {
    trans_tpl(p, j, q, n, LK_B8, SK_B8, LK_B8, false, nt);
}
/* f32 to another type, without attributes: the conversion workloads. */
#define TRANS_F32_TO(name, sk)                                                                     \
    static void name(const lg__rf_plan *p, const lg__rf_job *j, const lg__rf_ptrs *q,              \
                     const int64_t n[3], bool nt) {                                                \
        trans_tpl(p, j, q, n, LK_B32, sk, LK_B32, false, nt);                                      \
    }
TRANS_F32_TO(trans_f32_f16, SK_F16)
TRANS_F32_TO(trans_f32_bf16, SK_BF16)
TRANS_F32_TO(trans_f32_s32, SK_S32)
TRANS_F32_TO(trans_f32_s8, SK_S8)
TRANS_F32_TO(trans_f32_u8, SK_U8)
TRANS_F32_TO(trans_f32_e4m3, SK_E4M3)
TRANS_F32_TO(trans_f32_e5m2, SK_E5M2)

static void trans_any(const lg__rf_plan *p, const lg__rf_job *j, const lg__rf_ptrs *q,
                      const int64_t n[3], bool nt) {
    trans_tpl(p, j, q, n, load_kind(p->sdt), store_kind(p->ddt), load_kind(p->ddt), p->arith, nt);
}
static void copy_any(const lg__rf_plan *p, const lg__rf_job *j, const lg__rf_ptrs *q,
                     const int64_t n[3], bool nt) {
    copy_tpl(p, j, q, n, load_kind(p->sdt), store_kind(p->ddt), load_kind(p->ddt), p->arith, nt);
}

void LG_RF_ENTRY(const lg__rf_plan *p, const lg__rf_job *j, const lg__rf_ptrs *q,
                 const int64_t n[3]) {
    bool nt = j->stream;
    switch (j->kind) {
    case LG_RF_COPY:
        if (p->copy)
            copy_bits(p, j, q, n, nt);
        else
            copy_any(p, j, q, n, nt);
        return;
    case LG_RF_TRANS:
        if (!p->copy && p->sdt == LG_F32 && !p->arith) {
            switch (p->ddt) {
            case LG_F16:
                trans_f32_f16(p, j, q, n, nt);
                return;
            case LG_BF16:
                trans_f32_bf16(p, j, q, n, nt);
                return;
            case LG_S32:
                trans_f32_s32(p, j, q, n, nt);
                return;
            case LG_S8:
                trans_f32_s8(p, j, q, n, nt);
                return;
            case LG_U8:
                trans_f32_u8(p, j, q, n, nt);
                return;
            case LG_F8_E4M3:
                trans_f32_e4m3(p, j, q, n, nt);
                return;
            case LG_F8_E5M2:
                trans_f32_e5m2(p, j, q, n, nt);
                return;
            default:
                break;
            }
        }
        if (!p->copy)
            trans_any(p, j, q, n, nt);
        else if (p->dsz == 4)
            trans_b32(p, j, q, n, nt);
        else if (p->dsz == 2)
            trans_b16(p, j, q, n, nt);
        else
            trans_b8(p, j, q, n, nt);
        return;
    case LG_RF_ZERO:
        if (j->kd[0].st[LG_RF_DST] == 1) {
            zero_rows(p, j, q, n);
            return;
        }
        break;
    case LG_RF_GENERIC:
        break;
    }
    lg__rf_kernel_scalar(p, j, q, n);
}

/* cvt.h's row conversion: the load kind of sdt and the store kind of ddt,
 * fixed at compile time per pair; src prefetched CVT_PF elements ahead (the
 * callers convert short runs of several streams in turn, which the hardware
 * prefetchers follow poorly). */
#define CVT_PF 1024
#define CVT_ROW(lk, sk)                                                                            \
    do {                                                                                           \
        const char *s_ = src;                                                                      \
        char *d_ = dst;                                                                            \
        const int64_t ssz_ = lg_dtype_size(sdt), dsz_ = lg_dtype_size(ddt);                        \
        int64_t i_ = 0;                                                                            \
        for (; i_ + VL <= n; i_ += VL) {                                                           \
            _mm_prefetch(s_ + (i_ + CVT_PF) * ssz_, _MM_HINT_T0);                                  \
            v_st(sk, d_ + i_ * dsz_, v_ld(lk, s_ + i_ * ssz_, VL), VL, false);                     \
        }                                                                                          \
        if (i_ < n)                                                                                \
            v_st(sk, d_ + i_ * dsz_, v_ld(lk, s_ + i_ * ssz_, (int)(n - i_)), (int)(n - i_),       \
                 false);                                                                           \
    } while (0)

void LG_RF_CVT(lg_dtype sdt, const void *src, lg_dtype ddt, void *dst, int64_t n) {
    if (sdt == ddt) {
        memcpy(dst, src, (size_t)n * lg_dtype_size(sdt));
        return;
    }
    if (sdt == LG_F32) {
        switch (ddt) {
        case LG_F16:
            CVT_ROW(LK_B32, SK_F16);
            return;
        case LG_BF16:
            CVT_ROW(LK_B32, SK_BF16);
            return;
        case LG_S32:
            CVT_ROW(LK_B32, SK_S32);
            return;
        case LG_S8:
            CVT_ROW(LK_B32, SK_S8);
            return;
        case LG_F8_E4M3:
            CVT_ROW(LK_B32, SK_E4M3);
            return;
        case LG_F8_E5M2:
            CVT_ROW(LK_B32, SK_E5M2);
            return;
        default:
            CVT_ROW(LK_B32, SK_U8);
            return;
        }
    }
    switch (sdt) {
    case LG_F16:
        CVT_ROW(LK_F16, SK_B32);
        return;
    case LG_BF16:
        CVT_ROW(LK_BF16, SK_B32);
        return;
    case LG_S32:
        CVT_ROW(LK_S32, SK_B32);
        return;
    case LG_S8:
        CVT_ROW(LK_S8, SK_B32);
        return;
    case LG_F8_E4M3:
        CVT_ROW(LK_E4M3, SK_B32);
        return;
    case LG_F8_E5M2:
        CVT_ROW(LK_E5M2, SK_B32);
        return;
    default:
        CVT_ROW(LK_U8, SK_B32);
        return;
    }
}
