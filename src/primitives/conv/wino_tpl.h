/* The Winograd F(4x4, 3x3) convolution body, instantiated per ISA (wino.h
 * describes the algorithm). The including file includes its ISA's vector
 * layer (simd/simd_<isa>.h) and defines WINO_NB (output blocks per chunk),
 * WINO_UR (tiles per register tile), WINO_ROW_TAIL(n), ELT_F32 (the ISA's
 * eltwise f32 kernel) and FN(name). */
#include <stdint.h>
#include <string.h>

#define WI static inline __attribute__((always_inline))

/* One register tile: NB output blocks x UR tiles of M_k over the whole
 * reduction. v: V_k of the tile block at the tile group's first tile (ic
 * block step vs floats); u: U_k at the chunk's first block (block step us
 * floats, ic step VL); m: M_k of the chunk at the first tile (block step ms
 * floats, tile step VL). */
WI void FN(wino_gemm_tile)(const float *v, int64_t vs, const float *u, int64_t us, float *m,
                           int64_t ms, int64_t nicb, const int NB, const int UR) {
    vec acc[WINO_NB][WINO_UR];
#pragma GCC unroll 8
    for (int j = 0; j < NB; j++)
#pragma GCC unroll 8
        for (int p = 0; p < UR; p++) acc[j][p] = v_zero();
    for (int64_t cb = 0; cb < nicb; cb++) {
        const float *vb = v + cb * vs, *ub = u + cb * VL * VL;
#pragma GCC unroll 16
        for (int l = 0; l < VL; l++) {
            vec w[WINO_NB];
#pragma GCC unroll 8
            for (int j = 0; j < NB; j++) w[j] = v_load(ub + j * us + l * VL);
#pragma GCC unroll 8
            for (int p = 0; p < UR; p++) {
                vec b = v_bcast(vb + p * VL + l);
#pragma GCC unroll 8
                for (int j = 0; j < NB; j++) acc[j][p] = v_fma(w[j], b, acc[j][p]);
            }
        }
    }
#pragma GCC unroll 8
    for (int j = 0; j < NB; j++)
#pragma GCC unroll 8
        for (int p = 0; p < UR; p++) v_store(m + j * ms + p * VL, acc[j][p]);
}

/* Dispatch on (nb, ur) to the constant-size tiles. */
static void FN(wino_gemm)(const float *v, int64_t vs, const float *u, int64_t us, float *m,
                          int64_t ms, int64_t nicb, int nb, int ur) {
    switch ((nb - 1) * WINO_UR + ur - 1) {
#define WT(n, r)                                                                                   \
    case ((n)-1) * WINO_UR + (r)-1:                                                                \
        FN(wino_gemm_tile)(v, vs, u, us, m, ms, nicb, n, r);                                       \
        return;
#define WROW(n) WT(n, 1) WT(n, 2) WT(n, 3) WT(n, 4) WINO_ROW_TAIL(n)
        WROW(1)
        WROW(2)
        WROW(3)
#if WINO_NB > 3
        WROW(4)
#endif
#undef WROW
#undef WT
    default:
        return;
    }
}

/* B^T x on six vectors (the input transform along one dim). */
WI void FN(wino_bt)(const vec *x, int64_t xs, vec *y, int64_t ys) {
    const vec c4 = v_set1(4.0f), c5 = v_set1(5.0f), c2 = v_set1(2.0f);
    vec d0 = x[0], d1 = x[xs], d2 = x[2 * xs], d3 = x[3 * xs], d4 = x[4 * xs], d5 = x[5 * xs];
    vec a = v_sub(d4, d2), b = v_sub(d3, d1);                       /* d4 - d2, d3 - d1 */
    vec p = v_sub(d4, v_mul(c4, d2)), q = v_sub(d3, v_mul(c4, d1)); /* d4 - 4 d2, d3 - 4 d1 */
    y[0] = v_add(v_sub(v_mul(c4, d0), v_mul(c5, d2)), d4);
    y[ys] = v_add(p, q);
    y[2 * ys] = v_sub(p, q);
    y[3 * ys] = v_add(a, v_mul(c2, b));
    y[4 * ys] = v_sub(a, v_mul(c2, b));
    y[5 * ys] = v_add(v_sub(v_mul(c4, d1), v_mul(c5, d3)), d5);
}

/* A^T m on six vectors (the output transform along one dim). */
WI void FN(wino_at)(const vec *m, int64_t ms, vec *o, int64_t os) {
    const vec c2 = v_set1(2.0f), c4 = v_set1(4.0f), c8 = v_set1(8.0f);
    vec m1p2 = v_add(m[ms], m[2 * ms]), m1m2 = v_sub(m[ms], m[2 * ms]);
    vec m3p4 = v_add(m[3 * ms], m[4 * ms]), m3m4 = v_sub(m[3 * ms], m[4 * ms]);
    o[0] = v_add(v_add(m[0], m1p2), m3p4);
    o[os] = v_fma(c2, m3m4, m1m2);
    o[2 * os] = v_fma(c4, m3p4, m1p2);
    o[3 * os] = v_add(v_fma(c8, m3m4, m1m2), m[5 * ms]);
}

/* The input transform of tiles [t0, t0 + nt) into v ([k][ic block][tile]
 * [VL], tile step VL, ic block step tmax x VL). */
static void FN(wino_in)(const lg__conv_wino *w, const float *src, int64_t t0, int64_t nt,
                        float *v) {
    const lg__conv_shape *s = &w->s;
    const int64_t vk = w->nicb * w->tmax * VL;
    const int rem = (int)(s->ic % VL);
    for (int64_t t = 0; t < nt; t++) {
        int64_t g = t0 + t, n = g / w->ntiles, r = g % w->ntiles;
        int64_t y0 = r / w->tw * 4 - s->ph, x0 = r % w->tw * 4 - s->pw;
        bool inside = y0 >= 0 && x0 >= 0 && y0 + 6 <= s->ih && x0 + 6 <= s->iw;
        for (int64_t cb = 0; cb < w->nicb; cb++) {
            const float *base = src + n * w->s_n + cb * w->s_cb;
            bool last = rem && cb == w->nicb - 1;
            vec d[36], tmp[36], o[36];
            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 6; j++) {
                    int64_t y = y0 + i, x = x0 + j;
                    bool in = inside || (y >= 0 && y < s->ih && x >= 0 && x < s->iw);
                    const float *q = base + y * w->s_h + x * w->s_w;
                    vec e = !in         ? v_zero()
                            : !last     ? v_load(q)
                            : w->src_cl ? v_load_part(q, rem)
                                        : v_keep_first(v_load(q), rem);
                    d[i * 6 + j] = e;
                }
            for (int j = 0; j < 6; j++) FN(wino_bt)(d + j, 6, tmp + j, 6);
            for (int i = 0; i < 6; i++) FN(wino_bt)(tmp + i * 6, 1, o + i * 6, 1);
            float *vp = v + (cb * w->tmax + t) * VL;
            for (int k = 0; k < 36; k++) v_store(vp + k * vk, o[k]);
        }
    }
}

/* The output transform of one tile's chunk block j, bias, post-ops, store. */
static void FN(wino_out)(const lg__conv_wino *w, const float *m, int64_t mk, int64_t t, int64_t ocb,
                         const float *bias_blk, float *dst) {
    const lg__conv_shape *s = &w->s;
    const lg__conv_pd *pd = w->pd;
    int64_t n = t / w->ntiles, r = t % w->ntiles;
    int64_t y0 = r / w->tw * 4, x0 = r % w->tw * 4;
    int64_t hy = s->oh - y0 < 4 ? s->oh - y0 : 4, hx = s->ow - x0 < 4 ? s->ow - x0 : 4;
    vec mv[36], tmp[24], o[16];
    for (int k = 0; k < 36; k++) mv[k] = v_load(m + k * mk);
    for (int c = 0; c < 6; c++) FN(wino_at)(mv + c, 6, tmp + c, 6);
    for (int i = 0; i < 4; i++) FN(wino_at)(tmp + i * 6, 1, o + i * 4, 1);
    const vec b = v_load(bias_blk);
    for (int i = 0; i < 16; i++) o[i] = v_add(o[i], b);
    float *base = dst + n * w->d_n + ocb * w->d_cb + y0 * w->d_h + x0 * w->d_w;
    const int rem = (int)(s->oc - ocb * VL < VL ? s->oc - ocb * VL : VL);
    if (w->epi == LG_WINO_EPI_RELU) {
        for (int i = 0; i < 16; i++) o[i] = v_max0(o[i]);
    } else if (w->epi == LG_WINO_EPI_GEN) {
        float buf[16 * VL] __attribute__((aligned(64)));
        for (int i = 0; i < 16; i++) v_store(buf + i * VL, o[i]);
        for (int q = 0; q < pd->npost; q++) {
            if (pd->post[q].kind == LG_POST_SUM) {
                const vec sc = v_set1(pd->post[q].scale);
                for (int i = 0; i < hy; i++)
                    for (int x = 0; x < hx; x++) {
                        float *bp = buf + (i * 4 + x) * VL;
                        const float *op = base + i * w->d_h + x * w->d_w;
                        vec old = rem < VL && w->dst_cl ? v_load_part(op, rem) : v_load(op);
                        v_store(bp, v_add(v_load(bp), v_mul(sc, old)));
                    }
            } else {
                ELT_F32(&w->epd[q], buf, buf, 16 * VL, false);
            }
        }
        for (int i = 0; i < 16; i++) o[i] = v_load(buf + i * VL);
    }
    for (int i = 0; i < hy; i++)
        for (int x = 0; x < hx; x++) {
            vec e = o[i * 4 + x];
            float *q = base + i * w->d_h + x * w->d_w;
            if (rem == VL)
                v_store(q, e);
            else if (w->dst_cl)
                v_store_part(q, e, rem);
            else
                v_store(q, v_keep_first(e, rem));
        }
}

void FN(lg__conv_wino)(const lg__conv_wino *w, const float *u, int64_t lo, int64_t hi,
                       const float *src, const float *bias, float *dst, float *buf) {
    float *v = buf, *m = buf + w->v_size;
    const int64_t vk = w->nicb * w->tmax * VL;      /* V: one k */
    const int64_t mk = w->nbmax * w->tmax * VL;     /* M: one k */
    const int64_t uk = w->nocb * w->nicb * VL * VL; /* U: one k */
    int64_t done_tb = -1;
    float bias_blk[WINO_NB][VL] __attribute__((aligned(64)));
    for (int64_t it = lo; it < hi; it++) {
        int64_t tb = it / w->nog, og = it % w->nog;
        int64_t t0 = w->ttot * tb / w->ntb, nt = w->ttot * (tb + 1) / w->ntb - t0;
        if (tb != done_tb) FN(wino_in)(w, src, t0, nt, v);
        done_tb = tb;
        int64_t c0 = w->nchunk * og / w->nog, c1 = w->nchunk * (og + 1) / w->nog;
        for (int64_t ch = c0; ch < c1; ch++) {
            int64_t b0 = ch * w->nbmax;
            int nb = (int)(w->nocb - b0 < w->nbmax ? w->nocb - b0 : w->nbmax);
            for (int j = 0; j < nb; j++)
                for (int l = 0; l < VL; l++) {
                    int64_t oc = (b0 + j) * VL + l;
                    bias_blk[j][l] = bias && oc < w->s.oc ? bias[w->tabs->bias[oc]] : 0.0f;
                }
            for (int k = 0; k < 36; k++) {
                const float *uk0 = u + k * uk + b0 * w->nicb * VL * VL;
                for (int64_t p = 0; p < nt; p += WINO_UR) {
                    int ur = (int)(nt - p < WINO_UR ? nt - p : WINO_UR);
                    FN(wino_gemm)
                    (v + k * vk + p * VL, w->tmax * VL, uk0, w->nicb * VL * VL, m + k * mk + p * VL,
                     w->tmax * VL, w->nicb, nb, ur);
                }
            }
            for (int64_t t = 0; t < nt; t++)
                for (int j = 0; j < nb; j++) FN(wino_out)
            (w, m + (j * w->tmax + t) * VL, mk, t0 + t, b0 + j, bias_blk[j], dst);
        }
    }
}

/* U = G g G^T for output block ob and input block ib into ut
 * ([k][ob][ic][VL]): the VL output channels of one input channel at a time
 * as vectors (each g gathered through the weights' offset tables, in any
 * layout; channels past OC or IC give zero). */
void FN(lg__conv_wino_wei)(const lg__conv_wino *w, float *ut, const float *wei, int64_t ob,
                           int64_t ib) {
    const int64_t *const *tw = w->tabs->wei;
    const int64_t uk = w->nocb * w->nicb * VL * VL;
    const vec q4 = v_set1(0.25f), s6 = v_set1(1.0f / 6), s12 = v_set1(1.0f / 12),
              s24 = v_set1(1.0f / 24);
    for (int64_t il = 0; il < VL; il++) {
        int64_t i = ib * VL + il;
        float gt[9][VL] __attribute__((aligned(64)));
        for (int l = 0; l < VL; l++) {
            int64_t o = ob * VL + l;
            bool in = o < w->s.oc && i < w->s.ic;
            int64_t base = in ? tw[0][0] + tw[1][o] + tw[2][i] + tw[3][0] : 0;
            for (int r = 0; r < 3; r++)
                for (int q = 0; q < 3; q++)
                    gt[r * 3 + q][l] = in ? wei[base + tw[4][r] + tw[5][q]] : 0;
        }
        vec g[9], t[18];
        for (int e = 0; e < 9; e++) g[e] = v_load(gt[e]);
            /* t = G g (6 x 3), then U = t G^T (6 x 6): the same 1D map twice. */
#define WINO_G(x0, x1, x2, y, ys)                                                                  \
    do {                                                                                           \
        vec g02_ = v_add(x0, x2);                                                                  \
        vec ga_ = v_mul(s6, v_add(g02_, x1)), gb_ = v_mul(s6, v_sub(g02_, x1));                    \
        vec gc_ = v_add(v_mul(s24, x0), v_mul(s6, x2)), ge_ = v_mul(s12, x1);                      \
        (y)[0] = v_mul(q4, x0);                                                                    \
        (y)[(ys)] = v_sub(v_zero(), ga_);                                                          \
        (y)[2 * (ys)] = v_sub(v_zero(), gb_);                                                      \
        (y)[3 * (ys)] = v_add(gc_, ge_);                                                           \
        (y)[4 * (ys)] = v_sub(gc_, ge_);                                                           \
        (y)[5 * (ys)] = x2;                                                                        \
    } while (0)
        for (int q = 0; q < 3; q++) WINO_G(g[q], g[3 + q], g[6 + q], t + q, 3);
        float *u0 = ut + (ob * w->nicb * VL + i) * VL;
        for (int r6 = 0; r6 < 6; r6++) {
            vec u[6];
            WINO_G(t[r6 * 3], t[r6 * 3 + 1], t[r6 * 3 + 2], u, 1);
            for (int c6 = 0; c6 < 6; c6++) v_store(u0 + (r6 * 6 + c6) * uk, u[c6]);
        }
#undef WINO_G
    }
}
