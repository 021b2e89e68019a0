/* The solver's fallback: local search on the core, the variables whose exact
 * elimination would exceed the limits (their tables already hold the exact
 * minimum over every eliminated variable).
 *
 * 1. Starts: the caller's start (if any), a greedy one (variables in order,
 *    each taking its cheapest choice given the tables whose other variables
 *    are already set), and lim->restarts seeded random ones.
 * 2. Iterated conditional modes on each start: visit every variable and move
 *    it to its cheapest choice given all the others, until a full pass
 *    changes nothing. Keep the best result.
 * 3. Exact block moves on the best: grow a block of up to BLOCK variables by
 *    breadth-first search from a seed, clamp every other variable at its
 *    current choice, and minimise over the block exactly by elimination; a
 *    block too wide for the limits is halved (keeping the part nearest the
 *    seed) until it fits. Accept if strictly cheaper. Every variable not yet
 *    in a block this pass seeds one; passes repeat (with ICM between) until
 *    one improves nothing.
 * Every accepted move lowers the cost, so the result is never worse than any
 * start. Work (entries touched) stops the search at lim->max_work. */
#include "passes/solver_impl.h"

#include <math.h>
#include <string.h>

enum { BLOCK = 16, ICM_PASSES = 100, BLOCK_PASSES = 8 };

typedef struct ls {
    const lg__sv_prob *p;
    const lg__solver_limits *lim;
    lg__sv_arena *a;
    int64_t spent;      /* entries touched so far */
    int *ninc;          /* per variable: incident tables */
    int **inct, **incp; /* their ids and the variable's position in each */
    int *g2b;           /* per variable: index in the current block, or -1 */
    int *tseen, tstamp; /* per table: stamp of the last block that took it */
    int *queue, *blk;   /* BFS scratch, the block */
    bool *covered;      /* per variable: in some block this pass */
    int *bx, *by;       /* block assignments (old, new) */
    double loc[LG__SOLVER_MAX_CAND];
} ls;

static double total(const lg__sv_prob *p, const int *x) {
    double c = 0.0;
    for (int t = 0; t < p->ntabs; t++) c += lg__sv_tab_at(&p->tabs[t], x);
    return c;
}

/* The first cheapest choice of u given x, summing only incident tables whose
 * other variables are set (set == NULL: all are). Fills s->loc. */
static int cheapest(ls *s, int u, const int *x, const bool *set) {
    const lg__sv_prob *p = s->p;
    int d = p->ncand[u];
    for (int v = 0; v < d; v++) s->loc[v] = 0.0;
    for (int i = 0; i < s->ninc[u]; i++) {
        const lg__sv_tab *t = &p->tabs[s->inct[u][i]];
        int ku = s->incp[u][i];
        int64_t idx = 0;
        bool ok = true;
        for (int k = 0; k < t->n && ok; k++) {
            if (k == ku) continue;
            ok = !set || set[t->vars[k]];
            idx += (int64_t)x[t->vars[k]] * t->stride[k];
        }
        if (!ok) continue;
        for (int v = 0; v < d; v++) s->loc[v] += t->v[idx + v * t->stride[ku]];
        s->spent += d;
    }
    int b = 0;
    for (int v = 1; v < d; v++)
        if (s->loc[v] < s->loc[b]) b = v;
    return b;
}

/* Iterated conditional modes from x, in place. */
static void icm(ls *s, int *x) {
    bool changed = true;
    for (int pass = 0; changed && pass < ICM_PASSES && s->spent < s->lim->max_work; pass++) {
        changed = false;
        for (int u = 0; u < s->p->nvars; u++) {
            int b = cheapest(s, u, x, NULL);
            if (s->loc[b] < s->loc[x[u]]) {
                x[u] = b;
                changed = true;
            }
        }
    }
}

/* Grow a block by breadth-first search from seed; returns its size. */
static int grow(ls *s, int seed) {
    const lg__sv_prob *p = s->p;
    int m = 0, head = 0;
    s->queue[m] = seed;
    s->blk[m] = seed;
    s->g2b[seed] = m++;
    while (head < m && m < BLOCK) {
        int u = s->queue[head++];
        for (int i = 0; i < s->ninc[u] && m < BLOCK; i++) {
            const lg__sv_tab *t = &p->tabs[s->inct[u][i]];
            for (int k = 0; k < t->n && m < BLOCK; k++) {
                int w = t->vars[k];
                if (s->g2b[w] >= 0) continue;
                s->queue[m] = w;
                s->blk[m] = w;
                s->g2b[w] = m++;
            }
        }
    }
    return m;
}

/* The table t restricted to the block, every other variable clamped at x. */
static lg_status slice(ls *s, lg__sv_arena *sa, const lg__sv_tab *t, const int *x,
                       const int *subcand, lg__sv_tab *o) {
    int q = 0, *vars = lg__sv_alloc(sa, (size_t)t->n, sizeof(int));
    int64_t *ostr = lg__sv_alloc(sa, (size_t)t->n, sizeof(int64_t)), base = 0;
    if (!vars || !ostr) return LG_OUT_OF_MEMORY;
    for (int k = 0; k < t->n; k++) {
        int b = s->g2b[t->vars[k]];
        if (b >= 0) {
            ostr[q] = t->stride[k];
            vars[q++] = b;
        } else {
            base += (int64_t)x[t->vars[k]] * t->stride[k];
        }
    }
    o->n = q;
    o->vars = vars;
    o->own = NULL;
    if (q == t->n) { /* wholly inside the block: share the values */
        o->stride = t->stride;
        o->v = t->v;
        o->size = t->size;
        return LG_OK;
    }
    int64_t *stride = lg__sv_alloc(sa, (size_t)(q > 0 ? q : 1), sizeof(int64_t));
    int *dig = lg__sv_alloc(sa, (size_t)(q > 0 ? q : 1), sizeof(int));
    if (!stride || !dig) return LG_OUT_OF_MEMORY;
    int64_t size = lg__sv_strides(q, vars, subcand, stride); /* <= t->size */
    double *v = lg__sv_alloc_big(sa, (size_t)size, sizeof(double));
    if (!v) return LG_OUT_OF_MEMORY;
    for (int j = 0; j < q; j++) dig[j] = 0;
    int64_t off = base;
    for (int64_t i = 0; i < size; i++) {
        v[i] = t->v[off];
        for (int j = q - 1; j >= 0; j--) {
            if (++dig[j] < subcand[vars[j]]) {
                off += ostr[j];
                break;
            }
            off -= ostr[j] * (subcand[vars[j]] - 1);
            dig[j] = 0;
        }
    }
    s->spent += size;
    o->stride = stride;
    o->v = v;
    o->size = size;
    return LG_OK;
}

/* Minimise exactly over the block blk[0..m) with the rest clamped at x, and
 * apply the result if it is strictly cheaper (*better is set if it was). If
 * the block does not fit the limits whole, *fits is false and, unless last,
 * nothing is done; when last, whatever of the block fits is minimised with
 * the rest of it clamped too. */
static lg_status block_move_in(ls *s, lg__sv_arena *sa, int m, bool last, int *x, bool *better,
                               bool *fits) {
    const lg__sv_prob *p = s->p;
    int *subcand = lg__sv_alloc(sa, (size_t)m, sizeof(int));
    int nt = 0, cap = 0;
    if (!subcand) return LG_OUT_OF_MEMORY;
    s->tstamp++;
    for (int i = 0; i < m; i++) {
        subcand[i] = p->ncand[s->blk[i]];
        cap += s->ninc[s->blk[i]];
    }
    lg__sv_tab *tabs = lg__sv_alloc(sa, (size_t)(cap > 0 ? cap : 1), sizeof(lg__sv_tab));
    if (!tabs) return LG_OUT_OF_MEMORY;
    for (int i = 0; i < m; i++) {
        int u = s->blk[i];
        for (int j = 0; j < s->ninc[u]; j++) {
            int t = s->inct[u][j];
            if (s->tseen[t] == s->tstamp) continue;
            s->tseen[t] = s->tstamp;
            LG_CHECK(slice(s, sa, &p->tabs[t], x, subcand, &tabs[nt++]));
        }
    }
    lg__sv_prob sub = {.nvars = m, .ncand = subcand, .ntabs = nt, .tabs = tabs};
    lg__sv_plan pl;
    lg__sv_elim e;
    int64_t left = s->lim->max_work - s->spent;
    LG_CHECK(lg__sv_plan_make(&sub, s->lim->max_table_entries, left > 0 ? left : 0, sa, &pl));
    *fits = pl.ncore == 0;
    if (pl.nsteps == 0 || (!*fits && !last)) return LG_OK;
    LG_CHECK(lg__sv_eliminate(&sub, &pl, sa, &e));
    s->spent += e.work;
    for (int i = 0; i < m; i++) s->bx[i] = s->by[i] = x[s->blk[i]];
    lg__sv_backtrack(&pl, &e, subcand, s->by);
    if (total(&sub, s->by) < total(&sub, s->bx)) {
        for (int i = 0; i < m; i++) x[s->blk[i]] = s->by[i];
        *better = true;
    }
    return LG_OK;
}

/* A block move from seed: the breadth-first block of up to BLOCK variables,
 * halved (keeping the prefix nearest the seed) until it fits the limits. */
static lg_status block_move(ls *s, int seed, int *x, bool *better) {
    int m = grow(s, seed);
    lg_status st = LG_OK;
    for (;;) {
        bool fits = false;
        lg__sv_arena sa = {0};
        st = block_move_in(s, &sa, m, m == 1, x, better, &fits);
        lg__sv_arena_free(&sa);
        if (st != LG_OK || fits || m == 1) break;
        for (int i = m / 2; i < m; i++) s->g2b[s->blk[i]] = -1;
        m /= 2;
    }
    for (int i = 0; i < m; i++) {
        s->covered[s->blk[i]] = true;
        s->g2b[s->blk[i]] = -1;
    }
    return st;
}

#define NEW(ptr, n)                                                                                \
    do {                                                                                           \
        (ptr) = lg__sv_alloc(a, (size_t)(n), sizeof(*(ptr)));                                      \
        if (!(ptr)) return LG_OUT_OF_MEMORY;                                                       \
    } while (0)

static uint64_t splitmix(uint64_t *st) {
    uint64_t z = (*st += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

lg_status lg__sv_local_search(const lg__sv_prob *p, const int *start, const lg__solver_limits *lim,
                              lg__sv_arena *a, int64_t *work, int *best) {
    int n = p->nvars;
    ls s = {.p = p, .lim = lim, .a = a};
    NEW(s.ninc, n);
    NEW(s.inct, n);
    NEW(s.incp, n);
    NEW(s.g2b, n);
    NEW(s.queue, n);
    NEW(s.blk, n);
    NEW(s.covered, n);
    NEW(s.bx, n);
    NEW(s.by, n);
    NEW(s.tseen, p->ntabs > 0 ? p->ntabs : 1);
    for (int u = 0; u < n; u++) s.ninc[u] = 0, s.g2b[u] = -1;
    for (int t = 0; t < p->ntabs; t++) {
        s.tseen[t] = 0;
        for (int k = 0; k < p->tabs[t].n; k++) s.ninc[p->tabs[t].vars[k]]++;
    }
    for (int u = 0; u < n; u++) {
        NEW(s.inct[u], s.ninc[u] > 0 ? s.ninc[u] : 1);
        NEW(s.incp[u], s.ninc[u] > 0 ? s.ninc[u] : 1);
        s.ninc[u] = 0;
    }
    for (int t = 0; t < p->ntabs; t++)
        for (int k = 0; k < p->tabs[t].n; k++) {
            int u = p->tabs[t].vars[k];
            s.inct[u][s.ninc[u]] = t;
            s.incp[u][s.ninc[u]++] = k;
        }

    /* Starts, each polished by ICM; keep the first cheapest. */
    int *x;
    bool *set;
    NEW(x, n);
    NEW(set, n);
    memset(x, 0, (size_t)n * sizeof(int));
    double bestc = INFINITY;
    bool have = false;
    uint64_t rng = lim->seed;
    for (int k = -2; k < lim->restarts; k++) {
        if (k == -2) { /* the caller's start */
            if (!start) continue;
            memcpy(x, start, (size_t)n * sizeof(int));
        } else if (k == -1) { /* greedy */
            for (int u = 0; u < n; u++) set[u] = false;
            for (int u = 0; u < n; u++) {
                x[u] = 0;
                x[u] = cheapest(&s, u, x, set);
                set[u] = true;
            }
        } else {
            for (int u = 0; u < n; u++) x[u] = (int)(splitmix(&rng) % (uint64_t)p->ncand[u]);
        }
        icm(&s, x);
        double c = total(p, x);
        if (!have || c < bestc) {
            memcpy(best, x, (size_t)n * sizeof(int));
            bestc = c;
            have = true;
        }
    }

    /* Exact block moves on the best. */
    for (int pass = 0; pass < BLOCK_PASSES && s.spent < lim->max_work; pass++) {
        bool improved = false;
        for (int u = 0; u < n; u++) s.covered[u] = false;
        for (int u = 0; u < n && s.spent < lim->max_work; u++) {
            if (s.covered[u]) continue;
            LG_CHECK(block_move(&s, u, best, &improved));
        }
        if (!improved) break;
        icm(&s, best);
    }
    *work += s.spent;
    return LG_OK;
}
