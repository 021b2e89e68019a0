/* The OPTIMAL solver's exact method, checked against independent truths:
 * exhaustive enumeration on hundreds of seeded random DAG problems (integer
 * costs, so sums are exact and costs must match to the bit; and real costs),
 * hand-computed small cases, and a sliding-window DP on a 40-variable chain
 * with skips. */
#include "solver_gen.h"

#include <criterion/criterion.h>
#include <criterion/logging.h>

enum { BRUTE_MAX = 1 << 24 };

/* Solve t exactly and compare with exhaustive enumeration. Returns whether
 * the problem was feasible. */
static bool check_vs_brute(const tprob *t, bool integer, int seed) {
    int bchoice[TP_MAXV], choice[TP_MAXV];
    double bcost;
    cr_assert_eq(lg__solver_brute(&t->p, BRUTE_MAX, bchoice, &bcost), LG_OK, "seed %d", seed);
    lg__solver_result r = {.choice = choice};
    lg_status s = lg__solver_solve(&t->p, NULL, &r);
    if (isinf(bcost)) {
        cr_assert_eq(s, LG_INVALID_GRAPH, "seed %d: infeasible but got %s", seed, lg_status_str(s));
        cr_assert(strstr(lg_last_error(), "infinite"), "seed %d: %s", seed, lg_last_error());
        return false;
    }
    cr_assert_eq(s, LG_OK, "seed %d: %s", seed, lg_last_error());
    cr_assert(r.exact, "seed %d: not exact (%s)", seed, r.method);
    cr_assert_eq(r.cost, lg__solver_cost(&t->p, choice), "seed %d: cost is not the choice's", seed);
    for (int v = 0; v < t->p.nvars; v++)
        cr_assert(choice[v] >= 0 && choice[v] < t->ncand[v], "seed %d: choice out of range", seed);
    if (integer)
        cr_assert_eq(r.cost, bcost, "seed %d: solver %.17g, enumeration %.17g", seed, r.cost,
                     bcost);
    else
        cr_assert(fabs(r.cost - bcost) <= 1e-9 * (1.0 + bcost),
                  "seed %d: solver %.17g, brute %.17g", seed, r.cost, bcost);
    cr_assert(r.work > 0 || t->p.nvars == 0, "seed %d: work not reported", seed);
    return true;
}

Test(solver, random_dags_match_enumeration) {
    dag_stats st = {0};
    int feasible = 0, n = 0;
    for (int seed = 0; seed < 600; seed++) {
        lg_rng r = {(uint64_t)seed * 7919 + 1};
        tprob t;
        int nodes = 1 + seed % 10, pinf = seed % 5 == 4 ? 45 : 10;
        tp_dag(&t, &r, nodes, pinf, true, &st);
        feasible += check_vs_brute(&t, true, seed);
        n++;
        tp_free(&t);
    }
    cr_log_info("random DAGs: %d problems, %d feasible, %d joins, %d multi-consumer values, "
                "%d factors of arity >= 4",
                n, feasible, st.joins, st.multi, st.wide);
    /* The generator must cover what the claim is about. */
    cr_assert_gt(feasible, 450);
    cr_assert_gt(n - feasible, 10, "some problems must be infeasible");
    cr_assert_gt(st.joins, 500);
    cr_assert_gt(st.multi, 300);
    cr_assert_gt(st.wide, 100);
}

Test(solver, random_dags_real_costs) {
    for (int seed = 0; seed < 300; seed++) {
        lg_rng r = {(uint64_t)seed * 104729 + 5};
        tprob t;
        tp_dag(&t, &r, 1 + seed % 10, 5, false, NULL);
        check_vs_brute(&t, false, seed);
        tp_free(&t);
    }
}

/* Scramble variable numbering and factor order: the optimum must not move. */
Test(solver, invariant_under_renumbering) {
    for (int seed = 0; seed < 100; seed++) {
        lg_rng r = {(uint64_t)seed + 99};
        tprob t, u;
        tp_dag(&t, &r, 10, 10, true, NULL);
        int perm[TP_MAXV], n = t.p.nvars;
        for (int v = 0; v < n; v++) perm[v] = v;
        for (int v = n - 1; v > 0; v--) {
            int j = (int)lg_rng_int(&r, 0, v), x = perm[v];
            perm[v] = perm[j];
            perm[j] = x;
        }
        tp_init(&u, n);
        for (int v = 0; v < n; v++) u.ncand[perm[v]] = t.ncand[v];
        for (int i = t.p.nfactors - 1; i >= 0; i--) {
            int vars[LG__SOLVER_MAX_ARITY];
            for (int k = 0; k < t.f[i].arity; k++) vars[k] = perm[t.f[i].vars[k]];
            memcpy(tp_add(&u, t.f[i].arity, vars), t.tab[i], (size_t)tp_size(&t, i) * 8);
        }
        int c1[TP_MAXV], c2[TP_MAXV];
        lg__solver_result r1 = {.choice = c1}, r2 = {.choice = c2};
        lg_status s1 = lg__solver_solve(&t.p, NULL, &r1), s2 = lg__solver_solve(&u.p, NULL, &r2);
        cr_assert_eq(s1, s2, "seed %d", seed);
        if (s1 == LG_OK) cr_assert_eq(r1.cost, r2.cost, "seed %d", seed);
        tp_free(&t);
        tp_free(&u);
    }
}

/* a - b - c, 2 choices each. Unary a [0 1], c [10 0]; pairs cost 0 when
 * equal, 5 when not. By hand: all 1 costs 1; all 0 costs 10; mixed >= 5. */
Test(solver, chain_by_hand) {
    tprob t;
    tp_init(&t, 3);
    for (int v = 0; v < 3; v++) t.ncand[v] = 2;
    int a = 0, c = 2, ab[2] = {0, 1}, bc[2] = {1, 2};
    memcpy(tp_add(&t, 1, &a), (double[]){0, 1}, 16);
    memcpy(tp_add(&t, 1, &c), (double[]){10, 0}, 16);
    memcpy(tp_add(&t, 2, ab), (double[]){0, 5, 5, 0}, 32);
    memcpy(tp_add(&t, 2, bc), (double[]){0, 5, 5, 0}, 32);
    cr_assert_eq(lg__solver_cost(&t.p, (int[]){0, 0, 0}), 10.0);
    cr_assert_eq(lg__solver_cost(&t.p, (int[]){0, 0, 1}), 5.0);
    cr_assert_eq(lg__solver_cost(&t.p, (int[]){1, 0, 1}), 11.0);
    int ch[3];
    lg__solver_result r = {.choice = ch};
    cr_assert_eq(lg__solver_solve(&t.p, NULL, &r), LG_OK);
    cr_assert(r.exact);
    cr_assert_eq(r.cost, 1.0);
    cr_assert(ch[0] == 1 && ch[1] == 1 && ch[2] == 1);
    cr_assert_not_null(r.method);
    tp_free(&t);
}

/* A diamond a -> {b, c} -> d (d joins b and c), choices 0 plain / 1 blocked.
 * a must be plain; b and c compute in 6 (plain) or 1 (blocked) and pay 3 to
 * reorder from a when blocked; d needs b == c == d and costs 2 when blocked
 * (a reorder to the plain output). By hand: plain 6 + 6 = 12, blocked
 * 3 + 1 + 3 + 1 + 2 = 10, any mix infinite: {0, 1, 1, 1} at 10. */
Test(solver, diamond_by_hand) {
    tprob t;
    tp_init(&t, 4);
    for (int v = 0; v < 4; v++) t.ncand[v] = 2;
    int a = 0, d = 3, ab[2] = {0, 1}, ac[2] = {0, 2}, bcd[3] = {1, 2, 3};
    memcpy(tp_add(&t, 1, &a), (double[]){0, INFINITY}, 16);
    memcpy(tp_add(&t, 2, ab), (double[]){6, 3 + 1, 3 + 6, 1}, 32);
    memcpy(tp_add(&t, 2, ac), (double[]){6, 3 + 1, 3 + 6, 1}, 32);
    double *j = tp_add(&t, 3, bcd);
    for (int e = 0; e < 8; e++) j[e] = (e == 0 || e == 7) ? 0 : INFINITY;
    memcpy(tp_add(&t, 1, &d), (double[]){0, 2}, 16);
    int ch[4];
    lg__solver_result r = {.choice = ch};
    cr_assert_eq(lg__solver_solve(&t.p, NULL, &r), LG_OK);
    cr_assert(r.exact);
    cr_assert_eq(r.cost, 10.0);
    cr_assert(ch[0] == 0 && ch[1] == 1 && ch[2] == 1 && ch[3] == 1);
    tp_free(&t);
}

/* Two independent pairs and a variable no factor mentions. By hand: pair
 * (0, 1) best 1 at (1, 0); pair (2, 3) best 2 at (0, 2); variable 4 free. */
Test(solver, disconnected_by_hand) {
    tprob t;
    tp_init(&t, 5);
    t.ncand[0] = 2, t.ncand[1] = 2, t.ncand[2] = 2, t.ncand[3] = 3, t.ncand[4] = 4;
    int p01[2] = {0, 1}, p23[2] = {2, 3};
    memcpy(tp_add(&t, 2, p01), (double[]){4, 3, 1, INFINITY}, 32);
    memcpy(tp_add(&t, 2, p23), (double[]){5, 7, 2, 3, INFINITY, 9}, 48);
    int ch[5];
    lg__solver_result r = {.choice = ch};
    cr_assert_eq(lg__solver_solve(&t.p, NULL, &r), LG_OK);
    cr_assert(r.exact);
    cr_assert_eq(r.cost, 3.0);
    cr_assert(ch[0] == 1 && ch[1] == 0 && ch[2] == 0 && ch[3] == 2 && ch[4] == 0);
    tp_free(&t);
}

/* Infeasible: a table of all INFINITY; and a contradiction no single table
 * shows (a == b, b == c, a != c over two choices). */
Test(solver, infeasible) {
    tprob t;
    tp_init(&t, 3);
    for (int v = 0; v < 3; v++) t.ncand[v] = 2;
    int ab[2] = {0, 1}, bc[2] = {1, 2}, ac[2] = {0, 2};
    memcpy(tp_add(&t, 2, ab), (double[]){INFINITY, INFINITY, INFINITY, INFINITY}, 32);
    int ch[3];
    lg__solver_result r = {.choice = ch};
    cr_assert_eq(lg__solver_solve(&t.p, NULL, &r), LG_INVALID_GRAPH);
    cr_assert(strstr(lg_last_error(), "lg_graph_compile: every assignment has infinite cost"), "%s",
              lg_last_error());
    cr_assert(isinf(r.cost));
    tp_free(&t);

    tp_init(&t, 3);
    for (int v = 0; v < 3; v++) t.ncand[v] = 2;
    memcpy(tp_add(&t, 2, ab), (double[]){0, INFINITY, INFINITY, 0}, 32);
    memcpy(tp_add(&t, 2, bc), (double[]){1, INFINITY, INFINITY, 1}, 32);
    memcpy(tp_add(&t, 2, ac), (double[]){INFINITY, 2, 2, INFINITY}, 32);
    cr_assert_eq(lg__solver_solve(&t.p, NULL, &r), LG_INVALID_GRAPH);
    tp_free(&t);
}

/* Nothing to solve: no variables, or variables and no factors. */
Test(solver, empty_problems) {
    lg__solver_problem p = {0};
    lg__solver_result r = {0};
    cr_assert_eq(lg__solver_solve(&p, NULL, &r), LG_OK);
    cr_assert_eq(r.cost, 0.0);
    cr_assert(r.exact);
    int ncand[3] = {3, 1, 2}, ch[3] = {7, 7, 7};
    p = (lg__solver_problem){.nvars = 3, .ncand = ncand};
    r.choice = ch;
    cr_assert_eq(lg__solver_solve(&p, NULL, &r), LG_OK);
    cr_assert(r.exact && r.cost == 0.0 && ch[0] == 0 && ch[1] == 0 && ch[2] == 0);
    /* Limits so small that even a lone variable does not fit: the fallback,
     * whose cost 0 reaches its lower bound 0, so it is proven minimal. */
    lg__solver_limits l;
    lg__solver_limits_init(&l);
    l.max_table_entries = 1;
    ch[0] = ch[2] = 5;
    cr_assert_eq(lg__solver_solve(&p, &l, &r), LG_OK, "%s", lg_last_error());
    cr_assert(r.exact && r.cost == 0.0 && r.lower_bound == 0.0 && ch[0] < 3 && ch[2] < 2);
}

/* A chain with skips: x0..x39, 8 choices each, factors on (i), (i, i+1),
 * (i, i+2), (i, i+3). Induced width 3: the joint tables hold 8^4 entries.
 * The truth is an independent sliding-window DP over (x[i-2], x[i-1], x[i]). */
enum { CN = 40, CD = 8 };

static double window_dp(const tprob *t, const int *fu, const int (*fp)[4]) {
    /* f[s], s = (x[i-2] * CD + x[i-1]) * CD + x[i], after variables 0..i. */
    static double f[CD * CD * CD], g[CD * CD * CD];
    const double *const *tab = (const double *const *)t->tab;
    for (int s = 0; s < CD * CD * CD; s++) {
        int a = s / (CD * CD), b = s / CD % CD, c = s % CD;
        f[s] = tab[fu[0]][a] + tab[fu[1]][b] + tab[fu[2]][c] + tab[fp[0][1]][a * CD + b] +
               tab[fp[0][2]][a * CD + c] + tab[fp[1][1]][b * CD + c];
    }
    for (int i = 3; i < CN; i++) {
        for (int s = 0; s < CD * CD * CD; s++) g[s] = INFINITY;
        for (int s = 0; s < CD * CD * CD; s++) {
            int a = s / (CD * CD), b = s / CD % CD, c = s % CD;
            for (int x = 0; x < CD; x++) {
                double v = f[s] + tab[fu[i]][x] + tab[fp[i - 1][1]][c * CD + x] +
                           tab[fp[i - 2][2]][b * CD + x] + tab[fp[i - 3][3]][a * CD + x];
                int n = (b * CD + c) * CD + x;
                if (v < g[n]) g[n] = v;
            }
        }
        memcpy(f, g, sizeof f);
    }
    double best = INFINITY;
    for (int s = 0; s < CD * CD * CD; s++)
        if (f[s] < best) best = f[s];
    return best;
}

Test(solver, chain_with_skips_40x8) {
    lg_rng r = {2024};
    tprob t;
    tp_init(&t, CN);
    int fu[CN], fp[CN][4];
    for (int v = 0; v < CN; v++) t.ncand[v] = CD;
    for (int i = 0; i < CN; i++) {
        fu[i] = t.p.nfactors;
        tp_add(&t, 1, &i);
        tp_fill(&r, &t, fu[i], 0, true);
        for (int k = 1; k <= 3 && i + k < CN; k++) {
            int vars[2] = {i, i + k};
            fp[i][k] = t.p.nfactors;
            tp_add(&t, 2, vars);
            tp_fill(&r, &t, fp[i][k], 5, true);
        }
    }
    double truth = window_dp(&t, fu, (const int(*)[4])fp);
    cr_assert(isfinite(truth));
    int ch[CN];
    lg__solver_result res = {.choice = ch};
    double t0 = lg__now_ms();
    cr_assert_eq(lg__solver_solve(&t.p, NULL, &res), LG_OK, "%s", lg_last_error());
    double ms = lg__now_ms() - t0;
    cr_assert(res.exact, "%s", res.method);
    cr_assert_eq(res.cost, truth, "solver %.17g, window DP %.17g", res.cost, truth);
    cr_assert_eq(res.cost, lg__solver_cost(&t.p, ch));
    cr_log_info("chain with skips 40 x 8: %s, %lld entries touched, %.3f ms (not asserted)",
                res.method, (long long)res.work, ms);
    tp_free(&t);
}

/* Problems shaped like the reference workloads (docs: WORKLOADS.md), with 4
 * layout candidates per value (say nchw, nhwc, nChw8c, nChw16c) and random
 * costs: a factor per node over its inputs and output, the graph input and
 * output pinned to candidate 0 (nchw) by their unary costs, and the
 * residual input tied to both its consumers. W1 ShuffleNet unit, W2 ResNet
 * bottleneck (both: x feeds the first conv and the final add), W3 stem. */
typedef struct shape {
    const char *name;
    int nvars, nnodes;
    int node[8][4]; /* arity, then variables (inputs..., output) */
    int tie[4];     /* a multi-consumer value and its consumers' outputs */
} shape;

static const shape shapes[] = {
    {"W1 shufflenet unit",
     8,
     7,
     {{2, 0, 1}, {2, 1, 2}, {2, 2, 3}, {2, 3, 4}, {2, 4, 5}, {3, 5, 0, 6}, {2, 6, 7}},
     {0, 1, 6, -1}},
    {"W2 resnet bottleneck",
     8,
     7,
     {{2, 0, 1}, {2, 1, 2}, {2, 2, 3}, {2, 3, 4}, {2, 4, 5}, {3, 5, 0, 6}, {2, 6, 7}},
     {0, 1, 6, -1}},
    {"W3 mobilenet stem",
     7,
     6,
     {{2, 0, 1}, {2, 1, 2}, {2, 2, 3}, {2, 3, 4}, {2, 4, 5}, {2, 5, 6}},
     {-1}},
};

Test(solver, workload_shapes) {
    for (int w = 0; w < 3; w++) {
        const shape *sh = &shapes[w];
        for (int seed = 0; seed < 20; seed++) {
            lg_rng r = {(uint64_t)(w * 1000 + seed)};
            tprob t;
            tp_init(&t, sh->nvars);
            for (int v = 0; v < sh->nvars; v++) t.ncand[v] = 4;
            for (int i = 0; i < sh->nnodes; i++) {
                tp_add(&t, sh->node[i][0], &sh->node[i][1]);
                tp_fill(&r, &t, t.p.nfactors - 1, 5, false);
            }
            int in = 0, out = sh->nvars - 1;
            memcpy(tp_add(&t, 1, &in), (double[]){0, INFINITY, INFINITY, INFINITY}, 32);
            memcpy(tp_add(&t, 1, &out), (double[]){0, 7, 3, 3}, 32);
            if (sh->tie[0] >= 0) {
                tp_add(&t, 3, sh->tie);
                tp_fill(&r, &t, t.p.nfactors - 1, 0, false);
            }
            int bch[TP_MAXV], ch[TP_MAXV];
            double bcost;
            cr_assert_eq(lg__solver_brute(&t.p, BRUTE_MAX, bch, &bcost), LG_OK);
            lg__solver_result res = {.choice = ch};
            double t0 = lg__now_ms();
            lg_status s = lg__solver_solve(&t.p, NULL, &res);
            double ms = lg__now_ms() - t0;
            if (isinf(bcost)) {
                cr_assert_eq(s, LG_INVALID_GRAPH);
            } else {
                cr_assert_eq(s, LG_OK, "%s", lg_last_error());
                cr_assert(res.exact);
                cr_assert(fabs(res.cost - bcost) <= 1e-9 * (1.0 + bcost), "%s seed %d: %g vs %g",
                          sh->name, seed, res.cost, bcost);
                cr_assert_eq(ch[0], 0, "the pinned input");
            }
            if (seed == 0)
                cr_log_info("%s: %d variables, %d factors, %s, %lld entries, %.3f ms (not "
                            "asserted)",
                            sh->name, t.p.nvars, t.p.nfactors, res.method, (long long)res.work, ms);
            tp_free(&t);
        }
    }
}

/* The example at the top of solver.h, verbatim. */
Test(solver, header_example) {
    double c01[2 * 3] = {0, 5, 1, 2, 0, INFINITY}; // a: 2 choices, b: 3
    lg__solver_factor f = {.arity = 2, .vars = {0, 1}, .cost = c01};
    int ncand[2] = {2, 3}, choice[2];
    lg__solver_problem p = {.nvars = 2, .ncand = ncand, .nfactors = 1, .factors = &f};
    lg__solver_result r = {.choice = choice};
    lg_status s = lg__solver_solve(&p, NULL, &r); // choice = {0, 0}, cost 0
    cr_assert_eq(s, LG_OK);
    cr_assert(choice[0] == 0 && choice[1] == 0 && r.cost == 0.0 && r.exact);
}
