/* The calibrated cost model (issue 20): the coefficient file's round trip
 * (lg_calibrate writes it, the loader reads the same coefficients back),
 * malformed files refused with a clear error, model_ms present and
 * positive, the step keys, and the shipped model ranking NONE slowest on
 * the workloads. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "graph/workloads.h"
#include "passes/cost_coefs.h"

static void temp_path(char *buf, size_t len, const char *what) {
    snprintf(buf, len, "/tmp/lg_cost_%s_%d.json", what, (int)getpid());
}

static void write_text(const char *path, const char *text, size_t len) {
    FILE *f = fopen(path, "wb");
    cr_assert(f != NULL, "cannot write %s", path);
    cr_assert_eq(fwrite(text, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

static lg_status compile_model(const lg_graph *g, lg_strategy st, const char *model, lg_plan **p) {
    lg_compile_options o;
    lg_compile_options_init(&o);
    o.strategy = st;
    o.cost_model = model;
    return lg_graph_compile(g, &o, p);
}

Test(cost_model, calibrate_round_trip, .timeout = 300) {
    char path[96], again[96];
    temp_path(path, sizeof path, "calib");
    temp_path(again, sizeof again, "again");
    lg_calibrate_options o;
    lg_calibrate_options_init(&o);
    o.quick = true;
    o.runs = 1;
    o.num_threads = 1;
    cr_assert_eq(lg_calibrate(path, &o), LG_OK, "%s", lg_last_error());
    lg__cost_coefs a, b;
    cr_assert_eq(lg__cost_coefs_load(path, "test", &a), LG_OK, "%s", lg_last_error());
    cr_expect_gt(a.n, 20, "%d entries", a.n);
    cr_expect_eq(a.threads, 1);
    /* Every kind the quick run times has its entry, and the catch-all. */
    static const char *const want[] = {"conv:conv1x1:b8:f32",
                                       "conv:conv1x1.slow:plain:f32",
                                       "conv:depthwise:b8:f32",
                                       "reorder:reorder:plain>b8:f32",
                                       "eltwise:eltwise:b8:f32",
                                       "pool:*:*:*",
                                       "*"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const lg__cost_entry *e = lg__cost_lookup(&a, want[i]);
        cr_expect(e && strcmp(e->key, want[i]) == 0, "no entry %s", want[i]);
    }
    for (int i = 0; i < a.n; i++) {
        const lg__cost_entry *e = &a.e[i];
        cr_expect(e->fixed_ns >= 0 && e->ns_per_byte >= 0 && e->ns_per_flop >= 0, "%s", e->key);
        cr_expect(e->fixed_ns + e->ns_per_byte + e->ns_per_flop > 0, "%s: all zero", e->key);
    }
    FILE *f = fopen(again, "w");
    cr_assert(f != NULL);
    cr_assert_eq(lg__cost_coefs_write(&a, f), LG_OK);
    fclose(f);
    cr_assert_eq(lg__cost_coefs_load(again, "test", &b), LG_OK, "%s", lg_last_error());
    cr_assert_eq(b.n, a.n);
    for (int i = 0; i < a.n; i++) {
        cr_expect_str_eq(b.e[i].key, a.e[i].key);
        const double *x = &a.e[i].fixed_ns, *y = &b.e[i].fixed_ns;
        for (int k = 0; k < 3; k++)
            cr_expect(fabs(x[k] - y[k]) <= 1e-8 * fabs(x[k]), "%s coef %d: %.17g vs %.17g",
                      a.e[i].key, k, x[k], y[k]);
        cr_expect_eq(b.e[i].samples, a.e[i].samples);
    }
    /* The file drives a compile: the plan's prediction is its steps' sum. */
    workload w = build(2, 1, 14, "nchw", false, 5);
    lg_plan *p = NULL;
    cr_assert_eq(compile_model(w.g, LG_STRATEGY_OPTIMAL, path, &p), LG_OK, "%s", lg_last_error());
    lg_plan_stats st;
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    cr_expect(st.model_ms > 0 && isfinite(st.model_ms), "model_ms %g", st.model_ms);
    lg_plan_destroy(p);
    /* LG_COST_MODEL names the same file. */
    cr_assert_eq(setenv("LG_COST_MODEL", path, 1), 0);
    lg_plan_stats st2;
    cr_assert_eq(compile_model(w.g, LG_STRATEGY_OPTIMAL, NULL, &p), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_plan_stats_get(p, &st2), LG_OK);
    cr_expect_eq(st2.model_ms, st.model_ms);
    lg_plan_destroy(p);
    unsetenv("LG_COST_MODEL");
    free_workload(&w);
    lg__cost_coefs_free(&a);
    lg__cost_coefs_free(&b);
    remove(path);
    remove(again);
}

Test(cost_model, malformed_files_refused) {
    static const struct {
        const char *text, *why;
    } bad[] = {
        {"", "expected '{'"},
        {"not json", "expected '{'"},
        {"{", "expected '\"'"},
        {"{}", "empty object"},
        {"{\"entries\": []}", "lgraph_cost_model"},
        {"{\"lgraph_cost_model\": 2, \"entries\": []}", "version"},
        {"{\"lgraph_cost_model\": 1}", "no \"entries\""},
        {"{\"lgraph_cost_model\": 1, \"entries\": []}", "no \"entries\""},
        {"{\"lgraph_cost_model\": 1, \"entries\": [{\"fixed_ns\": 1, \"ns_per_byte\": 1, "
         "\"ns_per_flop\": 1}]}",
         "key"},
        {"{\"lgraph_cost_model\": 1, \"entries\": [{\"key\": \"*\", \"fixed_ns\": 1}]}",
         "ns_per_byte"},
        {"{\"lgraph_cost_model\": 1, \"entries\": [{\"key\": \"*\", \"fixed_ns\": -1, "
         "\"ns_per_byte\": 1, \"ns_per_flop\": 1}]}",
         "negative"},
        {"{\"lgraph_cost_model\": 1, \"entries\": [{\"key\": \"*\", \"fixed_ns\": nan, "
         "\"ns_per_byte\": 1, \"ns_per_flop\": 1}]}",
         "finite number"},
        {"{\"lgraph_cost_model\": 1, \"entries\": [{\"key\": \"*\", \"fixed_ns\": 1e999, "
         "\"ns_per_byte\": 1, \"ns_per_flop\": 1}]}",
         "finite number"},
        {"{\"lgraph_cost_model\": 1, \"entries\": [{\"key\": \"*\", \"fixed_ns\": 1, "
         "\"ns_per_byte\": 1, \"ns_per_flop\": 1}, {\"key\": \"*\", \"fixed_ns\": 1, "
         "\"ns_per_byte\": 1, \"ns_per_flop\": 1}]}",
         "duplicate"},
        {"{\"lgraph_cost_model\": 1, \"entries\": [{\"key\": \"*\", \"fixed_ns\": 1, "
         "\"ns_per_byte\": 1, \"ns_per_flop\": 1}]} trailing",
         "text after"},
        {"{\"lgraph_cost_model\": 1, \"x\": [[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]], "
         "\"entries\": []}",
         "nested"},
        {"{\"lgraph_cost_model\": 1, \"entries\": [{\"key\": \"a very long key that does not "
         "fit in the table's field at all\", \"fixed_ns\": 1, \"ns_per_byte\": 1, "
         "\"ns_per_flop\": 1}]}",
         "too long"},
        {"{\"lgraph_cost_model\": 1, \"entries\": [{\"key\": \"*\", \"fixed_ns\": 1, "
         "\"ns_per_byte\": 1, \"ns_per_flop\": 1}",
         "expected"},
    };
    char path[96];
    temp_path(path, sizeof path, "bad");
    workload w = build(1, 1, 7, "nchw", false, 3);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        write_text(path, bad[i].text, strlen(bad[i].text));
        lg_plan *p = NULL;
        cr_expect_eq(compile_model(w.g, LG_STRATEGY_OPTIMAL, path, &p), LG_INVALID_ARGUMENT,
                     "case %zu accepted", i);
        cr_expect(p == NULL);
        const char *err = lg_last_error();
        cr_expect(strstr(err, "lg_graph_compile") && strstr(err, path) && strstr(err, "line") &&
                      strstr(err, bad[i].why),
                  "case %zu: '%s' (want '%s')", i, err, bad[i].why);
        lg_plan_destroy(p);
    }
    /* A NUL byte inside, a missing file, and the environment variable. */
    write_text(path, "{\"lgraph_cost_model\"\0: 1}", 25);
    lg_plan *p = NULL;
    cr_expect_eq(compile_model(w.g, LG_STRATEGY_OPTIMAL, path, &p), LG_INVALID_ARGUMENT);
    cr_expect(strstr(lg_last_error(), "NUL"), "%s", lg_last_error());
    remove(path);
    cr_expect_eq(compile_model(w.g, LG_STRATEGY_OPTIMAL, path, &p), LG_INVALID_ARGUMENT);
    cr_expect(strstr(lg_last_error(), "cannot open") && strstr(lg_last_error(), path), "%s",
              lg_last_error());
    write_text(path, "{", 1);
    cr_assert_eq(setenv("LG_COST_MODEL", path, 1), 0);
    cr_expect_eq(compile_model(w.g, LG_STRATEGY_NONE, NULL, &p), LG_INVALID_ARGUMENT);
    cr_expect(strstr(lg_last_error(), path), "%s", lg_last_error());
    unsetenv("LG_COST_MODEL");
    remove(path);
    /* The library keeps working with its default after all that. */
    cr_expect_eq(compile_model(w.g, LG_STRATEGY_OPTIMAL, NULL, &p), LG_OK, "%s", lg_last_error());
    lg_plan_destroy(p);
    free_workload(&w);
}

/* The built-in default is the byte-count model (one entry no key matches,
 * so every step takes the byte-count fallback); the calibrated table checked in beside it (opt-in
 * through LG_COST_MODEL) parses and falls back from a missing type to its kind's entry. */
Test(cost_model, default_table_parses) {
    const lg__cost_coefs *c = lg__cost_coefs_default();
    cr_assert_eq(c->n, 1, "the built-in table has %d entries", c->n);
    const lg__cost_entry *e = lg__cost_lookup(c, "conv:conv1x1:b8:f32");
    cr_expect(e == NULL, "no key matches: every step takes the byte-count fallback");
    lg__cost_coefs cal;
    cr_assert_eq(lg__cost_coefs_load(LG_CALIBRATED_MODEL, "test", &cal), LG_OK, "%s",
                 lg_last_error());
    cr_assert_gt(cal.n, 20, "the calibrated table has %d entries", cal.n);
    e = lg__cost_lookup(&cal, "no-such-kind:x:y:z");
    cr_expect(e && strcmp(e->key, "*") == 0, "the catch-all entry");
    e = lg__cost_lookup(&cal, "conv:conv1x1:b8:bf16");
    cr_expect(e && strcmp(e->key, "conv:conv1x1:*:*") == 0, "fallback %s", e ? e->key : "-");
    lg__cost_coefs_free(&cal);
}

/* model_ms is present, positive and the sum of the steps' predictions;
 * the shipped model ranks NONE slowest on every workload (it runs the
 * plain, reference-speed convs). */
Test(cost_model, model_ms_and_ranking) {
    static const int64_t sizes[4] = {0, 28, 56, 112};
    for (int which = 1; which <= 3; which++) {
        workload w = build(which, 1, sizes[which], "nchw", false, 11);
        double ms[3] = {0, 0, 0};
        for (int s = 0; s < 3; s++) {
            lg_plan *p = NULL;
            cr_assert_eq(compile_model(w.g, (lg_strategy)s, NULL, &p), LG_OK, "%s",
                         lg_last_error());
            lg_plan_stats st;
            cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
            cr_expect(st.model_ms > 0 && isfinite(st.model_ms), "W%d strategy %d: %g", which, s,
                      st.model_ms);
            lg_step_profile *steps = calloc((size_t)st.steps, sizeof *steps);
            cr_assert(steps != NULL);
            lg_md xmd, ymd;
            cr_assert_eq(lg_plan_query_md(p, "x", &xmd), LG_OK);
            cr_assert_eq(lg_plan_query_md(p, "y", &ymd), LG_OK);
            float *x = calloc(lg_md_size(&xmd) / 4 + 1, 4),
                  *y = calloc(lg_md_size(&ymd) / 4 + 1, 4);
            cr_assert(x && y);
            lg_binding in = {"x", x}, out = {"y", y};
            cr_assert_eq(lg_plan_profile(p, 1, &in, 1, &out, 1, steps, st.steps), LG_OK);
            double sum = 0;
            for (int i = 0; i < st.steps; i++) {
                cr_expect(steps[i].cost_key[0] != 0, "step %d has no key", i);
                cr_expect(
                    strncmp(steps[i].cost_key, steps[i].node_kind, strlen(steps[i].node_kind)) == 0,
                    "key %s of a %s step", steps[i].cost_key, steps[i].node_kind);
                cr_expect(steps[i].model_ms > 0, "step %d: %g", i, steps[i].model_ms);
                cr_expect(steps[i].cost_bytes > 0, "step %d", i);
                sum += steps[i].model_ms;
            }
            cr_expect(fabs(sum - st.model_ms) <= 1e-9 * st.model_ms, "W%d: %g vs %g", which, sum,
                      st.model_ms);
            ms[s] = st.model_ms;
            free(x);
            free(y);
            free(steps);
            lg_plan_destroy(p);
        }
        cr_expect_gt(ms[LG_STRATEGY_NONE], ms[LG_STRATEGY_GREEDY], "W%d: NONE %g, GREEDY %g", which,
                     ms[LG_STRATEGY_NONE], ms[LG_STRATEGY_GREEDY]);
        cr_expect_gt(ms[LG_STRATEGY_NONE], ms[LG_STRATEGY_OPTIMAL], "W%d: NONE %g, OPTIMAL %g",
                     which, ms[LG_STRATEGY_NONE], ms[LG_STRATEGY_OPTIMAL]);
        free_workload(&w);
    }
}

Test(cost_model, calibrate_bad_arguments) {
    cr_expect_eq(lg_calibrate(NULL, NULL), LG_INVALID_ARGUMENT);
    cr_expect(strstr(lg_last_error(), "lg_calibrate") && strstr(lg_last_error(), "path"), "%s",
              lg_last_error());
    lg_calibrate_options o;
    lg_calibrate_options_init(&o);
    o.runs = -1;
    cr_expect_eq(lg_calibrate("/tmp/x.json", &o), LG_INVALID_ARGUMENT);
    cr_expect(strstr(lg_last_error(), "runs"), "%s", lg_last_error());
    lg_calibrate_options_init(&o);
    o.num_threads = -2;
    cr_expect_eq(lg_calibrate("/tmp/x.json", &o), LG_INVALID_ARGUMENT);
    cr_expect(strstr(lg_last_error(), "num_threads"), "%s", lg_last_error());
}
