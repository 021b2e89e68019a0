/* The Winograd convolution's planner, weight transform and execution
 * (wino.h): the shape and layout checks, tile blocks and channel groups,
 * U = G g G^T, and the threads. The matrices of F(4x4, 3x3):
 *
 *   B^T = | 4  0 -5  0  1  0 |   G = |  1/4     0     0  |   A^T = | 1  1  1  1  1  0 |
 *         | 0 -4 -4  1  1  0 |       | -1/6  -1/6  -1/6  |         | 0  1 -1  2 -2  0 |
 *         | 0  4 -4 -1  1  0 |       | -1/6   1/6  -1/6  |         | 0  1  1  4  4  0 |
 *         | 0 -2 -1  2  1  0 |       |  1/24  1/12  1/6  |         | 0  1 -1  8 -8  1 |
 *         | 0  2 -1 -2  1  0 |       |  1/24 -1/12  1/6  |
 *         | 0  4  0 -5  0  1 |       |  0     0     1    |
 */
#include "primitives/conv/wino.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>

/* Bytes of a tile block's transformed input (kept in L2) and the fewest /
 * most tiles in a block. */
#define V_BYTES (512 * 1024)
#define T_MIN   12
#define T_MAX   96

/* 1: channel-blocked by vl on dim 1 only; 0: channels-last (plain,
 * channel stride 1); -1: neither (or padded spatial dims). */
static int act_kind(const lg_md *md, int vl) {
    const __typeof__(md->blocking) *b = &md->blocking;
    if (md->ndims != 4 || md->padded_dims[2] != md->dims[2] || md->padded_dims[3] != md->dims[3])
        return -1;
    if (b->inner_nblks == 1 && b->inner_idxs[0] == 1 && b->inner_blks[0] == vl) return 1;
    if (b->inner_nblks == 0 && (b->strides[1] == 1 || md->dims[1] == 1)) return 0;
    return -1;
}

/* Bytes of the transformed weights. */
static size_t u_bytes(const lg__conv_wino *w) {
    size_t b = sizeof(float) * 36 * (size_t)(w->nocb * w->nicb) * (size_t)(w->vl * w->vl);
    return (b + 63) / 64 * 64;
}

bool lg__conv_wino_fits(const lg__conv_pd *pd, const lg__conv_shape *s, int vl, char *why,
                        size_t len) {
    const char *no = NULL;
    if (pd->nsp != 2)
        no = "the convolution is not 2D";
    else if (pd->groups != 1)
        no = "groups is not 1";
    else if (s->kh != 3 || s->kw != 3)
        no = "the kernel is not 3x3";
    else if (s->sh != 1 || s->sw != 1)
        no = "the stride is not 1";
    else if (s->dh != 1 || s->dw != 1)
        no = "the kernel is dilated";
    else if (pd->pad_l[0] > 1 || pd->pad_l[1] > 1 || pd->pad_r[0] > 1 || pd->pad_r[1] > 1)
        no = "padding is larger than 1";
    else if (act_kind(&pd->src, vl) < 0 || act_kind(&pd->dst, vl) < 0)
        no = "src or dst is neither channel-blocked (nChw8c on AVX2, nChw16c on AVX-512) nor "
             "channels-last (nhwc)";
    if (no && why) snprintf(why, len, "%s", no);
    return no == NULL;
}

lg_status lg__conv_wino_check(const lg__conv_pd *pd, const char *where) {
    if (pd->alg != LG_CONV_WINOGRAD) return LG_OK;
    lg__isa isa = lg__cpu_isa();
    if (isa < LG_ISA_AVX2)
        return lg__error(LG_UNIMPLEMENTED, where,
                         "alg LG_CONV_WINOGRAD needs AVX2 (the ISA in use is scalar)");
    lg__conv_shape s;
    lg__conv_shape_of(pd, &s);
    char why[160] = "";
    if ((isa >= LG_ISA_AVX512 && lg__conv_wino_fits(pd, &s, 16, NULL, 0)) ||
        lg__conv_wino_fits(pd, &s, 8, why, sizeof why))
        return LG_OK;
    return lg__error(LG_UNIMPLEMENTED, where,
                     "alg LG_CONV_WINOGRAD covers 2D 3x3 convolutions with stride 1, no "
                     "dilation, groups 1, padding 0 or 1, channel-blocked or channels-last "
                     "src and dst: %s",
                     why);
}

bool lg__conv_wino_auto(const lg__conv_shape *s, int vl) {
    /* In a network every layer's weights come cold from memory (the other
     * layers' weights evicted them), and Winograd reads its transformed
     * weights U (36 x IC x OC floats, 4x the weights' bytes) once per tile
     * block where the direct path reads its weights once. U's bytes and the
     * multiply-adds saved per 4x4 output tile (144 - 36 per IC x OC) both
     * scale with IC x OC, so the break-even is a number of tiles.
     * 8 lanes (AVX2 host, bench_wino cold, one thread, docs/performance.md
     * "Winograd 3x3"): Winograd 1.6x faster already at 4 tiles (512@7x7,
     * N = 1: 36 MB of U) and 1.7-2.7x from 16 tiles on; at N = 1 both
     * threads split U, which at most doubles the break-even: 8 tiles.
     * 16 lanes (Intel AVX-512 host, bench_wino cold, 1 and 2 threads,
     * "Winograd's AUTO rule on AVX-512"): the direct path runs near the FMA
     * peak, so the break-even moves up: 256@14x14 direct 1.16-1.30x faster
     * at 16 tiles, Winograd 1.04-1.08x at 32; 512@7x7 direct 1.09x at 32
     * tiles, Winograd 1.78x at 64. Hence 32 tiles and one tile per 4096
     * IC x OC (U passes L2 sooner than the saved work grows). Fewer than
     * 32 channels were not measured: left direct. */
    int64_t tiles = s->n * ((s->oh + 3) / 4) * ((s->ow + 3) / 4);
    if (s->ic < 32 || s->oc < 32) return false;
    if (vl < 16) return tiles >= 8;
    return tiles >= 32 && tiles * 4096 >= s->ic * s->oc;
}

void lg__conv_wino_free(lg__conv_wino *w) {
    if (!w) return;
    lg__free(w->u);
    lg__free(w->scr);
    lg__free(w->wcopy);
    if (w->fb) lg__conv_direct_free(w->fb);
    lg__free(w);
}

lg_status lg__conv_wino_plan(const lg__conv_kernel *c, int vl, lg__conv_wino **out) {
    const lg__conv_pd *pd = &c->pd;
    const lg__conv_shape *s = &c->s;
    *out = NULL;
    lg__conv_wino *w = lg__calloc(1, sizeof *w);
    if (!w) return LG_OUT_OF_MEMORY;
    bool oom = false;
    if (!lg__conv_direct_plan(c, vl, &w->fb, &oom) && oom) {
        lg__conv_wino_free(w);
        return LG_OUT_OF_MEMORY;
    }
    w->fb_fn = vl == 16 ? lg__conv_direct_avx512 : lg__conv_direct_avx2;
    w->s = *s;
    w->pd = pd;
    w->tabs = &c->tabs;
    w->vl = vl;
    const lg__post_op *po = pd->post;
    w->epi = pd->npost == 0 ? LG_WINO_EPI_NONE
             : pd->npost == 1 && po[0].kind == LG_POST_ELTWISE && po[0].alg == LG_ELTWISE_RELU &&
                     po[0].alpha == 0
                 ? LG_WINO_EPI_RELU
                 : LG_WINO_EPI_GEN;
    for (int i = 0; i < pd->npost; i++) {
        if (po[i].kind != LG_POST_ELTWISE) continue;
        w->epd[i].alg = po[i].alg;
        w->epd[i].alpha = po[i].alpha;
        w->epd[i].beta = po[i].beta;
    }
    w->th = (s->oh + 3) / 4;
    w->tw = (s->ow + 3) / 4;
    w->ntiles = w->th * w->tw;
    w->ttot = s->n * w->ntiles;
    w->nicb = (s->ic + vl - 1) / vl;
    w->nocb = (s->oc + vl - 1) / vl;
    w->nbmax = vl == 16 ? 4 : 3;
    w->nchunk = (w->nocb + w->nbmax - 1) / w->nbmax;
    const int64_t *ss = pd->src.blocking.strides, *ds = pd->dst.blocking.strides;
    w->src_cl = act_kind(&pd->src, vl) == 0;
    w->dst_cl = act_kind(&pd->dst, vl) == 0;
    w->s_n = ss[0], w->s_h = ss[2], w->s_w = ss[3];
    w->s_cb = w->src_cl ? vl : ss[1];
    w->d_n = ds[0], w->d_h = ds[2], w->d_w = ds[3];
    w->d_cb = w->dst_cl ? vl : ds[1];
    /* Tile blocks: V in L2, at least T_MIN tiles (each block reads all of
     * U); then the split between threads. */
    int64_t t0 = V_BYTES / (36 * 4 * w->nicb * vl);
    t0 = t0 < T_MIN ? T_MIN : t0 > T_MAX ? T_MAX : t0;
    w->ntb = (w->ttot + t0 - 1) / t0;
    int nthr = omp_get_max_threads();
    w->nog = 1;
    if (nthr > 1) {
        if (w->ntb >= 2 * nthr)
            w->ntb = (w->ntb + nthr - 1) / nthr * nthr;
        else
            w->nog = w->nchunk < nthr ? w->nchunk : nthr;
    }
    if (w->ntb > w->ttot) w->ntb = w->ttot;
    w->tmax = (w->ttot + w->ntb - 1) / w->ntb;
    w->nitems = w->ntb * w->nog;
    w->nthr = nthr;
    w->v_size = (36 * w->nicb * w->tmax * vl + 15) / 16 * 16;
    int64_t m_size = 36 * w->nbmax * w->tmax * vl;
    w->scr_stride = (w->v_size + m_size + 15) / 16 * 16;
    w->u = lg__aligned_alloc(64, u_bytes(w));
    size_t sb = sizeof(float) * (size_t)w->scr_stride * (size_t)nthr;
    w->scr = lg__aligned_alloc(64, (sb + 63) / 64 * 64);
    w->wbytes = lg_md_size(&pd->wei);
    w->wcopy = lg__malloc(w->wbytes ? w->wbytes : 1);
    if (!w->u || !w->scr || !w->wcopy) {
        lg__conv_wino_free(w);
        return LG_OUT_OF_MEMORY;
    }
    atomic_init(&w->busy, 0);
    *out = w;
    return LG_OK;
}

/* The fallback (direct, else the reference) on the caller's pointers. */
static void run_fallback(const lg__conv_wino *w, const float *src, const float *wei,
                         const float *bias, float *dst) {
    const lg__conv_pd *pd = w->pd;
    const lg__conv_direct *d = w->fb;
    if (!d) {
        lg__conv_ref(pd, w->tabs, src, wei, bias, dst);
        return;
    }
    int nthr = omp_in_parallel() ? 1 : omp_get_max_threads();
    if (nthr > d->nitems) nthr = (int)d->nitems;
#pragma omp parallel num_threads(nthr) if (nthr > 1)
    {
        int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
        int64_t lo = d->nitems * t / nt, hi = d->nitems * (t + 1) / nt;
        if (lo < hi)
            w->fb_fn(d, lo, hi, src + pd->src.offset0, wei + pd->wei.offset0, bias,
                     dst + pd->dst.offset0);
    }
}

lg_status lg__conv_wino_prepare(const lg__conv_wino *w, const float *wei, float **u) {
    *u = lg__aligned_alloc(64, u_bytes(w));
    if (!*u) return LG_OUT_OF_MEMORY;
    lg__conv_wino_wei_fn wfn = w->vl == 16 ? lg__conv_wino_wei_avx512 : lg__conv_wino_wei_avx2;
    const float *w0 = wei + w->pd->wei.offset0;
    const int64_t npairs = w->nocb * w->nicb;
    float *u0 = *u;
    int nthr = omp_in_parallel() ? 1 : omp_get_max_threads();
#pragma omp parallel for schedule(static) num_threads(nthr) if (nthr > 1)
    for (int64_t pr = 0; pr < npairs; pr++) wfn(w, u0, w0, pr / w->nicb, pr % w->nicb);
    return LG_OK;
}

void lg__conv_wino_run(lg__conv_wino *w, const float *src, const float *wei, const float *bias,
                       float *dst, const float *u) {
    const lg__conv_pd *pd = w->pd;
    int expect = 0;
    if (omp_in_parallel() || !atomic_compare_exchange_strong(&w->busy, &expect, 1)) {
        run_fallback(w, src, wei, bias, dst);
        return;
    }
    /* Without a prepared u, the kernel's own transform is redone only when
     * the weights' bytes changed. */
    bool fresh = u || (w->u_valid && memcmp(w->wcopy, wei, w->wbytes) == 0);
    const float *uu = u ? u : w->u;
    const float *b = bias ? bias + pd->bias.offset0 : NULL;
    lg__conv_wino_fn fn = w->vl == 16 ? lg__conv_wino_avx512 : lg__conv_wino_avx2;
    lg__conv_wino_wei_fn wfn = w->vl == 16 ? lg__conv_wino_wei_avx512 : lg__conv_wino_wei_avx2;
    int nthr = omp_get_max_threads();
    if (nthr > w->nthr) nthr = w->nthr;
    const int64_t npairs = fresh ? 0 : w->nocb * w->nicb;
    const float *s0 = src + pd->src.offset0, *w0 = wei + pd->wei.offset0;
    float *d0 = dst + pd->dst.offset0;
#pragma omp parallel num_threads(nthr) if (nthr > 1)
    {
#pragma omp for schedule(static)
        for (int64_t pr = 0; pr < npairs; pr++) wfn(w, w->u, w0, pr / w->nicb, pr % w->nicb);
        int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
        int64_t lo = w->nitems * t / nt, hi = w->nitems * (t + 1) / nt;
        if (lo < hi) fn(w, uu, lo, hi, s0, b, d0, w->scr + t * w->scr_stride);
    }
    if (!fresh) {
        memcpy(w->wcopy, wei, w->wbytes);
        w->u_valid = 1;
    }
    atomic_store(&w->busy, 0);
}
