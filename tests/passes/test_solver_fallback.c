/* The solver's edges: every bad input, the fallback when the limits are too
 * small for the exact method (its guarantee: never worse than the caller's
 * start, never better than the true minimum), allocation failures at every
 * point, and determinism. */
#include "solver_gen.h"

#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdio.h>
#include <unistd.h>

static lg__solver_limits limits(int64_t max_table, const int *start) {
    lg__solver_limits l;
    lg__solver_limits_init(&l);
    l.max_table_entries = max_table;
    l.start = start;
    return l;
}

/* Expect LG_INVALID_ARGUMENT with `what` in the message. */
static void expect_bad(const lg__solver_problem *p, const lg__solver_limits *l,
                       lg__solver_result *r, const char *what) {
    lg_status s = lg__solver_solve(p, l, r);
    cr_assert_eq(s, LG_INVALID_ARGUMENT, "%s: got %s", what, lg_status_str(s));
    cr_assert(strstr(lg_last_error(), "lg_graph_compile: "), "%s: %s", what, lg_last_error());
    cr_assert(strstr(lg_last_error(), what), "wanted '%s' in '%s'", what, lg_last_error());
}

Test(solver_errors, bad_inputs) {
    tprob t;
    tp_init(&t, 3);
    t.ncand[0] = 2, t.ncand[1] = 3, t.ncand[2] = 2;
    int ab[2] = {0, 1};
    double *tab = tp_add(&t, 2, ab);
    int ch[3];
    lg__solver_result r = {.choice = ch};
    cr_assert_eq(lg__solver_solve(&t.p, NULL, &r), LG_OK);

    expect_bad(NULL, NULL, &r, "problem is NULL");
    cr_assert_eq(lg__solver_solve(&t.p, NULL, NULL), LG_INVALID_ARGUMENT);
    lg__solver_result nochoice = {0};
    expect_bad(&t.p, NULL, &nochoice, "choice is NULL");
    t.p.nvars = -1;
    expect_bad(&t.p, NULL, &r, "nvars -1");
    t.p.nvars = 3;
    t.p.nfactors = -2;
    expect_bad(&t.p, NULL, &r, "nfactors -2");
    t.p.nfactors = 1;
    t.p.ncand = NULL;
    expect_bad(&t.p, NULL, &r, "ncand is NULL");
    t.p.ncand = t.ncand;
    t.p.factors = NULL;
    expect_bad(&t.p, NULL, &r, "factors is NULL");
    t.p.factors = t.f;
    t.ncand[2] = 0;
    expect_bad(&t.p, NULL, &r, "variable 2: ncand 0");
    t.ncand[2] = LG__SOLVER_MAX_CAND + 1;
    expect_bad(&t.p, NULL, &r, "variable 2: ncand 257");
    t.ncand[2] = 2;
    t.f[0].arity = 0;
    expect_bad(&t.p, NULL, &r, "factor 0: arity 0");
    t.f[0].arity = LG__SOLVER_MAX_ARITY + 1;
    expect_bad(&t.p, NULL, &r, "factor 0: arity 9");
    t.f[0].arity = 2;
    t.f[0].vars[1] = 3;
    expect_bad(&t.p, NULL, &r, "factor 0: variable 3 (position 1) not in [0, 3)");
    t.f[0].vars[1] = -1;
    expect_bad(&t.p, NULL, &r, "variable -1");
    t.f[0].vars[1] = 0;
    expect_bad(&t.p, NULL, &r, "factor 0: variable 0 listed twice");
    t.f[0].vars[1] = 1;
    t.f[0].cost = NULL;
    expect_bad(&t.p, NULL, &r, "factor 0: cost is NULL");
    t.f[0].cost = tab;
    tab[4] = NAN;
    expect_bad(&t.p, NULL, &r, "factor 0: cost entry 4 is nan");
    tab[4] = -1.0;
    expect_bad(&t.p, NULL, &r, "cost entry 4 is -1");
    tab[4] = -INFINITY;
    expect_bad(&t.p, NULL, &r, "cost entry 4 is -inf");
    tab[4] = INFINITY; /* allowed */
    cr_assert_eq(lg__solver_solve(&t.p, NULL, &r), LG_OK);

    lg__solver_limits l = limits(0, NULL);
    expect_bad(&t.p, &l, &r, "max_table_entries 0 < 1");
    l = limits(16, NULL);
    l.max_work = -1;
    expect_bad(&t.p, &l, &r, "max_work -1 < 0");
    l = limits(16, NULL);
    l.restarts = -1;
    expect_bad(&t.p, &l, &r, "restarts -1 < 0");
    int bad[3] = {0, 3, 0};
    l = limits(16, bad);
    expect_bad(&t.p, &l, &r, "start[1] = 3 not in [0, 3)");
    bad[1] = -1;
    expect_bad(&t.p, &l, &r, "start[1] = -1");

    /* A table whose size overflows: 8 variables of 256 candidates. */
    tprob big;
    tp_init(&big, 8);
    for (int v = 0; v < 8; v++) big.ncand[v] = 256, big.f[0].vars[v] = v;
    big.f[0].arity = 8;
    big.f[0].cost = tab;
    big.p.nfactors = 1;
    int bch[8];
    lg__solver_result br = {.choice = bch};
    expect_bad(&big.p, NULL, &br, "factor 0: table too large");
    tp_free(&t);
}

Test(solver_errors, brute_errors) {
    tprob t;
    tp_init(&t, 20);
    for (int v = 0; v < 20; v++) t.ncand[v] = 4;
    int ch[20];
    double c;
    cr_assert_eq(lg__solver_brute(&t.p, 1 << 20, ch, &c), LG_UNIMPLEMENTED);
    cr_assert(strstr(lg_last_error(), "more than 1048576 assignments"), "%s", lg_last_error());
    t.ncand[3] = 0;
    cr_assert_eq(lg__solver_brute(&t.p, 1 << 20, ch, &c), LG_INVALID_ARGUMENT);
    cr_assert_eq(lg__solver_brute(NULL, 1, ch, &c), LG_INVALID_ARGUMENT);
}

/* Random DAG problems under limits too small for the exact method. */
Test(solver_fallback, random_dags_never_worse_than_start) {
    const int64_t tables[] = {1, 4, 16, 64, 256};
    for (int li = 0; li < 5; li++) {
        int fallbacks = 0, optimal = 0;
        for (int seed = 0; seed < 200; seed++) {
            lg_rng r = {(uint64_t)seed * 31 + 7};
            tprob t;
            tp_dag(&t, &r, 1 + seed % 10, 10, true, NULL);
            int n = t.p.nvars, bch[TP_MAXV], start[TP_MAXV], ch[TP_MAXV];
            double bcost;
            cr_assert_eq(lg__solver_brute(&t.p, 1 << 24, bch, &bcost), LG_OK);
            for (int v = 0; v < n; v++) start[v] = (int)lg_rng_int(&r, 0, t.ncand[v] - 1);
            double scost = lg__solver_cost(&t.p, start);
            lg__solver_limits l = limits(tables[li], seed % 3 ? start : NULL);
            lg__solver_result res = {.choice = ch};
            lg_status s = lg__solver_solve(&t.p, &l, &res);
            if (s != LG_OK) {
                /* Only when no finite assignment exists or none was found
                 * without a finite start. */
                cr_assert(isinf(bcost) || (s == LG_UNIMPLEMENTED && (!l.start || isinf(scost))),
                          "table %lld seed %d: %s", (long long)tables[li], seed, lg_last_error());
                cr_assert(s == LG_INVALID_GRAPH || s == LG_UNIMPLEMENTED);
                tp_free(&t);
                continue;
            }
            cr_assert(isfinite(bcost));
            cr_assert_eq(res.cost, lg__solver_cost(&t.p, ch));
            cr_assert_geq(res.cost, bcost, "seed %d: below the true minimum", seed);
            if (l.start) cr_assert_leq(res.cost, scost, "seed %d: worse than the start", seed);
            /* The stated bound holds: lower_bound <= the true minimum. */
            cr_assert_leq(res.lower_bound, bcost + 1e-9 * fabs(bcost),
                          "seed %d: bound %g above the minimum %g", seed, res.lower_bound, bcost);
            if (res.exact) {
                cr_assert_eq(res.cost, bcost, "seed %d: exact but not minimal", seed);
            } else {
                cr_assert(strstr(res.method, "fallback"), "%s", res.method);
                fallbacks++;
                optimal += res.cost == bcost;
            }
            tp_free(&t);
        }
        cr_log_info("max_table_entries %lld: %d of 200 problems used the fallback, %d of those "
                    "still reached the minimum",
                    (long long)tables[li], fallbacks, optimal);
        if (tables[li] <= 16) cr_assert_gt(fallbacks, 100);
    }
}

/* With the optimum as start, the fallback must return an optimum. */
Test(solver_fallback, optimal_start_is_kept) {
    for (int seed = 0; seed < 100; seed++) {
        lg_rng r = {(uint64_t)seed + 555};
        tprob t;
        tp_dag(&t, &r, 10, 5, true, NULL);
        int bch[TP_MAXV], ch[TP_MAXV];
        double bcost;
        cr_assert_eq(lg__solver_brute(&t.p, 1 << 24, bch, &bcost), LG_OK);
        if (isinf(bcost)) {
            tp_free(&t);
            continue;
        }
        lg__solver_limits l = limits(2, bch);
        lg__solver_result res = {.choice = ch};
        cr_assert_eq(lg__solver_solve(&t.p, &l, &res), LG_OK, "%s", lg_last_error());
        cr_assert_eq(res.cost, bcost, "seed %d", seed);
        tp_free(&t);
    }
}

/* A 6 x 6 grid of 4-choice variables (induced width 6, joint tables of 4^7
 * entries): exact by default; under max_table_entries 256 the fallback, no
 * better than the exact minimum and no worse than the start. max_work 0
 * leaves only the starts. */
Test(solver_fallback, grid) {
    lg_rng r = {77};
    tprob t;
    tp_init(&t, 36);
    for (int v = 0; v < 36; v++) t.ncand[v] = 4;
    for (int v = 0; v < 36; v++) {
        tp_add(&t, 1, &v);
        tp_fill(&r, &t, t.p.nfactors - 1, 0, true);
        int right[2] = {v, v + 1}, down[2] = {v, v + 6};
        if (v % 6 < 5) tp_fill(&r, &t, (tp_add(&t, 2, right), t.p.nfactors - 1), 0, true);
        if (v < 30) tp_fill(&r, &t, (tp_add(&t, 2, down), t.p.nfactors - 1), 0, true);
    }
    int ex[36], ch[36], start[36];
    lg__solver_result re = {.choice = ex}, rf = {.choice = ch};
    cr_assert_eq(lg__solver_solve(&t.p, NULL, &re), LG_OK, "%s", lg_last_error());
    cr_assert(re.exact);
    for (int seed = 0; seed < 20; seed++) {
        for (int v = 0; v < 36; v++) start[v] = (int)lg_rng_int(&r, 0, 3);
        double sc = lg__solver_cost(&t.p, start);
        lg__solver_limits l = limits(256, start);
        l.seed = (uint64_t)seed;
        l.max_work = seed % 2 ? (int64_t)1 << 26 : 0;
        cr_assert(isfinite(sc));
        cr_assert_eq(lg__solver_solve(&t.p, &l, &rf), LG_OK, "%s", lg_last_error());
        cr_assert(!rf.exact);
        cr_assert_geq(rf.cost, re.cost);
        cr_assert_leq(rf.cost, sc);
        if (seed < 2)
            cr_log_info("grid 6x6x4, max_work %lld: exact %g, fallback %g, start %g",
                        (long long)l.max_work, re.cost, rf.cost, sc);
    }
    tp_free(&t);
}

/* With the fallback, an infeasible problem cannot be proven infeasible. */
Test(solver_fallback, infeasible_unproven) {
    tprob t;
    tp_init(&t, 3);
    for (int v = 0; v < 3; v++) t.ncand[v] = 2;
    int abc[3] = {0, 1, 2};
    double *tab = tp_add(&t, 3, abc);
    for (int e = 0; e < 8; e++) tab[e] = INFINITY;
    int ch[3];
    lg__solver_result r = {.choice = ch};
    lg__solver_limits l = limits(4, NULL);
    cr_assert_eq(lg__solver_solve(&t.p, &l, &r), LG_UNIMPLEMENTED);
    cr_assert(strstr(lg_last_error(), "no finite-cost assignment found"), "%s", lg_last_error());
    cr_assert_eq(lg__solver_solve(&t.p, NULL, &r), LG_INVALID_GRAPH);
    tp_free(&t);
}

Test(solver_fallback, deterministic) {
    lg_rng r = {4242};
    tprob t;
    tp_dag(&t, &r, 10, 5, true, NULL);
    int a[TP_MAXV], b[TP_MAXV];
    lg__solver_limits l = limits(8, NULL);
    lg__solver_result ra = {.choice = a}, rb = {.choice = b};
    cr_assert_eq(lg__solver_solve(&t.p, &l, &ra), LG_OK);
    cr_assert_eq(lg__solver_solve(&t.p, &l, &rb), LG_OK);
    cr_assert_eq(memcmp(a, b, (size_t)t.p.nvars * sizeof(int)), 0);
    cr_assert_eq(ra.cost, rb.cost);
    cr_assert_eq(ra.work, rb.work);
    tp_free(&t);
}

/* Fail the Nth allocation for every N: each call fails cleanly with
 * LG_OUT_OF_MEMORY or succeeds with the undisturbed result (the ASan build
 * checks that nothing leaks). */
static void oom_sweep(const tprob *t, const lg__solver_limits *l) {
    int want[TP_MAXV], got[TP_MAXV];
    lg__solver_result rw = {.choice = want}, rg = {.choice = got};
    cr_assert_eq(lg__solver_solve(&t->p, l, &rw), LG_OK);
    bool ok = false;
    int n = 0;
    for (; !ok && n < 100000; n++) {
        lg__alloc_fail_after(n);
        lg_status s = lg__solver_solve(&t->p, l, &rg);
        lg__alloc_fail_after(-1);
        if (s == LG_OK) {
            ok = true;
            cr_assert_eq(rg.cost, rw.cost);
            cr_assert_eq(memcmp(got, want, (size_t)t->p.nvars * sizeof(int)), 0);
        } else {
            cr_assert_eq(s, LG_OUT_OF_MEMORY, "failing allocation %d gave %s", n, lg_status_str(s));
            cr_assert(strstr(lg_last_error(), "out of memory"), "%s", lg_last_error());
        }
    }
    cr_assert(ok);
    cr_assert_gt(n, 3, "the sweep must reach several allocations");
}

Test(solver_oom, exact_and_fallback) {
    lg_rng r = {31337};
    tprob t;
    tp_dag(&t, &r, 10, 5, true, NULL);
    oom_sweep(&t, NULL);
    lg__solver_limits l = limits(16, NULL);
    oom_sweep(&t, &l);
    tp_free(&t);

    int ch[TP_MAXV], bch[TP_MAXV];
    double c, bc;
    tp_dag(&t, &r, 8, 5, true, NULL);
    cr_assert_eq(lg__solver_brute(&t.p, 1 << 24, bch, &bc), LG_OK);
    bool ok = false;
    for (int n = 0; !ok; n++) {
        lg__alloc_fail_after(n);
        lg_status s = lg__solver_brute(&t.p, 1 << 24, ch, &c);
        lg__alloc_fail_after(-1);
        ok = s == LG_OK;
        if (ok)
            cr_assert_eq(c, bc);
        else
            cr_assert_eq(s, LG_OUT_OF_MEMORY);
    }
    tp_free(&t);
}

/* A 20 x 20 grid of 4-choice variables has induced width 20: far beyond the
 * default limits. The fallback must stay within its work budget (the exact
 * phase and the local search each spend at most about max_work; an ICM pass
 * in progress may overrun by one pass) and never lose to the start. */
Test(solver_fallback, large_grid_within_budget) {
    enum { G = 20 };
    lg_rng r = {99};
    static tprob t;
    tp_init(&t, G * G);
    for (int v = 0; v < G * G; v++) t.ncand[v] = 4;
    for (int v = 0; v < G * G; v++) {
        tp_add(&t, 1, &v);
        tp_fill(&r, &t, t.p.nfactors - 1, 0, true);
        int right[2] = {v, v + 1}, down[2] = {v, v + G};
        if (v % G < G - 1) tp_fill(&r, &t, (tp_add(&t, 2, right), t.p.nfactors - 1), 0, true);
        if (v < G * (G - 1)) tp_fill(&r, &t, (tp_add(&t, 2, down), t.p.nfactors - 1), 0, true);
    }
    static int start[G * G], ch[G * G];
    for (int v = 0; v < G * G; v++) start[v] = (int)lg_rng_int(&r, 0, 3);
    lg__solver_limits l = limits((int64_t)1 << 22, start);
    lg__solver_result res = {.choice = ch};
    double t0 = lg__now_ms();
    cr_assert_eq(lg__solver_solve(&t.p, &l, &res), LG_OK, "%s", lg_last_error());
    double ms = lg__now_ms() - t0;
    cr_assert(!res.exact);
    cr_assert_leq(res.cost, lg__solver_cost(&t.p, start));
    cr_assert_eq(res.cost, lg__solver_cost(&t.p, ch));
    cr_assert_leq(res.work, 3 * l.max_work, "work %lld", (long long)res.work);
    cr_log_info("grid 20x20x4 (fallback): cost %g, start %g, %lld entries touched, %.1f ms "
                "(not asserted)",
                res.cost, lg__solver_cost(&t.p, start), (long long)res.work, ms);
    tp_free(&t);
}

/* LG_VERBOSE=1 prints one line per solve: method, size, exactness, cost,
 * work and time. (Criterion runs each test in its own process, so the
 * environment is read here for the first time.) */
Test(solver_verbose, one_line_per_solve) {
    setenv("LG_VERBOSE", "1", 1);
    char path[] = "/tmp/lg_solver_verboseXXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    fflush(stderr);
    FILE *saved = fdopen(dup(fileno(stderr)), "w");
    cr_assert_not_null(saved);
    cr_assert_not_null(freopen(path, "w", stderr));
    lg_rng r = {5};
    tprob t;
    tp_dag(&t, &r, 6, 0, true, NULL);
    int ch[TP_MAXV];
    lg__solver_result res = {.choice = ch};
    lg_status s1 = lg__solver_solve(&t.p, NULL, &res);
    lg__solver_limits l = limits(2, NULL);
    lg_status s2 = lg__solver_solve(&t.p, &l, &res);
    fflush(stderr);
    dup2(fileno(saved), fileno(stderr));
    fclose(saved);
    cr_assert_eq(s1, LG_OK);
    cr_assert_eq(s2, LG_OK);
    FILE *f = fopen(path, "r");
    char a[512] = "", b[512] = "";
    cr_assert(fgets(a, sizeof a, f) && fgets(b, sizeof b, f));
    fclose(f);
    unlink(path);
    char want[64];
    snprintf(want, sizeof want, ",vars=%d,factors=%d,exact=1,", t.p.nvars, t.p.nfactors);
    cr_assert(strstr(a, "lgraph_verbose,solver,variable elimination (min-") == a, "%s", a);
    cr_assert(strstr(a, want), "%s", a);
    cr_assert(strstr(b, "lgraph_verbose,solver,fallback:") == b && strstr(b, ",exact=0,"), "%s", b);
    /* Fields are comma-separated: the method holds no comma. */
    int commas = 0;
    for (const char *c = b; *c; c++) commas += *c == ',';
    cr_assert_eq(commas, 8, "%s", b);
    tp_free(&t);
}
