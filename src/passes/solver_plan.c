/* The solver's symbolic planner: choose an elimination order greedily (min-fill
 * or min-weight), simulating bucket elimination on table scopes only, and stop
 * eliminating a variable whose joint table would exceed the limits (it joins
 * the core). The numeric work happens later, in solver_elim.c, along the plan.
 *
 * Simulation: every table is a scope (a set of variables). Eliminating v
 * consumes the live tables whose scope holds v (its bucket) and produces one
 * table over their union minus v (v's neighbours N(v)). The joint table has
 * ncand[v] * prod_{u in N(v)} ncand[u] entries; numeric elimination touches
 * that many entries per bucket table. The fill of v is the number of pairs in
 * N(v) that share no live table: the edges eliminating v adds to the
 * interaction graph. After eliminating v only the scores of N(v) and of their
 * neighbours can change; they are recomputed lazily. */
#include "passes/solver_impl.h"

#include <string.h>

typedef struct planner {
    const lg__sv_prob *p;
    lg__sv_arena *a;
    int nv, nf;                   /* variables; tables so far (problem tables + messages) */
    int *fn;                      /* per table: scope size */
    const int **fv;               /* per table: scope */
    bool *dead;                   /* per table: consumed */
    int **inc;                    /* per variable: ids of tables holding it (dead ids linger) */
    int *ninc, *cinc;             /* their counts and capacities */
    bool *gone;                   /* per variable: eliminated */
    bool *dirty;                  /* per variable: cached score stale */
    int64_t *joint, *work, *fill; /* per variable: cached score */
    int *mark, *mark2;            /* per variable: stamps */
    int stamp, stamp2;
    int *nbuf, *bbuf; /* neighbour and bucket scratch */
} planner;

static int64_t sat_mul(int64_t x, int64_t y) {
    int64_t r;
    return lg__mul_ok(x, y, &r) ? r : INT64_MAX;
}

/* Gather v's live bucket into bbuf and its neighbours into nbuf; drop dead ids
 * from inc[v] on the way. */
static void gather(planner *s, int v, int *nn, int *nb) {
    int k = 0, n = 0, b = 0;
    s->stamp++;
    for (int i = 0; i < s->ninc[v]; i++) {
        int f = s->inc[v][i];
        if (s->dead[f]) continue;
        s->inc[v][k++] = f;
        s->bbuf[b++] = f;
        for (int j = 0; j < s->fn[f]; j++) {
            int u = s->fv[f][j];
            if (u != v && s->mark[u] != s->stamp) {
                s->mark[u] = s->stamp;
                s->nbuf[n++] = u;
            }
        }
    }
    s->ninc[v] = k;
    *nn = n;
    *nb = b;
}

/* Recompute the cached score of v. fill is only computed when the joint table
 * fits (it is never looked at otherwise). */
static void score(planner *s, int v, int64_t max_table) {
    int nn, nb;
    gather(s, v, &nn, &nb);
    int64_t joint = s->p->ncand[v];
    for (int i = 0; i < nn; i++) joint = sat_mul(joint, s->p->ncand[s->nbuf[i]]);
    s->joint[v] = joint;
    s->work[v] = sat_mul(joint, nb > 0 ? nb : 1);
    int64_t fill = 0;
    if (joint <= max_table) {
        for (int i = 0; i + 1 < nn; i++) {
            int u = s->nbuf[i];
            s->stamp2++;
            for (int k = 0; k < s->ninc[u]; k++) {
                int f = s->inc[u][k];
                if (s->dead[f]) continue;
                for (int j = 0; j < s->fn[f]; j++) s->mark2[s->fv[f][j]] = s->stamp2;
            }
            for (int j = i + 1; j < nn; j++) fill += s->mark2[s->nbuf[j]] != s->stamp2;
        }
    }
    s->fill[v] = fill;
    s->dirty[v] = false;
}

/* Append table f to inc[u]; false on allocation failure. */
static bool push_inc(planner *s, int u, int f) {
    if (s->ninc[u] == s->cinc[u]) {
        int cap = 2 * s->cinc[u] + 4;
        int *n = lg__sv_alloc(s->a, (size_t)cap, sizeof(int));
        if (!n) return false;
        if (s->ninc[u]) memcpy(n, s->inc[u], (size_t)s->ninc[u] * sizeof(int));
        s->inc[u] = n;
        s->cinc[u] = cap;
    }
    s->inc[u][s->ninc[u]++] = f;
    return true;
}

/* Eliminate v symbolically, recording the step in pl. */
static lg_status eliminate(planner *s, int v, lg__sv_plan *pl) {
    int nn, nb;
    gather(s, v, &nn, &nb);
    lg__sv_step *st = &pl->steps[pl->nsteps];
    st->var = v;
    st->nscope = nn;
    st->nbucket = nb;
    st->scope = lg__sv_alloc(s->a, (size_t)nn, sizeof(int));
    st->bucket = lg__sv_alloc(s->a, (size_t)nb, sizeof(int));
    if (!st->scope || !st->bucket) return LG_OUT_OF_MEMORY;
    memcpy(st->scope, s->nbuf, (size_t)nn * sizeof(int));
    memcpy(st->bucket, s->bbuf, (size_t)nb * sizeof(int));
    st->joint = s->joint[v];
    st->size = st->joint / s->p->ncand[v];
    for (int i = 0; i < nb; i++) s->dead[st->bucket[i]] = true;
    s->gone[v] = true;
    if (nn > 0) {
        int f = s->p->ntabs + pl->nsteps;
        s->fn[f] = nn;
        s->fv[f] = st->scope;
        s->dead[f] = false;
        s->nf = f + 1;
        for (int i = 0; i < nn; i++)
            if (!push_inc(s, st->scope[i], f)) return LG_OUT_OF_MEMORY;
    }
    /* Scores change for N(v) and for every variable sharing a table with one. */
    for (int i = 0; i < nn; i++) {
        int u = st->scope[i];
        for (int k = 0; k < s->ninc[u]; k++) {
            int f = s->inc[u][k];
            if (s->dead[f]) continue;
            for (int j = 0; j < s->fn[f]; j++) s->dirty[s->fv[f][j]] = true;
        }
    }
    pl->work += s->work[v];
    if (st->joint > pl->max_joint) pl->max_joint = st->joint;
    pl->nsteps++;
    return LG_OK;
}

/* True if v's cached score beats b's under the order's key (ties: lower id,
 * which is b since variables are scanned in increasing order). */
static bool better(const planner *s, int order, int v, int b) {
    if (b < 0) return true;
    int64_t k1v = order == 0 ? s->fill[v] : s->joint[v],
            k1b = order == 0 ? s->fill[b] : s->joint[b];
    int64_t k2v = order == 0 ? s->joint[v] : s->fill[v],
            k2b = order == 0 ? s->joint[b] : s->fill[b];
    return k1v < k1b || (k1v == k1b && k2v < k2b);
}

#define NEW(ptr, n)                                                                                \
    do {                                                                                           \
        (ptr) = lg__sv_alloc(a, (size_t)(n), sizeof(*(ptr)));                                      \
        if (!(ptr)) return LG_OUT_OF_MEMORY;                                                       \
    } while (0)

/* One greedy plan with the given order (0: min-fill, 1: min-weight). */
static lg_status plan_one(const lg__sv_prob *p, int order, int64_t max_table, int64_t max_work,
                          lg__sv_arena *a, lg__sv_plan *pl) {
    planner s = {.p = p, .a = a, .nv = p->nvars, .nf = p->ntabs};
    int nv = p->nvars, cap = p->ntabs + nv;
    NEW(s.fn, cap);
    NEW(s.fv, cap);
    NEW(s.dead, cap);
    NEW(s.inc, nv);
    NEW(s.ninc, nv);
    NEW(s.cinc, nv);
    NEW(s.gone, nv);
    NEW(s.dirty, nv);
    NEW(s.joint, nv);
    NEW(s.work, nv);
    NEW(s.fill, nv);
    NEW(s.mark, nv);
    NEW(s.mark2, nv);
    NEW(s.nbuf, nv);
    NEW(s.bbuf, cap);
    NEW(pl->steps, nv);
    for (int v = 0; v < nv; v++) {
        s.ninc[v] = s.cinc[v] = 0;
        s.gone[v] = false;
        s.dirty[v] = true;
        s.mark[v] = s.mark2[v] = 0;
    }
    for (int f = 0; f < p->ntabs; f++) {
        s.fn[f] = p->tabs[f].n;
        s.fv[f] = p->tabs[f].vars;
        s.dead[f] = false;
        for (int j = 0; j < s.fn[f]; j++) s.cinc[s.fv[f][j]]++;
    }
    for (int v = 0; v < nv; v++) {
        s.cinc[v] += 2;
        NEW(s.inc[v], s.cinc[v]);
    }
    for (int f = 0; f < p->ntabs; f++)
        for (int j = 0; j < s.fn[f]; j++) {
            int v = s.fv[f][j];
            s.inc[v][s.ninc[v]++] = f;
        }
    pl->nsteps = 0;
    pl->work = 0;
    pl->max_joint = 0;
    pl->order = order;
    for (;;) {
        int best = -1;
        for (int v = 0; v < nv; v++) {
            if (s.gone[v]) continue;
            if (s.dirty[v]) score(&s, v, max_table);
            if (s.joint[v] > max_table || s.work[v] > max_work - pl->work) continue;
            if (better(&s, order, v, best)) best = v;
        }
        if (best < 0) break;
        LG_CHECK(eliminate(&s, best, pl));
    }
    pl->ncore = nv - pl->nsteps;
    NEW(pl->core, pl->ncore);
    for (int v = 0, k = 0; v < nv; v++)
        if (!s.gone[v]) pl->core[k++] = v;
    return LG_OK;
}

lg_status lg__sv_plan_make(const lg__sv_prob *p, int64_t max_table, int64_t max_work,
                           lg__sv_arena *a, lg__sv_plan *out) {
    lg__sv_plan fill, weight;
    LG_CHECK(plan_one(p, 0, max_table, max_work, a, &fill));
    if (fill.ncore == 0 && fill.max_joint <= 64) {
        *out = fill; /* trivially small: the second order cannot matter */
        return LG_OK;
    }
    LG_CHECK(plan_one(p, 1, max_table, max_work, a, &weight));
    bool w = weight.ncore < fill.ncore ||
             (weight.ncore == fill.ncore &&
              (weight.work < fill.work ||
               (weight.work == fill.work && weight.max_joint < fill.max_joint)));
    *out = w ? weight : fill;
    return LG_OK;
}
