/* The direct convolution's planner (direct.h): layout checks, strides,
 * segments, chunks, tile shape and the work split. */
#include "primitives/conv/direct.h"

#include <omp.h>
#include <string.h>

/* Pixels per tile for 1..4 blocks, from the ISA files that instantiate them. */
#define URMAX_OF(vl) ((vl) == 16 ? lg__conv_urmax_avx512 : lg__conv_urmax_avx2)

/* True if md is channel-blocked by vl on dim 1 only. */
static bool chan_blocked(const lg_md *md, int vl) {
    return md->blocking.inner_nblks == 1 && md->blocking.inner_idxs[0] == 1 &&
           md->blocking.inner_blks[0] == vl;
}

/* Spatial strides of an activation md into d/h/w (missing dims: 0). */
static void spatial_strides(const lg_md *md, int nsp, int first, int64_t *st3) {
    st3[0] = st3[1] = st3[2] = 0;
    if (lg__md_nelems(md) == 0) return; /* an empty md may carry any strides */
    for (int i = 0; i < nsp; i++)       /* a dim of extent 1 may carry any stride: only index 0 */
        st3[3 - nsp + i] = md->dims[first + i] > 1 ? md->blocking.strides[first + i] : 0;
}

/* The epilogue kind of the post-op chain. */
static int epi_kind(const lg__conv_pd *pd, float *scale, float *lo, float *hi) {
    const lg__post_op *p = pd->post;
    bool relu0[LG_MAX_POST_OPS];
    for (int i = 0; i < pd->npost; i++)
        relu0[i] = p[i].kind == LG_POST_ELTWISE && p[i].alg == LG_ELTWISE_RELU && p[i].alpha == 0;
    *scale = 0;
    if (pd->npost == 0) return LG_CONV_EPI_NONE;
    if (pd->npost == 1 && relu0[0]) return LG_CONV_EPI_RELU;
    if (pd->npost == 1 && p[0].kind == LG_POST_ELTWISE &&
        (p[0].alg == LG_ELTWISE_CLIP || p[0].alg == LG_ELTWISE_CLIP_V2)) {
        *lo = p[0].alpha, *hi = p[0].beta;
        return LG_CONV_EPI_CLIP;
    }
    if (p[0].kind == LG_POST_SUM) {
        *scale = p[0].scale;
        if (pd->npost == 1) return LG_CONV_EPI_SUM;
        if (pd->npost == 2 && relu0[1]) return LG_CONV_EPI_SUM_RELU;
    }
    return LG_CONV_EPI_GEN;
}

/* Whether the bias (if any) is a dense f32 vector the kernels can index. */
static bool bias_dense(const lg__conv_pd *pd) {
    return !pd->has_bias || (!pd->bias.offset0 && !pd->bias.blocking.inner_nblks &&
                             pd->bias.blocking.strides[0] == 1);
}

/* What the dense and the depthwise plans share: the shape, the post-op
 * epilogue, and the src/dst strides of n, c and the (up to 3) spatial dims
 * (missing ones 0), with the src's tap steps. */
static void init_common(lg__conv_direct *d, const lg__conv_kernel *c, int vl) {
    const lg__conv_pd *pd = &c->pd;
    const lg__conv_shape *s = &c->s;
    const lg_md *sm = &pd->src, *dm = &pd->dst;
    d->s = *s;
    d->vl = vl;
    d->pd = pd;
    d->has_bias = pd->has_bias;
    d->epi = epi_kind(pd, &d->sum_scale, &d->clip_lo, &d->clip_hi);
    for (int i = 0; i < pd->npost; i++) {
        if (pd->post[i].kind != LG_POST_ELTWISE) continue;
        d->epd[i].alg = pd->post[i].alg;
        d->epd[i].alpha = pd->post[i].alpha;
        d->epd[i].beta = pd->post[i].beta;
    }
    int64_t st3[3];
    /* An empty src (a zero spatial extent, the output all padding) is never
     * read: its strides, which may be anything, are not used. */
    bool src_empty = lg__md_nelems(sm) == 0;
    d->s_n = src_empty ? 0 : sm->blocking.strides[0];
    d->s_c = src_empty ? 0 : sm->blocking.strides[1];
    spatial_strides(sm, pd->nsp, 2, st3);
    d->s_d = st3[0], d->s_h = st3[1], d->s_w = st3[2];
    /* A kernel of extent 1 along a dim takes no dilation step (its dilation
     * may be anything); otherwise the dilated kernel fits the padded src. */
    d->s_kd = s->kd > 1 ? s->dd * d->s_d : 0;
    d->s_kh = s->kh > 1 ? s->dh * d->s_h : 0;
    d->s_kw = s->kw > 1 ? s->dw * d->s_w : 0;
    d->d_n = dm->blocking.strides[0];
    d->d_c = dm->blocking.strides[1];
    spatial_strides(dm, pd->nsp, 2, st3);
    d->d_d = st3[0], d->d_h = st3[1], d->d_w = st3[2];
}

/* Blocks per chunk: the least load traffic per FMA, 3 / ur + 1 / nb (ur
 * the pixels per tile once the row is split evenly): a tile streams its
 * weights (one vector per ur FMAs) from L2, its source broadcasts (one per
 * nb FMAs) hit L1. The flat (1x1) path weighs the weights as 1 / ur: there
 * every chunk streams the whole source from memory again (no kernel
 * window reuses it), so fewer, wider chunks win (1x1 256->64 56x56: 4 x 6
 * runs 15% faster than 2 x 14). Chunk counts that divide the blocks evenly
 * are preferred. */
static int choose_nb(int vl, int64_t nob, int64_t width, int max_nb, bool flat, int *ur_out) {
    const int *um = URMAX_OF(vl);
    double best = 1e30;
    int bnb = 1, bur = 1;
    for (int nb = 1; nb <= max_nb && nb <= nob; nb++) {
        int64_t ntiles = (width + um[nb] - 1) / um[nb];
        if (ntiles < 1) ntiles = 1;
        int64_t ur = (width + ntiles - 1) / ntiles;
        if (ur < 1) ur = 1;
        double cost = (flat ? 1.0 : 3.0) / (double)ur + 1.0 / nb;
        if (nob % nb) cost *= 1.15; /* a smaller last chunk */
        if (cost < best - 1e-9) {
            best = cost;
            bnb = nb;
            bur = (int)ur;
        }
    }
    *ur_out = bur;
    return bnb;
}

/* The largest even split of width into tiles of at most um pixels. */
static int even_ur(int64_t width, int um) {
    int64_t ntiles = (width + um - 1) / um;
    if (ntiles < 1) return 1;
    int64_t ur = (width + ntiles - 1) / ntiles;
    return ur < 1 ? 1 : (int)ur;
}

/* The edge tiles of a plain stride-2 source's tap table (direct.h
 * tap_ecase): with tiles of ur pixels over whole rows, the codes of the
 * first and the last tile's kernel columns, and each tile's taps grouped
 * by code (eruns); false when a row has fewer than two tiles, a tile is
 * too short, or a column's pixels inside the input are not one of the
 * coded ranges (then the borders run one pixel at a time). */
static bool tap_edges(lg__conv_direct *d, int64_t ur, int64_t lo, int64_t hi) {
    const lg__conv_shape *s = &d->s;
    int64_t nt = (s->ow + ur - 1) / ur, ul = s->ow - (nt - 1) * ur, ow0 = s->ow - ul;
    /* the first tile inside the input on the right, the last on the left */
    if (nt < 2 || ur < 3 || ul < 3 || ur > hi || ow0 < lo || ur < lo || ow0 > hi) return false;
    int64_t *code = d->tap_ecase;
    for (int64_t kw = 0; kw < s->kw; kw++) {
        /* first tile: pixel p reads input p * sw + kw * dw - pw */
        int64_t a = s->pw - kw * s->dw, p0 = a <= 0 ? 0 : (a + s->sw - 1) / s->sw;
        /* last tile: pixels whose tap is past the input's last pixel */
        int64_t lim = s->iw - 1 + s->pw - kw * s->dw; /* (ow0 + p) * sw <= lim */
        int64_t r = lim < 0 ? ul : ul - 1 - (lim / s->sw - ow0);
        if (r < 0) r = 0;
        if (p0 > 2 || r > 2) return false;
        code[kw] = p0;
        code[s->kw + kw] = r ? 2 + r : 0;
    }
    /* each tile's taps grouped by code, (kh, kw, channel) order in each */
    const int64_t ntap = s->kh * s->kw * s->icg, vl = d->w_kw / s->icg;
    for (int t = 0; t < 2; t++) {
        struct lg__conv_eruns *er = &d->eruns[t];
        int64_t *src = code + 2 * s->kw + 2 * t * ntap, *wei = src + ntap, k = 0;
        er->n = 0, er->src = src, er->wei = wei;
        for (int c = 0; c < LG_CONV_ECODES; c++) {
            int64_t at = k;
            for (int64_t kh = 0; kh < s->kh; kh++)
                for (int64_t kw = 0; kw < s->kw; kw++)
                    for (int64_t i = 0; code[t * s->kw + kw] == c && i < s->icg; i++, k++) {
                        const int64_t q = (kh * s->kw + kw) * s->icg + i;
                        src[k] = d->tap_off[q], wei[k] = q * vl;
                    }
            if (k == at) continue;
            er->code[er->n] = c, er->at[er->n] = at, er->per[er->n] = (k - at) / s->kh;
            er->n++;
        }
    }
    return true;
}

int lg__conv_rings_off;
atomic_long lg__conv_edge_plans;
atomic_long lg__conv_src_row_plans;
atomic_long lg__conv_l1pf_plans;

void lg__conv_direct_free(lg__conv_direct *d) {
    if (!d) return;
    lg__free(d->segs);
    lg__free(d->seg_at);
    lg__free(d->chunks);
    lg__free(d->tap_off);
    lg__free(d->psegs);
    lg__free(d->rings);
    lg__free((void *)d->ring_busy);
    lg__free(d->khoff);
    lg__free(d);
}

bool lg__conv_direct_plan(const lg__conv_kernel *c, int vl, lg__conv_direct **out, bool *oom) {
    const lg__conv_pd *pd = &c->pd;
    const lg__conv_shape *s = &c->s;
    const lg_md *sm = &pd->src, *wm = &pd->wei, *dm = &pd->dst;
    *oom = false;
    *out = NULL;
    bool src_blk = chan_blocked(sm, vl);
    if (!src_blk && sm->blocking.inner_nblks) return false;
    bool dst_blk = chan_blocked(dm, vl);
    if (!dst_blk && (dm->blocking.inner_nblks || dm->blocking.strides[1] != 1)) return false;
    int wg = pd->groups > 1, wo = wg, wi = wg + 1;
    const int *wix = wm->blocking.inner_idxs;
    const int64_t *wbl = wm->blocking.inner_blks;
    bool i_blk;
    if (wm->blocking.inner_nblks == 1 && wix[0] == wo && wbl[0] == vl)
        i_blk = false;
    else if (wm->blocking.inner_nblks == 2 && wix[0] == wi && wbl[0] == vl && wix[1] == wo &&
             wbl[1] == vl)
        i_blk = true;
    else
        return false;
    if (!bias_dense(pd)) return false;

    lg__conv_direct *d = lg__calloc(1, sizeof *d);
    if (!d) {
        *oom = true;
        return false;
    }
    init_common(d, c, vl);
    int nsp = pd->nsp;
    int64_t st3[3];
    d->s_ic = src_blk ? 1 : d->s_c;
    /* Segments of a blocked src hold channels of one block (unit step). */
    d->src_kind = !src_blk || d->s_w != vl ? LG_CONV_SRC_GEN
                  : s->sw == 1             ? LG_CONV_SRC_BLK
                  : s->sw == 2             ? LG_CONV_SRC_BLK2
                                           : LG_CONV_SRC_GEN;
    d->dst_cl = !dst_blk;
    /* weights */
    const int64_t *ws = wm->blocking.strides;
    d->w_g = wg ? ws[0] : 0;
    d->w_ob = ws[wo];
    spatial_strides(wm, nsp, wg + 2, st3);
    d->w_kd = st3[0], d->w_kh = st3[1], d->w_kw = st3[2];

    /* Interior pixels along W. */
    int64_t lo = (s->pw + s->sw - 1) / s->sw, hi;
    if (lo > s->ow) lo = s->ow;
    int64_t last = s->iw - 1 + s->pw - (s->kw - 1) * s->dw; /* ow * sw <= last */
    hi = last < 0 ? 0 : last / s->sw + 1;
    if (hi > s->ow) hi = s->ow;
    if (hi < lo) hi = lo;
    d->ow_lo = lo, d->ow_hi = hi;
    int64_t npix = s->od * s->oh * s->ow;

    /* Segments of each group. */
    int64_t nseg_max = s->g * (s->icg + 1); /* generous: at most one per channel */
    if (src_blk || i_blk) nseg_max = s->g * (2 * ((s->icg + vl - 1) / vl) + 2);
    d->segs = lg__malloc(sizeof *d->segs * (size_t)(nseg_max > 0 ? nseg_max : 1));
    d->seg_at = lg__malloc(sizeof *d->seg_at * (size_t)(s->g + 1));
    int64_t nob = (s->ocg + vl - 1) / vl;
    int64_t nchunk_max = nob > 0 ? nob : 1;
    d->chunks = lg__calloc((size_t)(s->g * nchunk_max), sizeof *d->chunks);
    if (!d->segs || !d->seg_at || !d->chunks) {
        lg__conv_direct_free(d);
        *oom = true;
        return false;
    }
    int64_t k = 0;
    for (int64_t g = 0; g < s->g; g++) {
        d->seg_at[g] = k;
        for (int64_t i = 0; i < s->icg;) {
            int64_t ch = g * s->icg + i, len = s->icg - i;
            if (src_blk && vl - ch % vl < len) len = vl - ch % vl;
            if (i_blk && vl - i % vl < len) len = vl - i % vl;
            lg__conv_seg *sg = &d->segs[k++];
            sg->soff = src_blk ? ch / vl * d->s_c + ch % vl : ch * d->s_c;
            sg->woff = i_blk ? i / vl * ws[wi] + i % vl * vl : i * ws[wi];
            sg->len = len;
            i += len;
        }
    }
    d->seg_at[s->g] = k;
    if (!src_blk && d->s_w == 1 && s->sw == 2) d->src_kind = LG_CONV_SRC_PLAIN2;
    d->flat = s->kd == 1 && s->kh == 1 && s->kw == 1 && s->sd == 1 && s->sh == 1 && s->sw == 1 &&
              s->pd == 0 && s->ph == 0 && s->pw == 0 && pd->pad_r[0] == 0 && pd->pad_r[1] == 0 &&
              pd->pad_r[2] == 0 && d->src_kind == LG_CONV_SRC_BLK && !d->dst_cl && d->d_w == vl &&
              (s->ih == 1 || d->s_h == s->iw * vl) &&
              (s->id == 1 || d->s_d == s->ih * s->iw * vl) &&
              (s->oh == 1 || d->d_h == s->ow * vl) && (s->od == 1 || d->d_d == s->oh * s->ow * vl);
    /* The tap table of a plain stride-2 source (a first layer's nchw input
     * with Ohwi{VL}o weights): the tiles walk all (kh, kw, channel) taps of
     * a row as one loop, source offsets from the table, weights
     * contiguous (7x7 s2 3->64: 3-channel inner loops and their kw loop
     * cost 6% of the FMA rate). */
    if (d->src_kind == LG_CONV_SRC_PLAIN2 && k == s->g && ws[wi] == vl && d->w_kw == s->icg * vl &&
        d->w_kh == s->kw * d->w_kw) {
        int64_t ntap = s->kh * s->kw * s->icg;
        /* the taps, the edge codes (two per kernel column), then the
         * edge tiles' (source, weight) pairs */
        d->tap_off = lg__malloc(sizeof *d->tap_off * (size_t)(5 * ntap + 2 * s->kw + 1));
        if (!d->tap_off) {
            lg__conv_direct_free(d);
            *oom = true;
            return false;
        }
        for (int64_t kh = 0, q = 0; kh < s->kh; kh++)
            for (int64_t kw = 0; kw < s->kw; kw++)
                for (int64_t i = 0; i < s->icg; i++)
                    d->tap_off[q++] = kh * d->s_kh + kw * d->s_kw + i * d->s_ic;
        d->tap_ecase = d->tap_off + ntap;
    }
    /* Padded rows (direct.h), up to 4 MB per thread; segment offsets
     * cb * s_c + lane become cb * prow_c + lane. */
    /* A plain source with channel stride 1 (nhwc) and I-blocked weights
     * (segments of one block) takes them too: the ring holds its rows
     * channel-blocked, so the tiles run as on a blocked source (3x3 64->64
     * 56x56 nhwc ran at a fifth of the blocked rate through the general
     * tiles). */
    bool cl_src = d->src_kind == LG_CONV_SRC_GEN && !src_blk && d->s_c == 1 && i_blk &&
                  (s->sw == 1 || s->sw == 2);
    bool ring_ok = d->src_kind == LG_CONV_SRC_BLK || d->src_kind == LG_CONV_SRC_BLK2 || cl_src;
    d->ring_kind = s->sw == 1 ? LG_CONV_SRC_BLK : LG_CONV_SRC_BLK2;
    if (!d->flat && ring_ok && s->g == 1 && s->id == 1 && s->od == 1 && s->kd == 1 &&
        (lo > 0 || hi < s->ow)) {
        int64_t rw = (s->ow - 1) * s->sw + (s->kw - 1) * s->dw + 1, nr = (s->kh - 1) * s->dh + 1;
        int64_t ncb = (s->ic + vl - 1) / vl;
        /* Where the rows run inside chunks (weights past 1 MB, below) every
         * chunk walks the image's rows again: a ring of all its rows keeps
         * them for the next chunk instead of copying them again (3x3 s2
         * 512->512 at 14x14: 450 KB a chunk). */
        int64_t wbig = s->icg * s->kd * s->kh * s->kw * s->ocg * (int64_t)sizeof(float);
        if (wbig > (1 << 20) && s->ih > nr && s->ih * rw * vl * ncb <= ((int64_t)1 << 20))
            nr = s->ih;
        if (nr * rw * vl * ncb <= ((int64_t)1 << 20)) {
            d->psegs = lg__malloc(sizeof *d->psegs * (size_t)(k > 0 ? k : 1));
            if (!d->psegs) {
                lg__conv_direct_free(d);
                *oom = true;
                return false;
            }
            d->prow_w = rw, d->prow_n = nr, d->prow_c = nr * rw * vl;
            d->ring_tq = 1;
            for (int64_t q = 0; q < k; q++) d->ring_tq = d->ring_tq && d->segs[q].len == vl;
            if (d->ring_tq && s->kw >= 2) { /* edge sections (direct.h) */
                /* r: the row's last pixel's last tap */
                int64_t r = (s->ow - 1) * s->sw - s->pw + (s->kw - 1) * s->dw;
                d->ring_edge = (s->pw >= 1 ? 1 : 0) | (r >= s->iw ? 2 : 0);
                /* src_rows: pixel 0 at kw = 1 and pixel 1 at kw = 0 inside
                 * on the left, the mirror taps inside on the right */
                bool blk = d->src_kind == LG_CONV_SRC_BLK || d->src_kind == LG_CONV_SRC_BLK2;
                d->src_rows = blk && s->pw <= s->dw && s->pw <= s->sw && r - s->dw < s->iw &&
                              r - s->sw < s->iw;
            }
            if (d->src_rows) atomic_fetch_add(&lg__conv_src_row_plans, 1);
            /* the ring's floats (none with src_rows), then kh int64 slots
             * and the tap table's 2 int64 per step, rounded to 64 bytes */
            int64_t ntq = d->ring_tq ? s->kh * s->kw : 0;
            int64_t nfl = d->src_rows ? 0 : d->prow_c * ncb;
            d->ring_stride = (nfl + 2 * s->kh + 4 * ntq + 15) / 16 * 16;
            d->nring = omp_get_max_threads();
            d->rings = lg__aligned_alloc(64, sizeof(float) * (size_t)(d->ring_stride * d->nring));
            d->ring_busy = lg__calloc((size_t)d->nring, sizeof *d->ring_busy);
            if (!d->rings || !d->ring_busy) {
                lg__conv_direct_free(d);
                *oom = true;
                return false;
            }
            for (int64_t q = 0; q < k; q++) {
                int64_t sc = cl_src ? vl : d->s_c; /* nhwc: soff is the channel */
                int64_t cb = d->segs[q].soff / sc, l0 = d->segs[q].soff % sc;
                d->psegs[q] = d->segs[q];
                d->psegs[q].soff = cb * d->prow_c + l0;
            }
        }
    }
    d->khoff = lg__malloc(sizeof *d->khoff * (size_t)(s->kh > 0 ? s->kh : 1));
    if (!d->khoff) {
        lg__conv_direct_free(d);
        *oom = true;
        return false;
    }
    for (int64_t kh = 0; kh < s->kh; kh++) d->khoff[kh] = kh * d->s_kh;
    /* the tap table's edge tiles: whole rows in tiles when every chunk is
     * full (one tile width) and the edges code */
    bool edges = !d->prow_c && d->tap_off && (lo > 0 || hi < s->ow);
    int64_t width = d->flat ? npix : d->prow_c || edges ? s->ow : (hi - lo);
    int ur = 1;
    int max_nb = d->src_kind == LG_CONV_SRC_PLAIN2 ? 2 : LG_CONV_MAX_NB;
    int nb = choose_nb(vl, nob > 0 ? nob : 1, width > 0 ? width : 1, max_nb, d->flat, &ur);
    if (edges && (nob % nb || !tap_edges(d, ur, lo, hi))) {
        edges = false;
        width = hi - lo;
        nb = choose_nb(vl, nob > 0 ? nob : 1, width > 0 ? width : 1, max_nb, d->flat, &ur);
    }
    if (edges)
        atomic_fetch_add(&lg__conv_edge_plans, 1);
    else
        d->tap_ecase = NULL;
    d->nb = nb, d->ur = ur;
    d->nchunk = (nob + nb - 1) / nb;
    const int *um = URMAX_OF(vl);
    for (int64_t g = 0; g < s->g; g++)
        for (int64_t ci = 0; ci < d->nchunk; ci++) {
            lg__conv_chunk *ch = &d->chunks[g * d->nchunk + ci];
            int64_t b0 = ci * nb, b1 = b0 + nb < nob ? b0 + nb : nob;
            ch->nb = (int32_t)(b1 - b0);
            ch->ur = ch->nb == nb ? ur : even_ur(width > 0 ? width : 1, um[ch->nb]);
            ch->fast = d->epi != LG_CONV_EPI_GEN;
            bool whole = !d->dst_cl && d->d_w == vl; /* LG_CONV_FAST_DENSE */
            for (int64_t b = b0; b < b1; b++) {
                lg__conv_ocb *o = &ch->ocb[b - b0];
                o->c0 = g * s->ocg + b * vl;
                o->nvalid = (int32_t)(s->ocg - b * vl < vl ? s->ocg - b * vl : vl);
                o->woff = b * ws[wo];
                bool ok = d->dst_cl
                              ? o->nvalid == vl
                              : o->c0 % vl == 0 && (o->nvalid == vl || o->c0 + o->nvalid == s->oc);
                if (!ok) ch->fast = 0;
                whole = whole && o->nvalid == vl;
            }
            if (ch->fast && whole) ch->fast = LG_CONV_FAST_DENSE;
        }
    /* Reduction blocks of the flat path, about 32 KB of weights each, when
     * several chunks share the source (with one chunk the partial sums'
     * round trips through dst cost more than the weights streamed from L2:
     * 1x1 256->64 runs 10% faster without). */
    d->kseg = 0;
    if (d->flat && s->g == 1 && (d->epi == LG_CONV_EPI_NONE || d->epi == LG_CONV_EPI_RELU)) {
        bool fast = true;
        for (int64_t ci = 0; ci < d->nchunk; ci++) fast = fast && d->chunks[ci].fast;
        int64_t kb = d->nchunk > 1 ? 32 * 16 / (vl * nb) : 0; /* segments */
        if (fast && kb > 0 && d->seg_at[1] > kb + kb / 2) d->kseg = kb;
    }
    /* Work items. */
    if (d->flat && npix == 0) {
        d->nitems = 0;
    } else if (d->flat) {
        int64_t tiles = (npix + ur - 1) / ur;
        int64_t per = tiles < 8 ? tiles : 8;
        d->pix_blk = per * ur;
        d->npix_blk = (npix + d->pix_blk - 1) / d->pix_blk;
        d->nitems = s->n * s->g * d->npix_blk * d->nchunk;
    } else {
        d->nitems = s->n * s->g * s->od * s->oh * d->nchunk;
        /* A group's weights past twice L2 (512 KB here; at 590 KB, 3x3
         * 128->128 28x28 ran as fast either way); or a tap table's (a first
         * layer's) when one chunk's fit a 32 KB L1 and the group's do not:
         * each thread then keeps one chunk's weights in L1 over its rows
         * (7x7 s2 3->64 224: 18.8 KB a chunk of 37.6 KB, 1.0% faster on
         * Zen 4's 32 KB L1, within 0.3% on Zen 5's 48 KB). */
        int64_t per_oc = s->icg * s->kd * s->kh * s->kw * (int64_t)sizeof(float);
        int64_t wbytes = per_oc * s->ocg, cbytes = per_oc * nb * vl;
        const int64_t l1 = 32 << 10;
        d->rows_inner =
            d->nchunk > 1 && (wbytes > (1 << 20) || (d->tap_off && cbytes <= l1 && wbytes > l1));
        d->ring_l1pf = d->ring_tq && cbytes > (48 << 10);
        if (d->ring_l1pf) atomic_fetch_add(&lg__conv_l1pf_plans, 1);
    }
    *out = d;
    return true;
}

bool lg__conv_dw_plan(const lg__conv_kernel *c, int vl, lg__conv_direct **out, bool *oom) {
    const lg__conv_pd *pd = &c->pd;
    const lg__conv_shape *s = &c->s;
    const lg_md *sm = &pd->src, *wm = &pd->wei, *dm = &pd->dst;
    *oom = false;
    *out = NULL;
    if (s->g < 2 || s->icg != 1 || s->ocg != 1) return false;
    /* Activations channel-blocked by vl, or plain with channel stride 1
     * (nhwc); any pixel strides. */
    bool src_blk = chan_blocked(sm, vl), dst_blk = chan_blocked(dm, vl);
    if (!src_blk && (sm->blocking.inner_nblks || sm->blocking.strides[1] != 1)) return false;
    if (!dst_blk && (dm->blocking.inner_nblks || dm->blocking.strides[1] != 1)) return false;
    if (wm->blocking.inner_nblks != 1 || wm->blocking.inner_idxs[0] != 0 ||
        wm->blocking.inner_blks[0] != vl)
        return false;
    if (!bias_dense(pd)) return false;
    lg__conv_direct *d = lg__calloc(1, sizeof *d);
    int64_t nob = (s->g + vl - 1) / vl;
    if (d) d->chunks = lg__calloc((size_t)(nob > 0 ? nob : 1), sizeof *d->chunks);
    if (!d || !d->chunks) {
        lg__conv_direct_free(d);
        *oom = true;
        return false;
    }
    init_common(d, c, vl);
    d->dw = 1;
    /* s_c steps one channel block of the source (vl channels of nhwc) */
    if (!src_blk) d->s_c *= vl;
    d->dst_cl = !dst_blk;
    int nsp = pd->nsp;
    int64_t st3[3];
    spatial_strides(wm, nsp, 3, st3);
    d->w_kd = st3[0], d->w_kh = st3[1], d->w_kw = st3[2];
    d->src_kind = src_blk ? LG_CONV_SRC_BLK : LG_CONV_SRC_GEN;
    d->rows_inner =
        1; /* dw_tpl.h: the item order (block-inner ran nhwc 3x3 144ch 56x56 1.4x slower) */
    d->dw_k = (s->kw == 3 || s->kw == 5) && (s->sw == 1 || s->sw == 2) && s->dw == 1;
    const int *um = vl == 16 ? lg__conv_dw_urmax_avx512 : lg__conv_dw_urmax_avx2;
    int umax = um[d->dw_k && s->kw == 5];
    d->nb = 1;
    d->ur = even_ur(s->ow > 0 ? s->ow : 1, umax);
    d->nchunk = nob;
    for (int64_t b = 0; b < nob; b++) {
        lg__conv_chunk *ch = &d->chunks[b];
        ch->nb = 1;
        ch->ur = d->ur;
        ch->ocb[0].c0 = b * vl;
        ch->ocb[0].nvalid = (int32_t)(s->g - b * vl < vl ? s->g - b * vl : vl);
        ch->ocb[0].woff = b * wm->blocking.strides[0];
        /* an nhwc dst's partial block stores masked, through the buffer */
        ch->fast = d->epi != LG_CONV_EPI_GEN && (dst_blk || ch->ocb[0].nvalid == vl);
    }
    d->nitems = s->n * nob * s->od * s->oh;
    *out = d;
    return true;
}
