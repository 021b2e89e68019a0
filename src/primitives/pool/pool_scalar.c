/* Pooling rows in plain C for every type and channel view: the path below
 * AVX2 and the one integer types take. Same operations, in the same order,
 * as the reference, so results match it bit for bit. */
#include "memory/convert.h"
#include "primitives/pool/pool.h"

#include <math.h>

/* One output element: lane l of the window (taps td x th x tw) at sbase. */
static void point(const lg__pool_job *j, const void *src, void *dst, int64_t sbase, int64_t doff,
                  const lg__pool_taps *td, const lg__pool_taps *th, const lg__pool_taps *tw) {
    const lg__pool_geom *g = j->g;
    const lg__chview *sv = &j->sv;
    const lg_dtype dt = j->pd->src.dtype;
    const bool ints = dt == LG_S32 || dt == LG_S8 || dt == LG_U8, is_max = j->pd->alg == 0;
    const bool empty = td->hi == td->lo || th->hi == th->lo || tw->hi == tw->lo;
    float m = -INFINITY, s = 0.0f;
    int64_t im = INT64_MIN, is = 0;
    for (int64_t a = td->lo; a < td->hi; a++)
        for (int64_t b = th->lo; b < th->hi; b++)
            for (int64_t e = tw->lo; e < tw->hi; e++) {
                int64_t p = sbase + (td->in0 + a * g->step[0]) * sv->ss[0] +
                            (th->in0 + b * g->step[1]) * sv->ss[1] +
                            (tw->in0 + e * g->step[2]) * sv->ss[2];
                if (ints) {
                    int64_t x = lg__pool_ld_int(src, dt, p);
                    im = x > im ? x : im;
                    is += x;
                } else {
                    float x = lg__load_f32(src, dt, p);
                    m = m > x ? m : x;
                    s += x;
                }
            }
    int64_t cnt = lg__pool_count(j->pd->alg, g, td, th, tw);
    if (ints)
        lg__pool_st_int(dst, dt, doff,
                        empty    ? 0.0
                        : is_max ? (double)im
                                 : (double)is / (double)cnt);
    else
        lg__store_f32(dst, dt, doff, empty ? 0.0f : is_max ? m : s / (float)cnt);
}

void lg__pool_rows_scalar(const lg__pool_job *j, const void *src, void *dst, int64_t r0,
                          int64_t r1) {
    const lg__pool_geom *g = j->g;
    const lg__chview *sv = &j->sv, *dv = &j->dv;
    if (j->global) {
        /* The whole input as one window of taps (the reference's order). */
        lg__pool_taps t[3];
        for (int i = 0; i < 3; i++)
            t[i] = (lg__pool_taps){0, (int32_t)sv->sp[i], 0, (int32_t)sv->sp[i]};
        for (int64_t r = r0; r < r1; r++) {
            int64_t q = r / j->nchunk, ch = r % j->nchunk;
            int64_t n = q / sv->ncb, cb = q % sv->ncb;
            int64_t sbase = sv->off0 + n * sv->sn + cb * sv->scb;
            int64_t dbase = dv->off0 + n * dv->sn + cb * dv->scb;
            int64_t lo = ch * j->chunk, hi = lo + j->chunk < sv->run ? lo + j->chunk : sv->run;
            for (int64_t l = lo; l < hi; l++)
                point(j, src, dst, sbase + l, dbase + l, &t[0], &t[1], &t[2]);
        }
        return;
    }
    const int64_t OD = g->o[0], OH = g->o[1], OW = g->o[2];
    for (int64_t r = r0; r < r1; r++) {
        int64_t oh = r % OH, q = r / OH, od = q % OD;
        q /= OD;
        int64_t cb = q % sv->ncb, n = q / sv->ncb;
        const lg__pool_taps *td = &g->tab[0][od], *th = &g->tab[1][oh];
        int64_t sbase = sv->off0 + n * sv->sn + cb * sv->scb;
        int64_t dbase = dv->off0 + n * dv->sn + cb * dv->scb + od * dv->ss[0] + oh * dv->ss[1];
        for (int64_t ow = 0; ow < OW; ow++)
            for (int64_t l = 0; l < sv->run; l++)
                point(j, src, dst, sbase + l, dbase + ow * dv->ss[2] + l, td, th, &g->tab[2][ow]);
    }
}
