/* What the direct and depthwise tile kernels share, written once for both
 * vector ISAs: the tile struct, the prefetch streams, the epilogue (bias,
 * post-op chain, stores), the work-item counter and the tap clipping.
 * Included first by direct_tpl.h and dw_tpl.h, after the ISA's vector layer
 * (simd/simd_<isa>.h: vec, vmask, v_fma, v_bcast, v_mask_range,
 * v_load_mask, ...) and:
 *   URMAX1 (the widest tile's pixel count: the accumulator arrays' width),
 *   ELT_F32 (the ISA's eltwise f32 kernel) and FN(name) (appends the ISA
 *   suffix). */
#include <stdint.h>

#define AI static inline __attribute__((always_inline))

/* The tiles are large unrolled bodies, instantiated many times: -O3's extra
 * passes add minutes of compile time and nothing to the code that matters
 * (the register tiles are fully unrolled by pragmas either way). */
#pragma GCC optimize("O2")

/* The largest tile. */
#define URMAX URMAX1

/* Cache lines to prefetch into L2 while a tile runs: runs of lpr lines,
 * run (o, i) at base + o * outer + i * inner (i < nin); the tile issues
 * the next `left` lines from line l of run (o, i), spread over its
 * reduction steps. */
typedef struct pf_lines {
    const char *base;
    int64_t outer, inner, nin, lpr;
    int64_t o, i, l, left;
} pf_lines;

/* Point f at line q of its flattened runs, with n lines to issue. */
static inline void pf_seek(pf_lines *f, int64_t q, int64_t n) {
    int64_t k = q / f->lpr;
    f->l = q % f->lpr;
    f->o = k / f->nin;
    f->i = k % f->nin;
    f->left = n;
}

/* Issue up to n of the stream's lines. */
AI void pf_issue(pf_lines *f, int64_t n) {
    for (; n > 0 && f->left > 0; n--, f->left--) {
        _mm_prefetch(f->base + f->o * f->outer + f->i * f->inner + f->l * 64, _MM_HINT_T1);
        if (++f->l < f->lpr) continue;
        f->l = 0;
        if (++f->i < f->nin) continue;
        f->i = 0;
        f->o++;
    }
}

typedef struct tile {
    const lg__conv_direct *d;
    const float *src; /* the tile's first window origin (n, id0, ih0, iw0; channel 0) */
    const float *wei; /* group g's weights */
    const float *bias;
    float *dst; /* the tile's first output pixel, channel 0 */
    const lg__conv_seg *seg;
    int64_t nseg;
    const lg__conv_chunk *ch;
    int64_t kd0, kd1, kh0, kh1, kw0, kw1;
    int64_t ow0;          /* depthwise: the tile's first output pixel (src is the row at iw 0) */
    int kfirst, klast;    /* the tile's segments are the first / last of the reduction */
    int mload;            /* depthwise: load the source masked to the block's channels */
    const int64_t *khoff; /* source offset of kernel row kh (d->khoff, or the padded rows') */
    int64_t pf;           /* flat: prefetch the source this many elements ahead (the next
                             tile's pixels, which come from memory: 1x1 256->64 runs 8%
                             faster), or 0 */
    const struct lg__conv_eruns *er; /* an edge tile's taps by edge code (eruns), or NULL */
    const int64_t *tq; /* ring_tq: the row's (source, weight) offset pairs, ntq steps of
                          the first segment; each step walks the nseg segments, tq_ss and
                          tq_ws floats apart in the source and the weights */
    int64_t ntq, tq_ss, tq_ws;
    int64_t tq_l, tq_r; /* ring_edge: the kw = 0 section is steps [0, tq_l), the kw = KW - 1
                           one [tq_r, ntq) */
    int edge;           /* ring_edge: bit 0 the tile holds the row's first pixel, bit 1 its last */
    pf_lines wpf;       /* rows_inner: the next chunk's weights, this row's share */
    pf_lines spf;       /* padded rows: the source rows the next row's fill copies, this
                           tile's share (they come from memory: the fill waited on them,
                           4% of 3x3 128->128 28x28) */
} tile;

/* Where block j of a chunk is stored: one vector at a1 (+ pixel offset)
 * with mask m1, or for a block straddling two dst blocks a second part at
 * a2 with m2; zp: the padding lanes mz of dst's last block to zero. */
typedef struct dst_pat {
    float *a1, *a2, *zp;
    vmask m1, m2, mz;
    int two, full, zpad;
} dst_pat;

static void FN(dst_pattern)(const lg__conv_direct *d, const lg__conv_ocb *b, float *dst,
                            dst_pat *q) {
    int64_t c0 = b->c0, nv = b->nvalid, oc = d->s.oc;
    memset(q, 0, sizeof *q);
    if (d->dst_cl) {
        q->a1 = dst + c0;
        q->full = nv == VL;
        q->m1 = v_mask_range(0, (int)nv);
        return;
    }
    int64_t l0 = c0 % VL, b0 = c0 / VL;
    int64_t n1 = nv < VL - l0 ? nv : VL - l0;
    q->a1 = dst + b0 * d->d_c + l0;
    q->m1 = v_mask_range(0, (int)n1);
    q->full = l0 == 0 && nv == VL;
    if (nv > n1) {
        q->two = 1;
        q->a2 = dst + (b0 + 1) * d->d_c - n1;
        q->m2 = v_mask_range((int)n1, (int)nv);
    }
    if (c0 + nv == oc && oc % VL) {
        q->zpad = 1;
        q->zp = dst + ((oc - 1) / VL) * d->d_c;
        q->mz = v_mask_range((int)(oc % VL), VL);
    }
}

/* The general epilogue: the tile (nb blocks x ur pixels of VL lanes, bias
 * included) is in buf; run the post-op chain and store. */
static void FN(epilogue_general)(const tile *t, int nb, int ur, float *buf) {
    const lg__conv_direct *d = t->d;
    const lg__conv_pd *pd = d->pd;
    dst_pat q[LG_CONV_MAX_NB];
    for (int j = 0; j < nb; j++) FN(dst_pattern)(d, &t->ch->ocb[j], t->dst, &q[j]);
    int64_t dw = d->d_w;
    for (int i = 0; i < pd->npost; i++) {
        const lg__post_op *op = &pd->post[i];
        if (op->kind == LG_POST_SUM) {
            vec sc = v_set1(op->scale);
            for (int j = 0; j < nb; j++)
                for (int p = 0; p < ur; p++) {
                    float *b = buf + (j * ur + p) * VL;
                    vec old = q[j].full ? v_load(q[j].a1 + p * dw)
                                        : v_load_mask(q[j].m1, q[j].a1 + p * dw);
                    if (q[j].two) old = v_add(old, v_load_mask(q[j].m2, q[j].a2 + p * dw));
                    v_store(b, v_add(v_load(b), v_mul(sc, old)));
                }
        } else {
            ELT_F32(&d->epd[i], buf, buf, (int64_t)nb * ur * VL, false);
        }
    }
    for (int j = 0; j < nb; j++)
        for (int p = 0; p < ur; p++) {
            vec v = v_load(buf + (j * ur + p) * VL);
            if (q[j].full) {
                v_store(q[j].a1 + p * dw, v);
            } else {
                v_store_mask(q[j].a1 + p * dw, q[j].m1, v);
                if (q[j].two) v_store_mask(q[j].a2 + p * dw, q[j].m2, v);
            }
            if (q[j].zpad) v_store_mask(q[j].zp + p * dw, q[j].mz, v_zero());
        }
}

/* Store the accumulators: in registers for the simple chains on aligned
 * chunks, else through a buffer and the general epilogue. */
AI void epilogue(const tile *t, const int NB, const int UR, vec acc[LG_CONV_MAX_NB][URMAX]) {
    const lg__conv_direct *d = t->d;
    if (t->ch->fast) {
        vec sc = v_set1(d->sum_scale);
        int64_t dw = d->d_w;
        float *a[LG_CONV_MAX_NB];
        vmask m[LG_CONV_MAX_NB];
#pragma GCC unroll 4
        for (int j = 0; j < NB; j++) {
            const lg__conv_ocb *b = &t->ch->ocb[j];
            a[j] = t->dst + (d->dst_cl ? b->c0 : b->c0 / VL * d->d_c);
            m[j] = v_mask_range(0, b->nvalid); /* zero the padding lanes of dst's last block */
        }
        /* One loop per chain, so that no test runs per vector. */
        /* A dense chunk (LG_CONV_FAST_DENSE) stores whole vectors VL floats
         * apart: no masks, and addresses GCC need not keep on the stack. */
        const bool dense = t->ch->fast == LG_CONV_FAST_DENSE;
/* The chain EXPR of every vector v, stored at o_ = a[j] + p * STEP
 * through WRAP (the padding lanes' mask, or none). */
#define EPI_PLAIN(x)  (x)
#define EPI_MASKED(x) v_keep(m[j], (x))
#define EPI_STORES(STEP, WRAP, EXPR)                                                               \
    _Pragma("GCC unroll 4") for (int j = 0; j < NB; j++)                                           \
        _Pragma("GCC unroll 32") for (int p = 0; p < UR; p++) {                                    \
        vec v = acc[j][p];                                                                         \
        float *o_ = a[j] + p * (STEP);                                                             \
        v_store(o_, WRAP(EXPR));                                                                   \
    }
#define EPI_LOOP(EXPR)                                                                             \
    if (dense) {                                                                                   \
        EPI_STORES(VL, EPI_PLAIN, EXPR)                                                            \
    } else {                                                                                       \
        EPI_STORES(dw, EPI_MASKED, EXPR)                                                           \
    }
        switch (d->epi) {
        case LG_CONV_EPI_RELU:
            EPI_LOOP(v_max0(v));
            break;
        case LG_CONV_EPI_SUM:
            EPI_LOOP(v_fma(sc, v_load(o_), v));
            break;
        case LG_CONV_EPI_SUM_RELU:
            EPI_LOOP(v_max0(v_fma(sc, v_load(o_), v)));
            break;
        case LG_CONV_EPI_CLIP: { /* as the reference: x > lo ? x : lo, then s > hi ? hi : s */
            const vec lo = v_set1(d->clip_lo), hi = v_set1(d->clip_hi);
            EPI_LOOP(v_min(hi, v_max(v, lo)));
            break;
        }
        default:
            EPI_LOOP(v);
        }
#undef EPI_LOOP
#undef EPI_STORES
#undef EPI_MASKED
#undef EPI_PLAIN
        return;
    }
    float buf[LG_CONV_MAX_NB * URMAX * VL] __attribute__((aligned(64)));
#pragma GCC unroll 4
    for (int j = 0; j < NB; j++)
#pragma GCC unroll 32
        for (int p = 0; p < UR; p++) v_store(buf + (j * UR + p) * VL, acc[j][p]);
    FN(epilogue_general)(t, NB, UR, buf);
}

/* The initial accumulators: bias of each block (its valid lanes) or zero. */
AI void init_acc(const tile *t, const int NB, const int UR, vec acc[LG_CONV_MAX_NB][URMAX]) {
#pragma GCC unroll 4
    for (int j = 0; j < NB; j++) {
        const lg__conv_ocb *b = &t->ch->ocb[j];
        vec v = t->bias ? v_load_mask(v_mask_range(0, b->nvalid), t->bias + b->c0) : v_zero();
#pragma GCC unroll 32
        for (int p = 0; p < UR; p++) acc[j][p] = v;
    }
}

/* A mixed-radix counter over work items, innermost digit first: decoded
 * once per thread (divisions), then stepped. */
typedef struct item_idx {
    int n;
    int64_t ext[5], v[5];
} item_idx;

static inline void idx_init(item_idx *x, int64_t it) {
    for (int i = 0; i < x->n; i++) {
        x->v[i] = it % x->ext[i];
        it /= x->ext[i];
    }
}

static inline void idx_next(item_idx *x) {
    for (int i = 0; i < x->n; i++) {
        if (++x->v[i] < x->ext[i]) return;
        x->v[i] = 0;
    }
}

/* Clip taps k of one dim so that o * s - p + k * dl lies in [0, in). */
static inline void FN(taps)(int64_t o, int64_t s, int64_t p, int64_t dl, int64_t k, int64_t in,
                            int64_t *lo, int64_t *hi) {
    int64_t start = o * s - p, a, b;
    if (dl == 1) { /* no division on the common path */
        a = start < 0 ? -start : 0;
        b = in - start;
    } else {
        a = start < 0 ? (-start - 1) / dl + 1 : 0; /* ceil, no overflow for any dl */
        b = in - start <= 0 ? 0 : (in - start - 1) / dl + 1;
    }
    *lo = a;
    *hi = b < k ? b : k;
    if (*hi < *lo) *hi = *lo;
}
