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
    const lg_md *sm = &pd->src, *dm = &pd->dst;
    int nd = dm->ndims, a = pd->axis;
    int64_t esz = (int64_t)lg_dtype_size(dm->dtype), C = dm->dims[a], g = lg__shuffle_group(pd);
    if (lg__md_nelems(dm) == 0) return;
    int64_t idx[LG_MAX_NDIMS] = {0}, sidx[LG_MAX_NDIMS];
    do {
        bool pad = false;
        for (int d = 0; d < nd; d++) pad = pad || idx[d] >= dm->dims[d];
        char *o = (char *)dst + lg__md_off(dm, idx) * esz;
        if (pad) {
            memset(o, 0, (size_t)esz);
            continue;
        }
        memcpy(sidx, idx, sizeof idx);
        sidx[a] = lg__shuffle_src_channel(idx[a], C, g);
        memcpy(o, (const char *)src + lg__md_off(sm, sidx) * esz, (size_t)esz);
    } while (next_index(idx, dm->padded_dims, nd));
}
