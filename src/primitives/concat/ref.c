/* The concat / slice reference: every dst element (padding included) from
 * the piece that covers it, by logical index. Bits are copied, so every
 * type works. */
#include "primitives/concat/concat.h"

#include <string.h>

void lg__cc_pieces(const lg__cc_pd *pd, lg__cc_piece *pc) {
    if (pd->slice) {
        pc[0] = (lg__cc_piece){pd->start, 0, pd->dst.dims[pd->axis]};
        return;
    }
    int64_t off = 0;
    for (int i = 0; i < pd->n; i++) {
        pc[i] = (lg__cc_piece){0, off, pd->src[i].dims[pd->axis]};
        off += pc[i].len;
    }
}

void lg__cc_ref(const lg__cc_pd *pd, const lg__cc_piece *pc, const void *const *srcs, void *dst) {
    const lg_md *dm = &pd->dst;
    const int nd = dm->ndims, ax = pd->axis;
    const size_t es = lg_dtype_size(dm->dtype);
    int64_t total = 1;
    for (int d = 0; d < nd; d++) total *= dm->padded_dims[d];
    int64_t idx[LG_MAX_NDIMS], sidx[LG_MAX_NDIMS];
    for (int64_t e = 0; e < total; e++) {
        int64_t t = e;
        bool pad = false;
        for (int d = nd - 1; d >= 0; d--) {
            idx[d] = t % dm->padded_dims[d];
            t /= dm->padded_dims[d];
            pad = pad || idx[d] >= dm->dims[d];
        }
        uint8_t *out = (uint8_t *)dst + lg__md_off(dm, idx) * (int64_t)es;
        if (pad) {
            memset(out, 0, es);
            continue;
        }
        int i = 0;
        while (idx[ax] >= pc[i].d0 + pc[i].len) i++;
        memcpy(sidx, idx, sizeof idx);
        sidx[ax] = idx[ax] - pc[i].d0 + pc[i].s0;
        const lg_md *sm = &pd->src[pd->slice ? 0 : i];
        memcpy(out, (const uint8_t *)srcs[pd->slice ? 0 : i] + lg__md_off(sm, sidx) * (int64_t)es,
               es);
    }
}
