/* The inner product's scalar truth, its offset tables and the post-op chain
 * on one value. */
#include "primitives/ip/ip.h"

#include "primitives/layout.h"

#include <omp.h>
#include <string.h>

/* rows[i] = offset of index i along dim 0; cols[k] = offset of the k-th
 * row-major index over dims 1.. (both relative to index 0, which rows[0]
 * holds in full, offset0 included). */
static void fill(const lg_md *md, int64_t *rows, int64_t *cols) {
    int nd = md->ndims;
    int64_t idx[LG_MAX_NDIMS] = {0};
    int64_t base = lg__md_off(md, idx);
    for (int64_t i = 0; i < md->dims[0]; i++) {
        idx[0] = i;
        rows[i] = lg__md_off(md, idx);
    }
    idx[0] = 0;
    int64_t k = 0;
    for (;;) {
        cols[k++] = lg__md_off(md, idx) - base;
        int d = nd - 1;
        while (d >= 1 && ++idx[d] == md->dims[d]) idx[d--] = 0;
        if (d < 1) break;
    }
}

lg_status lg__ip_tabs_init(const lg__ip_pd *pd, lg__ip_tabs *t) {
    memset(t, 0, sizeof *t);
    int64_t n = pd->src.dims[0], oc = pd->dst.dims[1];
    int64_t k = lg__md_nelems(&pd->src) / n;
    size_t total = (size_t)(2 * n + 2 * k + 2 * oc + 1);
    t->raw = lg__malloc(total * sizeof *t->raw);
    if (!t->raw) return LG_OUT_OF_MEMORY;
    t->src_n = t->raw;
    t->src_k = t->src_n + n;
    t->wei_o = t->src_k + k;
    t->wei_k = t->wei_o + oc;
    t->dst_n = t->wei_k + k;
    t->dst_o = t->dst_n + n;
    fill(&pd->src, t->src_n, t->src_k);
    fill(&pd->wei, t->wei_o, t->wei_k);
    fill(&pd->dst, t->dst_n, t->dst_o);
    if (lg__md_has_padding(&pd->dst)) {
        t->padtab = lg__offtab_new(&pd->dst, pd->dst.padded_dims, false);
        if (!t->padtab) {
            lg__ip_tabs_free(t);
            return LG_OUT_OF_MEMORY;
        }
    }
    return LG_OK;
}

void lg__ip_tabs_free(lg__ip_tabs *t) {
    lg__free(t->raw);
    lg__free(t->padtab);
    memset(t, 0, sizeof *t);
}

void lg__ip_ref(const lg__ip_pd *pd, const lg__ip_tabs *t, const float *src, const float *wei,
                const float *bias, float *dst) {
    const int64_t n = pd->src.dims[0], oc = pd->dst.dims[1];
    const int64_t k = lg__md_nelems(&pd->src) / n, rows = n * oc;
    bool has_sum = false;
    for (int i = 0; i < pd->npost; i++) has_sum = has_sum || pd->post[i].kind == LG_POST_SUM;
#pragma omp parallel for schedule(static) if (rows * k > 65536 && !omp_in_parallel())
    for (int64_t r = 0; r < rows; r++) {
        int64_t i = r / oc, o = r % oc;
        const float *s = src + t->src_n[i];
        const float *w = wei + t->wei_o[o];
        double acc = 0;
        for (int64_t j = 0; j < k; j++) acc += (double)s[t->src_k[j]] * (double)w[t->wei_k[j]];
        float v = (float)acc;
        if (bias) v = v + bias[o]; /* bias is dense "a" (lg__ip_query) */
        float *d = dst + t->dst_n[i] + t->dst_o[o];
        *d = lg__post_chain_scalar(pd->npost, pd->post, v, has_sum ? *d : 0.0f);
    }
    if (t->padtab) lg__zero_padding(&pd->dst, t->padtab, dst);
}
