/* Internals shared by the solver's files (solver*.c): the arena every solve
 * allocates from, the internal problem form (tables over variables), the
 * symbolic elimination planner, numeric elimination with back-tracking, and
 * the fallback local search. Nothing here is used outside src/passes/solver*. */
#ifndef LG_PASSES_SOLVER_IMPL_H
#define LG_PASSES_SOLVER_IMPL_H

#include "passes/solver.h"

/* ---- Arena ---------------------------------------------------------------
 * Every allocation of one solve (or one block move) comes from an arena and
 * is released by lg__sv_arena_free, so that an allocation failure anywhere
 * unwinds without leaks. Large tables are allocated as their own blocks and
 * may be released early (lg__sv_release) to bound peak memory. */
typedef struct lg__sv_block lg__sv_block;
typedef struct lg__sv_arena {
    lg__sv_block *head; /* every block, doubly linked */
    char *cur;          /* bump pointer into the newest small block */
    size_t left;        /* bytes left after cur */
} lg__sv_arena;

/* n * size bytes, 16-byte aligned, uninitialised; NULL on overflow or failure. */
LG_INTERNAL void *lg__sv_alloc(lg__sv_arena *a, size_t n, size_t size);
/* The same, in a block of its own that lg__sv_release may free early. */
LG_INTERNAL void *lg__sv_alloc_big(lg__sv_arena *a, size_t n, size_t size);
/* Free a block returned by lg__sv_alloc_big (NULL: nothing). */
LG_INTERNAL void lg__sv_release(lg__sv_arena *a, void *p);
/* Free everything; the arena is empty (and reusable) afterwards. */
LG_INTERNAL void lg__sv_arena_free(lg__sv_arena *a);

/* ---- Internal problem form ----------------------------------------------
 * A cost table over n distinct variables (n may exceed LG__SOLVER_MAX_ARITY:
 * elimination builds tables over a variable's whole neighbourhood). Entry of
 * assignment x is v[sum_k x[vars[k]] * stride[k]]. */
typedef struct lg__sv_tab {
    int n;
    const int *vars;
    const int64_t *stride;
    const double *v;
    int64_t size; /* product of the variables' candidate counts */
    double *own;  /* non-NULL: v is this arena big block, released when consumed */
} lg__sv_tab;

/* Minimise the sum of tabs over variables 0 .. nvars-1. */
typedef struct lg__sv_prob {
    int nvars;
    const int *ncand;
    int ntabs;
    const lg__sv_tab *tabs;
} lg__sv_prob;

/* The entry of t at assignment x (indexed by variable). */
static inline double lg__sv_tab_at(const lg__sv_tab *t, const int *x) {
    int64_t i = 0;
    for (int k = 0; k < t->n; k++) i += (int64_t)x[t->vars[k]] * t->stride[k];
    return t->v[i];
}

/* Row-major strides of a table over vars (vars[0] slowest); returns the size,
 * or -1 if it overflows int64. */
LG_INTERNAL int64_t lg__sv_strides(int n, const int *vars, const int *ncand, int64_t *stride);

/* ---- Planner -------------------------------------------------------------
 * A symbolic elimination: the order in which variables are eliminated, what
 * each step consumes and produces, and the variables left over (the core)
 * because eliminating them would exceed the limits. Table ids: 0 .. ntabs-1
 * are the problem's tables; step k's message is table ntabs + k (a step with
 * an empty scope produces a constant, not a table). */
typedef struct lg__sv_step {
    int var;       /* the variable eliminated */
    int nscope;    /* its neighbours at that point: the message's variables */
    int *scope;    /* nscope variables, in message row-major order */
    int nbucket;   /* tables consumed */
    int *bucket;   /* their ids */
    int64_t joint; /* entries of the joint table: ncand[var] * message size */
    int64_t size;  /* message entries: product over scope */
} lg__sv_step;

typedef struct lg__sv_plan {
    int nsteps;
    lg__sv_step *steps;
    int ncore;         /* variables not eliminated */
    int *core;         /* their ids, ascending */
    int64_t work;      /* entries the numeric elimination will touch */
    int64_t max_joint; /* the largest joint table */
    int order;         /* 0: min-fill, 1: min-weight */
} lg__sv_plan;

/* Plan the elimination of p: greedy min-fill and min-weight orders are both
 * simulated and the better kept (fewer core variables, then less work). A
 * variable is eligible when its joint table has at most max_table entries and
 * its step fits in what is left of max_work. */
LG_INTERNAL lg_status lg__sv_plan_make(const lg__sv_prob *p, int64_t max_table, int64_t max_work,
                                       lg__sv_arena *a, lg__sv_plan *out);

/* ---- Numeric elimination ------------------------------------------------- */
typedef struct lg__sv_elim {
    int ntabs;        /* p->ntabs + plan->nsteps */
    lg__sv_tab *tabs; /* problem tables then messages */
    bool *alive;      /* not consumed: the core's tables at the end */
    uint8_t **arg;    /* per step: argmin of var over the message's entries */
    double constant;  /* sum of the messages with empty scope */
    int64_t work;     /* entries touched */
} lg__sv_elim;

/* Run the plan: eliminate every planned variable, computing each message
 * (min over the variable of the sum of its bucket) and its argmin table. */
LG_INTERNAL lg_status lg__sv_eliminate(const lg__sv_prob *p, const lg__sv_plan *pl, lg__sv_arena *a,
                                       lg__sv_elim *e);

/* Given choice[] of the core variables, set every eliminated variable to its
 * argmin, in reverse elimination order. */
LG_INTERNAL void lg__sv_backtrack(const lg__sv_plan *pl, const lg__sv_elim *e, const int *ncand,
                                  int *choice);

/* ---- Fallback ------------------------------------------------------------
 * Local search on a (core) problem: iterated conditional modes from the
 * caller's start (if any), a greedy start and lim->restarts seeded random
 * starts; then exact block moves on the best. best[] (p->nvars) receives the
 * assignment; every move lowers the cost, so (up to rounding) it is never
 * worse than start. Touches at most about lim->max_work entries (added to
 * *work). Allocates from a. */
LG_INTERNAL lg_status lg__sv_local_search(const lg__sv_prob *p, const int *start,
                                          const lg__solver_limits *lim, lg__sv_arena *a,
                                          int64_t *work, int *best);

#endif /* LG_PASSES_SOLVER_IMPL_H */
