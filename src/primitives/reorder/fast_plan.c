/* Normalisation of a reorder problem into jobs of loop dims (see fast_plan.h).
 *
 * Per logical dim d, each layout decomposes an index x into mixed-radix
 * digits: its inner blocks on d (the last listed is the least significant)
 * and the outer part x / B[d]. The boundaries of both layouts (the products
 * 1 = u0 < u1 < ... < uM of the block sizes, from the inside) must form a
 * divisibility chain, or we decline the problem; they cut d into pieces:
 * piece j < M is digit (x / u_j) % (u_{j+1} / u_j), piece M is x / u_M. Each
 * piece is a loop dim whose stride in either layout follows from the level
 * of that layout it lies in, and whose stride in an attribute array is
 * u_j times the row-major weight of d in the attribute's mask.
 *
 * A range of indices [a, b) of one dim is a union of boxes over its pieces
 * (decompose()); the data is the product over dims of [0, dims), the dst
 * padding the product-shaped regions of the padded box outside the dims. */
#include "primitives/reorder/fast_plan.h"

#include <string.h>

/* Most pieces per dim we handle (more means a pathological layout, which
 * we decline), and the boxes a range may split into: at most two per level. */
#define MAXLVL 8
#define MAXBOX (2 * MAXLVL)
/* Jobs beyond this count mean a pathological problem: decline it. */
#define MAXJOBS 1024
/* Parallel units we aim for, and the largest unit we want (elements). */
#define TARGET_UNITS   64
#define MAX_UNIT_ELEMS 65536

/* A layout's levels on one dim: level i < m covers digits of weight c[i]
 * (block extent c[i + 1] / c[i]) with stride st[i]; level m is the outer
 * part, weight c[m] = B[d], stride strides[d]. */
typedef struct levels {
    int m;
    int64_t c[LG_MAX_NDIMS + 1], st[LG_MAX_NDIMS + 1];
} levels;

/* The combined pieces of one dim: weights u[0..M] (u[0] = 1). */
typedef struct radix {
    int M;
    int64_t u[2 * LG_MAX_NDIMS + 1];
} radix;

/* One box of one dim: per piece, the first digit and the digit count. */
typedef struct box {
    int64_t start[MAXLVL], ext[MAXLVL];
} box;

typedef struct boxes {
    int n;
    box b[MAXBOX];
} boxes;

static void layout_levels(const lg_md *md, int d, levels *L) {
    int64_t mult = 1;
    L->m = 0;
    L->c[0] = 1;
    for (int k = md->blocking.inner_nblks - 1; k >= 0; k--) {
        int64_t b = md->blocking.inner_blks[k];
        if (md->blocking.inner_idxs[k] == d && b > 1) {
            L->st[L->m] = mult;
            L->c[L->m + 1] = L->c[L->m] * b;
            L->m++;
        }
        mult *= b;
    }
    L->st[L->m] = md->blocking.strides[d];
}

/* Stride, in layout L, of the piece whose digits weigh u (u a multiple of
 * the weight of the level it lies in, which nesting guarantees). */
static int64_t level_stride(const levels *L, int64_t u) {
    int i = L->m;
    while (i > 0 && L->c[i] > u) i--;
    return L->st[i] * (u / L->c[i]);
}

/* Merge the boundaries of the given layouts into a chain; false if they do
 * not nest (or make more than MAXLVL pieces). */
static bool make_radix(const levels *a, const levels *b, radix *r) {
    int64_t all[2 * LG_MAX_NDIMS + 1];
    int n = 0;
    for (int i = 0; i <= a->m; i++) all[n++] = a->c[i];
    if (b)
        for (int i = 1; i <= b->m; i++) all[n++] = b->c[i];
    for (int i = 1; i < n; i++) /* insertion sort, then unique */
        for (int k = i; k > 0 && all[k - 1] > all[k]; k--) {
            int64_t t = all[k];
            all[k] = all[k - 1];
            all[k - 1] = t;
        }
    r->M = 0;
    r->u[0] = 1;
    for (int i = 1; i < n; i++) {
        if (all[i] == r->u[r->M]) continue;
        if (all[i] % r->u[r->M] != 0) return false;
        r->u[++r->M] = all[i];
    }
    return r->M < MAXLVL;
}

/* Append to out the boxes covering [a, b) at `level` and below; a and b are
 * offsets inside the current digit of the level above (whose digits are
 * already in *cur). Each box has the digits above `level` fixed, one range
 * of digits at its own level and every lower level full. */
static void decompose(const radix *r, int level, int64_t a, int64_t b, box *cur, boxes *out) {
    if (a >= b) return;
    int64_t w = r->u[level];
    int64_t qa = a / w, ra = a % w, qb = b / w, rb = b % w;
    if (qa == qb) {
        cur->start[level] = qa;
        cur->ext[level] = 1;
        decompose(r, level - 1, ra, rb, cur, out);
        return;
    }
    if (ra) {
        cur->start[level] = qa;
        cur->ext[level] = 1;
        decompose(r, level - 1, ra, w, cur, out);
        qa++;
    }
    if (qa < qb) {
        box *o = &out->b[out->n++];
        *o = *cur;
        o->start[level] = qa;
        o->ext[level] = qb - qa;
        for (int l = 0; l < level; l++) {
            o->start[l] = 0;
            o->ext[l] = r->u[l + 1] / r->u[l];
        }
    }
    if (rb) {
        cur->start[level] = qb;
        cur->ext[level] = 1;
        decompose(r, level - 1, 0, rb, cur, out);
    }
}

/* Row-major weight of dim d in an attribute array of `mask` (0 if d is not
 * in the mask or there is no such attribute). */
static int64_t mask_weight(const lg_md *md, int32_t mask, int d) {
    if (mask < 0 || !(mask & (1 << d))) return 0;
    int64_t w = 1;
    for (int e = d + 1; e < md->ndims; e++)
        if (mask & (1 << e)) w *= md->dims[e];
    return w;
}

/* Everything about one dim the job builder needs. */
typedef struct dim_info {
    radix r;
    levels src, dst;
    int64_t aw[LG_RF_NARR]; /* attribute weights (src/dst entries unused) */
} dim_info;

/* Strides of piece `level` of dim di, per array; `data` says whether the src
 * and the attributes take part. */
static void piece_strides(const dim_info *di, int level, bool data, int64_t *st) {
    int64_t u = di->r.u[level];
    st[LG_RF_DST] = level_stride(&di->dst, u);
    st[LG_RF_SRC] = data ? level_stride(&di->src, u) : 0;
    for (int k = LG_RF_SS; k < LG_RF_NARR; k++) st[k] = data ? u * di->aw[k] : 0;
}

/* Sort loop dims by decreasing dst stride (then src stride) and merge the
 * neighbours that are contiguous on every array. Returns the new count. */
static int sort_merge(lg__rf_dim *L, int n) {
    for (int i = 1; i < n; i++)
        for (int k = i; k > 0; k--) {
            const lg__rf_dim *a = &L[k - 1], *b = &L[k];
            bool swap =
                b->st[LG_RF_DST] > a->st[LG_RF_DST] ||
                (b->st[LG_RF_DST] == a->st[LG_RF_DST] && b->st[LG_RF_SRC] > a->st[LG_RF_SRC]);
            if (!swap) break;
            lg__rf_dim t = L[k];
            L[k] = L[k - 1];
            L[k - 1] = t;
        }
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (m > 0) {
            lg__rf_dim *o = &L[m - 1];
            bool merge = true;
            for (int k = 0; k < LG_RF_NARR; k++) merge = merge && o->st[k] == L[i].st[k] * L[i].n;
            if (merge) {
                o->n *= L[i].n;
                memcpy(o->st, L[i].st, sizeof o->st);
                continue;
            }
        }
        L[m++] = L[i];
    }
    return m;
}

static int64_t ceil_div(int64_t a, int64_t b) {
    return (a + b - 1) / b;
}

/* The dim (index into L, not skip) that continues row dim `in` on array
 * `arr` (its stride there is in->n), or -1. */
static int continuation(const lg__rf_dim *L, int n, const lg__rf_dim *in, int arr, int skip) {
    for (int i = n - 1; i >= 0; i--)
        if (i != skip && L[i].st[arr] == in->n) return i;
    return -1;
}

/* Choose the job's kernel, kernel dims and parallel units from its sorted,
 * merged loop dims L[0..n) (outermost first); dsz is dst's element size. */
static void finish_job(lg__rf_job *j, lg__rf_dim *L, int n, bool data, int dsz) {
    static const lg__rf_dim unit = {1, {0}};
    if (n == 0) L[n++] = unit;
    const lg__rf_dim *in = &L[n - 1];
    int pick[3] = {n - 1, n - 2, n - 3}; /* indices into L of kd[0..2], -1: none */
    if (!data)
        j->kind = LG_RF_ZERO;
    else if (in->st[LG_RF_DST] == 1 && in->st[LG_RF_SRC] == 1) {
        j->kind = LG_RF_COPY;
        /* The dim run just outside the rows: rows shorter than a cache line
         * continue along dst, so that whole lines are written at once;
         * longer ones along src, so that src is read sequentially (writing
         * several sequential dst streams costs less than reading with a
         * stride: measured 3x on nhwc -> nChw16c). */
        int c = continuation(L, n, in, in->n * dsz < 64 ? LG_RF_DST : LG_RF_SRC, n - 1);
        if (c >= 0) {
            pick[1] = c;
            pick[2] = -1;
            for (int i = n - 2; i >= 0 && pick[2] < 0; i--)
                if (i != c) pick[2] = i;
        }
    } else {
        int b = -1;
        for (int i = 0; i < n - 1; i++)
            if (L[i].st[LG_RF_SRC] == 1) b = i;
        if (in->st[LG_RF_DST] == 1 && b >= 0) {
            j->kind = LG_RF_TRANS;
            pick[1] = b;
            pick[2] = -1;
            for (int i = n - 2; i >= 0 && pick[2] < 0; i--)
                if (i != b) pick[2] = i;
        } else {
            j->kind = LG_RF_GENERIC;
        }
    }
    for (int k = 0; k < 3; k++) j->kd[k] = pick[k] >= 0 ? L[pick[k]] : unit;
    /* A short B run (like the 3x3 of a convolution's weights) that kd[2]
     * continues in src is walked as one flat run, so that tiles are full. */
    j->bflat = j->kind == LG_RF_TRANS && j->kd[2].n > 1 && j->kd[1].n % 16 != 0 &&
               j->kd[1].n < 64 && j->kd[2].st[LG_RF_SRC] == j->kd[1].n;
    j->nouter = 0;
    for (int i = 0; i < n; i++)
        if (i != pick[0] && i != pick[1] && i != pick[2]) j->outer[j->nouter++] = L[i];

    int64_t nout = 1, elems = 1;
    for (int i = 0; i < j->nouter; i++) nout *= j->outer[i].n;
    for (int k = 0; k < 3; k++) elems *= j->kd[k].n;
    int c = 2;
    while (c > 0 && j->kd[c].n == 1) c--;
    /* Chunks stay whole tiles (transposes) or long runs (row copies). */
    int64_t gran = j->kind == LG_RF_TRANS && c < 2 ? 16 : (c == 0 ? 1024 : 1);
    int64_t ext = j->kd[c].n;
    int64_t want = ceil_div(TARGET_UNITS, nout);
    if (ceil_div(elems, MAX_UNIT_ELEMS) > want) want = ceil_div(elems, MAX_UNIT_ELEMS);
    int64_t maxch = ceil_div(ext, gran);
    int64_t nch = want < maxch ? want : maxch;
    int64_t chunk = ceil_div(ceil_div(ext, nch), gran) * gran;
    if (chunk > ext) chunk = ext;
    j->cdim = c;
    j->chunk = chunk;
    j->nchunks = ceil_div(ext, chunk);
    j->units = nout * j->nchunks;
    j->unit_cost = elems / ext * chunk;
}

/* Builds the jobs of the regions, each the product over dims of ranges
 * [lo[d], hi[d]), in the radices of info. With jobs NULL it only counts. */
typedef struct builder {
    const lg__reorder_pd *pd;
    dim_info info[LG_MAX_NDIMS];
    lg__rf_job *jobs;
    int64_t njobs;
} builder;

static lg_status add_region(builder *bd, const radix *rad, const int64_t *lo, const int64_t *hi,
                            bool data) {
    const lg_md *s = &bd->pd->src, *d = &bd->pd->dst;
    int nd = d->ndims;
    boxes bx[LG_MAX_NDIMS];
    int64_t count = 1;
    for (int k = 0; k < nd; k++) {
        box cur;
        memset(&cur, 0, sizeof cur);
        bx[k].n = 0;
        decompose(&rad[k], rad[k].M, lo[k], hi[k], &cur, &bx[k]);
        count *= bx[k].n;
        if (count == 0) return LG_OK;
        if (bd->njobs + count > MAXJOBS) return LG_UNIMPLEMENTED;
    }
    if (!bd->jobs) {
        bd->njobs += count;
        return LG_OK;
    }
    int sel[LG_MAX_NDIMS] = {0};
    for (;;) {
        lg__rf_job *j = &bd->jobs[bd->njobs++];
        memset(j, 0, sizeof *j);
        lg__rf_dim L[LG_RF_MAXD];
        int n = 0;
        j->base[LG_RF_DST] = d->offset0;
        j->base[LG_RF_SRC] = data ? s->offset0 : 0;
        for (int k = 0; k < nd; k++) {
            const box *b = &bx[k].b[sel[k]];
            dim_info di = bd->info[k];
            di.r = rad[k];
            for (int l = 0; l <= rad[k].M; l++) {
                int64_t st[LG_RF_NARR];
                piece_strides(&di, l, data, st);
                for (int a = 0; a < LG_RF_NARR; a++) j->base[a] += b->start[l] * st[a];
                if (b->ext[l] > 1) {
                    L[n].n = b->ext[l];
                    memcpy(L[n].st, st, sizeof st);
                    n++;
                }
            }
        }
        n = sort_merge(L, n);
        finish_job(j, L, n, data, (int)lg_dtype_size(d->dtype));
        int k = nd - 1;
        while (k >= 0 && ++sel[k] == bx[k].n) sel[k--] = 0;
        if (k < 0) break;
    }
    return LG_OK;
}

/* The shape of a job's set of dst rows: its dims other than kd[0] as
 * (extent, dst stride), merged where contiguous in dst. Returns the count. */
static int row_shape(const lg__rf_job *j, lg__rf_dim *L) {
    int n = 0;
    for (int i = 0; i < j->nouter + 2; i++) {
        const lg__rf_dim *d = i < j->nouter ? &j->outer[i] : &j->kd[i - j->nouter + 1];
        if (d->n == 1) continue;
        memset(&L[n], 0, sizeof L[n]);
        L[n].n = d->n;
        L[n].st[LG_RF_DST] = d->st[LG_RF_DST];
        n++;
    }
    return sort_merge(L, n);
}

/* Fold each zero job that continues the rows of a COPY or TRANS job in dst
 * (same rows, starting right after them) into that job as its apad. */
static void absorb_padding(lg__rf_job *jobs, int64_t *njobs) {
    int64_t n = *njobs, m = 0;
    for (int64_t z = 0; z < n; z++) {
        const lg__rf_job *zj = &jobs[z];
        bool absorbed = false;
        for (int64_t k = 0; k < n && zj->kind == LG_RF_ZERO && !absorbed; k++) {
            lg__rf_job *dj = &jobs[k];
            if ((dj->kind != LG_RF_COPY && dj->kind != LG_RF_TRANS) || dj->apad || dj->cdim == 0 ||
                dj->kd[0].st[LG_RF_DST] != 1 || zj->kd[0].st[LG_RF_DST] != 1 ||
                zj->base[LG_RF_DST] != dj->base[LG_RF_DST] + dj->kd[0].n)
                continue;
            lg__rf_dim a[LG_RF_MAXD], b[LG_RF_MAXD];
            int na = row_shape(dj, a), nb = row_shape(zj, b);
            bool same = na == nb;
            for (int i = 0; i < na && same; i++)
                same = a[i].n == b[i].n && a[i].st[LG_RF_DST] == b[i].st[LG_RF_DST];
            if (!same) continue;
            dj->apad = zj->kd[0].n;
            dj->unit_cost = dj->unit_cost / dj->kd[0].n * (dj->kd[0].n + dj->apad);
            absorbed = true;
        }
        if (!absorbed) jobs[m++] = jobs[z];
    }
    *njobs = m;
}

/* The data region, then the padding regions: in the k-th, k is the first
 * coordinate (in dim order) past the dims. */
static lg_status add_regions(builder *bd, const radix *data_r, const radix *pad_r) {
    const lg_md *d = &bd->pd->dst;
    int nd = d->ndims;
    int64_t lo[LG_MAX_NDIMS], hi[LG_MAX_NDIMS];
    for (int k = 0; k < nd; k++) {
        lo[k] = 0;
        hi[k] = d->dims[k];
    }
    LG_CHECK(add_region(bd, data_r, lo, hi, true));
    for (int k = 0; k < nd; k++) {
        if (d->padded_dims[k] == d->dims[k]) continue;
        for (int e = 0; e < nd; e++) {
            lo[e] = 0;
            hi[e] = e < k ? d->dims[e] : d->padded_dims[e];
        }
        lo[k] = d->dims[k];
        LG_CHECK(add_region(bd, pad_r, lo, hi, false));
    }
    return LG_OK;
}

lg_status lg__rf_plan_build(const lg__reorder_pd *pd, lg__rf_plan *p) {
    const lg_md *s = &pd->src, *d = &pd->dst;
    int nd = d->ndims;
    p->jobs = NULL;
    p->njobs = 0;
    p->total_cost = 0;
    p->bytes = 0;
    if (s->format_kind != LG_FMT_BLOCKED || d->format_kind != LG_FMT_BLOCKED)
        return LG_UNIMPLEMENTED;
    p->sdt = s->dtype;
    p->ddt = d->dtype;
    p->ssz = (int)lg_dtype_size(s->dtype);
    p->dsz = (int)lg_dtype_size(d->dtype);
    p->copy = lg__reorder_is_copy(pd);
    p->has_ss = pd->src_scale_mask >= 0;
    p->has_ds = pd->dst_scale_mask >= 0;
    p->has_szp = pd->src_zp_mask >= 0;
    p->has_dzp = pd->dst_zp_mask >= 0;
    p->has_sum = pd->has_sum != 0;
    p->beta = pd->sum_beta;
    p->arith = p->has_ss || p->has_ds || p->has_szp || p->has_dzp || p->has_sum;
    if (lg__md_nelems(d) == 0) return LG_OK; /* the reference writes nothing */

    builder bd;
    bd.pd = pd;
    radix data_r[LG_MAX_NDIMS], pad_r[LG_MAX_NDIMS];
    for (int k = 0; k < nd; k++) {
        dim_info *di = &bd.info[k];
        layout_levels(s, k, &di->src);
        layout_levels(d, k, &di->dst);
        if (!make_radix(&di->src, &di->dst, &data_r[k]) || !make_radix(&di->dst, NULL, &pad_r[k]))
            return LG_UNIMPLEMENTED;
        di->aw[LG_RF_SS] = mask_weight(s, pd->src_scale_mask, k);
        di->aw[LG_RF_DS] = mask_weight(d, pd->dst_scale_mask, k);
        di->aw[LG_RF_SZP] = mask_weight(s, pd->src_zp_mask, k);
        di->aw[LG_RF_DZP] = mask_weight(d, pd->dst_zp_mask, k);
    }
    /* Two passes: count the jobs, then build them. */
    bd.jobs = NULL;
    lg_status st = LG_OK;
    for (int pass = 0; pass < 2 && st == LG_OK; pass++) {
        if (pass == 1) {
            bd.jobs = lg__malloc(sizeof(lg__rf_job) * (size_t)bd.njobs);
            if (!bd.jobs) return LG_OUT_OF_MEMORY;
        }
        bd.njobs = 0;
        st = add_regions(&bd, data_r, pad_r);
    }
    if (st != LG_OK) {
        lg__free(bd.jobs);
        return st;
    }
    absorb_padding(bd.jobs, &bd.njobs);
    p->jobs = bd.jobs;
    p->njobs = (int)bd.njobs;
    for (int i = 0; i < p->njobs; i++) p->total_cost += p->jobs[i].units * p->jobs[i].unit_cost;
    p->bytes = lg__sat_add(lg__md_nelems(s) * p->ssz, lg__md_nelems_padded(d) * p->dsz);
    return LG_OK;
}
