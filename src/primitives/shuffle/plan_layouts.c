/* The layout-changing shuffle's plan and driver (see plan_layouts.h for
 * the model). */
#include "primitives/shuffle/shuffle.h"
#include "primitives/shuffle/plan_layouts.h"

#include <omp.h>
#include <string.h>

/* Bytes moved (read + written) from which a problem runs on all threads
 * (as the plain shuffle: below that, waking a team costs more). */
#define PAR_BYTES (192 * 1024)

void lg__shuffle_plan_layouts_free(lg__shuf_lplan *p) {
    if (!p) return;
    lg__free(p->mem);
    lg__free(p->contig);
    lg__free(p);
}

/* Offset (from offset0) of index i on dim d alone. */
static int64_t dim_off(const lg_md *md, int d, int64_t i) {
    int64_t idx[LG_MAX_NDIMS] = {0};
    idx[d] = i;
    return lg__md_off(md, idx) - md->offset0;
}

/* dst's stride-1 run on dim d: the largest r such that every aligned chunk
 * of r indices is stride 1 (1 if none; r divides pdims[d]). */
static int64_t dst_run(const lg__shuf_lplan *p, int d) {
    const int64_t *t = p->td[d], n = p->pdims[d];
    int64_t r = 1;
    while (r < n && t[r] == t[0] + r) r++;
    if (r < 2 || n % r != 0) return 1;
    for (int64_t k = 0; k < n; k += r)
        for (int64_t j = 1; j < r; j++)
            if (t[k + j] != t[k] + j) return 1;
    return r;
}

/* Pick `in`, its run and the outer loops (see plan_layouts.h). */
static void plan_loops(lg__shuf_lplan *p) {
    p->in = p->nd - 1;
    p->R = 1;
    for (int d = 0; d < p->nd; d++) {
        int64_t r = dst_run(p, d);
        if (r > p->R) p->in = d, p->R = r;
    }
    p->dst_run = p->R > 1;
    if (!p->dst_run) { /* no stride-1 dst run: walk the dim of smallest step whole */
        int64_t best = -1;
        for (int d = 0; d < p->nd; d++) {
            int64_t s = p->pdims[d] > 1 ? p->td[d][1] - p->td[d][0] : -1;
            if (s > 0 && (best < 0 || s < best)) best = s, p->in = d;
        }
        p->R = p->pdims[p->in];
    }
    int64_t stride[LG_MAX_NDIMS];
    p->nloop = 0;
    for (int d = 0; d < p->nd; d++) {
        int64_t n = d == p->in ? p->pdims[d] / p->R : p->pdims[d];
        if (n <= 1) continue;
        int64_t s = d == p->in ? p->td[d][p->R] - p->td[d][0] : p->td[d][1] - p->td[d][0];
        int k = p->nloop++;
        for (; k > 0 && stride[k - 1] < s; k--) { /* insertion: largest stride first */
            stride[k] = stride[k - 1];
            p->loop_dim[k] = p->loop_dim[k - 1];
            p->loop_n[k] = p->loop_n[k - 1];
        }
        stride[k] = s;
        p->loop_dim[k] = d;
        p->loop_n[k] = n;
    }
    p->units = 1;
    for (int i = 0; i < p->nloop; i++) p->units *= p->loop_n[i];
}

lg_status lg__shuffle_plan_layouts(const lg__shuffle_pd *pd, lg__shuf_lplan **out) {
    *out = NULL;
    const lg_md *sm = &pd->src, *dm = &pd->dst;
    lg__shuf_lplan *p = lg__calloc(1, sizeof *p);
    if (!p) return LG_OUT_OF_MEMORY;
    p->esz = (int)lg_dtype_size(dm->dtype);
    p->nd = dm->ndims;
    p->dbase = dm->offset0;
    p->sbase = sm->offset0;
    snprintf(p->impl, sizeof p->impl, "ex:empty");
    if (lg__md_nelems(dm) == 0) { /* nothing to do: zero units */
        *out = p;
        return LG_OK;
    }
    int64_t total = 0;
    for (int d = 0; d < p->nd; d++) {
        p->dims[d] = dm->dims[d];
        p->pdims[d] = dm->padded_dims[d];
        total += p->dims[d] + p->pdims[d];
    }
    p->mem = lg__calloc((size_t)total, sizeof *p->mem);
    if (!p->mem) {
        lg__shuffle_plan_layouts_free(p);
        return LG_OUT_OF_MEMORY;
    }
    int64_t *m = p->mem, a = pd->axis, C = p->dims[a], g = lg__shuffle_group(pd);
    for (int d = 0; d < p->nd; d++) {
        p->td[d] = m, m += p->pdims[d];
        p->ts[d] = m, m += p->dims[d];
        for (int64_t i = 0; i < p->pdims[d]; i++) p->td[d][i] = dim_off(dm, d, i);
        for (int64_t i = 0; i < p->dims[d]; i++)
            p->ts[d][i] = dim_off(sm, d, d == a ? lg__shuffle_src_channel(i, C, g) : i);
    }
    plan_loops(p);
    int64_t nruns = p->pdims[p->in] / p->R, cont = 0;
    p->contig = lg__calloc((size_t)nruns, 1);
    if (!p->contig) {
        lg__shuffle_plan_layouts_free(p);
        return LG_OUT_OF_MEMORY;
    }
    const int64_t *td = p->td[p->in], *ts = p->ts[p->in];
    for (int64_t k = 0; k < nruns; k++) {
        int64_t c0 = k * p->R, nv = p->dims[p->in] - c0 < p->R ? p->dims[p->in] - c0 : p->R;
        bool ok = p->dst_run && nv > 1;
        for (int64_t j = 1; ok && j < nv; j++)
            ok = ts[c0 + j] == ts[c0] + j && td[c0 + j] == td[c0] + j;
        p->contig[k] = ok;
        cont += ok;
    }
    int64_t dbytes = lg__md_nelems_padded(dm) * p->esz; /* fits: the md is valid */
    p->bytes = lg__sat_add(dbytes, dbytes);
    snprintf(p->impl, sizeof p->impl, "ex:%s%lld", cont == nruns ? "runs" : "gather",
             (long long)p->R);
    *out = p;
    return LG_OK;
}

/* Gather n elements: d[td[j]] = s[ts[j]] (offsets in elements). */
#define GATHER(T)                                                                                  \
    for (int64_t j = 0; j < n; j++) {                                                              \
        T v;                                                                                       \
        memcpy(&v, s + ts[j] * (int64_t)sizeof(T), sizeof(T));                                     \
        memcpy(d + td[j] * (int64_t)sizeof(T), &v, sizeof(T));                                     \
    }
static void gather(int esz, const char *s, char *d, const int64_t *ts, const int64_t *td,
                   int64_t n) {
    switch (esz) {
    case 1:
        GATHER(uint8_t);
        break;
    case 2:
        GATHER(uint16_t);
        break;
    default:
        GATHER(uint32_t);
        break;
    }
}

/* Zero n elements at d + td[j]. */
static void zero_at(int esz, char *d, const int64_t *td, int64_t n, bool run) {
    if (run) {
        if (n > 0) memset(d + td[0] * esz, 0, (size_t)(n * esz));
        return;
    }
    for (int64_t j = 0; j < n; j++) memset(d + td[j] * esz, 0, (size_t)esz);
}

/* Runs [lo, hi): an odometer over the outer loops. */
static void run(const lg__shuf_lplan *p, const char *src, char *dst, int64_t lo, int64_t hi) {
    int64_t pos[LG_MAX_NDIMS], u = lo;
    for (int i = p->nloop - 1; i >= 0; i--) {
        pos[i] = u % p->loop_n[i];
        u /= p->loop_n[i];
    }
    const int esz = p->esz, in = p->in;
    for (; lo < hi; lo++) {
        int64_t idx[LG_MAX_NDIMS] = {0};
        for (int i = 0; i < p->nloop; i++) idx[p->loop_dim[i]] = pos[i];
        int64_t k = idx[in], c0 = k * p->R, doff = p->dbase, soff = p->sbase;
        bool pad = false;
        for (int d = 0; d < p->nd; d++) {
            if (d == in) continue;
            doff += p->td[d][idx[d]];
            if (idx[d] >= p->dims[d])
                pad = true;
            else
                soff += p->ts[d][idx[d]];
        }
        const int64_t *td = p->td[in] + c0, *ts = p->ts[in] + c0;
        int64_t nv = pad ? 0 : p->dims[in] - c0 < p->R ? p->dims[in] - c0 : p->R;
        if (nv < 0) nv = 0;
        char *d = dst + doff * esz;
        if (nv > 0 && p->contig[k])
            memcpy(d + td[0] * esz, src + (soff + ts[0]) * esz, (size_t)(nv * esz));
        else if (nv > 0)
            gather(esz, src + soff * esz, d, ts, td, nv);
        if (nv < p->R) zero_at(esz, d, td + nv, p->R - nv, p->dst_run);
        for (int i = p->nloop - 1; i >= 0; i--) { /* next run */
            if (++pos[i] < p->loop_n[i]) break;
            pos[i] = 0;
        }
    }
}

void lg__shuffle_exec_layouts(const lg__shuf_lplan *p, const void *src, void *dst) {
    int64_t total = p->units;
    if (total == 0 || !p->mem) return;
    int nthr = p->bytes >= PAR_BYTES && !omp_in_parallel() ? omp_get_max_threads() : 1;
    if (nthr > total) nthr = (int)total;
    if (nthr <= 1) {
        run(p, src, dst, 0, total);
        return;
    }
#pragma omp parallel num_threads(nthr)
    {
        int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
        run(p, src, dst, total * t / nt, total * (t + 1) / nt);
    }
}
