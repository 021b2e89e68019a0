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
#include "passes/calibrate.h"
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
    /* Calibrated on one thread, the 2-thread speedups were measured: within
     * [0.5, 2], or 0 when no 2-thread run beat one thread (a loaded machine:
     * the model then assumes no speedup). */
    cr_expect(a.speedup2_compute == 0 || (a.speedup2_compute >= 0.5 && a.speedup2_compute <= 2),
              "%g", a.speedup2_compute);
    cr_expect(a.speedup2_memory == 0 || (a.speedup2_memory >= 0.5 && a.speedup2_memory <= 2), "%g",
              a.speedup2_memory);
    /* Every kind the quick run times has its entry, and the catch-all. */
    static const char *const want[] = {"conv:conv1x1.pw:b8:f32",
                                       "conv:conv1x1.ref:plain:f32",
                                       "conv:depthwise.dw:b8:f32",
                                       "reorder:reorder:plain>b8:f32",
                                       "eltwise:eltwise:b8:f32",
                                       "pool:*:*:*",
                                       "*"};
    /* Its own entry, or its kind and class pooled over the families
     * (where the family's own fit predicted no better). */
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const lg__cost_entry *e = lg__cost_lookup(&a, want[i]);
        const char *colon = strchr(want[i], ':');
        colon = colon ? strchr(colon + 1, ':') : NULL;
        size_t cls = colon ? (size_t)(colon - want[i]) : strlen(want[i]);
        cr_expect(e && strncmp(e->key, want[i], cls) == 0 && e->key[cls] != '*' &&
                      (strcmp(e->key, want[i]) == 0 || strcmp(e->key + cls, ":*:*") == 0),
                  "no entry %s (%s)", want[i], e ? e->key : "-");
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
    cr_expect(fabs(b.speedup2_compute - a.speedup2_compute) < 1e-3, "%g", b.speedup2_compute);
    cr_expect(fabs(b.speedup2_memory - a.speedup2_memory) < 1e-3, "%g", b.speedup2_memory);
    /* The per-step overhead on 2 threads: measured, bounded, written back. */
    cr_expect(a.step_ns_mt >= 0 && a.step_ns_mt <= 1e5, "%g", a.step_ns_mt);
    cr_expect(fabs(b.step_ns_mt - a.step_ns_mt) <= 1e-5 * a.step_ns_mt, "%g vs %g", b.step_ns_mt,
              a.step_ns_mt);
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
        {"{\"lgraph_cost_model\": 1, \"step_ns_threads\": -5, \"entries\": [{\"key\": \"*\", "
         "\"fixed_ns\": 1, \"ns_per_byte\": 1, \"ns_per_flop\": 1}]}",
         "step_ns_threads"},
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

/* The built-in default is the table lgraph-calibrate made on this machine
 * kind (data/cost_model_default.json, the same as
 * data/cost_model_calibrated.json): entries per conv path, a catch-all, the
 * 2-thread speedups; a missing type falls back to its kind and class. */
Test(cost_model, default_table_parses) {
    const lg__cost_coefs *c = lg__cost_coefs_default();
    cr_assert_gt(c->n, 20, "the built-in table has %d entries", c->n);
    cr_expect(c->speedup2_compute >= 1 && c->speedup2_compute <= 2, "%g", c->speedup2_compute);
    cr_expect(c->speedup2_memory >= 1 && c->speedup2_memory <= 2, "%g", c->speedup2_memory);
    const lg__cost_entry *e = lg__cost_lookup(c, "conv:conv1x1.pw:b8:f32");
    cr_expect(e && strncmp(e->key, "conv:conv1x1.pw:", 16) == 0, "%s", e ? e->key : "-");
    /* The pointwise path is faster per flop than the scalar reference. */
    const lg__cost_entry *r = lg__cost_lookup(c, "conv:conv1x1.ref:plain:f32");
    cr_expect(e && r && r->ns_per_flop > 10 * e->ns_per_flop, "pw %g, ref %g ns/flop",
              e ? e->ns_per_flop : 0, r ? r->ns_per_flop : 0);
    lg__cost_coefs cal;
    cr_assert_eq(lg__cost_coefs_load(LG_CALIBRATED_MODEL, "test", &cal), LG_OK, "%s",
                 lg_last_error());
    cr_assert_gt(cal.n, 20, "the calibrated table has %d entries", cal.n);
    e = lg__cost_lookup(&cal, "no-such-kind:x:y:z");
    cr_expect(e && strcmp(e->key, "*") == 0, "the catch-all entry");
    e = lg__cost_lookup(&cal, "conv:conv1x1.pw:b8:bf16");
    cr_expect(e && strcmp(e->key, "conv:conv1x1.pw:*:*") == 0, "fallback %s", e ? e->key : "-");
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
        /* The plan's prediction counts what the assignment's does (fused
         * chains free): OPTIMAL never predicts slower than GREEDY. */
        cr_expect_leq(ms[LG_STRATEGY_OPTIMAL], ms[LG_STRATEGY_GREEDY] * (1 + 1e-9),
                      "W%d: OPTIMAL %g, GREEDY %g", which, ms[LG_STRATEGY_OPTIMAL],
                      ms[LG_STRATEGY_GREEDY]);
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

/* A table written by hand, for cases whose answer is known. */
static void hand_table(const char *path, const char *entries, const char *extra) {
    char text[2048];
    int n = snprintf(text, sizeof text, "{\"lgraph_cost_model\": 1, %s \"entries\": [%s]}", extra,
                     entries);
    cr_assert(n > 0 && n < (int)sizeof text);
    write_text(path, text, (size_t)n);
}

/* x[1, 64, 14, 14] nchw -> 1x1 conv 64 -> 1x1 conv 64 -> y (any). */
static lg_graph *two_convs(float **w) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    int64_t xd[4] = {1, 64, 14, 14}, wd[4] = {64, 64, 1, 1};
    lg_md xm, wm;
    cr_assert_eq(lg_md_init_tag(&xm, 4, xd, LG_F32, "nchw"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&wm, 4, wd, LG_F32, "oihw"), LG_OK);
    *w = calloc(64 * 64, sizeof **w);
    cr_assert(*w);
    for (int i = 0; i < 64 * 64; i++) (*w)[i] = (float)((i * 37) % 11 - 5) * 0.01f;
    lg_value x, wv, a, b;
    cr_assert_eq(lg_graph_add_input(g, "x", &xm, &x), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "w", &wm, *w, &wv), LG_OK);
    lg_conv_params p;
    memset(&p, 0, sizeof p);
    p.strides[0] = p.strides[1] = 1;
    p.groups = 1;
    cr_assert_eq(lg_graph_add_conv(g, x, wv, LG_NO_VALUE, &p, &a), LG_OK);
    cr_assert_eq(lg_graph_add_conv(g, a, wv, LG_NO_VALUE, &p, &b), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, b, "y", "any"), LG_OK);
    return g;
}

/* The dst layout of the second conv's step, from the profile. */
static void conv_layouts(lg_plan *p, char *out, size_t len, int *reorders) {
    lg_plan_stats st;
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    *reorders = st.runtime_reorders;
    lg_step_profile *steps = calloc((size_t)st.steps, sizeof *steps);
    lg_md xm, ym;
    cr_assert_eq(lg_plan_query_md(p, "x", &xm), LG_OK);
    cr_assert_eq(lg_plan_query_md(p, "y", &ym), LG_OK);
    float *x = calloc(lg_md_size(&xm) / 4 + 1, 4), *y = calloc(lg_md_size(&ym) / 4 + 1, 4);
    cr_assert(steps && x && y);
    lg_binding in = {"x", x}, o = {"y", y};
    cr_assert_eq(lg_plan_profile(p, 1, &in, 1, &o, 1, steps, st.steps), LG_OK);
    out[0] = 0;
    for (int i = 0; i < st.steps; i++)
        if (strcmp(steps[i].node_kind, "conv") == 0) snprintf(out, len, "%s", steps[i].layouts);
    free(steps);
    free(x);
    free(y);
}

/* OPTIMAL follows the coefficients: where the table makes the pointwise
 * path on channels-last much cheaper than on blocked activations (and
 * reorders cheap) the convs run channels-last; swapped, blocked; the ref
 * path (plain) is never taken when it is 1000x dearer. The step keys name
 * the path the kernel really runs. The blocked entries price blocks of 8
 * and of 16 alike: which one the convs take depends on the machine's ISA
 * (16 on AVX-512), not on the table. */
Test(cost_model, optimal_follows_the_paths_prices) {
    char path[96];
    temp_path(path, sizeof path, "hand");
    float *w;
    lg_graph *g = two_convs(&w);
    static const char *const tables[2] = {
        "{\"key\": \"conv:conv1x1.pw:cl:f32\", \"fixed_ns\": 0, \"ns_per_byte\": 0, "
        "\"ns_per_flop\": 0.001}, {\"key\": \"conv:conv1x1.pw:b8:f32\", \"fixed_ns\": 0, "
        "\"ns_per_byte\": 0, \"ns_per_flop\": 0.1}, {\"key\": \"conv:conv1x1.pw:b16:f32\", "
        "\"fixed_ns\": 0, \"ns_per_byte\": 0, \"ns_per_flop\": 0.1}, {\"key\": \"conv:*:*:*\", "
        "\"fixed_ns\": 0, "
        "\"ns_per_byte\": 0, \"ns_per_flop\": 1}, {\"key\": \"*\", \"fixed_ns\": 0, "
        "\"ns_per_byte\": 0.0001, \"ns_per_flop\": 0}",
        "{\"key\": \"conv:conv1x1.pw:cl:f32\", \"fixed_ns\": 0, \"ns_per_byte\": 0, "
        "\"ns_per_flop\": 0.1}, {\"key\": \"conv:conv1x1.pw:b8:f32\", \"fixed_ns\": 0, "
        "\"ns_per_byte\": 0, \"ns_per_flop\": 0.001}, {\"key\": \"conv:conv1x1.pw:b16:f32\", "
        "\"fixed_ns\": 0, \"ns_per_byte\": 0, \"ns_per_flop\": 0.001}, {\"key\": \"conv:*:*:*\", "
        "\"fixed_ns\": 0, "
        "\"ns_per_byte\": 0, \"ns_per_flop\": 1}, {\"key\": \"*\", \"fixed_ns\": 0, "
        "\"ns_per_byte\": 0.0001, \"ns_per_flop\": 0}"};
    static const char *const want[2] = {"dst:acdb", "dst:aBcd"}; /* aBcd8b or aBcd16b */
    for (int t = 0; t < 2; t++) {
        hand_table(path, tables[t], "");
        lg_plan *p = NULL;
        cr_assert_eq(compile_model(g, LG_STRATEGY_OPTIMAL, path, &p), LG_OK, "%s", lg_last_error());
        char lay[160];
        int reorders;
        conv_layouts(p, lay, sizeof lay, &reorders);
        cr_expect(strstr(lay, want[t]) != NULL, "table %d: conv layouts %s", t, lay);
        lg_plan_destroy(p);
    }
    /* The keys of the steps are the paths' (asked, not created). */
    lg_plan *p = NULL;
    cr_assert_eq(compile_model(g, LG_STRATEGY_NONE, NULL, &p), LG_OK, "%s", lg_last_error());
    lg_plan_stats st;
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    lg_step_profile steps[8];
    cr_assert_leq(st.steps, 8);
    float *x = calloc(64 * 14 * 14, 4), *y = calloc(64 * 14 * 14, 4);
    lg_binding in = {"x", x}, o = {"y", y};
    cr_assert_eq(lg_plan_profile(p, 1, &in, 1, &o, 1, steps, 8), LG_OK);
    for (int i = 0; i < st.steps; i++)
        if (strcmp(steps[i].node_kind, "conv") == 0) {
            const char *path_name = strrchr(steps[i].impl, ':') + 1;
            char key[64];
            snprintf(key, sizeof key, "conv:conv1x1.%s:", path_name);
            cr_expect(strncmp(steps[i].cost_key, key, strlen(key)) == 0, "impl %s, key %s",
                      steps[i].impl, steps[i].cost_key);
        }
    lg_plan_destroy(p);
    free(x);
    free(y);
    lg_graph_destroy(g);
    free(w);
    remove(path);
}

/* The model_ms (and step count) of g's GREEDY plan under the table at
 * path on `threads` threads. */
static double plan_model_ms(const lg_graph *g, const char *path, int threads, int *steps) {
    lg_compile_options o;
    lg_compile_options_init(&o);
    o.strategy = LG_STRATEGY_GREEDY;
    o.cost_model = path;
    o.num_threads = threads;
    lg_plan *p = NULL;
    cr_assert_eq(lg_graph_compile(g, &o, &p), LG_OK, "%s", lg_last_error());
    lg_plan_stats st;
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    lg_plan_destroy(p);
    if (steps) *steps = (int)st.steps;
    return st.model_ms;
}

/* The 2-thread speedups: a plan on 2 threads predicts its conv steps
 * speedup2_compute times faster and memory-bound ones speedup2_memory
 * times; on 1 thread, the table's times. Hand-computed: every conv costs
 * its flops in ns, every reorder its bytes. */
Test(cost_model, thread_speedups) {
    char path[96];
    temp_path(path, sizeof path, "speed");
    float *w;
    lg_graph *g = two_convs(&w);
    hand_table(
        path,
        "{\"key\": \"conv:*:*:*\", \"fixed_ns\": 0, \"ns_per_byte\": 0, \"ns_per_flop\": 1}, "
        "{\"key\": \"*\", \"fixed_ns\": 0, \"ns_per_byte\": 1, \"ns_per_flop\": 0}",
        "\"speedup2_compute\": 2, \"speedup2_memory\": 1.25,");
    const double flops = 2.0 * 64 * 64 * 14 * 14 * 2;
    double ms[2];
    double reorder_ns = 0;
    for (int t = 1; t <= 2; t++) {
        ms[t - 1] = plan_model_ms(g, path, t, NULL);
        if (t == 1) reorder_ns = ms[0] * 1e6 - flops;
    }
    /* x is reordered into the blocked layout: 2 x 50176 bytes. */
    cr_expect(fabs(reorder_ns - 2.0 * 64 * 14 * 14 * 4) < 1, "reorders %g ns", reorder_ns);
    double want = (flops / 2 + reorder_ns / 1.25) * 1e-6;
    cr_expect(fabs(ms[1] - want) < 1e-9 * want, "2 threads: %g ms, want %g", ms[1], want);
    lg_graph_destroy(g);
    free(w);
    remove(path);
}

/* The fit (lg__calib_fit) against samples made from known coefficients:
 * recovered where the fixed cost is small; a fixed cost above
 * LG_CALIB_FIXED_MAX_NS is held at the bound and the per-flop rate takes
 * the rest, so that the largest samples stay priced (hand-computed: with
 * 100 us + 0.005 ns per flop, the fit must not price a 200 MFLOP step below
 * what it measured by more than the bound's share). */
Test(cost_model, fit_recovers_and_bounds_fixed) {
    lg__calib_sample s[6];
    const double flops[6] = {1e6, 4e6, 1.6e7, 6.4e7, 1e8, 2e8};
    memset(s, 0, sizeof s);
    for (int i = 0; i < 6; i++) {
        s[i].flops = flops[i];
        s[i].bytes = flops[i] / 50;
        s[i].ns = 2000 + 0.005 * flops[i];
    }
    lg__cost_entry e;
    memset(&e, 0, sizeof e);
    lg__calib_fit(s, 6, &e);
    cr_expect(fabs(e.fixed_ns - 2000) < 20, "fixed %g", e.fixed_ns);
    cr_expect(fabs(e.ns_per_flop - 0.005) < 5e-6, "per flop %g", e.ns_per_flop);
    cr_expect_lt(e.rms_rel_err, 1e-6);
    for (int i = 0; i < 6; i++) s[i].ns = 100000 + 0.005 * flops[i];
    lg__calib_fit(s, 6, &e);
    cr_expect_leq(e.fixed_ns, LG_CALIB_FIXED_MAX_NS, "fixed %g", e.fixed_ns);
    double big = lg__cost_eval(&e, s[5].bytes, s[5].flops, 0);
    cr_expect_gt(big, s[5].ns * 0.99, "the largest step: %g ns predicted, %g measured", big,
                 s[5].ns);
}

/* step_ns_threads: each step of a plan on 2 threads costs that much more
 * (hand-computed: a table whose entries price every step at 0 predicts
 * steps x 0.1 ms on 2 threads and 0 on one). */
Test(cost_model, step_overhead_on_threads) {
    static const char text[] = "{\"lgraph_cost_model\": 1, \"step_ns_threads\": 100000, "
                               "\"entries\": [{\"key\": \"*\", \"fixed_ns\": 0, "
                               "\"ns_per_byte\": 0, \"ns_per_flop\": 0}]}";
    char path[96];
    temp_path(path, sizeof path, "step");
    write_text(path, text, strlen(text));
    workload w = build(1, 1, 7, "nchw", false, 3);
    for (int threads = 1; threads <= 2; threads++) {
        int steps = 0;
        double ms = plan_model_ms(w.g, path, threads, &steps);
        double want = threads == 2 ? 0.1 * steps : 0;
        cr_expect(steps > 0 && fabs(ms - want) < 1e-9, "%d threads: %d steps, %g ms", threads,
                  steps, ms);
    }
    free_workload(&w);
    unlink(path);
}
