/* Pooling geometry tables and the scalar reference (pool.h). */
#include "memory/convert.h"
#include "primitives/layout.h"
#include "primitives/pool/pool.h"

#include <math.h>

bool lg__pool_geom_init(const lg__pool_pd *pd, lg__pool_geom *g) {
    const int nd = pd->src.ndims, nsp = pd->nsp;
    int64_t total = 0;
    g->kprod = 1;
    for (int i = 0; i < 3; i++) {
        int sd = i - (3 - nsp); /* the spatial dim of src, or < 0 */
        g->in[i] = sd >= 0 ? pd->src.dims[2 + sd] : 1;
        g->o[i] = sd >= 0 ? pd->dst.dims[2 + sd] : 1;
        g->step[i] = pd->dil[i] + 1;
        g->kprod *= pd->k[i];
        total += g->o[i];
    }
    (void)nd;
    g->mem = lg__calloc((size_t)total, sizeof *g->mem);
    if (!g->mem) return false;
    lg__pool_taps *t = g->mem;
    for (int i = 0; i < 3; i++) {
        g->tab[i] = t;
        for (int64_t o = 0; o < g->o[i]; o++, t++) {
            int64_t in0 = o * pd->s[i] - pd->pl[i], st = g->step[i];
            int64_t lo = in0 >= 0 ? 0 : (-in0 - 1) / st + 1; /* ceil, no overflow */
            int64_t hi = in0 > g->in[i] - 1 ? 0 : (g->in[i] - 1 - in0) / st + 1;
            if (hi > pd->k[i]) hi = pd->k[i];
            if (hi < lo) hi = lo;
            t->lo = (int32_t)lo;
            t->hi = (int32_t)hi;
            t->in0 = in0;
            /* Counted taps: coordinates below in + cpr (never below -pl). */
            int64_t end = g->in[i] + pd->cpr[i];
            int64_t cnt = in0 > end - 1 ? 0 : (end - 1 - in0) / st + 1;
            t->cnt = (int32_t)(cnt < pd->k[i] ? cnt : pd->k[i]);
        }
    }
    return true;
}

static bool is_int(lg_dtype dt) {
    return dt == LG_S32 || dt == LG_S8 || dt == LG_U8;
}

void lg__pool_ref(const lg__pool_pd *pd, const lg__pool_geom *g, const int64_t *padtab,
                  const void *src, void *dst) {
    const lg_md *sm = &pd->src, *dm = &pd->dst;
    const int nsp = pd->nsp, first = 3 - nsp;
    const lg_dtype dt = sm->dtype;
    int64_t si[LG_MAX_NDIMS] = {0}, di[LG_MAX_NDIMS] = {0};
    for (int64_t n = 0; n < sm->dims[0]; n++)
        for (int64_t c = 0; c < sm->dims[1]; c++)
            for (int64_t od = 0; od < g->o[0]; od++)
                for (int64_t oh = 0; oh < g->o[1]; oh++)
                    for (int64_t ow = 0; ow < g->o[2]; ow++) {
                        const int64_t oo[3] = {od, oh, ow};
                        const lg__pool_taps *t[3] = {&g->tab[0][od], &g->tab[1][oh],
                                                     &g->tab[2][ow]};
                        si[0] = di[0] = n;
                        si[1] = di[1] = c;
                        for (int i = first; i < 3; i++) di[2 + i - first] = oo[i];
                        float m = -INFINITY, sum = 0.0f;
                        int64_t im = INT64_MIN, isum = 0;
                        for (int64_t a = t[0]->lo; a < t[0]->hi; a++)
                            for (int64_t b = t[1]->lo; b < t[1]->hi; b++)
                                for (int64_t e = t[2]->lo; e < t[2]->hi; e++) {
                                    const int64_t kk[3] = {a, b, e};
                                    for (int i = first; i < 3; i++)
                                        si[2 + i - first] = t[i]->in0 + kk[i] * g->step[i];
                                    int64_t off = lg__md_off(sm, si);
                                    if (is_int(dt)) {
                                        int64_t x = lg__pool_ld_int(src, dt, off);
                                        im = x > im ? x : im;
                                        isum += x;
                                    } else {
                                        float x = lg__load_f32(src, dt, off);
                                        m = m > x ? m : x;
                                        sum += x;
                                    }
                                }
                        int64_t cnt = lg__pool_count(pd->alg, g, t[0], t[1], t[2]);
                        bool empty =
                            t[0]->hi == t[0]->lo || t[1]->hi == t[1]->lo || t[2]->hi == t[2]->lo;
                        int64_t off = lg__md_off(dm, di);
                        if (is_int(dt)) {
                            double v = empty          ? 0.0
                                       : pd->alg == 0 ? (double)im
                                                      : (double)isum / (double)cnt;
                            lg__pool_st_int(dst, dt, off, v);
                        } else {
                            float v = empty ? 0.0f : pd->alg == 0 ? m : sum / (float)cnt;
                            lg__store_f32(dst, dt, off, v);
                        }
                    }
    if (padtab) lg__zero_padding(dm, padtab, dst);
}
