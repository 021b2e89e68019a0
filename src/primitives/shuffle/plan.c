/* Planning a shuffle: the channel tables, the pixel space, the mode and, for
 * the PERMUTE mode, the windows and their segments (see shuffle.h).
 *
 * Mode. PLANES when a pixel vdim has stride 1 (its run is copied whole);
 * else PERMUTE when the axis has a stride-1 vdim and the ISA has a vector
 * kind that fits it; else TABLE.
 *
 * PERMUTE windows. Let R be the extent of the axis's stride-1 vdim (the
 * innermost channel block of a blocked layout, or C when the axis itself has
 * stride 1): channels come in contiguous runs of R, channel c being lane
 * c % R of run c / R. When R is narrower than the vector (nChw8c f32 under
 * AVX-512, nhwc with C = 6) and consecutive pixels of `in` continue the run
 * (in_s == R), a window group spans m = lcm(R, W) / R pixels: its lanes j
 * are pixel j / R, channel lane j % R, at element j from the group's first.
 * Each run (group) is covered by windows of W lanes starting at 0, W, 2W,
 * ... with the last one moved back to its end so that every window lies
 * inside (windows may overlap: they then write equal values). A window's
 * lanes read source channels that lie in source windows chosen the same
 * way; the lanes reading one source window form a segment (pairs of them for
 * AVX-512 windows of many segments). Lanes of padding channels (c >= C)
 * belong to no segment and come out zero.
 *
 * Stores. PERMUTE writes whole aligned vectors and streams them past the
 * caches once dst passes STREAM_BYTES; PLANES copies with plain stores,
 * which measured faster there (planes.c). */
#include "primitives/shuffle/shuffle.h"
#include "primitives/shuffle/plan_layouts.h"

#include <string.h>

/* Dst bytes from which stores bypass the caches: well beyond the L2s, so a
 * later reader would not find the lines anyway. */
#define STREAM_BYTES (8ll << 20)
/* Bytes of src per PERMUTE chunk: the pixels one chunk's windows read stay
 * in L1 (or near it) while each source vector serves every window that
 * needs it; and at least MIN_CHUNK pixel groups, so that a kernel call's
 * setup (index vectors, masks) is spread over enough pixels. */
#define CHUNK_BYTES (32 << 10)
#define MIN_CHUNK   8
/* How far ahead the tile kernel prefetches src once dst streams: the
 * hardware prefetchers alone leave reads waiting on memory. Measured on the
 * Zen 5 host (nhwc 8x256x56x56 f32 g4, two threads): 16 KB ahead 3%, 64 KB
 * 4-5% faster than no prefetch in the quiet memory state, 15% in the
 * contended one; 128 and 256 KB no better. */
#define TILE_PF_BYTES (64 << 10)

typedef struct vdim {
    int64_t n, s;
} vdim;

/* Sort by stride, largest first (insertion sort: at most LG_SHUF_MAXV). */
static void sort_desc(vdim *v, int n) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1].s < v[j].s; j--) {
            vdim t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

/* The vdims of dim d of md (extent > 1 only) appended to v; returns the new count. */
static int dim_vdims(const lg_md *md, int d, vdim *v, int n) {
    int64_t blk[LG_MAX_NDIMS];
    lg__md_dim_blocks(md, blk);
    if (md->padded_dims[d] / blk[d] > 1)
        v[n++] = (vdim){md->padded_dims[d] / blk[d], md->blocking.strides[d]};
    int64_t mult = 1;
    for (int i = md->blocking.inner_nblks - 1; i >= 0; i--) {
        if (md->blocking.inner_idxs[i] == d && md->blocking.inner_blks[i] > 1)
            v[n++] = (vdim){md->blocking.inner_blks[i], mult};
        mult *= md->blocking.inner_blks[i];
    }
    return n;
}

static int64_t gcd(int64_t a, int64_t b) {
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Most channels a plan keeps offset tables for (16 bytes each); beyond, the
 * reference runs (a table would dwarf any data worth shuffling fast). */
#define MAX_TABLE_CHANNELS ((int64_t)1 << 22)

/* Most pixels one window group may span. */
#define MAX_GROUP 16

/* The vector kind for element size esz, run R and the `in` vdim (in_n,
 * in_s) under isa: the widest kind whose W lanes fit in a run (m = 1), or
 * whose windows can span m = lcm(R, W) / R pixels (when the pixels' runs are
 * contiguous: in_s == R). False if no SIMD kind fits. */
static bool pick_vec(lg__isa isa, int esz, int64_t R, int64_t in_n, int64_t in_s, lg__shuf_vec *vec,
                     int *W, int64_t *m) {
    static const struct {
        lg__isa isa;
        int esz;
        lg__shuf_vec vec;
        int W;
    } kinds[] = {
        {LG_ISA_AVX512, 4, LG_SHUF_ZMM_D, 16}, {LG_ISA_AVX512, 2, LG_SHUF_ZMM_W, 32},
        {LG_ISA_AVX512, 2, LG_SHUF_YMM_W, 16}, {LG_ISA_AVX2, 4, LG_SHUF_YMM_D, 8},
        {LG_ISA_AVX2, 4, LG_SHUF_XMM_B, 4},    {LG_ISA_AVX2, 2, LG_SHUF_XMM_B, 8},
        {LG_ISA_AVX2, 1, LG_SHUF_XMM_B, 16},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (kinds[i].esz != esz || kinds[i].isa > isa) continue;
        int64_t w = kinds[i].W, g = R / gcd(R, w) * w / R; /* lcm(R, W) / R */
        if (R >= w)
            g = 1;
        else if (in_s != R || g > MAX_GROUP || in_n < 2 * g)
            continue;
        *vec = kinds[i].vec;
        *W = (int)w;
        *m = g;
        return true;
    }
    return false;
}

/* Store lane value x (a lane index or an offset) at lane l of idx, as the
 * vector kind lays it out; `take` says whether the lane is taken. */
static void put_lane(lg__shuf_vec vec, int esz, uint8_t *idx, int l, int64_t x, bool take) {
    switch (vec) {
    case LG_SHUF_XMM_B:
        for (int b = 0; b < esz; b++) idx[l * esz + b] = take ? (uint8_t)(x * esz + b) : 0x80;
        break;
    case LG_SHUF_YMM_D: {
        int32_t v = take ? (int32_t)x : 0, m = take ? -1 : 0;
        memcpy(idx + 4 * l, &v, 4);
        memcpy(idx + 32 + 4 * l, &m, 4);
        break;
    }
    case LG_SHUF_ZMM_D: {
        int32_t v = take ? (int32_t)x : 0;
        memcpy(idx + 4 * l, &v, 4);
        break;
    }
    case LG_SHUF_YMM_W:
    case LG_SHUF_ZMM_W: {
        int16_t v = take ? (int16_t)x : 0;
        memcpy(idx + 2 * l, &v, 2);
        break;
    }
    }
}

/* Segments above which an AVX-512 window takes its segments in pairs (one
 * two-source permute each): beyond the unrolled single-segment kernels. */
#define PAIR_MIN 8

static bool has_pairs(lg__shuf_vec vec) {
    return vec == LG_SHUF_ZMM_D || vec == LG_SHUF_ZMM_W || vec == LG_SHUF_YMM_W;
}

/* Build the windows and segments (pass 0 counts segments into *nseg, pass 1
 * fills p->seg). Returns whether some window takes pairs. Lanes: a run group
 * is m pixels of one run, lane j being pixel j / R, channel lane j % R, at
 * element j from the run's first element (m > 1 only when those are
 * contiguous). */
static bool build_windows(lg__shuf_plan *p, int64_t R, int64_t g, int pass, int *nseg) {
    int W = p->W;
    int64_t Rg = p->m * R, wpr = (Rg + W - 1) / W;
    int ns = 0, w = 0;
    bool paired = false;
    for (int64_t run = 0; run < p->padC / R; run++)
        for (int64_t k = 0; k < wpr; k++, w++) {
            int64_t start = k * W < Rg - W ? k * W : Rg - W;
            /* Group the lanes by source window (key: run * Rg + first lane). */
            int64_t key[64], off[64];
            int lane_seg[64], nk = 0;
            for (int l = 0; l < W; l++) {
                int64_t j = start + l, px = j / R, c = run * R + j % R;
                lane_seg[l] = -1;
                if (c >= p->C) continue;
                int64_t cs = lg__shuffle_src_channel(c, p->C, g);
                int64_t js = px * R + cs % R, ss = (js / W) * W < Rg - W ? (js / W) * W : Rg - W;
                int64_t kk = (cs / R) * Rg + ss;
                int n = 0;
                while (n < nk && key[n] != kk) n++;
                if (n == nk) key[nk++] = kk;
                lane_seg[l] = n;
                off[l] = js - ss; /* the lane within the source window */
            }
            bool pairs = nk > PAIR_MIN && has_pairs(p->vec);
            int nout = pairs ? (nk + 1) / 2 : nk;
            lg__shuf_win *win = &p->win[w];
            win->dst_off = p->doff[run * R] + start;
            win->seg0 = ns;
            win->nseg = pairs ? -nout : nout;
            paired = paired || pairs;
            for (int n = 0; pass == 1 && n < nout; n++) {
                lg__shuf_seg *sg = &p->seg[ns + n];
                memset(sg, 0, sizeof *sg);
                /* Single: source n. Pair: sources 2n (lanes 0..W-1 of the
                 * two-source index) and 2n + 1 (lanes W..2W-1), or 2n twice. */
                int a = pairs ? 2 * n : n, b = pairs && 2 * n + 1 < nk ? 2 * n + 1 : a;
                sg->src_off = p->doff[key[a] / Rg * R] + key[a] % Rg;
                sg->src_off2 = p->doff[key[b] / Rg * R] + key[b] % Rg;
                for (int l = 0; l < W; l++) {
                    int j = lane_seg[l];
                    bool take = j >= 0 && (j == a || j == b);
                    put_lane(p->vec, p->esz, sg->idx, l, off[l] + (j == b && b != a ? W : 0), take);
                    if (take) sg->mask |= 1ull << l;
                }
            }
            ns += nout;
        }
    *nseg = ns;
    return paired;
}

/* Most windows and segments a plan keeps (segments take 128 bytes each);
 * beyond, the TABLE mode runs (16 bytes per channel). */
#define MAX_WINDOWS (1 << 20)
#define MAX_SEGS    (1 << 16)

/* Windows, segments and kernel of a PERMUTE plan; LG_UNIMPLEMENTED when they
 * would take too much memory. */
static lg_status plan_permute(lg__shuf_plan *p, int64_t R, int64_t g) {
    int64_t wpr = (p->m * R + p->W - 1) / p->W;
    if (p->padC / R * wpr > MAX_WINDOWS) return LG_UNIMPLEMENTED;
    p->nwin = (int)(p->padC / R * wpr);
    p->win = lg__calloc((size_t)p->nwin, sizeof *p->win);
    if (!p->win) return LG_OUT_OF_MEMORY;
    int nseg;
    build_windows(p, R, g, 0, &nseg);
    if (nseg > MAX_SEGS) return LG_UNIMPLEMENTED;
    p->seg = lg__aligned_alloc(64, (size_t)(nseg > 0 ? nseg : 1) * sizeof *p->seg);
    if (!p->seg) return LG_OUT_OF_MEMORY;
    bool paired = build_windows(p, R, g, 1, &nseg);
    p->chunk_fn = p->vec == LG_SHUF_XMM_B || p->vec == LG_SHUF_YMM_D ? lg__shuf_chunk_avx2
                                                                     : lg__shuf_chunk_avx512;
    /* Non-temporal stores need every window aligned to the vector. */
    int vb = p->W * p->esz;
    bool aligned = p->m * p->in_s * p->esz % vb == 0;
    for (int i = 0; i < p->nout; i++) aligned = aligned && p->os[i] * p->esz % vb == 0;
    for (int i = 0; i < p->nwin; i++) aligned = aligned && p->win[i].dst_off * p->esz % vb == 0;
    p->stream = p->stream && aligned;
    p->stream_align = vb;
    char group[24] = "";
    if (p->m > 1) snprintf(group, sizeof group, "x%lldpx", (long long)p->m);
    snprintf(p->impl, sizeof p->impl, "%s:%s%d%s%s", lg__isa_name(p->isa),
             p->padC > R ? "blocked" : "innermost", p->W, group, paired ? ":pairs" : "");
    return LG_OK;
}

/* Tiles (shuffle.h) for a dense innermost axis under AVX-512 (ZMM_D, ZMM_W),
 * one pixel per window group. With A = C/G rows and B = G columns, dst
 * channel u + v * A holds src channel u * B + v. Two shapes:
 *  - k = B | W and W | A: a tile is k source vectors in a row (W rows of
 *    the matrix); output window v takes column v of those rows;
 *  - k = A | W and W | B: a tile is k source vectors B apart (columns
 *    [t W, t W + W) of every row); its k windows are the W x k block of
 *    dst those columns make.
 * The lane tables are built for tile 0 from lg__shuffle_src_channel and
 * then checked on every tile, so a tile plan is right by construction or
 * not made. Returns LG_UNIMPLEMENTED when no shape fits (the windows
 * stay), LG_OUT_OF_MEMORY. */
static lg_status plan_tiles(lg__shuf_plan *p, int64_t g) {
    const int64_t C = p->C, W = p->W, A = C / g, B = g;
    if ((p->vec != LG_SHUF_ZMM_D && p->vec != LG_SHUF_ZMM_W) || p->m != 1 || p->padC != C)
        return LG_UNIMPLEMENTED;
    for (int64_t c = 0; c < C; c++)
        if (p->doff[c] != c) return LG_UNIMPLEMENTED;
    int64_t k, nt, ts, is, td, jd;
    if ((B == 2 || B == 4 || B == 8) && A % W == 0)
        k = B, nt = A / W, ts = k * W, is = W, td = W, jd = A;
    else if ((A == 2 || A == 4 || A == 8) && B % W == 0)
        k = A, nt = B / W, ts = W, is = B, td = k * W, jd = W;
    else
        return LG_UNIMPLEMENTED;
    /* Tile 0's lanes: the source (j) and lane each window lane reads. */
    int8_t src_j[8][32], src_l[8][32];
    for (int64_t w = 0; w < k; w++)
        for (int64_t l = 0; l < W; l++) {
            int64_t cs = lg__shuffle_src_channel(w * jd + l, C, g), j = 0;
            while (j < k && !(cs >= j * is && cs < j * is + W)) j++;
            if (j == k) return LG_UNIMPLEMENTED;
            src_j[w][l] = (int8_t)j;
            src_l[w][l] = (int8_t)(cs - j * is);
        }
    for (int64_t t = 1; t < nt; t++)
        for (int64_t w = 0; w < k; w++)
            for (int64_t l = 0; l < W; l++)
                if (lg__shuffle_src_channel(t * td + w * jd + l, C, g) !=
                    t * ts + src_j[w][l] * is + src_l[w][l])
                    return LG_UNIMPLEMENTED;
    lg__shuf_win *win = lg__calloc((size_t)k, sizeof *win);
    lg__shuf_seg *seg = lg__aligned_alloc(64, (size_t)(k * k / 2) * sizeof *seg);
    if (!win || !seg) {
        lg__free(win);
        lg__free(seg);
        return LG_OUT_OF_MEMORY;
    }
    memset(seg, 0, (size_t)(k * k / 2) * sizeof *seg);
    for (int64_t w = 0; w < k; w++) {
        win[w].dst_off = w * jd;
        win[w].seg0 = (int32_t)(w * k / 2);
        win[w].nseg = -(int32_t)(k / 2);
        for (int64_t l = 0; l < W; l++) {
            int j = src_j[w][l];
            lg__shuf_seg *sg = &seg[w * k / 2 + j / 2];
            sg->src_off = (j & ~1) * is;
            sg->src_off2 = (j | 1) * is;
            put_lane(p->vec, p->esz, sg->idx, (int)l, src_l[w][l] + (j & 1) * W, true);
            sg->mask |= 1ull << l;
        }
    }
    lg__free(p->win);
    lg__free(p->seg);
    p->win = win;
    p->seg = seg;
    p->nwin = (int)k;
    p->tile_k = (int)k;
    p->ntiles = nt;
    p->tile_src = ts;
    p->tile_is = is;
    p->tile_dst = td;
    int64_t ps = p->in_s * p->esz; /* bytes from one pixel to the next */
    p->tile_pf = p->stream && ps > 0 ? (TILE_PF_BYTES + ps - 1) / ps * ps : 0;
    p->chunk_fn = lg__shuf_tile_avx512;
    snprintf(p->impl, sizeof p->impl, "%s:innermost%d:tile%d", lg__isa_name(p->isa), p->W, (int)k);
    return LG_OK;
}

void lg__shuffle_plan_free(lg__shuf_plan *p) {
    if (!p) return;
    lg__free(p->doff);
    lg__free(p->soff);
    lg__free(p->win);
    lg__free(p->seg);
    lg__shuffle_plan_layouts_free(p->lplan);
    lg__free(p);
}

/* The outer pixel vdims rest[0..nr) and the units of the mode: PERMUTE
 * units are chunks of whole window groups (m pixels of `in`; only a row's
 * last chunk may end in a partial group, whose pixels run through the
 * tables); the others one (outer pixel, channel) each. */
static void set_units(lg__shuf_plan *p, const vdim *rest, int nr) {
    p->nout = nr;
    int64_t outer = 1;
    for (int i = 0; i < nr; i++) {
        p->on[i] = rest[i].n;
        p->os[i] = rest[i].s;
        outer *= rest[i].n;
    }
    if (p->mode != LG_SHUF_PERMUTE) {
        p->units = outer * p->padC;
        return;
    }
    int64_t per_pixel = p->padC * p->esz;
    p->chunk = CHUNK_BYTES / per_pixel / p->m * p->m;
    if (p->chunk < MIN_CHUNK * p->m) p->chunk = MIN_CHUNK * p->m;
    if (p->chunk > p->in_n) p->chunk = p->in_n;
    p->nchunks = (p->in_n + p->chunk - 1) / p->chunk;
    p->units = outer * p->nchunks;
}

lg_status lg__shuffle_plan(const lg__shuffle_pd *pd, lg__isa isa, lg__shuf_plan **out) {
    *out = NULL;
    const lg_md *md = &pd->src;
    int a = pd->axis;
    lg__shuf_plan *p = lg__calloc(1, sizeof *p);
    if (!p) return LG_OUT_OF_MEMORY;
    p->isa = isa;
    if (memcmp(&pd->src, &pd->dst, sizeof pd->src) != 0) { /* different layouts */
        p->mode = LG_SHUF_LAYOUTS;
        lg_status st = lg__shuffle_plan_layouts(pd, &p->lplan);
        if (st != LG_OK) {
            lg__shuffle_plan_free(p);
            return st;
        }
        snprintf(p->impl, sizeof p->impl, "%s", p->lplan->impl);
        *out = p;
        return LG_OK;
    }
    p->esz = (int)lg_dtype_size(md->dtype);
    p->C = md->dims[a];
    p->padC = md->padded_dims[a];
    p->base = md->offset0;
    p->in_n = 1;
    p->L = 1;
    p->m = 1;
    snprintf(p->impl, sizeof p->impl, "table");
    if (lg__md_nelems(md) == 0) { /* nothing to do: zero units */
        p->mode = LG_SHUF_TABLE;
        *out = p;
        return LG_OK;
    }
    if (p->padC > MAX_TABLE_CHANNELS) { /* the reference needs no table */
        lg__shuffle_plan_free(p);
        return LG_UNIMPLEMENTED;
    }
    int64_t g = lg__shuffle_group(pd);
    p->doff = lg__calloc((size_t)p->padC, sizeof *p->doff); /* calloc: no size overflow */
    p->soff = lg__calloc((size_t)p->C, sizeof *p->soff);
    if (!p->doff || !p->soff) {
        lg__shuffle_plan_free(p);
        return LG_OUT_OF_MEMORY;
    }
    int64_t idx[LG_MAX_NDIMS] = {0};
    for (int64_t c = 0; c < p->padC; c++) {
        idx[a] = c;
        p->doff[c] = lg__md_off(md, idx) - md->offset0;
    }
    for (int64_t c = 0; c < p->C; c++) p->soff[c] = p->doff[lg__shuffle_src_channel(c, p->C, g)];

    /* The pixel space: the other dims' vdims, sorted, contiguous ones merged. */
    vdim rest[LG_SHUF_MAXV], chan[LG_SHUF_MAXV];
    int nr = 0, nc = dim_vdims(md, a, chan, 0);
    for (int d = 0; d < md->ndims; d++)
        if (d != a) nr = dim_vdims(md, d, rest, nr);
    sort_desc(rest, nr);
    int m = 0;
    for (int i = 0; i < nr; i++) {
        if (m > 0 && rest[m - 1].s == rest[i].n * rest[i].s)
            rest[m - 1] = (vdim){rest[m - 1].n * rest[i].n, rest[i].s};
        else
            rest[m++] = rest[i];
    }
    nr = m;
    int64_t R = 0; /* the axis's stride-1 run, if any */
    for (int i = 0; i < nc; i++)
        if (chan[i].s == 1) R = chan[i].n;

    int64_t dbytes = lg__md_nelems_padded(md) * p->esz; /* fits: the md is valid */
    p->bytes = lg__sat_add(dbytes, dbytes);
    p->stream = dbytes >= STREAM_BYTES;
    p->stream_align = 1;
    lg_status st = LG_UNIMPLEMENTED;
    if (nr > 0 && rest[nr - 1].s == 1) {
        /* PLANES: the stride-1 run is a pixel dim; copy it whole. */
        p->mode = LG_SHUF_PLANES;
        p->L = rest[nr - 1].n;
        set_units(p, rest, nr - 1);
        p->stream = false; /* plain stores: see planes.c */
        snprintf(p->impl, sizeof p->impl, "planes");
        st = LG_OK;
    } else if (R > 0 && pick_vec(isa, p->esz, R, nr > 0 ? rest[nr - 1].n : 1,
                                 nr > 0 ? rest[nr - 1].s : 0, &p->vec, &p->W, &p->m)) {
        p->mode = LG_SHUF_PERMUTE;
        if (nr > 0) {
            p->in_n = rest[nr - 1].n;
            p->in_s = rest[nr - 1].s;
        }
        set_units(p, rest, nr > 0 ? nr - 1 : 0);
        st = plan_permute(p, R, g);
        if (st == LG_OK) {
            lg_status tst = plan_tiles(p, g);
            if (tst == LG_OUT_OF_MEMORY) st = tst;
        }
        if (st == LG_OUT_OF_MEMORY) {
            lg__shuffle_plan_free(p);
            return st;
        }
    }
    if (st != LG_OK) { /* TABLE: everything else */
        lg__free(p->win);
        lg__free(p->seg);
        p->win = NULL, p->seg = NULL;
        p->mode = LG_SHUF_TABLE;
        p->m = 1, p->in_n = 1, p->in_s = 0;
        set_units(p, rest, nr);
        p->stream = false;
    }
    *out = p;
    return LG_OK;
}
