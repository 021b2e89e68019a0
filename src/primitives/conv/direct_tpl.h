/* The direct convolution's tile kernels, written once for both vector ISAs
 * (direct.h describes the algorithm). Included by direct_avx512.c and
 * direct_avx2.c after their ISA's vector layer (simd/simd_<isa>.h) and:
 *   URMAX1..URMAX4 (pixels per tile for 1..4 blocks), URLIST1..URLIST4
 *   (the instantiated tile widths), ELT_F32 (the ISA's eltwise f32 kernel)
 *   and FN(name) (appends the ISA suffix).
 * Tiles of nb blocks and ur pixels are instantiated for every ur up to the
 * ISA's maximum, so a row's remainder takes an exact tile. */
#include "primitives/conv/tile_tpl.h"

/* One input channel i of a segment for pixels [P0, PE) of the tile. */
#define TILE_STEP_P(i, P0, PE)                                                                     \
    do {                                                                                           \
        vec w_[LG_CONV_MAX_NB];                                                                    \
        _Pragma("GCC unroll 4") for (int j = 0; j < NB; j++) w_[j] = v_load(wp[j] + (i)*VL);       \
        _Pragma("GCC unroll 32") for (int p = (P0); p < (PE); p++) {                               \
            vec b_ = v_bcast(s + (i)*sic + p * sp);                                                \
            _Pragma("GCC unroll 4") for (int j = 0; j < NB; j++) acc[j][p] =                       \
                v_fma(b_, w_[j], acc[j][p]);                                                       \
        }                                                                                          \
    } while (0)

/* One input channel i of a segment for the whole tile. */
#define TILE_STEP(i) TILE_STEP_P(i, 0, UR)

/* Every channel of a segment of len channels: unrolled by 4 when FULL (a
 * whole block of VL channels, the length known at compile time). */
#define SEG_STEPS(FULL, len)                                                                       \
    do {                                                                                           \
        if (FULL) {                                                                                \
            for (int i = 0; i < VL; i += 4) {                                                      \
                TILE_STEP(i);                                                                      \
                TILE_STEP(i + 1);                                                                  \
                TILE_STEP(i + 2);                                                                  \
                TILE_STEP(i + 3);                                                                  \
            }                                                                                      \
        } else {                                                                                   \
            for (int64_t i = 0; i < (len); i++) TILE_STEP(i);                                      \
        }                                                                                          \
    } while (0)

/* One tap of the table for pixels [P0, PE) of the tile: the source at
 * sb + so, block 0's weights at w0 (block j's at w0 + dj[j]). */
#define TAP_STEP_P(so, w0, P0, PE)                                                                 \
    do {                                                                                           \
        const float *s = sb + (so), *wp[LG_CONV_MAX_NB];                                           \
        _Pragma("GCC unroll 4") for (int j = 0; j < NB; j++) wp[j] = (w0) + dj[j];                 \
        TILE_STEP_P(0, P0, PE);                                                                    \
    } while (0)

/* n consecutive taps of the table (their source offsets at o, block 0's
 * weights from w, VL apart) for pixels [P0, PE) of the tile: three taps a
 * loop, as the loop's own integer work competes with the FMAs for their
 * ports (one tap a loop ran 7x7 s2 3->64 1.2% slower, one thread; the edge
 * tiles' columns one tap a loop ran 10% slower per FMA than the interior). */
AI void tap_run(const float *sb, const int64_t *dj, const int64_t *o, const float *w, int64_t n,
                const int NB, const int P0, const int PE, vec acc[LG_CONV_MAX_NB][URMAX]) {
    const int64_t sp = 2, sic = 0;
    for (; n >= 3; n -= 3, o += 3, w += 3 * VL) {
        TAP_STEP_P(o[0], w, P0, PE);
        TAP_STEP_P(o[1], w + VL, P0, PE);
        TAP_STEP_P(o[2], w + 2 * VL, P0, PE);
    }
    for (; n > 0; n--, o++, w += VL) TAP_STEP_P(o[0], w, P0, PE);
}

/* The reduction of a tile over the tap table (plain stride-2 source, one
 * segment, weights contiguous over (kh, kw, channel)): one run of taps per
 * kd. */
AI void tile_taps(const tile *t, const int NB, const int UR, vec acc[LG_CONV_MAX_NB][URMAX]) {
    const lg__conv_direct *d = t->d;
    const lg__conv_seg *sg = t->seg;
    const int64_t per_kh = d->s.kw * sg->len, q0 = t->kh0 * per_kh, q1 = t->kh1 * per_kh;
    int64_t dj[LG_CONV_MAX_NB]; /* block j's weights from block 0's */
#pragma GCC unroll 4
    for (int j = 0; j < NB; j++) dj[j] = t->ch->ocb[j].woff - t->ch->ocb[0].woff;
    for (int64_t kd = t->kd0; kd < t->kd1; kd++) {
        const float *sb = t->src + sg->soff + kd * d->s_kd;
        const float *w = t->wei + t->ch->ocb[0].woff + sg->woff + kd * d->w_kd + q0 * VL;
        tap_run(sb, dj, d->tap_off + q0, w, q1 - q0, NB, 0, UR, acc);
    }
}

/* n taps given as (source, weight) offset pairs (o, wo; weights from w0)
 * for pixels [P0, PE) of the tile, three a loop as tap_run. tap_run's
 * twin for the edge tiles, whose taps grouped by code are not contiguous
 * in the weights; the interior tiles keep tap_run, which loads no weight
 * offsets. */
AI void tap_pairs(const float *sb, const int64_t *dj, const int64_t *o, const int64_t *wo,
                  const float *w0, int64_t n, const int NB, const int P0, const int PE,
                  vec acc[LG_CONV_MAX_NB][URMAX]) {
    const int64_t sp = 2, sic = 0;
    for (; n >= 3; n -= 3, o += 3, wo += 3) {
        TAP_STEP_P(o[0], w0 + wo[0], P0, PE);
        TAP_STEP_P(o[1], w0 + wo[1], P0, PE);
        TAP_STEP_P(o[2], w0 + wo[2], P0, PE);
    }
    for (; n > 0; n--, o++, wo++) TAP_STEP_P(o[0], w0 + wo[0], P0, PE);
}

/* tile_taps for a row's first or last tile (direct.h eruns): each edge
 * code's taps of the tile's kernel rows as one run, for the pixels that
 * read inside the input there. */
AI void tile_taps_edge(const tile *t, const int NB, const int UR, vec acc[LG_CONV_MAX_NB][URMAX]) {
    const lg__conv_direct *d = t->d;
    const lg__conv_seg *sg = t->seg;
    const struct lg__conv_eruns *er = t->er;
    int64_t dj[LG_CONV_MAX_NB];
#pragma GCC unroll 4
    for (int j = 0; j < NB; j++) dj[j] = t->ch->ocb[j].woff - t->ch->ocb[0].woff;
    for (int64_t kd = t->kd0; kd < t->kd1; kd++) {
        const float *sb = t->src + sg->soff + kd * d->s_kd;
        const float *w0 = t->wei + t->ch->ocb[0].woff + sg->woff + kd * d->w_kd;
        for (int r = 0; r < er->n; r++) {
            const int64_t k = er->at[r] + t->kh0 * er->per[r], n = (t->kh1 - t->kh0) * er->per[r];
            const int64_t *o = er->src + k, *wo = er->wei + k;
            switch (er->code[r]) {
            case 0:
                tap_pairs(sb, dj, o, wo, w0, n, NB, 0, UR, acc);
                break;
            case 1:
                tap_pairs(sb, dj, o, wo, w0, n, NB, 1, UR, acc);
                break;
            case 2:
                tap_pairs(sb, dj, o, wo, w0, n, NB, 2, UR, acc);
                break;
            case 3:
                tap_pairs(sb, dj, o, wo, w0, n, NB, 0, UR - 1, acc);
                break;
            default:
                tap_pairs(sb, dj, o, wo, w0, n, NB, 0, UR - 2, acc);
            }
        }
    }
}

/* The reduction of a flat (1x1) tile: segments only, no kernel loops;
 * prefetches the source of the next tile (t->pf). */
AI void tile_flat(const tile *t, const int NB, const int UR, vec acc[LG_CONV_MAX_NB][URMAX]) {
    const int64_t sp = VL, sic = 1;
    for (int64_t g = 0; g < t->nseg; g++) {
        const lg__conv_seg *sg = &t->seg[g];
        const float *s = t->src + sg->soff, *wp[LG_CONV_MAX_NB];
#pragma GCC unroll 4
        for (int j = 0; j < NB; j++) wp[j] = t->wei + t->ch->ocb[j].woff + sg->woff;
        if (t->pf > 0) {
#pragma GCC unroll 32
            for (int p = 0; p < UR; p++)
                _mm_prefetch((const char *)(s + t->pf + p * sp), _MM_HINT_T0);
        }
        SEG_STEPS(sg->len == VL, sg->len);
    }
}

/* The VL channels of one step of the ring's tap table for pixels [P0,
 * PE), two a loop (2% faster than four, 6% than sixteen: 3x3 128->128
 * 28x28, one thread). With PF (ring_l1pf) each loop also prefetches into
 * L1 the next step's weights for its two channels and two of the next
 * step's source pixels, ns and nw floats on: pixels 0 .. VL - 1, past the
 * tile's last one when it is narrower (a hint never faults; testing
 * i < PE instead kept the loop's counter on the stack and spilled an
 * accumulator: 3x3 128->128 28x28 ran 1% slower). */
AI void ring_step(const float *s, const float *const *wp, const int NB, const int KIND,
                  const int P0, const int PE, const bool PF, int64_t ns, int64_t nw,
                  vec acc[LG_CONV_MAX_NB][URMAX]) {
    const int64_t sp = KIND == LG_CONV_SRC_BLK ? VL : 2 * VL, sic = 1;
    for (int i = 0; i < VL; i += 2) {
        if (PF) {
#pragma GCC unroll 4
            for (int j = 0; j < NB; j++) {
                _mm_prefetch((const char *)(wp[j] + nw + i * VL), _MM_HINT_T0);
                _mm_prefetch((const char *)(wp[j] + nw + (i + 1) * VL), _MM_HINT_T0);
            }
            _mm_prefetch((const char *)(s + ns + i * sp), _MM_HINT_T0);
            _mm_prefetch((const char *)(s + ns + (i + 1) * sp), _MM_HINT_T0);
        }
        TILE_STEP_P(i, P0, PE);
        TILE_STEP_P(i + 1, P0, PE);
    }
}

/* Steps [q0, q1) of the ring's tap table (whole blocks) for pixels [P0,
 * PE) of the tile, issuing the L2 prefetches per step; with PF the L1
 * ones of ring_step. */
AI void ring_steps(const tile *t, const int NB, const int KIND, const int P0, const int PE,
                   const bool PF, int64_t q0, int64_t q1, vec acc[LG_CONV_MAX_NB][URMAX],
                   pf_lines *wpf, int64_t wpf_per, pf_lines *spf, int64_t spf_per) {
    const float *wb[LG_CONV_MAX_NB];
#pragma GCC unroll 4
    for (int j = 0; j < NB; j++) wb[j] = t->wei + t->ch->ocb[j].woff;
    for (int64_t q = q0; q < q1; q++) {
        const float *s = t->src + t->tq[2 * q], *wp[LG_CONV_MAX_NB];
#pragma GCC unroll 4
        for (int j = 0; j < NB; j++) wp[j] = wb[j] + t->tq[2 * q + 1];
        for (int64_t g = 0; g < t->nseg; g++) {
            pf_issue(wpf, wpf_per);
            pf_issue(spf, spf_per);
            /* the next step: the next segment, or the next tap's first */
            int64_t ns = t->tq_ss, nw = t->tq_ws;
            if (PF && g == t->nseg - 1 && q + 1 < t->ntq) {
                ns = t->tq[2 * q + 2] - t->tq[2 * q] - g * t->tq_ss;
                nw = t->tq[2 * q + 3] - t->tq[2 * q + 1] - g * t->tq_ws;
            }
            ring_step(s, wp, NB, KIND, P0, PE, PF, ns, nw, acc);
            s += t->tq_ss;
#pragma GCC unroll 4
            for (int j = 0; j < NB; j++) wp[j] += t->tq_ws;
        }
    }
}

/* ring_steps, with the L1 prefetches where the plan asks for them. The
 * edge sections (a row's first and last tile, one kernel column) always
 * take them: with both variants there too, direct_avx512.c compiled 16%
 * longer than with one walk (-O3), with this 5%; 3x3 32->32 112x112
 * prefetches 1/12 of its steps in vain (0.2-0.4% slower). */
AI void ring_walk(const tile *t, const int NB, const int KIND, const int P0, const int PE,
                  int64_t q0, int64_t q1, vec acc[LG_CONV_MAX_NB][URMAX], pf_lines *wpf,
                  int64_t wpf_per, pf_lines *spf, int64_t spf_per) {
    if (t->d->ring_l1pf)
        ring_steps(t, NB, KIND, P0, PE, true, q0, q1, acc, wpf, wpf_per, spf, spf_per);
    else
        ring_steps(t, NB, KIND, P0, PE, false, q0, q1, acc, wpf, wpf_per, spf, spf_per);
}

/* A tile of NB blocks x UR pixels, every tap inside the input along W. */
AI void tile_body(const tile *t, const int NB, const int UR, const int KIND) {
    const lg__conv_direct *d = t->d;
    const bool BLK = KIND == LG_CONV_SRC_BLK || KIND == LG_CONV_SRC_BLK2;
    const int64_t sp = KIND == LG_CONV_SRC_BLK      ? VL
                       : KIND == LG_CONV_SRC_BLK2   ? 2 * VL
                       : KIND == LG_CONV_SRC_PLAIN2 ? 2
                                                    : d->s_w * d->s.sw;
    const int64_t sic = BLK ? 1 : d->s_ic;
    /* a kernel column step: VL pixels apart in a blocked source or the
     * padded rows (which may hold an nhwc source's rows) */
    const int64_t skw = BLK ? d->s.dw * VL : d->s_kw;
    vec acc[LG_CONV_MAX_NB][URMAX];
    if (t->kfirst) {
        init_acc(t, NB, UR, acc);
    } else { /* partial sums of the previous reduction blocks (blocked dst) */
#pragma GCC unroll 4
        for (int j = 0; j < NB; j++)
#pragma GCC unroll 32
            for (int p = 0; p < UR; p++)
                acc[j][p] = v_load(t->dst + t->ch->ocb[j].c0 / VL * d->d_c + p * d->d_w);
    }
    const bool tapped = KIND == LG_CONV_SRC_PLAIN2 && d->tap_off;
    const bool flat = KIND == LG_CONV_SRC_BLK && d->flat;
    if (tapped && t->er) tile_taps_edge(t, NB, UR, acc);
    if (tapped && !t->er) tile_taps(t, NB, UR, acc);
    if (flat) tile_flat(t, NB, UR, acc);
    /* the L2 prefetches, spread evenly over the (segment, kd, kh, kw) steps */
    pf_lines wpf = t->wpf, spf = t->spf;
    int64_t wpf_per = 0, spf_per = 0;
    if (wpf.left > 0 || spf.left > 0) {
        int64_t steps = t->tq ? t->ntq * t->nseg
                              : t->nseg * (t->kd1 - t->kd0) * (t->kh1 - t->kh0) * (t->kw1 - t->kw0);
        if (steps > 0) {
            wpf_per = (wpf.left + steps - 1) / steps;
            spf_per = (spf.left + steps - 1) / steps;
        }
    }
    if (BLK && t->tq) { /* the ring's tap table: whole blocks, one loop a section */
        int64_t q0 = 0, q1 = t->ntq;
        if (t->edge & 1) { /* the kw = 0 section without the row's first pixel */
            ring_steps(t, NB, KIND, 1, UR, true, 0, t->tq_l, acc, &wpf, wpf_per, &spf, spf_per);
            q0 = t->tq_l;
        }
        if (t->edge & 2) q1 = t->tq_r;
        ring_walk(t, NB, KIND, 0, UR, q0, q1, acc, &wpf, wpf_per, &spf, spf_per);
        if (t->edge & 2) /* the kw = KW - 1 section without the row's last pixel */
            ring_steps(t, NB, KIND, 0, UR - 1, true, q1, t->ntq, acc, &wpf, wpf_per, &spf, spf_per);
    }
    for (int64_t g = 0; g < (tapped || flat || t->tq ? 0 : t->nseg); g++) {
        const lg__conv_seg *sg = &t->seg[g];
        int64_t len = sg->len;
        for (int64_t kd = t->kd0; kd < t->kd1; kd++)
            for (int64_t kh = t->kh0; kh < t->kh1; kh++)
                for (int64_t kw = t->kw0; kw < t->kw1; kw++) {
                    const float *s = t->src + sg->soff + kd * d->s_kd + t->khoff[kh] + kw * skw;
                    int64_t wo = sg->woff + kd * d->w_kd + kh * d->w_kh + kw * d->w_kw;
                    const float *wp[LG_CONV_MAX_NB];
#pragma GCC unroll 4
                    for (int j = 0; j < NB; j++) wp[j] = t->wei + t->ch->ocb[j].woff + wo;
                    pf_issue(&wpf, wpf_per);
                    pf_issue(&spf, spf_per);
                    SEG_STEPS(BLK && len == VL, len);
                }
    }
    if (!t->klast) { /* partial sums, every lane (the last block masks) */
#pragma GCC unroll 4
        for (int j = 0; j < NB; j++)
#pragma GCC unroll 32
            for (int p = 0; p < UR; p++)
                v_store(t->dst + t->ch->ocb[j].c0 / VL * d->d_c + p * d->d_w, acc[j][p]);
        return;
    }
    epilogue(t, NB, UR, acc);
}

/* One border pixel (kw range clipped): four partial sums per block over the
 * channels, so that the FMA chains do not wait on each other. */
#define BORDER_STEP(i, q)                                                                          \
    do {                                                                                           \
        vec b_ = v_bcast(s + (i)*sic);                                                             \
        _Pragma("GCC unroll 4") for (int j = 0; j < NB; j++) part[j][q] =                          \
            v_fma(b_, v_load(wp[j] + (i)*VL), part[j][q]);                                         \
    } while (0)

/* The same over the tap table: the partial sums taken in turn over the
 * taps of each kernel row (a first layer has too few channels). */
AI void border_taps(const tile *t, const int NB, vec part[LG_CONV_MAX_NB][4]) {
    const lg__conv_direct *d = t->d;
    const lg__conv_seg *sg = t->seg;
    const int64_t len = sg->len, per_kh = d->s.kw * len;
    for (int64_t kd = t->kd0; kd < t->kd1; kd++) {
        const float *sb = t->src + sg->soff + kd * d->s_kd, *wb[LG_CONV_MAX_NB];
#pragma GCC unroll 4
        for (int j = 0; j < NB; j++) wb[j] = t->wei + t->ch->ocb[j].woff + sg->woff + kd * d->w_kd;
        for (int64_t kh = t->kh0; kh < t->kh1; kh++) {
            int64_t q = kh * per_kh + t->kw0 * len, q1 = kh * per_kh + t->kw1 * len;
            for (; q + 4 <= q1; q += 4)
#pragma GCC unroll 4
                for (int k = 0; k < 4; k++) {
                    vec b_ = v_bcast(sb + d->tap_off[q + k]);
#pragma GCC unroll 4
                    for (int j = 0; j < NB; j++)
                        part[j][k] = v_fma(b_, v_load(wb[j] + (q + k) * VL), part[j][k]);
                }
            for (; q < q1; q++) {
                vec b_ = v_bcast(sb + d->tap_off[q]);
#pragma GCC unroll 4
                for (int j = 0; j < NB; j++)
                    part[j][0] = v_fma(b_, v_load(wb[j] + q * VL), part[j][0]);
            }
        }
    }
}

AI void border_body(const tile *t, const int NB, const int KIND) {
    const lg__conv_direct *d = t->d;
    const int64_t sic = KIND == LG_CONV_SRC_BLK || KIND == LG_CONV_SRC_BLK2 ? 1 : d->s_ic;
    vec acc[LG_CONV_MAX_NB][URMAX], part[LG_CONV_MAX_NB][4];
    init_acc(t, NB, 1, acc);
#pragma GCC unroll 4
    for (int j = 0; j < NB; j++) part[j][0] = part[j][1] = part[j][2] = part[j][3] = v_zero();
    const bool tapped = KIND == LG_CONV_SRC_PLAIN2 && d->tap_off;
    if (tapped) border_taps(t, NB, part);
    for (int64_t g = 0; g < (tapped ? 0 : t->nseg); g++) {
        const lg__conv_seg *sg = &t->seg[g];
        int64_t len = sg->len;
        for (int64_t kd = t->kd0; kd < t->kd1; kd++)
            for (int64_t kh = t->kh0; kh < t->kh1; kh++)
                for (int64_t kw = t->kw0; kw < t->kw1; kw++) {
                    const float *s = t->src + sg->soff + kd * d->s_kd + t->khoff[kh] + kw * d->s_kw;
                    int64_t wo = sg->woff + kd * d->w_kd + kh * d->w_kh + kw * d->w_kw;
                    const float *wp[LG_CONV_MAX_NB];
#pragma GCC unroll 4
                    for (int j = 0; j < NB; j++) wp[j] = t->wei + t->ch->ocb[j].woff + wo;
                    int64_t i = 0;
                    for (; i + 4 <= len; i += 4) {
                        BORDER_STEP(i, 0);
                        BORDER_STEP(i + 1, 1);
                        BORDER_STEP(i + 2, 2);
                        BORDER_STEP(i + 3, 3);
                    }
                    for (; i < len; i++) BORDER_STEP(i, 0);
                }
    }
#pragma GCC unroll 4
    for (int j = 0; j < NB; j++)
        acc[j][0] =
            v_add(acc[j][0], v_add(v_add(part[j][0], part[j][1]), v_add(part[j][2], part[j][3])));
    epilogue(t, NB, 1, acc);
}

/* Instantiations: one function per (blocks, source kind, pixel count), pixel
 * count 0 being the border kernel, called through a table. Separate small
 * functions rather than one switch per (blocks, source kind): GCC's time on a
 * function grows faster than its size, and one switch of 14 inlined tiles
 * made the sanitizer build of this file take 16 minutes. */
typedef void (*tile_fn)(const tile *t);

#define TDEF(NB, K, u)                                                                             \
    static void FN(tile_##NB##_##K##_##u)(const tile *t) {                                         \
        tile_body(t, NB, u, K);                                                                    \
    }
#define TENT(NB, K, u) [u] = FN(tile_##NB##_##K##_##u),

#define UR_1_2(X, NB, K)  X(NB, K, 1) X(NB, K, 2)
#define UR_1_4(X, NB, K)  UR_1_2(X, NB, K) X(NB, K, 3) X(NB, K, 4)
#define UR_1_6(X, NB, K)  UR_1_4(X, NB, K) X(NB, K, 5) X(NB, K, 6)
#define UR_1_9(X, NB, K)  UR_1_6(X, NB, K) X(NB, K, 7) X(NB, K, 8) X(NB, K, 9)
#define UR_1_12(X, NB, K) UR_1_9(X, NB, K) X(NB, K, 10) X(NB, K, 11) X(NB, K, 12)
#define UR_1_14(X, NB, K) UR_1_12(X, NB, K) X(NB, K, 13) X(NB, K, 14)

#define TILE_FN(NB, K, LIST)                                                                       \
    static void FN(tile_##NB##_##K##_0)(const tile *t) {                                           \
        border_body(t, NB, K);                                                                     \
    }                                                                                              \
    LIST(TDEF, NB, K)
#define TILE_FNS(K)                                                                                \
    TILE_FN(1, K, URLIST1)                                                                         \
    TILE_FN(2, K, URLIST2)                                                                         \
    TILE_FN(3, K, URLIST3)                                                                         \
    TILE_FN(4, K, URLIST4)

TILE_FNS(0)
TILE_FNS(1)
TILE_FN(1, 2, URLIST1)
TILE_FN(2, 2, URLIST2)
TILE_FNS(3)
_Static_assert(LG_CONV_SRC_BLK == 0 && LG_CONV_SRC_GEN == 1 && LG_CONV_SRC_PLAIN2 == 2 &&
                   LG_CONV_SRC_BLK2 == 3,
               "tile table order");
_Static_assert(URMAX1 >= URMAX2 && URMAX1 >= URMAX3 && URMAX1 >= URMAX4, "tile table width");
/* URLISTn instantiates pixel counts 1 .. URMAXn (what direct.c reads) */
#define LIST_IS(NB, LIST, MAX)                                                                     \
    _Static_assert(sizeof((tile_fn[]){LIST(TENT, NB, 0)}) == ((MAX) + 1) * sizeof(tile_fn),        \
                   "URLIST" #NB " instantiates widths 1 .. URMAX" #NB);
LIST_IS(1, URLIST1, URMAX1)
LIST_IS(2, URLIST2, URMAX2)
LIST_IS(3, URLIST3, URMAX3)
LIST_IS(4, URLIST4, URMAX4)

#define TROW(NB, K, LIST)                                                                          \
    { [0] = FN(tile_##NB##_##K##_0), LIST(TENT, NB, K) }
#define TROWS(K)                                                                                   \
    { {NULL}, TROW(1, K, URLIST1), TROW(2, K, URLIST2), TROW(3, K, URLIST3), TROW(4, K, URLIST4) }

/* [source kind][blocks][pixels]: pixels 1 .. URMAX<blocks> (direct.c's
 * chunk widths never exceed them), 0 for the border kernel; the plain
 * stride-2 source has 1 or 2 blocks per chunk only. */
static const tile_fn FN(tiles)[4][LG_CONV_MAX_NB + 1][URMAX1 + 1] = {
    TROWS(0),
    TROWS(1),
    {{NULL}, TROW(1, 2, URLIST1), TROW(2, 2, URLIST2), {NULL}, {NULL}},
    TROWS(3),
};

const int FN(lg__conv_urmax)[LG_CONV_MAX_NB + 1] = {0, URMAX1, URMAX2, URMAX3, URMAX4};

/* Copy source rows ih0 .. ih1 - 1 of image n into the padded rows at buf
 * (direct.h): row ih of channel block cb goes to slot ih mod prow_n, at
 * buf + cb * prow_c + slot * prow_w * VL, its pixel x being input pixel
 * x - pw (zeros outside the input). */
static void FN(fill_rows)(const lg__conv_direct *d, const float *src, int64_t n, int64_t ih0,
                          int64_t ih1, float *buf) {
    const lg__conv_shape *s = &d->s;
    int64_t rw = d->prow_w, nr = d->prow_n, x0 = s->pw < rw ? s->pw : rw;
    int64_t x1 = s->pw + s->iw < rw ? s->pw + s->iw : rw;
    const int64_t ps = d->s_w, ncb = (s->ic + VL - 1) / VL;
    for (int64_t cb = 0; cb < ncb; cb++) {
        /* a plain (nhwc) source: block cb is channels cb * VL.., its last
         * block loaded masked (no read past the channels) */
        const bool plain = d->src_kind == LG_CONV_SRC_GEN;
        const bool part = plain && cb == ncb - 1 && s->ic % VL;
        const vmask m = v_mask_range(0, part ? (int)(s->ic % VL) : VL);
        for (int64_t ih = ih0; ih < ih1; ih++) {
            const float *in = src + n * d->s_n + cb * (plain ? VL : d->s_c) + ih * d->s_h;
            float *out = buf + cb * d->prow_c + ih % nr * rw * VL;
            int64_t x = 0;
            for (; x < x0; x++) v_store(out + x * VL, v_zero());
            if (part)
                for (; x < x1; x++) v_store(out + x * VL, v_load_mask(m, in + (x - s->pw) * ps));
            else
                for (; x < x1; x++) v_store(out + x * VL, v_load(in + (x - s->pw) * ps));
            for (; x < rw; x++) v_store(out + x * VL, v_zero());
        }
    }
}

/* The source rows that the fill of the item after (image n, output row oh,
 * chunk c) will copy into the ring, which now holds rows [lo_v, hi_v) of
 * image n: as runs of cache lines into *f (one run per row and channel
 * block, or per row of an nhwc source). Returns the end of this item's
 * share of the flattened lines and sets *q0 to its start: the row's items
 * (its chunks) split them, or with rows_inner the one item takes them. */
static int64_t FN(next_rows)(const lg__conv_direct *d, const float *src, int64_t n, int64_t oh,
                             int64_t c, int64_t lo_v, int64_t hi_v, pf_lines *f, int64_t *q0) {
    const lg__conv_shape *s = &d->s;
    int64_t nn = n, noh = oh + 1, kh0, kh1;
    *q0 = 0;
    if (noh == s->oh) { /* the next image's first row, or with rows_inner the next chunk's */
        noh = 0;
        if (!d->rows_inner || c + 1 == d->nchunk) nn = n + 1;
    }
    if (nn >= s->n) return 0;
    FN(taps)(noh, s->sh, s->ph, s->dh, s->kh, s->ih, &kh0, &kh1);
    int64_t top = noh * s->sh - s->ph, r0 = top + kh0 * s->dh, r1 = top + (kh1 - 1) * s->dh + 1;
    if (nn == n && r0 >= lo_v && r0 <= hi_v) r0 = hi_v; /* as the ring keeps its rows */
    if (r1 <= r0) return 0;
    const bool nhwc = d->src_kind == LG_CONV_SRC_GEN; /* one run a row: all its channels */
    const uintptr_t a = (uintptr_t)(src + nn * d->s_n + r0 * d->s_h);
    const int64_t bytes = s->iw * d->s_w * (int64_t)sizeof(float) + (int64_t)(a % 64);
    *f = (pf_lines){.base = (const char *)(a - a % 64),
                    .outer = d->s_h * (int64_t)sizeof(float),
                    .inner = d->s_c * (int64_t)sizeof(float),
                    .nin = nhwc ? 1 : (s->ic + VL - 1) / VL,
                    .lpr = (bytes + 63) / 64};
    const int64_t lines = (r1 - r0) * f->nin * f->lpr, nsh = d->rows_inner ? 1 : d->nchunk;
    const int64_t sh = d->rows_inner ? 0 : c;
    *q0 = lines * sh / nsh;
    return lines * (sh + 1) / nsh;
}

void FN(lg__conv_direct)(const lg__conv_direct *d, int64_t lo, int64_t hi, const float *src,
                         const float *wei, const float *bias, float *dst) {
    const lg__conv_shape *s = &d->s;
    int kind = d->src_kind;
    tile t;
    memset(&t, 0, sizeof t);
    t.d = d;
    t.bias = bias;
    t.kfirst = t.klast = 1;
    t.khoff = d->khoff;
    /* Items: (n, g, od, oh, chunk) rows, or (n, g, pixel block, chunk): the
     * chunks of one row or pixel block run together, while its source is
     * in cache; or with rows_inner (n, g, chunk, od, oh). */
    item_idx x = {.n = d->flat ? 4 : 5};
    if (d->flat) {
        int64_t e[4] = {d->nchunk, d->npix_blk, s->g, s->n};
        memcpy(x.ext, e, sizeof e);
    } else if (d->rows_inner) {
        int64_t e[5] = {s->oh, s->od, d->nchunk, s->g, s->n};
        memcpy(x.ext, e, sizeof e);
    } else {
        int64_t e[5] = {d->nchunk, s->oh, s->od, s->g, s->n};
        memcpy(x.ext, e, sizeof e);
    }
    idx_init(&x, lo);
    /* the padded rows, or NULL (then border pixels run one at a time) */
    int64_t pfl = d->src_rows ? 0 : d->prow_c * ((s->ic + VL - 1) / VL); /* the ring's rows */
    float *pbuf = NULL;
    int ring = -1;
    for (int r = 0; r < d->nring && !pbuf && !lg__conv_rings_off; r++)
        if (!atomic_exchange(&d->ring_busy[r], 1)) ring = r, pbuf = d->rings + r * d->ring_stride;
    int64_t *pkh = pbuf ? (int64_t *)(pbuf + pfl) : NULL; /* the ring's khoff */
    int64_t pn = -1, lo_v = 0, hi_v = 0; /* pbuf holds rows [lo_v, hi_v) of image pn */
    int64_t tq_a = -1, tq_b = -1;        /* the tap table's key: its row (n, oh), or with src_rows
                                            its kernel rows (kh0, kh1), all it depends on then */
    for (int64_t it = lo; it < hi; it++, idx_next(&x)) {
        int64_t c = x.v[0], od = 0, oh = 0, pb = 0, g, n;
        if (d->flat) {
            pb = x.v[1], g = x.v[2], n = x.v[3];
        } else if (d->rows_inner) {
            oh = x.v[0], od = x.v[1], c = x.v[2], g = x.v[3], n = x.v[4];
        } else {
            oh = x.v[1], od = x.v[2], g = x.v[3], n = x.v[4];
        }
        t.ch = &d->chunks[g * d->nchunk + c];
        const tile_fn *fn = FN(tiles)[pbuf ? d->ring_kind : kind][t.ch->nb];
        int umax = t.ch->ur;
        t.wei = wei + g * d->w_g;
        t.seg = d->segs + d->seg_at[g];
        t.nseg = d->seg_at[g + 1] - d->seg_at[g];
        if (d->flat) {
            int64_t p0 = pb * d->pix_blk, npix = s->od * s->oh * s->ow;
            int64_t p1 = p0 + d->pix_blk < npix ? p0 + d->pix_blk : npix;
            t.kd0 = t.kh0 = t.kw0 = 0;
            t.kd1 = t.kh1 = t.kw1 = 1;
            const lg__conv_seg *seg0 = t.seg;
            int64_t nseg = t.nseg, kb = d->kseg > 0 ? d->kseg : nseg;
            for (int64_t k0 = 0; k0 < nseg; k0 += kb) { /* reduction blocks */
                t.seg = seg0 + k0;
                t.nseg = nseg - k0 < kb ? nseg - k0 : kb;
                t.kfirst = k0 == 0;
                t.klast = k0 + kb >= nseg;
                for (int64_t p = p0; p < p1; p += umax) {
                    int u = (int)(p1 - p < umax ? p1 - p : umax);
                    t.src = src + n * d->s_n + p * d->s_w;
                    t.pf = u * d->s_w; /* the next tile's pixels */
                    t.dst = dst + n * d->d_n + p * d->d_w;
                    fn[u](&t);
                }
            }
            t.kfirst = t.klast = 1;
            t.pf = 0;
            continue;
        }
        FN(taps)(od, s->sd, s->pd, s->dd, s->kd, s->id, &t.kd0, &t.kd1);
        FN(taps)(oh, s->sh, s->ph, s->dh, s->kh, s->ih, &t.kh0, &t.kh1);
        t.khoff = d->khoff;
        t.wpf.left = t.spf.left = 0;
        if (d->rows_inner && c + 1 < d->nchunk) { /* this row's share of the next chunk */
            const lg__conv_chunk *cn = t.ch + 1;
            const int64_t lines = (cn->nb * d->w_ob * (int64_t)sizeof(float) + 63) / 64;
            const int64_t nrow = s->od * s->oh, r = od * s->oh + oh;
            const int64_t l0 = lines * r / nrow, l1 = lines * (r + 1) / nrow;
            t.wpf = (pf_lines){.base = (const char *)(t.wei + cn->ocb[0].woff),
                               .nin = 1,
                               .lpr = lines > 0 ? lines : 1};
            pf_seek(&t.wpf, l0, l1 - l0);
        }
        if (pbuf) { /* every pixel in full tiles over the padded rows */
            /* the rows this output row reads; those not yet in the buffer */
            int64_t top = oh * s->sh - s->ph, nr = d->prow_n;
            int64_t need0 = top + t.kh0 * s->dh, need1 = top + (t.kh1 - 1) * s->dh + 1;
            if (n != pn || need0 < lo_v || need0 > hi_v) lo_v = hi_v = need0;
            if (need1 > hi_v && !d->src_rows) FN(fill_rows)(d, src, n, hi_v, need1, pbuf);
            pn = n;
            hi_v = need1 > hi_v ? need1 : hi_v;
            lo_v = hi_v - nr > lo_v ? hi_v - nr : lo_v;
            float *drow = dst + n * d->d_n + oh * d->d_h;
            /* the rows' origin: the ring, or with src_rows the source at
             * (n, row top, column -pw), which the edge sections never read
             * outside the input */
            const float *rows = d->src_rows ? src + n * d->s_n + top * d->s_h - s->pw * VL : pbuf;
            for (int64_t kh = t.kh0; kh < t.kh1; kh++)
                pkh[kh] =
                    d->src_rows ? kh * s->dh * d->s_h : (top + kh * s->dh) % nr * d->prow_w * VL;
            t.seg = d->src_rows ? d->segs : d->psegs;
            t.khoff = pkh;
            t.kw0 = 0;
            t.kw1 = s->kw;
            const int64_t ka = d->src_rows ? t.kh0 : n, kb = d->src_rows ? t.kh1 : oh;
            if (d->ring_tq && (ka != tq_a || kb != tq_b)) {
                /* the row's steps, in order; with edge sections, the kw =
                 * 0 column's steps first and the kw = KW - 1 column's last */
                int64_t *tq = pkh + s->kh, nq = 0;
                const int64_t kl = d->ring_edge & 1, kr = s->kw - (d->ring_edge & 2 ? 1 : 0);
                const int64_t kwr[3][2] = {{0, kl}, {kl, kr}, {kr, s->kw}};
                const int64_t s0 = t.nseg > 0 ? t.seg[0].soff : 0;
                const int64_t w0 = t.nseg > 0 ? d->segs[0].woff : 0;
                for (int sec = 0; sec < 3; sec++) {
                    if (sec == 1) t.tq_l = nq;
                    if (sec == 2) t.tq_r = nq;
                    for (int64_t kh = t.kh0; kh < t.kh1; kh++)
                        for (int64_t kw = kwr[sec][0]; kw < kwr[sec][1]; kw++, nq++) {
                            tq[2 * nq] = s0 + pkh[kh] + kw * s->dw * VL;
                            tq[2 * nq + 1] = w0 + kh * d->w_kh + kw * d->w_kw;
                        }
                }
                /* whole blocks: the segments are evenly spaced */
                t.tq_ss = t.nseg > 1 ? t.seg[1].soff - t.seg[0].soff : 0;
                t.tq_ws = t.nseg > 1 ? d->segs[1].woff - d->segs[0].woff : 0;
                t.tq = tq;
                t.ntq = nq;
                tq_a = ka, tq_b = kb;
            }
            const int64_t nt = (s->ow + umax - 1) / umax;
            int64_t sq0 = 0, sq1 = FN(next_rows)(d, src, n, oh, c, lo_v, hi_v, &t.spf, &sq0);
            for (int64_t ow = 0, k = 0; ow < s->ow; k++) {
                int u = (int)(s->ow - ow < umax ? s->ow - ow : umax);
                t.src = rows + ow * s->sw * VL;
                t.dst = drow + ow * d->d_w;
                t.edge =
                    (ow == 0 ? d->ring_edge & 1 : 0) | (ow + u == s->ow ? d->ring_edge & 2 : 0);
                if (sq1 > sq0) /* tile k's share of this item's source lines */
                    pf_seek(&t.spf, sq0 + (sq1 - sq0) * k / nt,
                            (sq1 - sq0) * (k + 1) / nt - (sq1 - sq0) * k / nt);
                fn[u](&t);
                t.wpf.left = 0; /* the row's first tile took the row's share */
                ow += u;
            }
            continue;
        }
        const float *srow =
            src + n * d->s_n + (od * s->sd - s->pd) * d->s_d + (oh * s->sh - s->ph) * d->s_h;
        float *drow = dst + n * d->d_n + od * d->d_d + oh * d->d_h;
        int64_t ow = 0;
        if (d->tap_ecase) { /* whole rows in tiles, the first and the last with edge codes */
            t.kw0 = 0;
            t.kw1 = s->kw;
            for (; ow < s->ow; ow += umax) {
                int u = (int)(s->ow - ow < umax ? s->ow - ow : umax);
                t.er = ow == 0 ? &d->eruns[0] : ow + u == s->ow ? &d->eruns[1] : NULL;
                t.src = srow + (ow * s->sw - s->pw) * d->s_w;
                t.dst = drow + ow * d->d_w;
                fn[u](&t);
                t.wpf.left = 0;
            }
            t.er = NULL;
            continue;
        }
        for (; ow < s->ow; ow++) { /* left border, and all pixels when no interior */
            if (ow >= d->ow_lo && ow < d->ow_hi) break;
            FN(taps)(ow, s->sw, s->pw, s->dw, s->kw, s->iw, &t.kw0, &t.kw1);
            t.src = srow + (ow * s->sw - s->pw) * d->s_w;
            t.dst = drow + ow * d->d_w;
            fn[0](&t);
        }
        t.kw0 = 0;
        t.kw1 = s->kw;
        while (ow < d->ow_hi) {
            int u = (int)(d->ow_hi - ow < umax ? d->ow_hi - ow : umax);
            t.src = srow + (ow * s->sw - s->pw) * d->s_w;
            t.dst = drow + ow * d->d_w;
            fn[u](&t);
            t.wpf.left = 0;
            ow += u;
        }
        for (; ow < s->ow; ow++) {
            FN(taps)(ow, s->sw, s->pw, s->dw, s->kw, s->iw, &t.kw0, &t.kw1);
            t.src = srow + (ow * s->sw - s->pw) * d->s_w;
            t.dst = drow + ow * d->d_w;
            fn[0](&t);
        }
    }
    if (ring >= 0) atomic_store(&d->ring_busy[ring], 0);
}
