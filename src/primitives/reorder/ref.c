/* The scalar reference reorder: obvious, slow, the truth for the tests. */
#include "primitives/reorder/reorder.h"

#include "memory/convert.h"

#include <string.h>

/* Advance idx over the box [0, ext) row-major; false after the last index. */
static bool next_index(int64_t *idx, const int64_t *ext, int nd) {
    for (int d = nd - 1; d >= 0; d--) {
        if (++idx[d] < ext[d]) return true;
        idx[d] = 0;
    }
    return false;
}

void lg__reorder_ref(const lg__reorder_pd *pd, const lg__reorder_args *a) {
    const lg_md *s = &pd->src, *d = &pd->dst;
    int nd = s->ndims;
    size_t esz = lg_dtype_size(d->dtype);
    int64_t idx[LG_MAX_NDIMS] = {0};
    if (lg__md_nelems(s) > 0) {
        bool copy = lg__reorder_is_copy(pd);
        do {
            int64_t so = lg__md_off(s, idx), doff = lg__md_off(d, idx);
            if (copy) {
                memcpy((char *)a->dst + doff * (int64_t)esz,
                       (const char *)a->src + so * (int64_t)esz, esz);
                continue;
            }
            /* Each term only when its attribute is present, so that a plain
             * type conversion keeps -0.0 and NaN payloads as converted. */
            float v = lg__load_f32(a->src, s->dtype, so);
            if (pd->src_zp_mask >= 0)
                v = v - (float)a->src_zps[lg__mask_index(s, pd->src_zp_mask, idx)];
            if (pd->src_scale_mask >= 0 || pd->dst_scale_mask >= 0) {
                float ss = pd->src_scale_mask >= 0
                               ? a->src_scales[lg__mask_index(s, pd->src_scale_mask, idx)]
                               : 1.0f;
                float ds = pd->dst_scale_mask >= 0
                               ? a->dst_scales[lg__mask_index(d, pd->dst_scale_mask, idx)]
                               : 1.0f;
                float factor = ss / ds;
                v = factor * v;
            }
            if (pd->has_sum) v = v + pd->sum_beta * lg__load_f32(a->dst, d->dtype, doff);
            if (pd->dst_zp_mask >= 0)
                v = v + (float)a->dst_zps[lg__mask_index(d, pd->dst_zp_mask, idx)];
            lg__store_f32(a->dst, d->dtype, doff, v);
        } while (next_index(idx, s->dims, nd));
    }
    /* Zero dst's padding: every index of the padded box outside the dims. */
    if (!lg__md_has_padding(d) || lg__md_nelems(d) == 0) return;
    memset(idx, 0, sizeof idx);
    do {
        bool pad = false;
        for (int k = 0; k < nd; k++) pad = pad || idx[k] >= d->dims[k];
        if (pad) memset((char *)a->dst + lg__md_off(d, idx) * (int64_t)esz, 0, esz);
    } while (next_index(idx, d->padded_dims, nd));
}

void lg__reorder_comp(const lg__reorder_pd *pd, const lg__reorder_args *a) {
    const lg_md *d = &pd->dst;
    for (int kind = 0; kind < 2; kind++) {
        int32_t mask = pd->comp_mask[kind];
        if (mask < 0) continue;
        int64_t n = 1;
        for (int k = 0; k < d->ndims; k++)
            if (mask & (1 << k)) n *= d->dims[k];
        /* unsigned sums: the 32-bit wrap is defined */
        uint32_t *c = (uint32_t *)a->comp[kind];
        memset(c, 0, (size_t)n * sizeof *c);
        if (lg__md_nelems(d) > 0) {
            int64_t idx[LG_MAX_NDIMS] = {0};
            const int8_t *v = a->dst;
            do c[lg__mask_index(d, mask, idx)] += (uint32_t)(int32_t)v[lg__md_off(d, idx)];
            while (next_index(idx, d->dims, d->ndims));
        }
        const uint32_t factor = kind == 0 ? (uint32_t)-128 : (uint32_t)-1;
        for (int64_t k = 0; k < n; k++) c[k] *= factor;
    }
}
