/* Scalar kernels of the fast reorder engine: the normalised loop nest run
 * element by element (rows by memcpy / memset where both sides are
 * contiguous). The ISA level "scalar" uses them for every job; the SIMD
 * levels use them for GENERIC jobs. The value pipeline is lg__reorder_ref's,
 * term for term, so the bits agree. */
#include "primitives/reorder/fast_plan.h"

#include "memory/convert.h"

#include <string.h>

/* Copy one element of sz bytes. */
static inline void move_elem(char *d, const char *s, int sz) {
    switch (sz) {
    case 1:
        *d = *s;
        break;
    case 2:
        memcpy(d, s, 2);
        break;
    default:
        memcpy(d, s, 4);
        break;
    }
}

/* One row of n elements along dim k, with values converted and the
 * attributes applied. */
static void convert_row(const lg__rf_plan *p, const lg__rf_dim *k, const lg__rf_ptrs *q,
                        int64_t n) {
    const int64_t *st = k->st;
    for (int64_t i = 0; i < n; i++) {
        float v = lg__load_f32(q->src, p->sdt, i * st[LG_RF_SRC]);
        if (q->szp) v = v - (float)q->szp[i * st[LG_RF_SZP]];
        if (q->ss || q->ds) {
            float ss = q->ss ? q->ss[i * st[LG_RF_SS]] : 1.0f;
            float ds = q->ds ? q->ds[i * st[LG_RF_DS]] : 1.0f;
            float factor = ss / ds;
            v = factor * v;
        }
        if (p->has_sum) v = v + p->beta * lg__load_f32(q->dst, p->ddt, i * st[LG_RF_DST]);
        if (q->dzp) v = v + (float)q->dzp[i * st[LG_RF_DZP]];
        lg__store_f32(q->dst, p->ddt, i * st[LG_RF_DST], v);
    }
}

/* One row of n elements along dim k. */
static void row(const lg__rf_plan *p, const lg__rf_job *j, const lg__rf_dim *k,
                const lg__rf_ptrs *q, int64_t n) {
    int64_t sd = k->st[LG_RF_DST], ss = k->st[LG_RF_SRC];
    if (j->kind == LG_RF_ZERO) {
        if (sd == 1)
            memset(q->dst, 0, (size_t)(n * p->dsz));
        else
            for (int64_t i = 0; i < n; i++) memset(q->dst + i * sd * p->dsz, 0, (size_t)p->dsz);
    } else if (p->copy) {
        if (sd == 1 && ss == 1)
            memcpy(q->dst, q->src, (size_t)(n * p->dsz));
        else
            for (int64_t i = 0; i < n; i++)
                move_elem(q->dst + i * sd * p->dsz, q->src + i * ss * p->ssz, p->dsz);
    } else {
        convert_row(p, k, q, n);
    }
}

/* Advance the row pointers of q by m steps of dim k. */
static lg__rf_ptrs step(const lg__rf_plan *p, const lg__rf_ptrs *q, const lg__rf_dim *k,
                        int64_t m) {
    lg__rf_ptrs r;
    r.dst = q->dst + m * k->st[LG_RF_DST] * p->dsz;
    r.src = q->src ? q->src + m * k->st[LG_RF_SRC] * p->ssz : NULL;
    r.ss = q->ss ? q->ss + m * k->st[LG_RF_SS] : NULL;
    r.ds = q->ds ? q->ds + m * k->st[LG_RF_DS] : NULL;
    r.szp = q->szp ? q->szp + m * k->st[LG_RF_SZP] : NULL;
    r.dzp = q->dzp ? q->dzp + m * k->st[LG_RF_DZP] : NULL;
    return r;
}

void lg__rf_kernel_scalar(const lg__rf_plan *p, const lg__rf_job *j, const lg__rf_ptrs *q,
                          const int64_t n[3]) {
    /* Rows along the dim with the smallest dst stride: kd[0] for every kind. */
    for (int64_t i2 = 0; i2 < n[2]; i2++) {
        lg__rf_ptrs q2 = step(p, q, &j->kd[2], i2);
        for (int64_t i1 = 0; i1 < n[1]; i1++) {
            lg__rf_ptrs q1 = step(p, &q2, &j->kd[1], i1);
            row(p, j, &j->kd[0], &q1, n[0]);
            if (j->apad) memset(q1.dst + n[0] * p->dsz, 0, (size_t)(j->apad * p->dsz));
        }
    }
}
