/* The scalar reference shuffle: obvious, slow, the truth for the tests. */
#include "primitives/shuffle/shuffle.h"

#include <string.h>

/* Advance idx over the box [0, ext) row-major; false after the last index. */
static bool next_index(int64_t *idx, const int64_t *ext, int nd) {
    for (int d = nd - 1; d >= 0; d--) {
        if (++idx[d] < ext[d]) return true;
        idx[d] = 0;
    }
    return false;
}

void lg__shuffle_ref(const lg__shuffle_pd *pd, const void *src, void *dst) {
    const lg_md *md = &pd->md;
    int nd = md->ndims, a = pd->axis;
    size_t esz = lg_dtype_size(md->dtype);
    int64_t C = md->dims[a], g = lg__shuffle_group(pd);
    if (lg__md_nelems(md) == 0) return;
    int64_t idx[LG_MAX_NDIMS] = {0}, sidx[LG_MAX_NDIMS];
    do {
        memcpy(sidx, idx, sizeof idx);
        sidx[a] = lg__shuffle_src_channel(idx[a], C, g);
        memcpy((char *)dst + lg__md_off(md, idx) * (int64_t)esz,
               (const char *)src + lg__md_off(md, sidx) * (int64_t)esz, esz);
    } while (next_index(idx, md->dims, nd));
    /* Zero dst's padding: every index of the padded box outside the dims. */
    if (!lg__md_has_padding(md)) return;
    memset(idx, 0, sizeof idx);
    do {
        bool pad = false;
        for (int d = 0; d < nd; d++) pad = pad || idx[d] >= md->dims[d];
        if (pad) memset((char *)dst + lg__md_off(md, idx) * (int64_t)esz, 0, esz);
    } while (next_index(idx, md->padded_dims, nd));
}
