/* The softmax reference (softmax.h). */
#include "memory/convert.h"
#include "primitives/layout.h"
#include "primitives/softmax/softmax.h"

#include <math.h>

void lg__softmax_ref(const lg__softmax_pd *pd, const int64_t *padtab, const void *src, void *dst) {
    const lg_md *sm = &pd->src, *dm = &pd->dst;
    const int nd = sm->ndims, ax = pd->axis;
    const int64_t A = sm->dims[ax];
    int64_t ext[LG_MAX_NDIMS], idx[LG_MAX_NDIMS] = {0};
    for (int d = 0; d < nd; d++) ext[d] = d == ax ? 1 : sm->dims[d];
    for (int d = 0; d < nd; d++)
        if (ext[d] == 0) goto pad;
    for (;;) {
        double m = -INFINITY, s = 0.0;
        for (idx[ax] = 0; idx[ax] < A; idx[ax]++) {
            double x = lg__load_f32(src, sm->dtype, lg__md_off(sm, idx));
            m = x > m ? x : m;
        }
        for (idx[ax] = 0; idx[ax] < A; idx[ax]++)
            s += exp(lg__load_f32(src, sm->dtype, lg__md_off(sm, idx)) - m);
        for (idx[ax] = 0; idx[ax] < A; idx[ax]++) {
            double d = lg__load_f32(src, sm->dtype, lg__md_off(sm, idx)) - m;
            double y = pd->alg == 0 ? exp(d) / s : d - log(s);
            lg__store_f32(dst, dm->dtype, lg__md_off(dm, idx), (float)y);
        }
        idx[ax] = 0;
        int d = nd - 1;
        while (d >= 0 && ++idx[d] >= ext[d]) idx[d--] = 0;
        if (d < 0) break;
    }
pad:
    if (padtab) lg__zero_padding(dm, padtab, dst);
}
