/* Plan-level behaviour: dumps (text and DOT: layouts labelled, reorders
 * highlighted), LG_VERBOSE (one line per step executed, no duplicates),
 * memory planning (in place, reuse, skipped), kernels shared through the
 * cache, "any" inputs, and plans outliving their graph. */
#include "graph_ref.h"

#include <criterion/redirect.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const int64_t dims[4] = {2, 24, 5, 7};

/* x(in_tag) -> relu -> abs -> linear -> y(out_tag). */
static lg_graph *eltwise_chain(const char *in_tag, const char *out_tag) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_md md;
    cr_assert_eq(lg_md_init_tag(&md, 4, dims, LG_F32, in_tag), LG_OK);
    lg_value x, a, b, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &md, &x), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, x, LG_ELTWISE_RELU, 0, 0, &a), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, a, LG_ELTWISE_ABS, 0, 0, &b), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, b, LG_ELTWISE_LINEAR, 2, 0, &y), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y, "y", out_tag), LG_OK);
    return g;
}

/* The dump of p in `format` as a string (caller frees). */
static char *dump_str(const lg_plan *p, const char *format) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_eq(lg_plan_dump(p, f, format), LG_OK, "%s", lg_last_error());
    fclose(f);
    return buf;
}

static int count(const char *s, const char *needle) {
    int n = 0;
    for (const char *q = strstr(s, needle); q; q = strstr(q + 1, needle)) n++;
    return n;
}

Test(graph_plan, dumps_label_layouts_and_highlight_reorders) {
    lg_graph *g = eltwise_chain("nchw", "nChw16c");
    lg_plan *p = compile_with(g, LG_STRATEGY_GREEDY, NULL);
    char *text = dump_str(p, "text"), *dot = dump_str(p, "dot");
    /* Text: the summary, every tensor with its tag, every step. */
    cr_expect(strstr(text, "plan: strategy greedy, 4 steps, 1 runtime reorders") != NULL, "%s",
              text);
    cr_expect(strstr(text, "x ") && strstr(text, "f32 abcd 2x24x5x7"), "%s", text);
    cr_expect(strstr(text, "f32 aBcd16b 2x24x5x7") != NULL, "%s", text);
    cr_expect_eq(count(text, "  #"), 4, "%s", text);
    cr_expect(strstr(text, "alg:relu") && strstr(text, "alg:linear alpha:2"), "%s", text);
    cr_expect(strstr(text, "reorder:") && strstr(text, "(inserted)"), "%s", text);
    /* DOT: a digraph, 5 tensors and 4 steps, the one reorder in red. */
    cr_expect(strncmp(dot, "digraph", 7) == 0, "%s", dot);
    cr_expect_eq(count(dot, "[shape=box"), 4, "%s", dot);
    cr_expect_eq(count(dot, "color=red"), 1, "%s", dot);
    cr_expect_eq(count(dot, "shape=ellipse"), 5, "%s", dot);
    cr_expect(strstr(dot, "aBcd16b") && strstr(dot, "abcd"), "%s", dot);
    cr_expect_eq(count(dot, "->"), 8, "%s", dot);
    free(text);
    free(dot);
    lg_plan_destroy(p);
    lg_graph_destroy(g);
}

/* Names with quotes are escaped in DOT labels. */
Test(graph_plan, dot_escapes_names) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_md md = md_tag(4, dims, "nchw");
    lg_value x, y;
    cr_assert_eq(lg_graph_add_input(g, "x\"1\\", &md, &x), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, x, LG_ELTWISE_RELU, 0, 0, &y), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y, "y", "any"), LG_OK);
    lg_plan *p = compile_with(g, LG_STRATEGY_NONE, NULL);
    char *dot = dump_str(p, "dot");
    cr_expect(strstr(dot, "label=\"x\\\"1\\\\\\n") != NULL, "%s", dot);
    free(dot);
    lg_plan_destroy(p);
    lg_graph_destroy(g);
}

static void redirect(void) {
    setenv("LG_VERBOSE", "1", 1);
    cr_redirect_stderr();
}

Test(graph_plan, verbose_one_line_per_step, .init = redirect) {
    lg_graph *g = eltwise_chain("nchw", "nhwc");
    lg_plan *p = compile_with(g, LG_STRATEGY_NONE, NULL);
    lg_plan_stats st;
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    cr_assert_eq(st.steps, 4);
    fflush(stderr);
    FILE *f = cr_get_redirected_stderr();
    char line[2048];
    int before = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "lgraph_verbose,exec,", 20) == 0) before++;
    cr_expect_eq(before, 0, "no execution before lg_plan_execute");
    size_t n = 2 * 24 * 5 * 7;
    float *xb = calloc(n, 4), *yb = calloc(n, 4);
    lg_binding in = {"x", xb}, out = {"y", yb};
    cr_assert_eq(lg_plan_execute(p, 1, &in, 1, &out), LG_OK);
    cr_assert_eq(lg_plan_execute(p, 1, &in, 1, &out), LG_OK);
    fflush(stderr);
    int execs = 0, relu = 0, reorder = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "lgraph_verbose,exec,", 20) != 0) continue;
        execs++;
        relu += strstr(line, "alg:relu") != NULL;
        reorder += strncmp(line, "lgraph_verbose,exec,reorder,", 28) == 0;
        /* kind, implementation, problem, time */
        int commas = 0;
        for (char *c = line; *c; c++) commas += *c == ',';
        cr_expect(commas >= 5, "%s", line);
    }
    cr_expect_eq(execs, 8, "two executions of 4 steps, one line each");
    cr_expect_eq(relu, 2);
    cr_expect_eq(reorder, 2);
    free(xb);
    free(yb);
    lg_plan_destroy(p);
    lg_graph_destroy(g);
}

Test(graph_plan, memory_planning_in_place_and_reuse) {
    int64_t bytes = 2 * 24 * 5 * 7 * 4, aligned = (bytes + 63) / 64 * 64;
    lg_graph *g = eltwise_chain("nchw", "nchw");
    /* relu writes an arena buffer; abs works in place on it; linear writes
     * the output: one buffer. */
    lg_plan *p = compile_with(g, LG_STRATEGY_NONE, NULL);
    lg_plan_stats st;
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    cr_expect_eq(st.arena_bytes, aligned);
    lg_plan_destroy(p);
    p = compile_with(g, LG_STRATEGY_NONE, "plan_memory");
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    cr_expect_eq(st.arena_bytes, 2 * aligned);
    lg_plan_destroy(p);
    lg_graph_destroy(g);

    /* A value read by two nodes is not overwritten in place by the first:
     * x -> relu -> a; b = square(a); y = a * b. a lives until the mul, so
     * the square gets a second buffer (y is the caller's). */
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_md md = md_tag(4, dims, "nchw");
    lg_value x, a, b, c;
    cr_assert_eq(lg_graph_add_input(g, "x", &md, &x), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, x, LG_ELTWISE_RELU, 1.0f / 3, 0, &a), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, a, LG_ELTWISE_SQUARE, 0, 0, &b), LG_OK);
    cr_assert_eq(lg_graph_add_binary(g, LG_BINARY_MUL, a, b, &c), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, c, "y", "nchw"), LG_OK);
    p = compile_with(g, LG_STRATEGY_NONE, NULL);
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    cr_expect_eq(st.arena_bytes, 2 * aligned);
    lg_rng r = {9};
    tensor tx = t_rand(4, dims, &r, -3, 3), got;
    tensor ta = ref_relu(&tx, 1.0f / 3), tb = ref_binary(2, &ta, &ta);
    tensor want = ref_binary(2, &ta, &tb);
    const char *in = "x", *out = "y";
    run_plan(p, 1, &in, &tx, 1, &out, &got);
    t_expect_near(&got, &want, 0, 1e-6f, "a * a^2");
    t_free(&got);
    t_free(&tx);
    t_free(&ta);
    t_free(&tb);
    t_free(&want);
    lg_plan_destroy(p);
    lg_graph_destroy(g);
}

Test(graph_plan, kernels_come_from_the_cache) {
    lg_graph *g = eltwise_chain("nchw", "nChw8c");
    lg_plan *p1 = compile_with(g, LG_STRATEGY_GREEDY, NULL);
    lg_cache_stats a, b;
    lg_kernel_cache_stats(&a);
    lg_plan *p2 = compile_with(g, LG_STRATEGY_GREEDY, NULL);
    lg_kernel_cache_stats(&b);
    cr_expect_eq(b.misses, a.misses, "the second compile creates no kernel");
    cr_expect_eq(b.hits - a.hits, 4, "one hit per step");
    lg_plan_destroy(p1);
    lg_plan_destroy(p2);
    lg_graph_destroy(g);
}

/* An "any" input with no conv reader becomes plain (under the byte-count
 * model, where every family of a memory-bound chain costs its bytes and
 * plain has no padding); the plan reports it. */
static void use_bytes_model(char *path, size_t len);
Test(graph_plan, any_input_is_resolved_and_reported) {
    char model[64];
    use_bytes_model(model, sizeof model);
    lg_graph *g = eltwise_chain("any", "any");
    for (int s = 0; s < 3; s++) {
        lg_plan *p = compile_with(g, (lg_strategy)s, NULL);
        lg_md md, plain = md_tag(4, dims, "nchw");
        cr_assert_eq(lg_plan_query_md(p, "x", &md), LG_OK);
        cr_expect(lg_md_equal(&md, &plain));
        cr_assert_eq(lg_plan_query_md(p, "y", &md), LG_OK);
        cr_expect(lg_md_equal(&md, &plain));
        lg_plan_destroy(p);
    }
    lg_graph_destroy(g);
    unsetenv("LG_COST_MODEL");
    remove(model);
}

/* Point LG_COST_MODEL at a coefficient file of 1 ns per byte for every key
 * (the byte-count model), written at `path`. */
static void use_bytes_model(char *path, size_t len) {
    snprintf(path, len, "/tmp/lg_bytes_model_%d.json", (int)getpid());
    FILE *f = fopen(path, "w");
    cr_assert(f != NULL);
    fprintf(f, "{\"lgraph_cost_model\": 1, \"entries\": [{\"key\": \"*\", \"fixed_ns\": 0, "
               "\"ns_per_byte\": 1, \"ns_per_flop\": 0}]}\n");
    fclose(f);
    cr_assert_eq(setenv("LG_COST_MODEL", path, 1), 0);
}

/* The cost model by hand (src/passes/cost_model.h) under a coefficient
 * file of 1 ns per byte for every key: a memory-bound node costs the bytes
 * it reads and writes, a reorder the same, a reorder of the value counted
 * once. S = bytes of the plain tensor, P = of nChw16c (24 channels padded
 * to 32). */
Test(graph_plan, model_cost_by_hand) {
    char model[64];
    use_bytes_model(model, sizeof model);
    double S = 2 * 24 * 5 * 7 * 4, P = 2 * 32 * 5 * 7 * 4;
    lg_graph *g = eltwise_chain("nchw", "nchw");
    lg_plan *p = compile_with(g, LG_STRATEGY_NONE, NULL);
    lg_plan_stats st;
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    cr_expect_eq(st.model_cost, 6 * S, "three eltwise nodes: %g", st.model_cost);
    lg_plan_destroy(p);
    lg_graph_destroy(g);
    g = eltwise_chain("nchw", "nChw16c");
    p = compile_with(g, LG_STRATEGY_GREEDY, NULL);
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    cr_expect_eq(st.model_cost, 6 * S + S + P, "plus the output reorder: %g", st.model_cost);
    lg_plan_destroy(p);
    lg_graph_destroy(g);
    g = eltwise_chain("nChw16c", "nchw");
    p = compile_with(g, LG_STRATEGY_GREEDY, NULL);
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    cr_expect_eq(st.model_cost, 6 * P + P + S, "blocked nodes, one reorder: %g", st.model_cost);
    lg_plan_destroy(p);
    p = compile_with(g, LG_STRATEGY_NONE, NULL);
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    cr_expect_eq(st.model_cost, P + S + 6 * S, "the input reordered to plain: %g", st.model_cost);
    lg_plan_destroy(p);
    lg_graph_destroy(g);
    unsetenv("LG_COST_MODEL");
    remove(model);
}

/* num_threads caps the threads of the plan's kernels for the duration of an
 * execution and restores the caller's setting afterwards. */
Test(graph_plan, num_threads_is_scoped_to_the_execution) {
    lg_graph *g = eltwise_chain("nchw", "nhwc");
    lg_compile_options o;
    lg_compile_options_init(&o);
    o.num_threads = 1;
    lg_plan *p;
    cr_assert_eq(lg_graph_compile(g, &o, &p), LG_OK, "%s", lg_last_error());
    omp_set_num_threads(3);
    lg_rng r = {8};
    tensor x = t_rand(4, dims, &r, -1, 1), got;
    const char *in = "x", *out = "y";
    run_plan(p, 1, &in, &x, 1, &out, &got);
    cr_expect_eq(omp_get_max_threads(), 3);
    tensor a = ref_relu(&x, 0), want = ref_linear(&a, 2, 0);
    t_expect_near(&got, &want, 0, 1e-6f, "one thread");
    t_free(&x);
    t_free(&got);
    t_free(&a);
    t_free(&want);
    lg_plan_destroy(p);
    lg_graph_destroy(g);
}
