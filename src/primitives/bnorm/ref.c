/* The batch-normalization reference (bnorm.h). */
#include "lgraph.h"
#include "memory/convert.h"
#include "primitives/bnorm/bnorm.h"
#include "primitives/layout.h"

#include <math.h>

void lg__bnorm_ref(const lg__bnorm_pd *pd, const int64_t *padtab, const lg__bnorm_stats *st,
                   const void *src, void *dst) {
    const lg_md *sm = &pd->src, *dm = &pd->dst;
    const int nd = sm->ndims;
    int64_t idx[LG_MAX_NDIMS] = {0};
    for (int d = 0; d < nd; d++)
        if (sm->dims[d] == 0) goto pad;
    do {
        const int64_t c = idx[1];
        float g = pd->flags & LG_BNORM_USE_SCALE ? st->scale[c] : 1.0f;
        float b = pd->flags & LG_BNORM_USE_SHIFT ? st->shift[c] : 0.0f;
        float a = g / sqrtf(st->var[c] + pd->eps);
        float x = lg__load_f32(src, sm->dtype, lg__md_off(sm, idx));
        float y = (x - st->mean[c]) * a;
        y = y + b;
        if (pd->flags & LG_BNORM_FUSE_RELU) y = y < 0.0f ? 0.0f : y;
        lg__store_f32(dst, dm->dtype, lg__md_off(dm, idx), y);
        int d = nd - 1;
        while (d >= 0 && ++idx[d] == sm->dims[d]) idx[d--] = 0;
        if (d < 0) break;
    } while (1);
pad:
    if (padtab) lg__zero_padding(dm, padtab, dst);
}
