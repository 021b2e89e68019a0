/* The inner product's tile loops, written once for both ISAs: included by
 * ip_avx2.c and ip_avx512.c after their ISA's vector layer
 * (simd/simd_<isa>.h) and NRMAX / MBMAX, MB_OF(nr), TILE_LIST, TILE_TABLE,
 * ELT_F32 and FN(name).
 *
 * A tile is NR rows x MB OC blocks: NR x MB accumulators of VL lanes. For
 * each src element k of the NR rows (in src's memory order, which the
 * weights block follows), the MB weight vectors at k are loaded once and
 * each row's src[k] is broadcast against them: MB loads and NR broadcasts
 * per NR x MB multiply-adds, no horizontal sums. Epilogue: bias, the
 * post-op chain (through a buffer, as conv's general epilogue), masked
 * stores for the last OC block. */
#define AI static inline __attribute__((always_inline))

AI void FN(tile)(const lg__ip_plan *p, const float *src, const float *wei, const float *bias,
                 float *dst, int64_t n0, int64_t b0, const int NR, const int MB) {
    const int64_t kp = p->kp, ws = kp * VL, oc = p->oc;
    vec acc[NRMAX][MBMAX];
#pragma GCC unroll 8
    for (int i = 0; i < NR; i++)
#pragma GCC unroll 4
        for (int j = 0; j < MB; j++) acc[i][j] = v_zero();
    const float *s = src + n0 * kp;
    const float *w = wei + b0 * ws;
    int64_t k = 0;
    if (NR == 1) {
        /* A GEMV row: a second accumulator set for odd k, so that 2 MB
         * multiply-add chains (not MB) hide the FMA latency behind the
         * weight stream. */
        vec acc1[MBMAX];
#pragma GCC unroll 4
        for (int j = 0; j < MB; j++) acc1[j] = v_zero();
        for (; k + 2 <= kp; k += 2) {
            vec s0 = v_bcast(s + k), s1 = v_bcast(s + k + 1);
#pragma GCC unroll 4
            for (int j = 0; j < MB; j++) {
                acc[0][j] = v_fma(s0, v_load(w + j * ws + k * VL), acc[0][j]);
                acc1[j] = v_fma(s1, v_load(w + j * ws + (k + 1) * VL), acc1[j]);
            }
        }
#pragma GCC unroll 4
        for (int j = 0; j < MB; j++) acc[0][j] = v_add(acc[0][j], acc1[j]);
    }
#pragma GCC unroll 2
    for (; k < kp; k++) {
        vec wv[MBMAX];
#pragma GCC unroll 4
        for (int j = 0; j < MB; j++) wv[j] = v_load(w + j * ws + k * VL);
#pragma GCC unroll 8
        for (int i = 0; i < NR; i++) {
            vec sv = v_bcast(s + i * kp + k);
#pragma GCC unroll 4
            for (int j = 0; j < MB; j++) acc[i][j] = v_fma(sv, wv[j], acc[i][j]);
        }
    }
    int nvalid[MBMAX];
#pragma GCC unroll 4
    for (int j = 0; j < MB; j++) {
        int64_t left = oc - (b0 + j) * VL;
        nvalid[j] = left < VL ? (int)left : VL;
        if (bias) {
            const float *bp = bias + (b0 + j) * VL;
            vec bv = nvalid[j] == VL ? v_load(bp) : v_load_mask(v_mask_first(nvalid[j]), bp);
#pragma GCC unroll 8
            for (int i = 0; i < NR; i++) acc[i][j] = v_add(acc[i][j], bv);
        }
    }
    if (p->pd->npost == 0) {
#pragma GCC unroll 8
        for (int i = 0; i < NR; i++)
#pragma GCC unroll 4
            for (int j = 0; j < MB; j++) {
                float *d = dst + (n0 + i) * oc + (b0 + j) * VL;
                if (nvalid[j] == VL)
                    v_store(d, acc[i][j]);
                else
                    v_store_mask(d, v_mask_first(nvalid[j]), acc[i][j]);
            }
        return;
    }
    /* The post-op chain on a buffer of the tile, op by op. */
    float buf[NRMAX * MBMAX * VL] __attribute__((aligned(64)));
#pragma GCC unroll 8
    for (int i = 0; i < NR; i++)
#pragma GCC unroll 4
        for (int j = 0; j < MB; j++) v_store(buf + (i * MB + j) * VL, acc[i][j]);
    const lg__ip_pd *pd = p->pd;
    for (int o = 0; o < pd->npost; o++) {
        if (pd->post[o].kind != LG_POST_SUM) {
            ELT_F32(&p->epd[o], buf, buf, (int64_t)NR * MB * VL, false);
            continue;
        }
        vec sc = v_set1(pd->post[o].scale);
        for (int i = 0; i < NR; i++)
            for (int j = 0; j < MB; j++) {
                const float *d = dst + (n0 + i) * oc + (b0 + j) * VL;
                float *b = buf + (i * MB + j) * VL;
                vec old = nvalid[j] == VL ? v_load(d) : v_load_mask(v_mask_first(nvalid[j]), d);
                v_store(b, v_add(v_load(b), v_mul(sc, old)));
            }
    }
    for (int i = 0; i < NR; i++)
        for (int j = 0; j < MB; j++) {
            float *d = dst + (n0 + i) * oc + (b0 + j) * VL;
            vec v = v_load(buf + (i * MB + j) * VL);
            if (nvalid[j] == VL)
                v_store(d, v);
            else
                v_store_mask(d, v_mask_first(nvalid[j]), v);
        }
}

typedef void (*FN(tile_fn))(const lg__ip_plan *p, const float *src, const float *wei,
                            const float *bias, float *dst, int64_t n0, int64_t b0);

/* One function per (NR, MB): the tile with constant sizes. */
#define TILE(nr, mb)                                                                               \
    static void FN(tile_##nr##_##mb)(const lg__ip_plan *p, const float *src, const float *wei,     \
                                     const float *bias, float *dst, int64_t n0, int64_t b0) {      \
        FN(tile)(p, src, wei, bias, dst, n0, b0, nr, mb);                                          \
    }
TILE_LIST
#undef TILE

static const FN(tile_fn) FN(tiles_tab)[NRMAX][MBMAX] = TILE_TABLE;

void FN(lg__ip_tiles)(const lg__ip_plan *p, const float *src, const float *wei, const float *bias,
                      float *dst, int64_t n0, int64_t n1, int64_t b0, int64_t b1) {
    /* OC blocks outer (a group's weights stay in cache across the rows). */
    for (int64_t b = b0; b < b1;) {
        int64_t rows_left = n1 - n0;
        int mbg = MB_OF(rows_left < NRMAX ? (int)rows_left : NRMAX);
        int64_t mb = b1 - b < mbg ? b1 - b : mbg;
        for (int64_t n = n0; n < n1;) {
            int64_t nr = n1 - n < NRMAX ? n1 - n : NRMAX;
            int m = MB_OF((int)nr);
            if (m > mb) m = (int)mb;
            for (int64_t bb = b; bb < b + mb; bb += m) {
                int mm = b + mb - bb < m ? (int)(b + mb - bb) : m;
                FN(tiles_tab)[nr - 1][mm - 1](p, src, wei, bias, dst, n, bb);
            }
            n += nr;
        }
        b += mb;
    }
}
