/* Exhaustive enumeration: the independent truth the solver is tested against
 * (and that graph tests may use on small graphs). Never on a hot path.
 *
 * Assignments are enumerated as an odometer, variable nvars-1 fastest. To keep
 * it cheap without pruning anything, factors are grouped by their largest
 * variable index h, and partial[j] holds the sum of the factors with h <= j;
 * when the odometer changes variables j.. only partial[j..] are recomputed.
 * Every assignment is still scored in full. */
#include "passes/solver.h"

#include <math.h>
#include <string.h>

static double factor_at(const lg__solver_problem *p, const lg__solver_factor *f, const int *x) {
    int64_t idx = 0;
    for (int k = 0; k < f->arity; k++) idx = idx * p->ncand[f->vars[k]] + x[f->vars[k]];
    return f->cost[idx];
}

lg_status lg__solver_brute(const lg__solver_problem *p, int64_t max_assignments, int *choice,
                           double *cost) {
    LG_CHECK(lg__solver_check(p, "lg_graph_compile"));
    if (!cost || (p->nvars > 0 && !choice))
        return lg__error(LG_INVALID_ARGUMENT, "lg_graph_compile", "choice or cost is NULL");
    int n = p->nvars;
    int64_t total = 1;
    for (int v = 0; v < n; v++)
        if (!lg__mul_ok(total, p->ncand[v], &total) || total > max_assignments)
            return lg__error(LG_UNIMPLEMENTED, "lg_graph_compile", "more than %lld assignments",
                             (long long)max_assignments);
    if (n == 0) {
        *cost = 0.0;
        return LG_OK;
    }
    int *x = lg__malloc((size_t)n * sizeof(int));
    int *first = lg__malloc((size_t)(n + 1) * sizeof(int)); /* factors grouped by h */
    int *order = lg__malloc((size_t)(p->nfactors > 0 ? p->nfactors : 1) * sizeof(int));
    double *partial = lg__malloc((size_t)n * sizeof(double));
    if (!x || !first || !order || !partial) {
        lg__free(x);
        lg__free(first);
        lg__free(order);
        lg__free(partial);
        return lg__error(LG_OUT_OF_MEMORY, "lg_graph_compile", "out of memory");
    }
    /* Counting sort of factors by their largest variable. */
    memset(first, 0, (size_t)(n + 1) * sizeof(int));
    for (int i = 0; i < p->nfactors; i++) {
        int h = 0;
        for (int k = 0; k < p->factors[i].arity; k++)
            if (p->factors[i].vars[k] > h) h = p->factors[i].vars[k];
        first[h + 1]++;
    }
    for (int j = 0; j < n; j++) first[j + 1] += first[j];
    for (int i = 0; i < p->nfactors; i++) {
        int h = 0;
        for (int k = 0; k < p->factors[i].arity; k++)
            if (p->factors[i].vars[k] > h) h = p->factors[i].vars[k];
        order[first[h]++] = i;
    }
    for (int j = n; j > 0; j--) first[j] = first[j - 1];
    first[0] = 0;

    memset(x, 0, (size_t)n * sizeof(int));
    double best = INFINITY;
    bool found = false;
    int from = 0; /* the lowest variable changed since the last assignment */
    for (;;) {
        for (int j = from; j < n; j++) {
            double s = j > 0 ? partial[j - 1] : 0.0;
            for (int i = first[j]; i < first[j + 1]; i++)
                s += factor_at(p, &p->factors[order[i]], x);
            partial[j] = s;
        }
        if (!found || partial[n - 1] < best) {
            best = partial[n - 1];
            memcpy(choice, x, (size_t)n * sizeof(int));
            found = true;
        }
        int j = n - 1;
        while (j >= 0 && ++x[j] == p->ncand[j]) x[j--] = 0;
        if (j < 0) break;
        from = j;
    }
    *cost = lg__solver_cost(p, choice);
    lg__free(x);
    lg__free(first);
    lg__free(order);
    lg__free(partial);
    return LG_OK;
}
