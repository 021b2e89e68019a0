/* Numeric variable elimination along a plan (solver_plan.c), and argmin
 * back-tracking. Step k eliminates variable v: for every assignment of v's
 * neighbours (the message's scope, row-major), the message holds
 * min over x_v of the sum of the bucket tables, and arg[k] the first x_v that
 * reaches it. The bucket tables are then dead; their memory is released when
 * the solver owns it. Work: joint entries times bucket tables per step. */
#include "passes/solver_impl.h"

#include <string.h>

int64_t lg__sv_strides(int n, const int *vars, const int *ncand, int64_t *stride) {
    int64_t s = 1;
    for (int k = n - 1; k >= 0; k--) {
        stride[k] = s;
        if (!lg__mul_ok(s, ncand[vars[k]], &s)) return -1;
    }
    return s;
}

/* Scratch sized for the largest step of a plan. */
typedef struct scratch {
    int *where;        /* per variable: position in the current table, or -1 */
    int64_t *str;      /* nb * m: stride of scope[j] in bucket table i (0: absent) */
    int64_t *vstr;     /* nb: stride of the eliminated variable in table i */
    int64_t *base;     /* nb: current offset in table i */
    const double **tv; /* nb: table values */
    int *dig;          /* m: odometer over the scope */
    double acc[LG__SOLVER_MAX_CAND];
} scratch;

/* Compute step st's message (out, may be NULL-free sized 1) and argmin. */
static void run_step(const lg__sv_prob *p, const lg__sv_step *st, const lg__sv_tab *tabs,
                     scratch *w, double *out, uint8_t *arg) {
    int m = st->nscope, nb = st->nbucket, dv = p->ncand[st->var];
    for (int i = 0; i < nb; i++) {
        const lg__sv_tab *t = &tabs[st->bucket[i]];
        for (int k = 0; k < t->n; k++) w->where[t->vars[k]] = k;
        for (int j = 0; j < m; j++) {
            int k = w->where[st->scope[j]];
            w->str[(size_t)i * m + j] = k >= 0 ? t->stride[k] : 0;
        }
        w->vstr[i] = t->stride[w->where[st->var]];
        for (int k = 0; k < t->n; k++) w->where[t->vars[k]] = -1;
        w->base[i] = 0;
        w->tv[i] = t->v;
    }
    for (int j = 0; j < m; j++) w->dig[j] = 0;
    for (int64_t o = 0; o < st->size; o++) {
        for (int x = 0; x < dv; x++) w->acc[x] = 0.0;
        for (int i = 0; i < nb; i++) {
            const double *t = w->tv[i] + w->base[i];
            int64_t s = w->vstr[i];
            for (int x = 0; x < dv; x++) w->acc[x] += t[x * s];
        }
        double best = w->acc[0];
        int bx = 0;
        for (int x = 1; x < dv; x++)
            if (w->acc[x] < best) {
                best = w->acc[x];
                bx = x;
            }
        out[o] = best;
        arg[o] = (uint8_t)bx;
        /* Advance the odometer (scope[m-1] fastest) and every table's offset. */
        for (int j = m - 1; j >= 0; j--) {
            int d = p->ncand[st->scope[j]];
            const int64_t *sj = &w->str[j];
            if (++w->dig[j] < d) {
                for (int i = 0; i < nb; i++) w->base[i] += sj[(size_t)i * m];
                break;
            }
            for (int i = 0; i < nb; i++) w->base[i] -= sj[(size_t)i * m] * (d - 1);
            w->dig[j] = 0;
        }
    }
}

#define NEW(ptr, n)                                                                                \
    do {                                                                                           \
        (ptr) = lg__sv_alloc(a, (size_t)(n), sizeof(*(ptr)));                                      \
        if (!(ptr)) return LG_OUT_OF_MEMORY;                                                       \
    } while (0)

lg_status lg__sv_eliminate(const lg__sv_prob *p, const lg__sv_plan *pl, lg__sv_arena *a,
                           lg__sv_elim *e) {
    e->ntabs = p->ntabs + pl->nsteps;
    e->constant = 0.0;
    e->work = 0;
    NEW(e->tabs, e->ntabs);
    NEW(e->alive, e->ntabs);
    NEW(e->arg, pl->nsteps);
    for (int i = 0; i < p->ntabs; i++) {
        e->tabs[i] = p->tabs[i];
        e->tabs[i].own = NULL; /* the problem's tables belong to the caller */
        e->alive[i] = true;
    }
    for (int i = p->ntabs; i < e->ntabs; i++) e->alive[i] = false;
    int maxm = 0, maxnb = 1;
    int64_t maxnbm = 1;
    for (int k = 0; k < pl->nsteps; k++) {
        const lg__sv_step *st = &pl->steps[k];
        if (st->nscope > maxm) maxm = st->nscope;
        if (st->nbucket > maxnb) maxnb = st->nbucket;
        if ((int64_t)st->nbucket * st->nscope > maxnbm) maxnbm = (int64_t)st->nbucket * st->nscope;
    }
    scratch w;
    NEW(w.where, p->nvars);
    NEW(w.str, maxnbm);
    NEW(w.vstr, maxnb);
    NEW(w.base, maxnb);
    NEW(w.tv, maxnb);
    NEW(w.dig, maxm > 0 ? maxm : 1);
    for (int v = 0; v < p->nvars; v++) w.where[v] = -1;
    for (int k = 0; k < pl->nsteps; k++) {
        const lg__sv_step *st = &pl->steps[k];
        uint8_t *arg = lg__sv_alloc_big(a, (size_t)st->size, 1);
        double *out = st->nscope ? lg__sv_alloc_big(a, (size_t)st->size, sizeof(double))
                                 : lg__sv_alloc(a, 1, sizeof(double));
        if (!arg || !out) return LG_OUT_OF_MEMORY;
        e->arg[k] = arg;
        if (st->nbucket == 0) { /* a variable no table mentions: free, choice 0 */
            out[0] = 0.0;
            arg[0] = 0;
        } else {
            run_step(p, st, e->tabs, &w, out, arg);
        }
        e->work += st->joint * (st->nbucket > 0 ? st->nbucket : 1);
        for (int i = 0; i < st->nbucket; i++) {
            lg__sv_tab *t = &e->tabs[st->bucket[i]];
            e->alive[st->bucket[i]] = false;
            lg__sv_release(a, t->own);
            t->own = NULL;
            t->v = NULL;
        }
        if (st->nscope == 0) {
            e->constant += out[0];
            continue;
        }
        lg__sv_tab *t = &e->tabs[p->ntabs + k];
        int64_t *stride;
        NEW(stride, st->nscope);
        lg__sv_strides(st->nscope, st->scope, p->ncand, stride);
        t->n = st->nscope;
        t->vars = st->scope;
        t->stride = stride;
        t->v = out;
        t->size = st->size;
        t->own = out;
        e->alive[p->ntabs + k] = true;
    }
    return LG_OK;
}

void lg__sv_backtrack(const lg__sv_plan *pl, const lg__sv_elim *e, const int *ncand, int *choice) {
    for (int k = pl->nsteps - 1; k >= 0; k--) {
        const lg__sv_step *st = &pl->steps[k];
        int64_t idx = 0;
        for (int j = 0; j < st->nscope; j++) idx = idx * ncand[st->scope[j]] + choice[st->scope[j]];
        choice[st->var] = e->arg[k][idx];
    }
}
