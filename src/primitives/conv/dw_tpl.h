/* The depthwise tiles and row driver (direct.h), written once for both
 * vector ISAs; included by dw_avx512.c and dw_avx2.c after their ISA's
 * vector layer and:
 *   URMAX1 (the accumulator arrays' width: at least DWMAX and DWMAX5),
 *   DWMAX / DWLIST (the widest tile of 3-wide and general kernels, and
 *   its list of widths 1 .. DWMAX), DWMAX5 / DWLIST5 (the same for the
 *   5-wide kernels), ELT_F32 and FN(name) (tile_tpl.h).
 * v_max / v_min have x86 semantics (the second operand when unordered), as
 * the clip below needs. */
#include "primitives/conv/tile_tpl.h"

/* The depthwise store: a chain of exactly one clip (relu6, every
 * MobileNet depthwise layer) in registers, as the reference computes it
 * (x > lo ? x : lo, then s > hi ? hi : s), the padding lanes of a blocked
 * dst's partial block stored as zero; any other chain through epilogue()
 * (through the general epilogue's buffer and eltwise call, MobileNetV2's
 * 3x3 layers ran 1.5-1.8x slower: 144 channels 56x56 23 vs 42 GFLOP/s on
 * one AVX2 thread). */
AI void dw_store(const tile *t, const int UR, vec acc[LG_CONV_MAX_NB][URMAX]) {
    const lg__conv_direct *d = t->d;
    const lg__conv_pd *pd = d->pd;
    const lg__conv_ocb *b = &t->ch->ocb[0];
    if (pd->npost == 1 && pd->post[0].kind == LG_POST_ELTWISE &&
        (pd->post[0].alg == LG_ELTWISE_CLIP || pd->post[0].alg == LG_ELTWISE_CLIP_V2) &&
        (!d->dst_cl || b->nvalid == VL)) {
        const vec lo = v_set1(pd->post[0].alpha), hi = v_set1(pd->post[0].beta);
        const int64_t dw = d->d_w;
        float *a = t->dst + (d->dst_cl ? b->c0 : b->c0 / VL * d->d_c);
        if (b->nvalid == VL) {
#pragma GCC unroll 32
            for (int p = 0; p < UR; p++) v_store(a + p * dw, v_min(hi, v_max(acc[0][p], lo)));
        } else {
            const vmask m = v_mask_range(0, b->nvalid);
#pragma GCC unroll 32
            for (int p = 0; p < UR; p++)
                v_store(a + p * dw, v_keep(m, v_min(hi, v_max(acc[0][p], lo))));
        }
        return;
    }
    epilogue(t, 1, UR, acc);
}

/* A tile of UR output pixels for a dense (undilated) kernel KW wide at
 * stride SW along W: source vector q of a kernel row (input pixel
 * ow0 * SW - pw + q) is loaded once and feeds every output pixel p of the
 * tile with q = p * SW + kw (stride 1: KW pixels; stride 2: the "3-wide
 * trick", each vector feeding 1 or 2 of the 3 taps), the row's KW weight
 * vectors in registers. CHECK: skip vectors outside the input (tiles at the
 * row's borders); interior tiles run without a test. The pixel step is the
 * plan's (VL for blocked, the channel count for nhwc). */
AI void dw_tile_k(const tile *t, const int UR, const int KW, const int SW, const int CHECK) {
    const lg__conv_direct *d = t->d;
    const lg__conv_shape *s = &d->s;
    const int64_t ps = d->s_w;
    int64_t base = t->ow0 * SW - s->pw; /* input pixel of q = 0 */
    int64_t qlo = base < 0 ? -base : 0, qhi = s->iw - base;
    vec acc[LG_CONV_MAX_NB][URMAX];
    init_acc(t, 1, UR, acc);
    for (int64_t kd = t->kd0; kd < t->kd1; kd++)
        for (int64_t kh = t->kh0; kh < t->kh1; kh++) {
            const float *w = t->wei + kd * d->w_kd + kh * d->w_kh;
            const float *sr = t->src + kd * d->s_kd + kh * d->s_kh;
            vec wv[5];
#pragma GCC unroll 5
            for (int k = 0; k < KW; k++) wv[k] = v_load(w + k * d->w_kw);
#pragma GCC unroll 32
            for (int q = 0; q < (UR - 1) * SW + KW; q++) {
                if (CHECK && (q < qlo || q >= qhi)) continue;
                vec v = v_load(sr + (base + q) * ps);
#pragma GCC unroll 5
                for (int k = 0; k < KW; k++) {
                    int r = q - k;
                    if (r >= 0 && r % SW == 0 && r / SW < UR)
                        acc[0][r / SW] = v_fma(v, wv[k], acc[0][r / SW]);
                }
            }
        }
    dw_store(t, UR, acc);
}

/* Any kernel width, stride and dilation: one load per tap, taps outside
 * the input skipped per pixel; source loads masked to the block's valid
 * channels when t->mload (an nhwc source whose last block is partial). */
AI void dw_tile_gen(const tile *t, const int UR) {
    const lg__conv_direct *d = t->d;
    const lg__conv_shape *s = &d->s;
    const int64_t ps = d->s_w;
    const vmask m = v_mask_range(0, t->ch->ocb[0].nvalid);
    vec acc[LG_CONV_MAX_NB][URMAX];
    init_acc(t, 1, UR, acc);
    for (int64_t kd = t->kd0; kd < t->kd1; kd++)
        for (int64_t kh = t->kh0; kh < t->kh1; kh++) {
            const float *w = t->wei + kd * d->w_kd + kh * d->w_kh;
            const float *sr = t->src + kd * d->s_kd + kh * d->s_kh;
            for (int64_t kw = 0; kw < s->kw; kw++) {
                vec wv = v_load(w + kw * d->w_kw);
                int64_t i0 = t->ow0 * s->sw - s->pw + kw * s->dw;
#pragma GCC unroll 32
                for (int p = 0; p < UR; p++) {
                    int64_t iw = i0 + p * s->sw;
                    if (iw < 0 || iw >= s->iw) continue;
                    vec v = t->mload ? v_load_mask(m, sr + iw * ps) : v_load(sr + iw * ps);
                    acc[0][p] = v_fma(v, wv, acc[0][p]);
                }
            }
        }
    dw_store(t, UR, acc);
}

/* Instantiations: one function per (kernel width, stride, check, pixel
 * count) and per pixel count of the general tile, called through tables
 * (for the compiler's time: see direct_tpl.h's tile table). */
typedef void (*dw_tile_fn)(const tile *t);

#define DW_DEF(F, u)                                                                               \
    static void FN(F##_##u)(const tile *t) {                                                       \
        F(t, u);                                                                                   \
    }
#define DW_ENT(F, u) [u] = FN(F##_##u),
#define DL_1_10(X, F)                                                                              \
    X(F, 1) X(F, 2) X(F, 3) X(F, 4) X(F, 5) X(F, 6) X(F, 7) X(F, 8) X(F, 9) X(F, 10)
#define DL_1_12(X, F) DL_1_10(X, F) X(F, 11) X(F, 12)
#define DL_1_14(X, F) DL_1_12(X, F) X(F, 13) X(F, 14)

/* The dense tiles as (KW, SW, CHECK) instances. */
#define DW_K(KW, SW, C, LIST)                                                                      \
    AI void dw_k##KW##s##SW##c##C(const tile *t, const int UR) {                                   \
        dw_tile_k(t, UR, KW, SW, C);                                                               \
    }                                                                                              \
    LIST(DW_DEF, dw_k##KW##s##SW##c##C)
#define DW_KS(KW, SW, LIST) DW_K(KW, SW, 0, LIST) DW_K(KW, SW, 1, LIST)

DW_KS(3, 1, DWLIST)
DW_KS(3, 2, DWLIST)
DW_KS(5, 1, DWLIST5)
DW_KS(5, 2, DWLIST5)
DWLIST(DW_DEF, dw_tile_gen)

_Static_assert(sizeof((dw_tile_fn[]){DWLIST(DW_ENT, dw_tile_gen)}) ==
                   (DWMAX + 1) * sizeof(dw_tile_fn),
               "DWLIST instantiates widths 1 .. DWMAX");
_Static_assert(sizeof((dw_tile_fn[]){DWLIST5(DW_ENT, dw_k5s1c0)}) ==
                   (DWMAX5 + 1) * sizeof(dw_tile_fn),
               "DWLIST5 instantiates widths 1 .. DWMAX5");
_Static_assert(DWMAX <= URMAX1 && DWMAX5 <= URMAX1, "depthwise tile table width");

/* [kernel 3 or 5][stride 1 or 2][check][pixels 1 .. DWMAX or DWMAX5] */
#define DW_ROW(F, LIST)                                                                            \
    { LIST(DW_ENT, F) }
static const dw_tile_fn FN(dw_tiles)[2][2][2][URMAX1 + 1] = {
    {{DW_ROW(dw_k3s1c0, DWLIST), DW_ROW(dw_k3s1c1, DWLIST)},
     {DW_ROW(dw_k3s2c0, DWLIST), DW_ROW(dw_k3s2c1, DWLIST)}},
    {{DW_ROW(dw_k5s1c0, DWLIST5), DW_ROW(dw_k5s1c1, DWLIST5)},
     {DW_ROW(dw_k5s2c0, DWLIST5), DW_ROW(dw_k5s2c1, DWLIST5)}},
};
/* the general tile by pixel count */
static const dw_tile_fn FN(dw_gen)[URMAX1 + 1] = {DWLIST(DW_ENT, dw_tile_gen)};

const int FN(lg__conv_dw_urmax)[2] = {DWMAX, DWMAX5};

void FN(lg__conv_dw)(const lg__conv_direct *d, int64_t lo, int64_t hi, const float *src,
                     const float *wei, const float *bias, float *dst) {
    const lg__conv_shape *s = &d->s;
    tile t;
    memset(&t, 0, sizeof t);
    t.d = d;
    t.bias = bias;
    /* the dense tiles (d->dw_k: kernel 3 or 5, stride 1 or 2, no dilation) */
    const dw_tile_fn(*kt)[URMAX1 + 1] = d->dw_k ? FN(dw_tiles)[s->kw == 5][s->sw == 2] : NULL;
    /* items (n, cb, od, oh), or for an nhwc source (n, od, oh, cb): the
     * blocks of a row in turn, so that each source row comes from memory
     * once (not once per block) */
    item_idx x = {.n = 4};
    if (d->rows_inner) {
        int64_t e[4] = {s->oh, s->od, d->nchunk, s->n};
        memcpy(x.ext, e, sizeof e);
    } else {
        int64_t e[4] = {d->nchunk, s->oh, s->od, s->n};
        memcpy(x.ext, e, sizeof e);
    }
    idx_init(&x, lo);
    for (int64_t it = lo; it < hi; it++, idx_next(&x)) {
        int r = d->rows_inner;
        int64_t oh = x.v[r ? 0 : 1], od = x.v[r ? 1 : 2], cb = x.v[r ? 2 : 0], n = x.v[3];
        t.ch = &d->chunks[cb];
        t.wei = wei + t.ch->ocb[0].woff;
        /* a partial block of a plain (nhwc) source: masked loads */
        t.mload = d->src_kind != LG_CONV_SRC_BLK && t.ch->ocb[0].nvalid < VL;
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
            if (kt && !t.mload) {
                /* interior: every source vector of the tile inside the row */
                int64_t q0 = ow * s->sw - s->pw, q1 = q0 + (u - 1) * s->sw + s->kw;
                kt[q0 < 0 || q1 > s->iw][u](&t);
            } else {
                FN(dw_gen)[u](&t);
            }
            ow += u;
        }
    }
}
