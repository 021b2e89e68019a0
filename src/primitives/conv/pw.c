/* The pointwise convolution's planner (pw.h): layout checks, strides,
 * chunks, reduction and pixel blocks, and the work split. */
#include "primitives/conv/pw.h"

#include <omp.h>
#include <string.h>

int lg__conv_pw_off;
int lg__conv_pw_nobuf;

/* Pixels per tile for 1..4 blocks (the ISA files instantiate these). */
static const int urmax16[LG_CONV_PW_MAX_NB + 1] = {0, 16, 12, 8, 6};
static const int urmax8[LG_CONV_PW_MAX_NB + 1] = {0, 12, 6, 4, 0};

/* Preferred blocks per chunk (AVX2 3 x 4: 7 loads per 12 FMAs; AVX-512
 * 4 x 6), the weight panel of a reduction block (bytes, kept in L1) and
 * the source of a pixel block (bytes, kept in L2). */
#define PREF_NB8    3
#define PREF_NB16   4
#define PANEL_BYTES (24 * 1024)
#define SRCBLK      (128 * 1024)
#define KC_MAX      512

/* Spatial strides of an activation md into d/h/w (dims of extent 1: 0). */
static void spatial3(const lg_md *md, int nsp, int64_t *st3) {
    st3[0] = st3[1] = st3[2] = 0;
    for (int i = 0; i < nsp; i++)
        st3[3 - nsp + i] = md->dims[2 + i] > 1 ? md->blocking.strides[2 + i] : 0;
}

/* Channel-blocked by vl on dim 1 only (1), channels-last: plain with
 * channel stride 1 (0), else -1. */
static int act_kind(const lg_md *md, int vl) {
    int nb = md->blocking.inner_nblks;
    if (nb == 1 && md->blocking.inner_idxs[0] == 1 && md->blocking.inner_blks[0] == vl) return 1;
    if (nb == 0 && (md->blocking.strides[1] == 1 || md->dims[1] == 1)) return 0;
    return -1;
}

/* The pixel step of an md whose output pixels (d, h, w) are dense in that
 * order (offset = pixel index x step), or -1. */
static int64_t pixel_step(const int64_t *st3, int64_t d, int64_t h, int64_t w) {
    int64_t p = w > 1 ? st3[2] : h > 1 ? st3[1] : d > 1 ? st3[0] : 0;
    if (w > 1 && st3[2] != p) return -1;
    if (h > 1 && st3[1] != w * p) return -1;
    if (d > 1 && st3[0] != h * w * p) return -1;
    return p;
}

void lg__conv_pw_free(lg__conv_pw *d) {
    if (!d) return;
    lg__free(d->chunks);
    lg__free(d->bufs);
    lg__free((void *)d->buf_busy);
    lg__free(d);
}

/* Time of the tiles of a chunk group [c0, c1) over m pixels, in units of
 * one FMA vector per lane block: a tile of u pixels costs at least 3/4 of
 * a full one (its accumulators' FMA chains wait on each other). */
static double group_cost(const lg__conv_pw *d, int64_t c0, int64_t c1, int64_t m) {
    double t = 0;
    for (int64_t c = c0; c < c1; c++) {
        const lg__conv_pw_chunk *ch = &d->chunks[c];
        int64_t nt = (m + ch->ur - 1) / ch->ur;
        if (nt < 1) continue;
        int64_t base = m / nt, extra = m % nt;
        double full = 0.75 * ch->ur;
        double tb = base > full ? (double)base : full, tb1 = base + 1 > full ? base + 1.0 : full;
        t += ch->nb * ((nt - extra) * tb + extra * tb1 + 2.0 * nt); /* + the tile's epilogue */
    }
    return t;
}

/* The longest thread's time when nthr threads split n x npb x nog items
 * contiguously (chunk group innermost). The items repeat per image, so a
 * range's cost comes from prefix sums over one image's npb x nog items
 * (pre: npb x nog + 1 entries): the cost of the split does not grow with N. */
static double makespan(const lg__conv_pw *d, int64_t npb, int64_t nog, int nthr, double *pre) {
    const int64_t P = npb * nog, T = d->s.n * P;
    double worst = 0, cost[2][64];
    int64_t mlo = d->npix / npb, dim = nog < 64 ? nog : 64;
    for (int64_t og = 0; og < dim; og++)
        for (int e = 0; e < 2; e++)
            cost[e][og] = group_cost(d, d->nchunk * og / nog, d->nchunk * (og + 1) / nog, mlo + e);
    pre[0] = 0;
    for (int64_t it = 0; it < P; it++) {
        int64_t og = it % nog, pb = it / nog;
        int64_t m = d->npix * (pb + 1) / npb - d->npix * pb / npb;
        pre[it + 1] = pre[it] + cost[m - mlo][og < 64 ? og : 63] + 16.0; /* + the item's setup */
    }
    for (int t = 0; t < nthr; t++) {
        int64_t a = T * t / nthr, b = T * (t + 1) / nthr;
        /* cost of items [0, x): whole images, then a prefix of the next */
        double ca = (double)(a / P) * pre[P] + pre[a % P];
        double cb = (double)(b / P) * pre[P] + pre[b % P];
        if (cb - ca > worst) worst = cb - ca;
    }
    return worst;
}

/* Pixel blocks and chunk groups: the least makespan, fewer items on a tie
 * (each chunk group reads the pixel block's source again). */
static void choose_split(lg__conv_pw *d, int64_t npb0) {
    int nthr = omp_get_max_threads();
    d->npb = npb0, d->nog = 1;
    if (nthr < 2) return;
    double best = 1e300;
    int64_t pmax = (npb0 + 2 * (int64_t)nthr) * 4 * nthr + 1;
    double *pre = lg__malloc(sizeof(double) * (size_t)pmax);
    if (!pre) return; /* the default split: every thread still gets work */
    for (int64_t npb = npb0; npb <= npb0 + 2 * nthr && npb <= d->npix; npb++)
        for (int64_t nog = 1; nog <= d->nchunk && nog <= 4 * nthr; nog++) {
            if (d->s.n * npb * nog > 200000) continue;
            double m = makespan(d, npb, nog, nthr, pre) * (1 + 0.02 * (double)(nog - 1)) *
                       (1 + 0.002 * (double)(npb - npb0));
            if (m < best * (1 - 1e-9)) best = m, d->npb = npb, d->nog = nog;
        }
    lg__free(pre);
}

bool lg__conv_pw_plan(const lg__conv_kernel *c, int vl, lg__conv_pw **out, bool *oom) {
    const lg__conv_pd *pd = &c->pd;
    const lg__conv_shape *s = &c->s;
    const lg_md *sm = &pd->src, *wm = &pd->wei, *dm = &pd->dst;
    *oom = false;
    *out = NULL;
    if (lg__conv_pw_off || pd->groups != 1 || s->ic < 1 || s->oc < 1) return false;
    if (s->kd != 1 || s->kh != 1 || s->kw != 1 || s->pd || s->ph || s->pw) return false;
    for (int i = 0; i < pd->nsp; i++)
        if (pd->pad_r[i]) return false;
    int sk = act_kind(sm, vl), dk = act_kind(dm, vl);
    if (sk < 0 || dk < 0) return false;
    /* weights: O blocked by vl innermost, consecutive input channels vl apart */
    const int *wix = wm->blocking.inner_idxs, wnb = wm->blocking.inner_nblks;
    const int64_t *wbl = wm->blocking.inner_blks, *wst = wm->blocking.strides;
    if (wnb == 1 && wix[0] == 0 && wbl[0] == vl) {
        if (s->ic > 1 && wst[1] != vl) return false;
    } else if (wnb == 2 && wix[0] == 1 && wbl[0] == vl && wix[1] == 0 && wbl[1] == vl) {
        if (s->ic > vl && wst[1] != vl * vl) return false;
    } else {
        return false;
    }
    if (pd->has_bias && (pd->bias.offset0 || pd->bias.blocking.inner_nblks ||
                         (s->oc > 1 && pd->bias.blocking.strides[0] != 1)))
        return false;
    int64_t sst[3], dst3[3];
    spatial3(sm, pd->nsp, sst);
    spatial3(dm, pd->nsp, dst3);
    int64_t dp = pixel_step(dst3, s->od, s->oh, s->ow);
    if (dp < 0) return false;
    /* the post-op chain: a sum after the first op needs one reduction block */
    const lg__post_op *po = pd->post;
    bool relu0 = pd->npost > 0 && po[pd->npost - 1].kind == LG_POST_ELTWISE &&
                 po[pd->npost - 1].alg == LG_ELTWISE_RELU && po[pd->npost - 1].alpha == 0;
    bool clip = pd->npost == 1 && po[0].kind == LG_POST_ELTWISE &&
                (po[0].alg == LG_ELTWISE_CLIP || po[0].alg == LG_ELTWISE_CLIP_V2);
    bool sum0 = pd->npost > 0 && po[0].kind == LG_POST_SUM, late_sum = false;
    for (int i = 1; i < pd->npost; i++) late_sum = late_sum || po[i].kind == LG_POST_SUM;
    int epi = pd->npost == 0                    ? LG_PW_EPI_NONE
              : pd->npost == 1 && relu0         ? LG_PW_EPI_RELU
              : pd->npost == 1 && sum0          ? LG_PW_EPI_SUM
              : pd->npost == 2 && sum0 && relu0 ? LG_PW_EPI_SUM_RELU
              : clip                            ? LG_PW_EPI_CLIP
                                                : LG_PW_EPI_GEN;

    lg__conv_pw *d = lg__calloc(1, sizeof *d);
    int64_t nob = (s->oc + vl - 1) / vl;
    if (d) d->chunks = lg__calloc((size_t)nob, sizeof *d->chunks);
    if (!d || !d->chunks) {
        lg__conv_pw_free(d);
        *oom = true;
        return false;
    }
    d->s = *s;
    d->pd = pd;
    d->vl = vl;
    d->epi = epi;
    d->sum_scale = sum0 ? po[0].scale : 0;
    d->clip_lo = clip ? po[0].alpha : 0;
    d->clip_hi = clip ? po[0].beta : 0;
    for (int i = 0; i < pd->npost; i++) {
        if (po[i].kind != LG_POST_ELTWISE) continue;
        d->epd[i].alg = po[i].alg;
        d->epd[i].alpha = po[i].alpha;
        d->epd[i].beta = po[i].beta;
    }
    d->src_blk = sk == 1;
    d->s_n = s->n > 1 ? sm->blocking.strides[0] : 0;
    d->s_d = sst[0], d->s_h = sst[1], d->s_w = sst[2];
    d->s_cb = sk == 1 ? sm->blocking.strides[1] : vl;
    d->dst_cl = dk == 0;
    d->d_n = s->n > 1 ? dm->blocking.strides[0] : 0;
    d->d_p = dp;
    d->d_cb = dk == 1 ? dm->blocking.strides[1] : vl;
    d->w_ob = wst[0];
    d->npix = s->od * s->oh * s->ow;
    /* At stride 1 a src whose pixels are dense in one step is read in
     * place: blocked (step vl) or channels-last (any step: the channel
     * count, or a channel slice's parent's); anything else is packed. */
    int64_t sp = pixel_step(sst, s->id, s->ih, s->iw);
    bool s1 = s->sd == 1 && s->sh == 1 && s->sw == 1;
    d->pack = !(s1 && ((sk == 1 && sp == vl) || (sk == 0 && (sp > 0 || d->npix == 1))));
    d->s_p = !d->pack && sk == 0 && sp > 0 ? sp : vl;

    /* Chunks: nob blocks in ceil(nob / pref) chunks of nearly equal size,
     * the larger first (the partial block ends the last). */
    const int *um = vl == 16 ? urmax16 : urmax8;
    int pref = vl == 16 ? PREF_NB16 : PREF_NB8;
    d->nchunk = (nob + pref - 1) / pref;
    int64_t b0 = 0, nbmax = 1;
    d->ur_max = 1;
    for (int64_t i = 0; i < d->nchunk; i++) {
        lg__conv_pw_chunk *ch = &d->chunks[i];
        int64_t nb = nob / d->nchunk + (i < nob % d->nchunk);
        ch->b0 = (int32_t)b0;
        ch->nb = (int32_t)nb;
        ch->ur = um[nb];
        ch->partial = b0 + nb == nob && s->oc % vl != 0;
        ch->nlast = ch->partial ? (int32_t)(s->oc % vl) : vl;
        if (nb > nbmax) nbmax = nb;
        if (ch->ur > d->ur_max) d->ur_max = ch->ur;
        b0 += nb;
    }
    /* Reduction blocks: the chunk's weight panel in L1. */
    int64_t kmax = PANEL_BYTES / (nbmax * vl * 4) / vl * vl;
    if (kmax < vl) kmax = vl;
    if (kmax > KC_MAX) kmax = KC_MAX;
    d->nkb = (s->ic + kmax - 1) / kmax;
    int64_t kc = (s->ic + d->nkb - 1) / d->nkb;
    d->kc = (kc + vl - 1) / vl * vl;
    if (late_sum && d->nkb > 1) {
        lg__conv_pw_free(d);
        return false;
    }
    /* Pixel blocks: their source in L2; then the work split. */
    int64_t mc = SRCBLK / (d->kc * 4);
    if (mc < d->ur_max) mc = d->ur_max;
    int64_t npb0 = (d->npix + mc - 1) / mc;
    choose_split(d, npb0 > 0 ? npb0 : 1);
    d->mc = (d->npix + d->npb - 1) / d->npb;
    d->nitems = s->n * d->npb * d->nog;
    if (d->pack) {
        d->nbuf = omp_get_max_threads();
        d->buf_stride = (d->mc * d->kc + 15) / 16 * 16;
        d->bufs = lg__aligned_alloc(64, sizeof(float) * (size_t)(d->buf_stride * d->nbuf));
        d->buf_busy = lg__calloc((size_t)d->nbuf, sizeof *d->buf_busy);
        if (!d->bufs || !d->buf_busy) {
            lg__conv_pw_free(d);
            *oom = true;
            return false;
        }
    }
    *out = d;
    return true;
}
