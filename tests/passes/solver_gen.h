/* Test helpers for the solver: a problem builder that owns its tables, and a
 * seeded random-DAG generator that models graphs the way the layout adapter
 * does (a variable per value, a factor per node over its inputs and output,
 * unary costs, and factors tying multi-consumer values to their consumers). */
#ifndef LG_TESTS_SOLVER_GEN_H
#define LG_TESTS_SOLVER_GEN_H

#include "passes/solver.h"
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { TP_MAXV = 1024, TP_MAXF = 4096, DAG_MAXV = 16 };

typedef struct tprob {
    int ncand[TP_MAXV];
    lg__solver_factor f[TP_MAXF];
    double *tab[TP_MAXF];
    lg__solver_problem p;
} tprob;

static inline void tp_init(tprob *t, int nvars) {
    memset(t, 0, sizeof *t);
    t->p.nvars = nvars;
    t->p.ncand = t->ncand;
    t->p.factors = t->f;
}

static inline void tp_free(tprob *t) {
    for (int i = 0; i < t->p.nfactors; i++) free(t->tab[i]);
    t->p.nfactors = 0;
}

/* Add a factor over vars[0..arity) and return its table (zeroed) to fill. */
static inline double *tp_add(tprob *t, int arity, const int *vars) {
    int i = t->p.nfactors++;
    int64_t n = 1;
    t->f[i].arity = arity;
    for (int k = 0; k < arity; k++) {
        t->f[i].vars[k] = vars[k];
        n *= t->ncand[vars[k]];
    }
    t->tab[i] = calloc((size_t)n, sizeof(double));
    t->f[i].cost = t->tab[i];
    return t->tab[i];
}

static inline int64_t tp_size(const tprob *t, int i) {
    int64_t n = 1;
    for (int k = 0; k < t->f[i].arity; k++) n *= t->ncand[t->f[i].vars[k]];
    return n;
}

/* A random cost: an integer in [0, 20] (exact sums) or a real in [0, 20),
 * INFINITY with probability pinf percent. */
static inline double tp_cost(lg_rng *r, int pinf, bool integer) {
    if (lg_rng_int(r, 0, 99) < pinf) return INFINITY;
    return integer ? (double)lg_rng_int(r, 0, 20) : (double)lg_rng_float(r, 0.0f, 20.0f);
}

static inline void tp_fill(lg_rng *r, tprob *t, int i, int pinf, bool integer) {
    for (int64_t e = 0; e < tp_size(t, i); e++) t->tab[i][e] = tp_cost(r, pinf, integer);
}

/* What a generated DAG contained, to check the generator covers the cases. */
typedef struct dag_stats {
    int joins; /* nodes with >= 2 inputs */
    int multi; /* values with >= 2 consumers */
    int wide;  /* factors of arity >= 4 */
} dag_stats;

/* A random DAG of nnodes <= 14 nodes (1-3 inputs each, chosen among earlier
 * values: graph inputs and node outputs) turned into a factor problem. */
static inline void tp_dag(tprob *t, lg_rng *r, int nnodes, int pinf, bool integer, dag_stats *st) {
    int nin = (int)lg_rng_int(r, 1, 2);
    int nv = nin + nnodes;
    tp_init(t, nv);
    for (int v = 0; v < nv; v++) t->ncand[v] = (int)lg_rng_int(r, 2, 4);
    int ncons[DAG_MAXV] = {0}, cons[DAG_MAXV][DAG_MAXV];
    for (int i = 0; i < nnodes; i++) {
        int out = nin + i, avail = out, k = (int)lg_rng_int(r, 1, 3), vars[4] = {0}, n = 0;
        if (k > avail) k = avail;
        while (n < k) { /* distinct inputs, biased towards recent values */
            int v = lg_rng_int(r, 0, 2) ? (int)lg_rng_int(r, avail > 3 ? avail - 3 : 0, avail - 1)
                                        : (int)lg_rng_int(r, 0, avail - 1);
            bool dup = false;
            for (int j = 0; j < n; j++) dup |= vars[j] == v;
            if (!dup) vars[n++] = v;
        }
        for (int j = 0; j < n; j++) cons[vars[j]][ncons[vars[j]]++] = out;
        vars[n++] = out;
        if (st && k >= 2) st->joins++;
        tp_add(t, n, vars);
        tp_fill(r, t, t->p.nfactors - 1, pinf, integer);
    }
    for (int v = 0; v < nv; v++) {
        if (lg_rng_int(r, 0, 1)) {
            tp_add(t, 1, &v);
            tp_fill(r, t, t->p.nfactors - 1, pinf / 2, integer);
        }
        if (ncons[v] >= 2) {
            if (st) st->multi++;
            if (lg_rng_int(r, 0, 1)) { /* the value and all its consumers' outputs */
                int vars[LG__SOLVER_MAX_ARITY], n = 0;
                vars[n++] = v;
                for (int j = 0; j < ncons[v] && n < LG__SOLVER_MAX_ARITY; j++)
                    vars[n++] = cons[v][j];
                tp_add(t, n, vars);
                tp_fill(r, t, t->p.nfactors - 1, pinf, integer);
            }
        }
    }
    if (st)
        for (int i = 0; i < t->p.nfactors; i++) st->wide += t->f[i].arity >= 4;
}

#endif /* LG_TESTS_SOLVER_GEN_H */
