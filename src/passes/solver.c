/* The solver's entry points: validation, the cost of an assignment, and
 * lg__solver_solve, which plans an elimination (solver_plan.c), runs it
 * (solver_elim.c) and, when variables are left over because of the limits,
 * finishes with the local search (solver_local.c). */
#include "passes/solver_impl.h"

#include <math.h>
#include <string.h>

void lg__solver_limits_init(lg__solver_limits *lim) {
    lim->max_table_entries = (int64_t)1 << 22;
    lim->max_work = (int64_t)1 << 24;
    lim->start = NULL;
    lim->restarts = 4;
    lim->seed = 0x6c67726170680001ull;
}

/* Entries of factor f's table, or -1 if it does not fit in memory indices. */
static int64_t factor_size(const lg__solver_problem *p, const lg__solver_factor *f) {
    int64_t n = 1;
    for (int k = 0; k < f->arity; k++)
        if (!lg__mul_ok(n, p->ncand[f->vars[k]], &n)) return -1;
    return n <= (int64_t)(SIZE_MAX / sizeof(double)) ? n : -1;
}

lg_status lg__solver_check(const lg__solver_problem *p, const char *where) {
    if (!p) return lg__error(LG_INVALID_ARGUMENT, where, "problem is NULL");
    if (p->nvars < 0) return lg__error(LG_INVALID_ARGUMENT, where, "nvars %d < 0", p->nvars);
    if (p->nfactors < 0)
        return lg__error(LG_INVALID_ARGUMENT, where, "nfactors %d < 0", p->nfactors);
    if (p->nvars > 0 && !p->ncand) return lg__error(LG_INVALID_ARGUMENT, where, "ncand is NULL");
    if (p->nfactors > 0 && !p->factors)
        return lg__error(LG_INVALID_ARGUMENT, where, "factors is NULL");
    for (int v = 0; v < p->nvars; v++)
        if (p->ncand[v] < 1 || p->ncand[v] > LG__SOLVER_MAX_CAND)
            return lg__error(LG_INVALID_ARGUMENT, where, "variable %d: ncand %d not in [1, %d]", v,
                             p->ncand[v], LG__SOLVER_MAX_CAND);
    for (int i = 0; i < p->nfactors; i++) {
        const lg__solver_factor *f = &p->factors[i];
        if (f->arity < 1 || f->arity > LG__SOLVER_MAX_ARITY)
            return lg__error(LG_INVALID_ARGUMENT, where, "factor %d: arity %d not in [1, %d]", i,
                             f->arity, LG__SOLVER_MAX_ARITY);
        for (int k = 0; k < f->arity; k++) {
            int v = f->vars[k];
            if (v < 0 || v >= p->nvars)
                return lg__error(LG_INVALID_ARGUMENT, where,
                                 "factor %d: variable %d (position %d) not in [0, %d)", i, v, k,
                                 p->nvars);
            for (int j = 0; j < k; j++)
                if (f->vars[j] == v)
                    return lg__error(LG_INVALID_ARGUMENT, where,
                                     "factor %d: variable %d listed twice (positions %d and %d)", i,
                                     v, j, k);
        }
        if (!f->cost) return lg__error(LG_INVALID_ARGUMENT, where, "factor %d: cost is NULL", i);
        int64_t n = factor_size(p, f);
        if (n < 0) return lg__error(LG_INVALID_ARGUMENT, where, "factor %d: table too large", i);
        for (int64_t e = 0; e < n; e++)
            if (isnan(f->cost[e]) || f->cost[e] < 0)
                return lg__error(LG_INVALID_ARGUMENT, where,
                                 "factor %d: cost entry %lld is %g (costs must be >= 0, not NaN)",
                                 i, (long long)e, f->cost[e]);
    }
    return LG_OK;
}

double lg__solver_cost(const lg__solver_problem *p, const int *choice) {
    double c = 0.0;
    for (int i = 0; i < p->nfactors; i++) {
        const lg__solver_factor *f = &p->factors[i];
        int64_t idx = 0;
        for (int k = 0; k < f->arity; k++) idx = idx * p->ncand[f->vars[k]] + choice[f->vars[k]];
        c += f->cost[idx];
    }
    return c;
}

static const char *const method_exact[2] = {"variable elimination (min-fill order)",
                                            "variable elimination (min-weight order)"};
static const char method_fallback[] =
    "fallback: partial variable elimination + local search (ICM + exact block moves)";
static const char method_bound[] =
    "fallback: partial variable elimination + local search (ICM + exact block moves), "
    "proven minimal by its lower bound";

/* Solve into r->choice; the caller frees the arena. */
static lg_status solve_in(const lg__solver_problem *p, const lg__solver_limits *lim,
                          lg__solver_result *r, lg__sv_arena *a, bool *infeasible) {
    int n = p->nvars;
    lg__sv_tab *tabs = lg__sv_alloc(a, (size_t)(p->nfactors > 0 ? p->nfactors : 1), sizeof(*tabs));
    if (!tabs) return LG_OUT_OF_MEMORY;
    for (int i = 0; i < p->nfactors; i++) {
        const lg__solver_factor *f = &p->factors[i];
        int64_t *stride = lg__sv_alloc(a, (size_t)f->arity, sizeof(int64_t));
        if (!stride) return LG_OUT_OF_MEMORY;
        tabs[i] = (lg__sv_tab){.n = f->arity, .vars = f->vars, .stride = stride, .v = f->cost};
        tabs[i].size = lg__sv_strides(f->arity, f->vars, p->ncand, stride);
    }
    lg__sv_prob sp = {.nvars = n, .ncand = p->ncand, .ntabs = p->nfactors, .tabs = tabs};
    lg__sv_plan pl;
    lg__sv_elim e;
    LG_CHECK(lg__sv_plan_make(&sp, lim->max_table_entries, lim->max_work, a, &pl));
    LG_CHECK(lg__sv_eliminate(&sp, &pl, a, &e));
    r->work = e.work;
    /* A message with an empty scope is the exact minimum of a part of the
     * problem independent of everything else: infinite means infeasible. */
    if (isinf(e.constant)) {
        *infeasible = true;
        r->exact = true;
        return LG_OK;
    }
    if (pl.ncore == 0) {
        lg__sv_backtrack(&pl, &e, p->ncand, r->choice);
        r->exact = true;
        r->method = method_exact[pl.order];
        return LG_OK;
    }

    /* The fallback: the core's live tables, variables renumbered 0..ncore-1. */
    int nc = pl.ncore, nt = 0;
    int *g2c = lg__sv_alloc(a, (size_t)n, sizeof(int));
    int *ccand = lg__sv_alloc(a, (size_t)nc, sizeof(int));
    int *cstart = lim->start ? lg__sv_alloc(a, (size_t)nc, sizeof(int)) : NULL;
    int *cbest = lg__sv_alloc(a, (size_t)nc, sizeof(int));
    lg__sv_tab *ctabs = lg__sv_alloc(a, (size_t)e.ntabs, sizeof(*ctabs));
    if (!g2c || !ccand || (lim->start && !cstart) || !cbest || !ctabs) return LG_OUT_OF_MEMORY;
    for (int i = 0; i < nc; i++) {
        g2c[pl.core[i]] = i;
        ccand[i] = p->ncand[pl.core[i]];
        if (cstart) cstart[i] = lim->start[pl.core[i]];
    }
    r->lower_bound = e.constant;
    r->core = nc;
    for (int t = 0; t < e.ntabs; t++) {
        if (!e.alive[t]) continue;
        const lg__sv_tab *src = &e.tabs[t];
        double lo = INFINITY;
        for (int64_t k = 0; k < src->size; k++)
            if (src->v[k] < lo) lo = src->v[k];
        if (src->size) r->lower_bound += lo;
        int *vars = lg__sv_alloc(a, (size_t)src->n, sizeof(int));
        if (!vars) return LG_OUT_OF_MEMORY;
        for (int k = 0; k < src->n; k++) vars[k] = g2c[src->vars[k]];
        ctabs[nt] = *src;
        ctabs[nt].vars = vars;
        ctabs[nt++].own = NULL;
    }
    lg__sv_prob core = {.nvars = nc, .ncand = ccand, .ntabs = nt, .tabs = ctabs};
    LG_CHECK(lg__sv_local_search(&core, cstart, lim, a, &r->work, cbest));
    for (int i = 0; i < nc; i++) r->choice[pl.core[i]] = cbest[i];
    lg__sv_backtrack(&pl, &e, p->ncand, r->choice);
    r->exact = false;
    r->method = method_fallback;
    return LG_OK;
}

lg_status lg__solver_solve(const lg__solver_problem *p, const lg__solver_limits *lim,
                           lg__solver_result *r) {
    if (!r) return lg__error(LG_INVALID_ARGUMENT, "lg_graph_compile", "result is NULL");
    LG_CHECK(lg__solver_check(p, "lg_graph_compile"));
    if (p->nvars > 0 && !r->choice)
        return lg__error(LG_INVALID_ARGUMENT, "lg_graph_compile", "result choice is NULL");
    lg__solver_limits l;
    if (lim)
        l = *lim;
    else
        lg__solver_limits_init(&l);
    if (l.max_table_entries < 1)
        return lg__error(LG_INVALID_ARGUMENT, "lg_graph_compile", "max_table_entries %lld < 1",
                         (long long)l.max_table_entries);
    if (l.max_work < 0)
        return lg__error(LG_INVALID_ARGUMENT, "lg_graph_compile", "max_work %lld < 0",
                         (long long)l.max_work);
    if (l.restarts < 0)
        return lg__error(LG_INVALID_ARGUMENT, "lg_graph_compile", "restarts %d < 0", l.restarts);
    if (l.start)
        for (int v = 0; v < p->nvars; v++)
            if (l.start[v] < 0 || l.start[v] >= p->ncand[v])
                return lg__error(LG_INVALID_ARGUMENT, "lg_graph_compile",
                                 "start[%d] = %d not in [0, %d)", v, l.start[v], p->ncand[v]);
    r->cost = INFINITY;
    r->lower_bound = 0;
    r->core = 0;
    r->exact = false;
    r->work = 0;
    r->method = method_fallback;
    for (int v = 0; v < p->nvars; v++) r->choice[v] = 0;

    double t0 = lg__verbose() ? lg__now_ms() : 0.0;
    lg__sv_arena a = {0};
    bool infeasible = false;
    lg_status s = solve_in(p, &l, r, &a, &infeasible);
    lg__sv_arena_free(&a);
    if (s == LG_OUT_OF_MEMORY) return LG_ERROR(s, "out of memory (%d variables)", p->nvars);
    if (s != LG_OK) return s;
    if (infeasible) {
        r->method = method_exact[0];
        return lg__error(LG_INVALID_GRAPH, "lg_graph_compile",
                         "every assignment has infinite cost (no combination of the %d variables' "
                         "candidates is allowed by all %d factors)",
                         p->nvars, p->nfactors);
    }
    r->cost = lg__solver_cost(p, r->choice);
    if (l.start) { /* never worse than the caller's start, as lg__solver_cost sees it */
        double sc = lg__solver_cost(p, l.start);
        if (sc < r->cost) {
            memcpy(r->choice, l.start, (size_t)p->nvars * sizeof(int));
            r->cost = sc;
        }
    }
    if (r->exact || r->lower_bound > r->cost) r->lower_bound = r->cost;
    /* The fallback's answer reaches the lower bound (to rounding: the two
     * sums add the same entries in other orders): it is the minimum. */
    if (!r->exact && r->cost - r->lower_bound <= 1e-12 * r->cost) {
        r->exact = true;
        r->method = method_bound;
    }
    if (lg__verbose())
        lg__verbose_printf("lgraph_verbose,solver,%s,vars=%d,factors=%d,exact=%d,cost=%g,"
                           "work=%lld,%.4f\n",
                           r->method, p->nvars, p->nfactors, (int)r->exact, r->cost,
                           (long long)r->work, lg__now_ms() - t0);
    if (isinf(r->cost))
        return lg__error(LG_UNIMPLEMENTED, "lg_graph_compile",
                         "no finite-cost assignment found: the problem exceeds the exact method's "
                         "limits (max_table_entries %lld) and the fallback search found none; "
                         "pass a finite start or raise the limits",
                         (long long)l.max_table_entries);
    return LG_OK;
}
