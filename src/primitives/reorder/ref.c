/* The scalar reference reorder: obvious, slow, the truth for the tests. */
#include "primitives/reorder/reorder.h"

#include "memory/convert.h"

#include <math.h>
#include <string.h>

/* Advance idx over the box [0, ext) row-major; false after the last index. */
static bool next_index(int64_t *idx, const int64_t *ext, int nd) {
    for (int d = nd - 1; d >= 0; d--) {
        if (++idx[d] < ext[d]) return true;
        idx[d] = 0;
    }
    return false;
}

/* murmur3's 32-bit finaliser: every input bit reaches every output bit. */
static uint32_t fmix32(uint32_t h) {
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

uint32_t lg__sround_bits(int32_t seed, int64_t e) {
    uint64_t u = (uint64_t)e;
    uint32_t h = fmix32((uint32_t)(u >> 32) + 0x9e3779b9u);
    h = fmix32((uint32_t)u ^ h);
    return fmix32(h ^ (uint32_t)seed * 0x27d4eb2fu);
}

float lg__sround(float v, lg_dtype dt, uint32_t r) {
    int mant = dt == LG_BF16      ? 7
               : dt == LG_F16     ? 10
               : dt == LG_F8_E4M3 ? 3
               : dt == LG_F8_E5M2 ? 2
                                  : 23;
    if (mant == 23 || !isfinite(v)) return v;
    uint32_t low = (1u << (23 - mant)) - 1u, bits;
    memcpy(&bits, &v, sizeof bits);
    /* magnitude + bias, then truncated: the sign bit is never reached
     * (the largest finite f32 plus a bias is at most inf's bits) */
    bits = (bits + (r & low)) & ~low;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* Value k of a scale / zero-point array of type dt (0: the default def). */
static float value(const void *p, int32_t dt, lg_dtype def, int64_t k) {
    return lg__load_f32(p, dt ? (lg_dtype)dt : def, k);
}

void lg__reorder_ref(const lg__reorder_pd *pd, const lg__reorder_args *a) {
    const lg_md *s = &pd->src, *d = &pd->dst;
    int nd = s->ndims;
    size_t esz = lg_dtype_size(d->dtype);
    int64_t idx[LG_MAX_NDIMS] = {0};
    if (lg__md_nelems(s) > 0) {
        bool copy = lg__reorder_is_copy(pd);
        int64_t e = -1; /* row-major logical index, for stochastic rounding */
        do {
            e++;
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
                v = v - value(a->src_zps, pd->zp_dt[0], LG_S32,
                              lg__mask_index_grouped(s, pd->src_zp_mask, pd->zp_group[0], idx));
            if (pd->src_scale_mask >= 0 || pd->dst_scale_mask >= 0) {
                float ss = pd->src_scale_mask >= 0
                               ? value(a->src_scales, pd->scale_dt[0], LG_F32,
                                       lg__mask_index_grouped(s, pd->src_scale_mask,
                                                              pd->scale_group[0], idx))
                               : 1.0f;
                float ds = pd->dst_scale_mask >= 0
                               ? value(a->dst_scales, pd->scale_dt[1], LG_F32,
                                       lg__mask_index_grouped(d, pd->dst_scale_mask,
                                                              pd->scale_group[1], idx))
                               : 1.0f;
                float factor = ss / ds;
                v = factor * v;
            }
            if (pd->has_sum) v = v + pd->sum_beta * lg__load_f32(a->dst, d->dtype, doff);
            if (pd->dst_zp_mask >= 0)
                v = v + value(a->dst_zps, pd->zp_dt[1], LG_S32,
                              lg__mask_index_grouped(d, pd->dst_zp_mask, pd->zp_group[1], idx));
            if (pd->stochastic) v = lg__sround(v, d->dtype, lg__sround_bits(a->seed, e));
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
