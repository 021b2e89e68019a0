/* The pointwise convolution's tiles and per-thread driver, written once for
 * both vector ISAs (pw.h describes the algorithm). Included by pw_avx2.c and
 * pw_avx512.c after their ISA's vector layer (simd/simd_<isa>.h) and:
 *   PW_NBMAX, PW_URMAX, PW_TILE_LIST(X) (X(nb, ur) for every instantiated
 *   tile), ELT_F32 (the ISA's eltwise f32 kernel) and FN(name). */
#include <stdint.h>
#include <string.h>

#define PW_AI static inline __attribute__((always_inline))

/* Large unrolled bodies instantiated many times: -O3 adds compile time and
 * nothing to the register tiles (unrolled by pragmas either way). */
#pragma GCC optimize("O2")

typedef struct pw_tile {
    const lg__conv_pw *d;
    const lg__conv_pw_chunk *ch;
    const float *src; /* the tile's first pixel in the first channel block of the reduction block */
    int64_t scb;      /* step of one channel block in src */
    int64_t sp;       /* step of one pixel in src (the strided tiles; the others VL) */
    const float *wei; /* the chunk's first block at the reduction block's first channel */
    const float *bias; /* the chunk's first channel, or NULL */
    float *dst;        /* the tile's first pixel, the chunk's first block */
    int64_t klen;      /* channels of the reduction block */
    int kfirst, klast;
    int64_t pf; /* prefetch the source this many floats ahead (the next tile), or 0 */
    /* The next weight panel (the next chunk's, or the first chunk's of the
     * next reduction block): its first block, blocks, cache lines per block;
     * this tile prefetches its lines [wl0, wl1) into L2. */
    const float *wn;
    int64_t wn_nb, wn_lines, wl0, wl1;
} pw_tile;

/* Keep v in a register: the weight vectors are loaded once per channel and
 * used by every pixel of the tile (folded into each FMA as a memory operand
 * they cost NB x UR loads per channel instead of NB; 3 x 4 then waits on
 * the load ports). */
#define PW_REG(v) __asm__("" : "+v"(v))

/* One input channel i of a channel block for the whole tile. */
#define PW_STEP(i)                                                                                 \
    do {                                                                                           \
        vec w_[PW_NBMAX];                                                                          \
        _Pragma("GCC unroll 4") for (int j = 0; j < NB; j++) {                                     \
            w_[j] = v_load(wj[j] + (i)*VL);                                                        \
            PW_REG(w_[j]);                                                                         \
        }                                                                                          \
        _Pragma("GCC unroll 16") for (int p = 0; p < UR; p++) {                                    \
            vec b_ = v_bcast(s + p * SP + (i));                                                    \
            _Pragma("GCC unroll 4") for (int j = 0; j < NB; j++) acc[j][p] =                       \
                v_fma(b_, w_[j], acc[j][p]);                                                       \
        }                                                                                          \
    } while (0)

/* dst of block j, pixel p: the partial block of a channels-last dst is
 * read and written with masks (nothing past OC). */
#define PW_DST(j, p) (o + (j)*dcb + (p)*dp)
#define PW_LD(j, p)  (cl && (j) == pj ? v_load_mask(pm, PW_DST(j, p)) : v_load(PW_DST(j, p)))

/* The final store: the padding lanes of a blocked dst's partial block
 * stored as zero. */
PW_AI void pw_store(float *a, vec v, int partial, int cl, vmask pm) {
    if (!partial)
        v_store(a, v);
    else if (cl)
        v_store_mask(a, pm, v);
    else
        v_store(a, v_keep(pm, v));
}

/* The post-op chain from op `from` on through a buffer, then the store. */
static void FN(pw_epi_general)(const pw_tile *t, int NB, int UR, float *buf, int from) {
    const lg__conv_pw *d = t->d;
    const lg__conv_pd *pd = d->pd;
    const int64_t dp = d->d_p, dcb = d->d_cb;
    const int pj = t->ch->partial ? NB - 1 : NB, cl = d->dst_cl;
    const vmask pm = v_mask_range(0, t->ch->nlast);
    float *o = t->dst;
    for (int i = from; i < pd->npost; i++) {
        const lg__post_op *op = &pd->post[i];
        if (op->kind == LG_POST_SUM) {
            vec sc = v_set1(op->scale);
            for (int j = 0; j < NB; j++)
                for (int p = 0; p < UR; p++) {
                    float *b = buf + (j * UR + p) * VL;
                    v_store(b, v_add(v_load(b), v_mul(sc, PW_LD(j, p))));
                }
        } else {
            ELT_F32(&d->epd[i], buf, buf, (int64_t)NB * UR * VL, false);
        }
    }
    for (int j = 0; j < NB; j++)
        for (int p = 0; p < UR; p++)
            pw_store(PW_DST(j, p), v_load(buf + (j * UR + p) * VL), j == pj, cl, pm);
}

/* A tile of NB blocks x UR pixels over one reduction block, source pixels
 * SP floats apart (VL: packed or blocked in place; t->sp: a channels-last
 * source read in place). */
PW_AI void pw_body(const pw_tile *t, const int NB, const int UR, const int64_t SP) {
    const lg__conv_pw *d = t->d;
    const int64_t dp = d->d_p, dcb = d->d_cb, wob = d->w_ob, scb = t->scb;
    const int pj = t->ch->partial ? NB - 1 : NB, cl = d->dst_cl;
    const vmask pm = v_mask_range(0, t->ch->nlast);
    const int sum0 = d->pd->npost > 0 && d->pd->post[0].kind == LG_POST_SUM;
    float *o = t->dst;
    vec acc[PW_NBMAX][PW_URMAX];
    if (t->kfirst) {
#pragma GCC unroll 4
        for (int j = 0; j < NB; j++) {
            vec b = !t->bias  ? v_zero()
                    : j == pj ? v_load_mask(pm, t->bias + j * VL)
                              : v_load(t->bias + j * VL);
#pragma GCC unroll 16
            for (int p = 0; p < UR; p++) acc[j][p] = b;
        }
        if (sum0) { /* a leading sum enters with the first reduction block */
            vec sc = v_set1(d->pd->post[0].scale);
#pragma GCC unroll 4
            for (int j = 0; j < NB; j++)
#pragma GCC unroll 16
                for (int p = 0; p < UR; p++) acc[j][p] = v_fma(sc, PW_LD(j, p), acc[j][p]);
        }
    } else { /* partial sums of the previous reduction blocks */
#pragma GCC unroll 4
        for (int j = 0; j < NB; j++)
#pragma GCC unroll 16
            for (int p = 0; p < UR; p++) acc[j][p] = PW_LD(j, p);
    }
    /* The tiles of a panel share its successor's lines: the first tile on a
     * panel then finds it in L2 instead of waiting on L3 for all of it. */
    int64_t pf_blk = 0, pf_ln = 0, pf_left = t->wl1 - t->wl0, pf_per = 0;
    if (pf_left > 0) {
        pf_blk = t->wl0 / t->wn_lines, pf_ln = t->wl0 % t->wn_lines;
        pf_per = (pf_left + t->klen / VL) / (t->klen / VL + 1);
    }
    const float *s = t->src, *wj[PW_NBMAX];
#pragma GCC unroll 4
    for (int j = 0; j < NB; j++) wj[j] = t->wei + j * wob;
    int64_t k = t->klen;
    for (; k >= VL; k -= VL, s += scb) {
        if (t->pf && SP == VL) { /* the next tile's source, from memory on the first chunk */
#pragma GCC unroll 16
            for (int p = 0; p < UR * VL; p += 16)
                _mm_prefetch((const char *)(s + t->pf + p), _MM_HINT_T0);
        } else if (t->pf && ((t->klen - k) & (64 / sizeof(float) - 1)) == 0) {
            /* strided: each pixel's next line (16 channels: every 64 / 4VL steps) */
#pragma GCC unroll 16
            for (int p = 0; p < UR; p++)
                _mm_prefetch((const char *)(s + t->pf + p * SP), _MM_HINT_T0);
        }
        for (int64_t q = 0; q < pf_per && pf_left > 0; q++, pf_left--) {
            _mm_prefetch((const char *)(t->wn + pf_blk * wob + pf_ln * 16), _MM_HINT_T1);
            if (++pf_ln == t->wn_lines) pf_ln = 0, pf_blk++;
        }
#pragma GCC unroll 16
        for (int i = 0; i < VL; i++) PW_STEP(i);
#pragma GCC unroll 4
        for (int j = 0; j < NB; j++) wj[j] += VL * VL;
    }
    for (int64_t i = 0; i < k; i++) PW_STEP(i);
    if (!t->klast) {
#pragma GCC unroll 4
        for (int j = 0; j < NB; j++)
#pragma GCC unroll 16
            for (int p = 0; p < UR; p++) {
                if (cl && j == pj)
                    v_store_mask(PW_DST(j, p), pm, acc[j][p]);
                else
                    v_store(PW_DST(j, p), acc[j][p]);
            }
        return;
    }
    if (d->epi == LG_PW_EPI_GEN) {
        float buf[PW_NBMAX * PW_URMAX * VL] __attribute__((aligned(64)));
#pragma GCC unroll 4
        for (int j = 0; j < NB; j++)
#pragma GCC unroll 16
            for (int p = 0; p < UR; p++) v_store(buf + (j * UR + p) * VL, acc[j][p]);
        FN(pw_epi_general)(t, NB, UR, buf, sum0);
        return;
    }
    if (d->epi == LG_PW_EPI_CLIP) { /* as the reference: x > lo ? x : lo, then s > hi ? hi : s */
        const vec lo = v_set1(d->clip_lo), hi = v_set1(d->clip_hi);
#pragma GCC unroll 4
        for (int j = 0; j < NB; j++)
#pragma GCC unroll 16
            for (int p = 0; p < UR; p++)
                pw_store(PW_DST(j, p), v_min(hi, v_max(acc[j][p], lo)), j == pj, cl, pm);
    } else if (d->epi == LG_PW_EPI_RELU || d->epi == LG_PW_EPI_SUM_RELU) {
#pragma GCC unroll 4
        for (int j = 0; j < NB; j++)
#pragma GCC unroll 16
            for (int p = 0; p < UR; p++) pw_store(PW_DST(j, p), v_max0(acc[j][p]), j == pj, cl, pm);
    } else {
#pragma GCC unroll 4
        for (int j = 0; j < NB; j++)
#pragma GCC unroll 16
            for (int p = 0; p < UR; p++) pw_store(PW_DST(j, p), acc[j][p], j == pj, cl, pm);
    }
}

typedef void (*pw_tile_fn)(const pw_tile *t);

#define PW_DEF(NB, UR)                                                                             \
    static void FN(pw_t_##NB##_##UR)(const pw_tile *t) {                                           \
        pw_body(t, NB, UR, VL);                                                                    \
    }                                                                                              \
    static void FN(pw_ts_##NB##_##UR)(const pw_tile *t) {                                          \
        pw_body(t, NB, UR, t->sp);                                                                 \
    }
#define PW_ENTRY(NB, UR)  [NB][UR] = FN(pw_t_##NB##_##UR),
#define PW_ENTRYS(NB, UR) [NB][UR] = FN(pw_ts_##NB##_##UR),

#define PW_UR4(X, NB)  X(NB, 1) X(NB, 2) X(NB, 3) X(NB, 4)
#define PW_UR6(X, NB)  PW_UR4(X, NB) X(NB, 5) X(NB, 6)
#define PW_UR8(X, NB)  PW_UR6(X, NB) X(NB, 7) X(NB, 8)
#define PW_UR12(X, NB) PW_UR8(X, NB) X(NB, 9) X(NB, 10) X(NB, 11) X(NB, 12)
#define PW_UR16(X, NB) PW_UR12(X, NB) X(NB, 13) X(NB, 14) X(NB, 15) X(NB, 16)

PW_TILE_LIST(PW_DEF)

static const pw_tile_fn FN(pw_tiles)[PW_NBMAX + 1][PW_URMAX + 1] = {PW_TILE_LIST(PW_ENTRY)};
static const pw_tile_fn FN(pw_tiles_s)[PW_NBMAX + 1][PW_URMAX + 1] = {PW_TILE_LIST(PW_ENTRYS)};

/* Pack output pixels [q0, q1) of image n's src (already offset to image n),
 * channels [k0, k0 + klen), into buf laid out [channel block][pixel][VL]
 * (pixel step VL, block step (q1 - q0) * VL). */
static void FN(pw_pack)(const lg__conv_pw *d, const float *src, int64_t q0, int64_t q1, int64_t k0,
                        int64_t klen, float *buf) {
    const lg__conv_shape *s = &d->s;
    const int64_t scb = (q1 - q0) * VL, nfull = klen / VL, tail = klen % VL;
    const vmask tm = v_mask_range(0, (int)tail);
    const float *sk = src + k0 / VL * d->s_cb;
    int64_t ow = q0 % s->ow, oh = q0 / s->ow % s->oh, od = q0 / (s->ow * s->oh);
    const int64_t sw = s->sw * d->s_w, sh = s->sh * d->s_h, sd = s->sd * d->s_d;
    for (int64_t q = q0; q < q1; q++) {
        const float *in = sk + od * sd + oh * sh + ow * sw;
        float *out = buf + (q - q0) * VL;
        int64_t cb = 0;
        for (; cb < nfull; cb++) v_store(out + cb * scb, v_load(in + cb * d->s_cb));
        /* a blocked src's last block is a whole vector in memory */
        if (tail)
            v_store(out + cb * scb,
                    d->src_blk ? v_load(in + cb * d->s_cb) : v_load_mask(tm, in + cb * d->s_cb));
        if (++ow == s->ow) {
            ow = 0;
            if (++oh == s->oh) oh = 0, od++;
        }
    }
}

/* Every tile of chunk ch over pixels [a, b) (tiles of nearly equal size, at
 * most ch->ur), src addressed from pixel a. */
static void FN(pw_tiles_run)(pw_tile *t, const lg__conv_pw_chunk *ch, int64_t a, int64_t b,
                             const float *src_a, float *dst_n, int64_t k0, const float *wei,
                             const float *bias, int pf) {
    const lg__conv_pw *d = t->d;
    int64_t m = b - a, nt = (m + ch->ur - 1) / ch->ur;
    if (nt < 1) return;
    const int64_t wtot = t->wn ? t->wn_nb * t->wn_lines : 0;
    int64_t base = m / nt, extra = m % nt;
    t->ch = ch;
    t->wei = wei + ch->b0 * d->w_ob + k0 * VL;
    t->bias = bias ? bias + (int64_t)ch->b0 * VL : NULL;
    const pw_tile_fn(*tab)[PW_URMAX + 1] = t->sp == VL ? FN(pw_tiles) : FN(pw_tiles_s);
    pw_tile_fn fn0 = tab[ch->nb][base], fn1 = extra ? tab[ch->nb][base + 1] : fn0;
    int64_t p = a;
    for (int64_t i = 0; i < nt; i++) {
        int64_t u = base + (i < extra);
        t->src = src_a + (p - a) * t->sp;
        t->pf = pf && i + 1 < nt ? u * t->sp : 0;
        t->wl0 = wtot * i / nt;
        t->wl1 = wtot * (i + 1) / nt;
        t->dst = dst_n + p * d->d_p + ch->b0 * d->d_cb;
        (i < extra ? fn1 : fn0)(t);
        p += u;
    }
}

void FN(lg__conv_pw)(const lg__conv_pw *d, int64_t lo, int64_t hi, const float *src,
                     const float *wei, const float *bias, float *dst) {
    const lg__conv_shape *s = &d->s;
    float *buf = NULL;
    int bi = -1;
    for (int r = 0; d->pack && !lg__conv_pw_nobuf && r < d->nbuf && !buf; r++)
        if (!atomic_exchange(&d->buf_busy[r], 1)) bi = r, buf = d->bufs + r * d->buf_stride;
    /* every buffer taken: pack one tile's pixels at a time here */
    float sbuf[PW_URMAX * 512] __attribute__((aligned(64)));
    pw_tile t;
    memset(&t, 0, sizeof t);
    t.d = d;
    for (int64_t it = lo; it < hi; it++) {
        int64_t og = it % d->nog, pb = it / d->nog % d->npb, n = it / (d->nog * d->npb);
        int64_t p0 = d->npix * pb / d->npb, p1 = d->npix * (pb + 1) / d->npb;
        int64_t c0 = d->nchunk * og / d->nog, c1 = d->nchunk * (og + 1) / d->nog;
        const float *sn = src + n * d->s_n;
        float *dn = dst + n * d->d_n;
        int64_t sub = !d->pack || buf ? p1 - p0 : d->ur_max;
        for (int64_t q0 = p0; q0 < p1; q0 += sub) {
            int64_t q1 = q0 + sub < p1 ? q0 + sub : p1;
            for (int64_t kb = 0; kb < d->nkb; kb++) {
                int64_t k0 = kb * d->kc, klen = s->ic - k0 < d->kc ? s->ic - k0 : d->kc;
                const float *sa;
                if (d->pack) {
                    float *pbuf = buf ? buf : sbuf;
                    FN(pw_pack)(d, sn, q0, q1, k0, klen, pbuf);
                    sa = pbuf;
                    t.scb = (q1 - q0) * VL;
                    t.sp = VL;
                } else {
                    sa = sn + k0 / VL * d->s_cb + q0 * d->s_p;
                    t.scb = d->s_cb;
                    t.sp = d->s_p;
                }
                t.klen = klen;
                t.kfirst = kb == 0;
                t.klast = kb == d->nkb - 1;
                for (int64_t c = c0; c < c1; c++) {
                    /* the panel after this one: chunk c + 1, else chunk c0
                     * of the next reduction block */
                    const int nx = c + 1 < c1 || kb + 1 < d->nkb;
                    const int64_t kn = c + 1 < c1 ? k0 : k0 + d->kc;
                    const lg__conv_pw_chunk *cn = &d->chunks[c + 1 < c1 ? c + 1 : c0];
                    t.wn = nx ? wei + cn->b0 * d->w_ob + kn * VL : NULL;
                    t.wn_nb = cn->nb;
                    t.wn_lines = ((s->ic - kn < d->kc ? s->ic - kn : d->kc) * VL * 4 + 63) / 64;
                    FN(pw_tiles_run)
                    (&t, &d->chunks[c], q0, q1, sa, dn, k0, wei, bias, !d->pack && c == c0);
                }
            }
        }
    }
    if (bi >= 0) atomic_store(&d->buf_busy[bi], 0);
}
