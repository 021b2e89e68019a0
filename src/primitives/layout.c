/* Offset tables and padding zeroing (layout.h). */
#include "primitives/layout.h"

#include <string.h>

int64_t *lg__offtab_new(const lg_md *md, const int64_t *ext, bool bcast) {
    int nd = md->ndims;
    int64_t total = nd;
    for (int d = 0; d < nd; d++)
        if (!lg__add_ok(total, ext[d], &total)) return NULL;
    int64_t *tab = lg__calloc((size_t)total, sizeof *tab); /* calloc: no size overflow */
    if (!tab) return NULL;
    int64_t idx[LG_MAX_NDIMS] = {0}, at = nd;
    int64_t base = lg__md_off(md, idx);
    for (int d = 0; d < nd; d++) {
        tab[d] = at;
        for (int64_t i = 0; i < ext[d]; i++) {
            idx[d] = bcast && md->dims[d] == 1 ? 0 : i;
            tab[at + i] = lg__md_off(md, idx) - base;
        }
        idx[d] = 0;
        at += ext[d];
    }
    return tab;
}

/* Zero the box lo[d] <= idx[d] < hi[d] of buf, innermost dim in the loop. */
static void zero_box(const lg_md *md, const int64_t *tab, char *buf, const int64_t *lo,
                     const int64_t *hi) {
    int nd = md->ndims, last = nd - 1;
    size_t esz = lg_dtype_size(md->dtype);
    const int64_t *tl = lg__offtab_dim(tab, last);
    int64_t idx[LG_MAX_NDIMS];
    for (int d = 0; d < nd; d++) {
        if (lo[d] >= hi[d]) return;
        idx[d] = lo[d];
    }
    for (;;) {
        int64_t base = md->offset0;
        for (int d = 0; d < last; d++) base += lg__offtab_dim(tab, d)[idx[d]];
        for (int64_t i = lo[last]; i < hi[last]; i++) {
            char *p = buf + (base + tl[i]) * (int64_t)esz;
            if (esz == 4)
                memset(p, 0, 4);
            else if (esz == 2)
                memset(p, 0, 2);
            else
                memset(p, 0, esz);
        }
        int d = last - 1;
        while (d >= 0 && ++idx[d] == hi[d]) idx[d] = lo[d], d--;
        if (d < 0) return;
    }
}

void lg__zero_padding(const lg_md *md, const int64_t *tab, void *buf) {
    /* For each padded dim d, the slab dims[d] <= idx[d] < padded[d] (other
     * dims over their padded range; slabs may overlap, zeroing is idempotent). */
    int64_t lo[LG_MAX_NDIMS] = {0}, hi[LG_MAX_NDIMS];
    for (int d = 0; d < md->ndims; d++) hi[d] = md->padded_dims[d];
    for (int d = 0; d < md->ndims; d++) {
        if (md->dims[d] == md->padded_dims[d]) continue;
        lo[d] = md->dims[d];
        zero_box(md, tab, buf, lo, hi);
        lo[d] = 0;
    }
}
