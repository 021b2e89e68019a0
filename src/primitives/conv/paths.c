/* The choice of path for a conv kernel and the execution dispatch.
 *
 * Paths, tried in order (impl "conv:<isa>:<path>"):
 *  - pw: pointwise (1x1, unpadded, one group) on channel-blocked or
 *    channels-last activations (pw.h);
 *  - wino4x4: Winograd F(4x4, 3x3) (wino.h) when params alg asks for it
 *    (LG_CONV_WINOGRAD, or LG_CONV_AUTO where lg__conv_wino_auto says it
 *    wins);
 *  - dw: depthwise on channel-blocked activations (dw.h);
 *  - 1x1 / direct: the register-blocked direct convolution (direct.h), "1x1"
 *    when it walks an image's pixels as one row;
 *  - ref: lg__conv_ref, any layout combination (scalar);
 *  - empty: dst has no element, so there is nothing to compute (no tables
 *    are built: their size would follow the other, possibly huge, dims).
 * On AVX-512 the 16-lane kernels are tried first, then the 8-lane (AVX2)
 * ones, so 8-blocked layouts run vectorised there too. */
#include "primitives/conv/conv.h"

#include "primitives/conv/direct.h"
#include "primitives/conv/pw.h"
#include "primitives/conv/wino.h"

#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>

enum { PATH_REF, PATH_DIRECT, PATH_EMPTY, PATH_PW, PATH_WINO };

/* Multiply-adds from which all threads run. */
#define PAR_MACS 32768

typedef struct direct_plan {
    lg__conv_direct *d;
    lg__conv_direct_fn fn;
} direct_plan;

lg_status lg__conv_plan(lg__conv_kernel *c) {
    lg__isa isa = lg__cpu_isa();
    if (lg__md_nelems(&c->pd.dst) == 0) {
        c->path = PATH_EMPTY;
        snprintf(c->impl, sizeof c->impl, "conv:empty");
        return LG_OK;
    }
    c->path = PATH_REF;
    snprintf(c->impl, sizeof c->impl, "conv:ref");
    for (int vl = 16; vl >= 8; vl /= 2) {
        if ((vl == 16 && isa < LG_ISA_AVX512) || isa < LG_ISA_AVX2) continue;
        lg__conv_pw *pw = NULL;
        bool pw_oom = false;
        if (lg__conv_pw_plan(c, vl, &pw, &pw_oom)) {
            c->plan = pw;
            c->path = PATH_PW;
            snprintf(c->impl, sizeof c->impl, "conv:%s:pw", vl == 16 ? "avx512" : "avx2");
            return LG_OK;
        }
        if (pw_oom) return LG_OUT_OF_MEMORY;
        if ((c->pd.alg == LG_CONV_WINOGRAD ||
             (c->pd.alg == LG_CONV_AUTO && lg__conv_wino_auto(&c->s, vl))) &&
            lg__conv_wino_fits(&c->pd, &c->s, vl, NULL, 0)) {
            lg__conv_wino *w = NULL;
            if (lg__conv_wino_plan(c, vl, &w) != LG_OK) return LG_OUT_OF_MEMORY;
            c->plan = w;
            c->path = PATH_WINO;
            snprintf(c->impl, sizeof c->impl, "conv:%s:wino4x4", vl == 16 ? "avx512" : "avx2");
            return LG_OK;
        }
        for (int dw = 1; dw >= 0; dw--) {
            lg__conv_direct *d = NULL;
            bool oom = false;
            bool ok =
                dw ? lg__conv_dw_plan(c, vl, &d, &oom) : lg__conv_direct_plan(c, vl, &d, &oom);
            if (oom) return LG_OUT_OF_MEMORY;
            if (!ok) continue;
            direct_plan *p = lg__malloc(sizeof *p);
            if (!p) {
                lg__conv_direct_free(d);
                return LG_OUT_OF_MEMORY;
            }
            p->d = d;
            p->fn = vl == 16 ? (dw ? lg__conv_dw_avx512 : lg__conv_direct_avx512)
                             : (dw ? lg__conv_dw_avx2 : lg__conv_direct_avx2);
            c->plan = p;
            c->path = PATH_DIRECT;
            snprintf(c->impl, sizeof c->impl, "conv:%s:%s", vl == 16 ? "avx512" : "avx2",
                     dw        ? "dw"
                     : d->flat ? "1x1"
                               : "direct");
            return LG_OK;
        }
    }
    return LG_OK;
}

void lg__conv_plan_free(lg__conv_kernel *c) {
    if (c->path == PATH_WINO) {
        lg__conv_wino_free(c->plan);
        c->plan = NULL;
        return;
    }
    if (c->path == PATH_PW) {
        lg__conv_pw_free(c->plan);
        c->plan = NULL;
        return;
    }
    if (c->path == PATH_DIRECT && c->plan) lg__conv_direct_free(((direct_plan *)c->plan)->d);
    lg__free(c->plan);
    c->plan = NULL;
}

/* The next granule of items [0, nitems) from the shared counter *next:
 * about 1 / (2 nthr) of what is left, in whole units of `unit` items (a
 * row's chunks stay together); returns its size (0: none left) and its
 * first item in *lo. Threads that take granules in turn balance
 * themselves: with static halves the slower of two threads took 2.5%
 * longer on average (3x3 128->128 28x28 N=8, a shared host), and the
 * call waited for it. */
static int64_t take_granule(_Atomic int64_t *next, int64_t nitems, int64_t unit, int nthr,
                            int64_t *lo) {
    int64_t at = atomic_load_explicit(next, memory_order_relaxed), n;
    do {
        if (at >= nitems) return 0;
        int64_t left = nitems - at;
        n = (left + 2 * nthr - 1) / (2 * nthr);
        n = (n + unit - 1) / unit * unit;
        if (n > left) n = left;
    } while (!atomic_compare_exchange_weak_explicit(next, &at, at + n, memory_order_relaxed,
                                                    memory_order_relaxed));
    *lo = at;
    return n;
}

/* Threads for `items` work items of `macs` multiply-adds in all. */
static int threads_for(int64_t items, int64_t macs) {
    if (items < 2 || macs < PAR_MACS || omp_in_parallel()) return 1;
    int n = omp_get_max_threads();
    return items < n ? (int)items : n;
}

lg_status lg__conv_run(const lg__conv_kernel *c, const float *src, const float *wei,
                       const float *bias, float *dst) {
    const lg__conv_shape *s = &c->s;
    switch (c->path) {
    case PATH_DIRECT: {
        const direct_plan *p = c->plan;
        const lg__conv_direct *d = p->d;
        const int64_t f[9] = {s->n, s->oc, s->od, s->oh, s->ow, s->icg, s->kd, s->kh, s->kw};
        int64_t macs = 1; /* saturates: only compared with PAR_MACS */
        for (int i = 0; i < 9; i++)
            if (!lg__mul_ok(macs, f[i], &macs)) macs = INT64_MAX;
        int nthr = threads_for(d->nitems, macs);
        /* a row's items (its chunks) are consecutive unless rows_inner */
        const int64_t unit = d->rows_inner ? 1 : d->nchunk;
        _Atomic int64_t next = 0;
        /* The plan addresses from each tensor's first element: views
         * (offset0) only shift the base pointers. */
        src += c->pd.src.offset0, wei += c->pd.wei.offset0, dst += c->pd.dst.offset0;
#pragma omp parallel num_threads(nthr) if (nthr > 1)
        {
            int nt = omp_get_num_threads();
            int64_t lo, n;
            if (d->dw) { /* static halves: its rows are short, and each call costs
                            (granules ran depthwise 3x3 116 28x28 N=8 6% slower) */
                int64_t t = omp_get_thread_num();
                lo = d->nitems * t / nt;
                n = d->nitems * (t + 1) / nt - lo;
                if (n > 0) p->fn(d, lo, lo + n, src, wei, bias, dst);
            } else {
                while ((n = take_granule(&next, d->nitems, unit, nt, &lo)) > 0)
                    p->fn(d, lo, lo + n, src, wei, bias, dst);
            }
        }
        return LG_OK;
    }
    case PATH_PW: {
        const lg__conv_pw *d = c->plan;
        int64_t macs = 1; /* saturates: only compared with PAR_MACS */
        const int64_t f[3] = {s->n * d->npix, s->oc, s->ic};
        for (int i = 0; i < 3; i++)
            if (!lg__mul_ok(macs, f[i], &macs)) macs = INT64_MAX;
        lg__conv_pw_fn fn = d->vl == 16 ? lg__conv_pw_avx512 : lg__conv_pw_avx2;
        int nthr = threads_for(d->nitems, macs);
#pragma omp parallel num_threads(nthr) if (nthr > 1)
        {
            int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
            int64_t lo = d->nitems * t / nt, hi = d->nitems * (t + 1) / nt;
            if (lo < hi)
                fn(d, lo, hi, src + c->pd.src.offset0, wei + c->pd.wei.offset0, bias,
                   dst + c->pd.dst.offset0);
        }
        return LG_OK;
    }
    case PATH_WINO:
        lg__conv_wino_run(c->plan, src, wei, bias, dst, NULL);
        return LG_OK;
    case PATH_EMPTY:
        return LG_OK;
    default:
        lg__conv_ref(&c->pd, &c->tabs, src, wei, bias, dst);
        return LG_OK;
    }
}

lg_status lg__conv_prepare(const lg__conv_kernel *c, const float *wei, void **state) {
    *state = NULL;
    if (c->path != PATH_WINO || !wei) return LG_OK;
    float *u = NULL;
    LG_CHECK(lg__conv_wino_prepare(c->plan, wei, &u));
    *state = u;
    return LG_OK;
}

lg_status lg__conv_run_prepared(const lg__conv_kernel *c, const float *src, const float *wei,
                                const float *bias, float *dst, const void *state) {
    if (c->path != PATH_WINO) return lg__conv_run(c, src, wei, bias, dst);
    lg__conv_wino_run(c->plan, src, wei, bias, dst, state);
    return LG_OK;
}
