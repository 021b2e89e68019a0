/* The depthwise tiles and row driver (direct.h), written once for both
 * vector ISAs; included by direct_avx512.c and direct_avx2.c after
 * direct_tpl.h, whose macros, tile struct and epilogue it uses. */

/* 3-wide dense stride-1 kernel: source vector q of a kernel row (input
 * pixel ow0 - pw + q) feeds output pixels q, q - 1 and q - 2 of the tile
 * through taps 0, 1 and 2; vectors outside the input are skipped. */
AI void dw_tile_k3(const tile *t, const int UR) {
    const lg__conv_direct *d = t->d;
    const lg__conv_shape *s = &d->s;
    int64_t base = t->ow0 - s->pw; /* input pixel of q = 0 */
    int64_t qlo = base < 0 ? -base : 0, qhi = s->iw - base;
    vec acc[LG_CONV_MAX_NB][URMAX];
    init_acc(t, 1, UR, acc);
    for (int64_t kd = t->kd0; kd < t->kd1; kd++)
        for (int64_t kh = t->kh0; kh < t->kh1; kh++) {
            const float *w = t->wei + kd * d->w_kd + kh * d->w_kh;
            const float *sr = t->src + kd * d->s_kd + kh * d->s_kh;
            vec w0 = VLOAD(w), w1 = VLOAD(w + d->w_kw), w2 = VLOAD(w + 2 * d->w_kw);
#pragma GCC unroll 32
            for (int q = 0; q < UR + 2; q++) {
                if (q < qlo || q >= qhi) continue;
                vec v = VLOAD(sr + (base + q) * VL);
                if (q < UR) acc[0][q] = VFMA(v, w0, acc[0][q]);
                if (q >= 1 && q - 1 < UR) acc[0][q - 1] = VFMA(v, w1, acc[0][q - 1]);
                if (q >= 2 && q - 2 < UR) acc[0][q - 2] = VFMA(v, w2, acc[0][q - 2]);
            }
        }
    epilogue(t, 1, UR, acc);
}

/* Any kernel width, stride and dilation: one load per tap, taps outside
 * the input skipped per pixel. */
AI void dw_tile_gen(const tile *t, const int UR) {
    const lg__conv_direct *d = t->d;
    const lg__conv_shape *s = &d->s;
    vec acc[LG_CONV_MAX_NB][URMAX];
    init_acc(t, 1, UR, acc);
    for (int64_t kd = t->kd0; kd < t->kd1; kd++)
        for (int64_t kh = t->kh0; kh < t->kh1; kh++) {
            const float *w = t->wei + kd * d->w_kd + kh * d->w_kh;
            const float *sr = t->src + kd * d->s_kd + kh * d->s_kh;
            for (int64_t kw = 0; kw < s->kw; kw++) {
                vec wv = VLOAD(w + kw * d->w_kw);
                int64_t i0 = t->ow0 * s->sw - s->pw + kw * s->dw;
#pragma GCC unroll 32
                for (int p = 0; p < UR; p++) {
                    int64_t iw = i0 + p * s->sw;
                    if (iw >= 0 && iw < s->iw) acc[0][p] = VFMA(VLOAD(sr + iw * VL), wv, acc[0][p]);
                }
            }
        }
    epilogue(t, 1, UR, acc);
}

#define DCASE(F, u)                                                                                \
    case u:                                                                                        \
        F(t, u);                                                                                   \
        return;
#define DW_FN(F, LIST)                                                                             \
    static void FN(F)(const tile *t, int ur) {                                                     \
        switch (ur) { LIST(F) }                                                                    \
    }
#define DL_1_12(F)                                                                                 \
    DCASE(F, 1)                                                                                    \
    DCASE(F, 2)                                                                                    \
    DCASE(F, 3)                                                                                    \
    DCASE(F, 4)                                                                                    \
    DCASE(F, 5)                                                                                    \
    DCASE(F, 6)                                                                                    \
    DCASE(F, 7) DCASE(F, 8) DCASE(F, 9) DCASE(F, 10) DCASE(F, 11) DCASE(F, 12)
#define DL_1_14(F) DL_1_12(F) DCASE(F, 13) DCASE(F, 14)

DW_FN(dw_tile_k3, DWLIST)
DW_FN(dw_tile_gen, DWLIST)

void FN(lg__conv_dw)(const lg__conv_direct *d, int64_t lo, int64_t hi, const float *src,
                     const float *wei, const float *bias, float *dst) {
    const lg__conv_shape *s = &d->s;
    tile t;
    memset(&t, 0, sizeof t);
    t.d = d;
    t.bias = bias;
    tile_fn fn = d->dw_k3 ? FN(dw_tile_k3) : FN(dw_tile_gen);
    item_idx x = {.n = 4, .ext = {s->oh, s->od, d->nchunk, s->n}};
    idx_init(&x, lo);
    for (int64_t it = lo; it < hi; it++, idx_next(&x)) {
        int64_t oh = x.v[0], od = x.v[1], cb = x.v[2], n = x.v[3];
        t.ch = &d->chunks[cb];
        t.wei = wei + t.ch->ocb[0].woff;
        FN(taps)(od, s->sd, s->pd, s->dd, s->kd, s->id, &t.kd0, &t.kd1);
        FN(taps)(oh, s->sh, s->ph, s->dh, s->kh, s->ih, &t.kh0, &t.kh1);
        t.src = src + n * d->s_n + cb * d->s_c + (od * s->sd - s->pd) * d->s_d +
                (oh * s->sh - s->ph) * d->s_h;
        float *drow = dst + n * d->d_n + od * d->d_d + oh * d->d_h;
        int64_t umax = t.ch->ur;
        for (int64_t ow = 0; ow < s->ow;) {
            int u = (int)(s->ow - ow < umax ? s->ow - ow : umax);
            t.ow0 = ow;
            t.dst = drow + ow * d->d_w;
            fn(&t, u);
            ow += u;
        }
    }
}
