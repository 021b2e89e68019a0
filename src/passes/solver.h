/* The exact minimum-cost assignment solver behind LG_STRATEGY_OPTIMAL.
 *
 * A discrete factor-graph minimisation problem: variables (one per value of
 * the graph, in the layout adapter) each take one of a few candidate choices
 * (its layouts); factors (one per node, plus whatever the cost model needs)
 * give a cost to every combination of the choices of their variables. The
 * solver finds the assignment of minimum total cost. It knows nothing of
 * graphs: the adapter in the layout pass turns a graph and its cost model into
 * an lg__solver_problem.
 *
 *     double c01[2 * 3] = {0, 5, 1,  2, 0, INFINITY};   // a: 2 choices, b: 3
 *     lg__solver_factor f = {.arity = 2, .vars = {0, 1}, .cost = c01};
 *     int ncand[2] = {2, 3}, choice[2];
 *     lg__solver_problem p = {.nvars = 2, .ncand = ncand, .nfactors = 1, .factors = &f};
 *     lg__solver_result r = {.choice = choice};
 *     lg_status s = lg__solver_solve(&p, NULL, &r);   // choice = {0, 0}, cost 0
 *
 * Method (docs/propagation.md, "The OPTIMAL solver"): variable elimination
 * (bucket elimination, i.e. dynamic programming over the tree decomposition
 * that a greedy min-fill or min-weight elimination order induces) with argmin
 * back-tracking; O(n * d^(w+1)) time for induced width w. When eliminating a
 * variable would build a table larger than the limits allow, that variable is
 * left in a "core"; the core is solved by a seeded local search (iterated
 * conditional modes plus exact block moves) from several starts, the caller's
 * start among them, and the result is marked not exact. */
#ifndef LG_PASSES_SOLVER_H
#define LG_PASSES_SOLVER_H

#include "common/common.h"

/* The most variables one factor of an lg__solver_problem may have. */
#define LG__SOLVER_MAX_ARITY 8
/* The most candidate choices one variable may have. */
#define LG__SOLVER_MAX_CAND 256

/* One factor: a dense cost table over `arity` distinct variables. The table
 * has prod(ncand[vars[i]]) entries, row-major with vars[0] slowest: the cost
 * of choices (c0, ..., ck) is at ((c0 * n1 + c1) * n2 + c2) ... Costs are
 * >= 0; INFINITY forbids the combination. The solver reads the table in place
 * (it must outlive the call) and never writes it. */
typedef struct lg__solver_factor {
    int arity;                      /* 1 .. LG__SOLVER_MAX_ARITY */
    int vars[LG__SOLVER_MAX_ARITY]; /* the first `arity` entries are used */
    const double *cost;
} lg__solver_factor;

/* The problem: minimise the sum of all factors' costs over the choice of one
 * candidate in [0, ncand[v]) for every variable v. A variable no factor
 * mentions is free (the solver gives it choice 0). */
typedef struct lg__solver_problem {
    int nvars;                        /* >= 0 */
    const int *ncand;                 /* nvars entries, each 1 .. LG__SOLVER_MAX_CAND */
    int nfactors;                     /* >= 0 */
    const lg__solver_factor *factors; /* nfactors entries (may be NULL when 0) */
} lg__solver_problem;

/* What the solver may spend, and the start assignment the result must never be
 * worse than. Fill with lg__solver_limits_init, then change fields. */
typedef struct lg__solver_limits {
    /* The largest table the exact method may build, in entries: the joint
     * table of a variable and its neighbours when the variable is eliminated
     * (the product of their candidate counts). A variable whose elimination
     * needs more stays in the core (the fallback). Default 1 << 22. */
    int64_t max_table_entries;
    /* The most table entries the exact phase may touch in total, and again
     * the most the fallback may touch. Default 1 << 24 (DenseNet-121's
     * solve: about 170 ms; docs/propagation.md). */
    int64_t max_work;
    /* Optional (NULL: none): an assignment of nvars choices, e.g. the greedy
     * strategy's. The result's cost, as lg__solver_cost evaluates it, is never
     * greater than this start's. */
    const int *start;
    /* Seeded random starts the fallback tries besides the caller's start and
     * a greedy one. Default 4. */
    int restarts;
    uint64_t seed; /* seed of those starts; default a fixed constant */
} lg__solver_limits;

/* What the solver found. The caller allocates choice (nvars entries; may be
 * NULL when nvars is 0); the solver fills every other field. */
typedef struct lg__solver_result {
    int *choice;        /* the chosen candidate of each variable */
    double cost;        /* lg__solver_cost of choice */
    bool exact;         /* true: proven minimal (no fallback, or it reached lower_bound) */
    int64_t work;       /* table entries touched, for reporting */
    const char *method; /* a static description of the method that produced choice */
    /* A proven lower bound of the minimum (cost when exact): in the
     * fallback, the exactly eliminated part's minimum plus each remaining
     * table's smallest entry. The minimum lies in [lower_bound, cost]; when
     * the fallback's cost reaches the bound (to a relative 1e-12) the
     * result is proven minimal and exact is true. */
    double lower_bound;
    int core; /* variables left to the fallback (0 when exact) */
} lg__solver_result;

/* Fill *lim with the defaults listed in lg__solver_limits. */
LG_INTERNAL void lg__solver_limits_init(lg__solver_limits *lim);

/* Minimise p. lim may be NULL (defaults). On LG_OK, r->choice holds an
 * assignment of finite cost r->cost; r->exact says whether it is proven
 * minimal. Errors, with lg_last_error() saying what and where:
 * - LG_INVALID_ARGUMENT: NULL p, r or r->choice (when nvars > 0), ncand out of
 *   range, a factor's arity out of range, a variable index out of range or
 *   repeated within a factor, a NULL table, a NaN or negative cost, a table
 *   too large to address, bad limits or a start choice out of range.
 * - LG_INVALID_GRAPH: every assignment has infinite cost (proven; r->cost is
 *   INFINITY, r->exact true).
 * - LG_UNIMPLEMENTED: the problem needed the fallback and the fallback found
 *   no assignment of finite cost (none may exist; pass a finite start or
 *   raise the limits).
 * - LG_OUT_OF_MEMORY: an allocation failed; nothing is leaked.
 * Deterministic: the same problem and limits give the same result. Holds no
 * shared state: any number of threads may solve at once. */
LG_INTERNAL lg_status lg__solver_solve(const lg__solver_problem *p, const lg__solver_limits *lim,
                                       lg__solver_result *r);

/* The total cost of an assignment of p: the sum of every factor's entry, in
 * factor order (INFINITY if any is infinite). p and choice must be valid
 * (lg__solver_check); choice[v] must lie in [0, ncand[v]). */
LG_INTERNAL double lg__solver_cost(const lg__solver_problem *p, const int *choice);

/* Check p as lg__solver_solve does; LG_OK or LG_INVALID_ARGUMENT with the
 * reason recorded (attributed to `where`). */
LG_INTERNAL lg_status lg__solver_check(const lg__solver_problem *p, const char *where);

/* Exhaustive enumeration, for tests: the truth the solver is checked against.
 * Tries every assignment (variable 0 slowest) and keeps the first of minimum
 * cost; *cost is lg__solver_cost of it (INFINITY if all are infinite, still
 * LG_OK). LG_UNIMPLEMENTED when there are more than max_assignments
 * assignments, LG_INVALID_ARGUMENT for a bad problem, LG_OUT_OF_MEMORY. */
LG_INTERNAL lg_status lg__solver_brute(const lg__solver_problem *p, int64_t max_assignments,
                                       int *choice, double *cost);

#endif /* LG_PASSES_SOLVER_H */
