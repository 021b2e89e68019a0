/* User layout strategies (lg_compile_options.strategy_fn over the
 * lg_layout_problem view) on the workloads W1-W3 (tests/graph/workloads.h):
 *  - the view is complete: OPTIMAL written through it (exhaustive search
 *    over lg_layout_cost) and GREEDY written through it (its rules: a conv
 *    takes its kernel's preferred configuration, any other node keeps the
 *    layout that arrives) give the built-in strategies' plans (same runtime reorders,
 *    reorder bytes, steps, folded reorders and model cost);
 *  - a channels-last-everywhere strategy: every 4D result is "acdb" and the
 *    plan's model cost is what lg_layout_cost said inside the strategy;
 *  - outputs of every user-strategy plan equal the scalar reference;
 *  - invalid answers (a configuration out of range, the wrong count, NULL,
 *    no answer, a strategy's own error) fail the compile with
 *    LG_INVALID_ARGUMENT (or the strategy's status) and a message naming
 *    the problem node; accessors reject bad arguments by name;
 *  - edge costs agree with lg_layout_cost: with the configurations' costs
 *    they bound it from above, and equal it for NONE's assignment (nothing
 *    shared, nothing fused). */
#include "graph/workloads.h"

#define ATOL 1e-4f
#define RTOL 1e-4f
#define MAXN 64

/* ---- helpers over the view ---- */

static int num_configs(const lg_layout_problem *p, int i) {
    int nc = 0;
    cr_assert_eq(lg_layout_node(p, i, NULL, NULL, NULL, &nc), LG_OK, "%s", lg_last_error());
    return nc;
}

static lg_md config_md(const lg_layout_problem *p, int i, int c, int j) {
    lg_md md;
    cr_assert_eq(lg_layout_config_md(p, i, c, j, &md), LG_OK, "%s", lg_last_error());
    return md;
}

static bool is_tag(const lg_md *md, const char *tag) {
    char buf[64];
    return lg_md_tag(md, buf, sizeof buf) == LG_OK && strcmp(buf, tag) == 0;
}

/* ---- strategies ---- */

/* OPTIMAL through the view: every assignment; the first of least
 * lg_layout_cost is kept. */
static lg_status exhaustive(lg_layout_problem *p, void *user) {
    (void)user;
    int n = lg_layout_num_nodes(p), choice[MAXN] = {0}, best[MAXN] = {0}, nc[MAXN];
    cr_assert(n > 0 && n <= MAXN);
    for (int i = 0; i < n; i++) nc[i] = num_configs(p, i);
    double best_cost = INFINITY;
    for (;;) {
        double c;
        cr_assert_eq(lg_layout_cost(p, n, choice, &c), LG_OK, "%s", lg_last_error());
        if (c < best_cost) {
            best_cost = c;
            memcpy(best, choice, sizeof best);
        }
        int i = n - 1;
        while (i >= 0 && ++choice[i] == nc[i]) choice[i--] = 0;
        if (i < 0) break;
    }
    return lg_layout_choose(p, n, best);
}

/* GREEDY through the view, by its rules: in execution order a conv takes
 * the layouts its kernel prefers (configuration 0, as lgraph.h documents;
 * not always its cheapest: a depthwise conv over 60 channels models cheaper
 * reading the unpadded plain layout); any other node keeps the layout input
 * 0 arrives in (its result in that layout, every input of the same dims
 * read in it). */
static lg_status greedy_rules(lg_layout_problem *p, void *user) {
    (void)user;
    int n = lg_layout_num_nodes(p), choice[MAXN] = {0};
    cr_assert(n <= MAXN);
    for (int i = 0; i < n; i++) {
        const char *kind;
        int nin, nc;
        cr_assert_eq(lg_layout_node(p, i, &kind, NULL, &nin, &nc), LG_OK);
        if (strcmp(kind, "conv") == 0) continue; /* configuration 0: its kernel's pick */
        if (nin == 0) continue;                  /* an "any" input: not in these workloads */
        int src, e;
        cr_assert_eq(lg_layout_node_input(p, i, 0, &src, &e), LG_OK);
        lg_md arrives;
        cr_assert_eq(lg_layout_edge_mds(p, e, src >= 0 ? choice[src] : 0, 0, &arrives, NULL),
                     LG_OK);
        for (int c = 0; c < nc; c++) {
            lg_md out = config_md(p, i, c, -1);
            bool keeps = lg_md_equal(&out, &arrives);
            for (int j = 0; j < nin && keeps; j++) {
                lg_md in = config_md(p, i, c, j);
                keeps = in.ndims != arrives.ndims ||
                        memcmp(in.dims, arrives.dims, sizeof in.dims) != 0 ||
                        lg_md_equal(&in, &arrives);
            }
            if (keeps) {
                choice[i] = c;
                break;
            }
        }
    }
    return lg_layout_choose(p, n, choice);
}

/* Channels-last everywhere: each node takes the configuration that writes
 * its result and reads its input 0 in "acdb" (the cheapest such), else its
 * cheapest. Records the model cost of its answer in *user. */
static lg_status channels_last(lg_layout_problem *p, void *user) {
    int n = lg_layout_num_nodes(p), choice[MAXN] = {0};
    cr_assert(n <= MAXN);
    for (int i = 0; i < n; i++) {
        int nin, nc;
        cr_assert_eq(lg_layout_node(p, i, NULL, NULL, &nin, &nc), LG_OK);
        double best = INFINITY;
        int best_score = -1;
        for (int c = 0; c < nc; c++) {
            lg_md out = config_md(p, i, c, -1);
            int score = is_tag(&out, "acdb");
            if (nin > 0) {
                lg_md in = config_md(p, i, c, 0);
                score += is_tag(&in, "acdb");
            }
            double cost;
            cr_assert_eq(lg_layout_config_cost(p, i, c, &cost), LG_OK);
            if (score > best_score || (score == best_score && cost < best)) {
                best_score = score;
                best = cost;
                choice[i] = c;
            }
        }
    }
    double *model = user;
    cr_assert_eq(lg_layout_cost(p, n, choice, model), LG_OK);
    return lg_layout_choose(p, n, choice);
}

/* ---- compiling and checking ---- */

static lg_plan *compile_user(const lg_graph *g, lg_strategy_fn fn, void *data) {
    lg_compile_options o;
    lg_compile_options_init(&o);
    o.strategy_fn = fn;
    o.strategy_data = data;
    lg_plan *p = NULL;
    lg_status s = lg_graph_compile(g, &o, &p);
    cr_assert_eq(s, LG_OK, "user strategy compile: %s", lg_last_error());
    return p;
}

static lg_plan_stats stats(const lg_plan *p) {
    lg_plan_stats s;
    cr_assert_eq(lg_plan_stats_get(p, &s), LG_OK);
    return s;
}

static void expect_reference(const lg_plan *p, const workload *w, const char *what) {
    lg_rng r = {(uint64_t)(31 * w->which)};
    tensor x = t_rand(4, w->xd, &r, -1, 1), want = reference(w, &x), got;
    const char *in = "x", *out = "y";
    run_plan(p, 1, &in, &x, 1, &out, &got);
    t_expect_near(&got, &want, ATOL, RTOL, what);
    t_free(&got);
    t_free(&x);
    t_free(&want);
}

/* The user strategy's plan has the built-in's counters and cost. */
static void expect_same_plan(const lg_plan *user, const lg_plan *builtin, const char *what) {
    lg_plan_stats u = stats(user), b = stats(builtin);
    cr_expect_eq(u.runtime_reorders, b.runtime_reorders, "%s: runtime reorders", what);
    cr_expect_eq(u.reorder_bytes, b.reorder_bytes, "%s: reorder bytes", what);
    cr_expect_eq(u.steps, b.steps, "%s: steps", what);
    cr_expect_eq(u.folded_reorders, b.folded_reorders, "%s: folded", what);
    cr_expect_eq(u.arena_bytes, b.arena_bytes, "%s: arena bytes", what);
    cr_expect(fabs(u.model_cost - b.model_cost) <= 1e-9 * b.model_cost,
              "%s: model cost %.17g vs %.17g", what, u.model_cost, b.model_cost);
    cr_expect(!u.exact, "%s: a user plan is never marked exact", what);
}

/* Spatial sizes small enough for the exhaustive search and the reference. */
static const int64_t sizes[4] = {0, 9, 8, 17};

Test(user_strategy, optimal_through_the_view) {
    for (int which = 1; which <= 3; which++) {
        workload w = build(which, 1, sizes[which], "nchw", false, 40 + (uint64_t)which);
        lg_plan *u = compile_user(w.g, exhaustive, NULL);
        /* the built-in's proven minimum: margin 0 (with the default margin
         * it may keep GREEDY's plan, docs/propagation.md "The margin") */
        lg_compile_options o;
        lg_compile_options_init(&o);
        o.strategy = LG_STRATEGY_OPTIMAL;
        o.optimal_margin = 0;
        lg_plan *b = NULL;
        cr_assert_eq(lg_graph_compile(w.g, &o, &b), LG_OK, "%s", lg_last_error());
        char what[32];
        snprintf(what, sizeof what, "W%d optimal", which);
        cr_expect(stats(b).exact, "%s: the built-in proves its minimum", what);
        expect_same_plan(u, b, what);
        expect_reference(u, &w, what);
        lg_plan_destroy(u);
        lg_plan_destroy(b);
        free_workload(&w);
    }
}

Test(user_strategy, greedy_through_the_view) {
    for (int which = 1; which <= 3; which++) {
        for (int fuse = 0; fuse < 4; fuse++) { /* bit 0: fuse; bit 1: x given as "any" */
            workload w = build(which, 2, sizes[which], fuse & 2 ? "any" : "nchw", which == 2,
                               50 + (uint64_t)which);
            lg_compile_options o;
            lg_compile_options_init(&o);
            o.fuse = fuse & 1;
            o.strategy_fn = greedy_rules;
            lg_plan *u, *b;
            cr_assert_eq(lg_graph_compile(w.g, &o, &u), LG_OK, "%s", lg_last_error());
            o.strategy_fn = NULL;
            o.strategy = LG_STRATEGY_GREEDY;
            cr_assert_eq(lg_graph_compile(w.g, &o, &b), LG_OK, "%s", lg_last_error());
            char what[48];
            snprintf(what, sizeof what, "W%d greedy fuse %d x %s", which, fuse & 1,
                     fuse & 2 ? "any" : "nchw");
            expect_same_plan(u, b, what);
            expect_reference(u, &w, what);
            lg_plan_destroy(u);
            lg_plan_destroy(b);
            free_workload(&w);
        }
    }
}

/* Checks every 4D result of the answer is channels-last, then answers. */
static lg_status channels_last_checked(lg_layout_problem *p, void *user) {
    lg_status s = channels_last(p, user);
    int n = lg_layout_num_nodes(p);
    for (int i = 0; i < n; i++) {
        lg_md out = config_md(p, i, 0, -1);
        if (out.ndims != 4) continue;
        bool found = false;
        for (int c = 0; c < num_configs(p, i) && !found; c++) {
            lg_md m = config_md(p, i, c, -1);
            found = is_tag(&m, "acdb");
        }
        cr_expect(found, "problem node %d offers no channels-last result", i);
    }
    return s;
}

Test(user_strategy, channels_last_everywhere) {
    for (int which = 1; which <= 3; which++) {
        workload w = build(which, 2, sizes[which], "nchw", false, 60 + (uint64_t)which);
        double model = -1;
        lg_plan *u = compile_user(w.g, channels_last_checked, &model);
        lg_plan_stats s = stats(u);
        cr_expect(fabs(s.model_cost - model) <= 1e-9 * model,
                  "W%d: plan model cost %.17g, lg_layout_cost said %.17g", which, s.model_cost,
                  model);
        /* x comes in nchw and y goes out in nchw: both cross to acdb. */
        cr_expect_geq(s.runtime_reorders, 2, "W%d", which);
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        cr_assert_eq(lg_plan_dump(u, f, "text"), LG_OK);
        fclose(f);
        cr_expect(strstr(text, "acdb") != NULL, "W%d: the plan holds channels-last tensors:\n%s",
                  which, text);
        cr_expect(strstr(text, "strategy user") != NULL, "W%d:\n%s", which, text);
        free(text);
        char what[32];
        snprintf(what, sizeof what, "W%d channels-last", which);
        expect_reference(u, &w, what);
        lg_plan_destroy(u);
        free_workload(&w);
    }
}

/* ---- invalid answers ---- */

typedef enum bad_kind {
    BAD_RANGE,
    BAD_NEGATIVE,
    BAD_COUNT,
    BAD_NULL,
    BAD_SILENT,
    BAD_NONE
} bad_kind;

typedef struct bad_answer {
    bad_kind kind;
    int node;              /* the problem node given a bad configuration */
    lg_status choose_said; /* what lg_layout_choose returned */
} bad_answer;

/* Answers wrongly as *user says; returns LG_OK except for BAD_NONE, which
 * returns its own error without answering, and BAD_SILENT, which ignores
 * the refusal and returns LG_OK. */
static lg_status bad_strategy(lg_layout_problem *p, void *user) {
    bad_answer *b = user;
    int n = lg_layout_num_nodes(p), choice[MAXN] = {0};
    switch (b->kind) {
    case BAD_RANGE:
    case BAD_SILENT:
        choice[b->node] = num_configs(p, b->node);
        b->choose_said = lg_layout_choose(p, n, choice);
        return b->kind == BAD_SILENT ? LG_OK : b->choose_said;
    case BAD_NEGATIVE:
        choice[b->node] = -1;
        return b->choose_said = lg_layout_choose(p, n, choice);
    case BAD_COUNT:
        return b->choose_said = lg_layout_choose(p, n - 1, choice);
    case BAD_NULL:
        return b->choose_said = lg_layout_choose(p, n, NULL);
    case BAD_NONE:
        return LG_RUNTIME_ERROR;
    }
    return LG_OK;
}

static lg_status compile_bad(const lg_graph *g, bad_answer *b) {
    lg_compile_options o;
    lg_compile_options_init(&o);
    o.strategy_fn = bad_strategy;
    o.strategy_data = b;
    lg_plan *p = (lg_plan *)&o; /* must stay untouched on failure */
    lg_status s = lg_graph_compile(g, &o, &p);
    cr_expect_eq((void *)p, (void *)&o, "no plan on failure");
    return s;
}

Test(user_strategy, invalid_answers_name_the_node) {
    workload w = build(2, 1, 5, "nchw", false, 7);
    /* W2 has 8 problem nodes: conv relu conv relu conv add relu, in order;
     * problem node 2 is the 3x3 conv, graph node 2. */
    bad_answer b = {.kind = BAD_RANGE, .node = 2};
    cr_expect_eq(compile_bad(w.g, &b), LG_INVALID_ARGUMENT);
    cr_expect_eq(b.choose_said, LG_INVALID_ARGUMENT);
    cr_expect(strstr(lg_last_error(), "lg_graph_compile") &&
                  strstr(lg_last_error(), "problem node 2 (conv, graph node 2)") &&
                  strstr(lg_last_error(), "choice[2]"),
              "%s", lg_last_error());
    b = (bad_answer){.kind = BAD_NEGATIVE, .node = 5};
    cr_expect_eq(compile_bad(w.g, &b), LG_INVALID_ARGUMENT);
    cr_expect(strstr(lg_last_error(), "choice[5] = -1") &&
                  strstr(lg_last_error(), "problem node 5 (binary, graph node 5)"),
              "%s", lg_last_error());
    b = (bad_answer){.kind = BAD_SILENT, .node = 6};
    cr_expect_eq(compile_bad(w.g, &b), LG_INVALID_ARGUMENT);
    cr_expect(strstr(lg_last_error(), "problem node 6 (eltwise, graph node 6)"), "%s",
              lg_last_error());
    b = (bad_answer){.kind = BAD_COUNT};
    cr_expect_eq(compile_bad(w.g, &b), LG_INVALID_ARGUMENT);
    cr_expect(strstr(lg_last_error(), "n = 6 choices for 7 problem nodes"), "%s", lg_last_error());
    b = (bad_answer){.kind = BAD_NULL};
    cr_expect_eq(compile_bad(w.g, &b), LG_INVALID_ARGUMENT);
    cr_expect(strstr(lg_last_error(), "choice is NULL"), "%s", lg_last_error());
    b = (bad_answer){.kind = BAD_NONE};
    cr_expect_eq(compile_bad(w.g, &b), LG_RUNTIME_ERROR);
    cr_expect(strstr(lg_last_error(), "user strategy returned LG_RUNTIME_ERROR"), "%s",
              lg_last_error());
    free_workload(&w);
}

/* Returns LG_OK without answering. */
static lg_status silent(lg_layout_problem *p, void *user) {
    (void)p;
    (void)user;
    return LG_OK;
}

/* Every accessor with bad arguments; the view is otherwise untouched. */
static lg_status bad_accessors(lg_layout_problem *p, void *user) {
    int *checked = user;
    int n = lg_layout_num_nodes(p), ne = lg_layout_num_edges(p);
    double c;
    lg_md md;
    int src, e;
    struct {
        lg_status s;
        const char *fn, *arg;
    } cases[] = {
        {lg_layout_node(p, n, NULL, NULL, NULL, NULL), "lg_layout_node", "node 7"},
        {lg_layout_node(NULL, 0, NULL, NULL, NULL, NULL), "lg_layout_node", "problem is NULL"},
        {lg_layout_node_input(p, 0, 3, &src, &e), "lg_layout_node_input", "j 3"},
        {lg_layout_config_cost(p, 0, 99, &c), "lg_layout_config_cost", "cfg 99"},
        {lg_layout_config_md(p, 0, 0, -2, &md), "lg_layout_config_md", "j -2"},
        {lg_layout_edge(p, ne, NULL, NULL, NULL), "lg_layout_edge", "edge"},
        {lg_layout_edge_cost(p, 0, 0, 99, &c), "lg_layout_edge_cost", "dst_cfg 99"},
        {lg_layout_edge_mds(p, -1, 0, 0, &md, &md), "lg_layout_edge_mds", "edge -1"},
        {lg_layout_cost(p, n, NULL, &c), "lg_layout_cost", "choice is NULL"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cr_expect_eq(cases[k].s, LG_INVALID_ARGUMENT, "%s", cases[k].fn);
        (*checked)++;
    }
    /* The messages, one call at a time (each overwrites the last). */
    cr_expect_eq(lg_layout_node(p, n, NULL, NULL, NULL, NULL), LG_INVALID_ARGUMENT);
    cr_expect(strstr(lg_last_error(), "lg_layout_node") && strstr(lg_last_error(), "node 7"), "%s",
              lg_last_error());
    cr_expect_eq(lg_layout_edge_cost(p, 0, 0, 99, &c), LG_INVALID_ARGUMENT);
    cr_expect(strstr(lg_last_error(), "lg_layout_edge_cost: dst_cfg 99"), "%s", lg_last_error());
    cr_expect(lg_layout_node_name(p, 0) == NULL, "a graph node has no input name");
    cr_expect_eq(lg_layout_num_nodes(NULL), 0);
    cr_expect_eq(lg_layout_num_edges(NULL), 0);
    cr_expect_eq(lg_layout_choose(NULL, 0, NULL), LG_INVALID_ARGUMENT);
    return silent(p, user);
}

Test(user_strategy, no_answer_and_bad_accessor_arguments) {
    workload w = build(2, 1, 5, "nchw", false, 8);
    lg_compile_options o;
    lg_compile_options_init(&o);
    o.strategy_fn = silent;
    lg_plan *p = NULL;
    cr_expect_eq(lg_graph_compile(w.g, &o, &p), LG_INVALID_ARGUMENT);
    cr_expect(strstr(lg_last_error(), "without calling lg_layout_choose"), "%s", lg_last_error());
    int checked = 0;
    o.strategy_fn = bad_accessors;
    o.strategy_data = &checked;
    cr_expect_eq(lg_graph_compile(w.g, &o, &p), LG_INVALID_ARGUMENT);
    cr_expect_eq(checked, 9);
    free_workload(&w);
}

/* The view's structure and costs: W2 (x nchw, y wanted nchw). */
typedef struct view_facts {
    double none_sum, none_model, greedy_sum, greedy_model;
    int nodes, edges, outputs;
} view_facts;

/* The sum of configuration and edge costs of an assignment. */
static double pairwise_sum(const lg_layout_problem *p, const int *choice) {
    double sum = 0;
    for (int i = 0; i < lg_layout_num_nodes(p); i++) {
        double c;
        cr_assert_eq(lg_layout_config_cost(p, i, choice[i], &c), LG_OK);
        sum += c;
    }
    for (int e = 0; e < lg_layout_num_edges(p); e++) {
        int src, dst;
        double c;
        cr_assert_eq(lg_layout_edge(p, e, &src, &dst, NULL), LG_OK);
        cr_assert_eq(
            lg_layout_edge_cost(p, e, src >= 0 ? choice[src] : 0, dst >= 0 ? choice[dst] : 0, &c),
            LG_OK);
        sum += c;
    }
    return sum;
}

static lg_status facts(lg_layout_problem *p, void *user) {
    view_facts *f = user;
    int n = lg_layout_num_nodes(p), zero[MAXN] = {0}, one[MAXN];
    f->nodes = n;
    f->edges = lg_layout_num_edges(p);
    for (int i = 0; i < n; i++) {
        one[i] = num_configs(p, i) > 1 ? 1 : 0;
        const char *kind;
        int g, nin;
        cr_assert_eq(lg_layout_node(p, i, &kind, &g, &nin, NULL), LG_OK);
        cr_expect_eq(g, i, "W2's graph nodes are its problem nodes, in order");
        for (int j = 0; j < nin; j++) {
            int src, e, dst, dj;
            cr_assert_eq(lg_layout_node_input(p, i, j, &src, &e), LG_OK);
            cr_assert_eq(lg_layout_edge(p, e, NULL, &dst, &dj), LG_OK);
            cr_expect(dst == i && dj == j, "edge %d is input %d of node %d", e, j, i);
            cr_expect(src < i, "sources come first (execution order)");
        }
    }
    for (int e = 0; e < f->edges; e++) {
        int dst;
        cr_assert_eq(lg_layout_edge(p, e, NULL, &dst, NULL), LG_OK);
        f->outputs += dst < 0;
    }
    f->none_sum = pairwise_sum(p, one);
    cr_assert_eq(lg_layout_cost(p, n, one, &f->none_model), LG_OK);
    f->greedy_sum = pairwise_sum(p, zero);
    cr_assert_eq(lg_layout_cost(p, n, zero, &f->greedy_model), LG_OK);
    return lg_layout_choose(p, n, one);
}

Test(user_strategy, view_structure_and_costs) {
    workload w = build(2, 1, 6, "nchw", false, 9);
    view_facts f = {0};
    lg_compile_options o;
    lg_compile_options_init(&o);
    o.strategy_fn = facts;
    o.strategy_data = &f;
    o.fuse = false; /* so that NONE's assignment shares and fuses nothing */
    lg_plan *u;
    cr_assert_eq(lg_graph_compile(w.g, &o, &u), LG_OK, "%s", lg_last_error());
    cr_expect_eq(f.nodes, 7);
    /* conv x3 (src, weights, bias), relu x3, add x2, one output */
    cr_expect_eq(f.edges, 3 * 3 + 3 + 2 + 1);
    cr_expect_eq(f.outputs, 1);
    cr_expect(fabs(f.none_sum - f.none_model) <= 1e-9 * f.none_model, "NONE: %.17g vs %.17g",
              f.none_sum, f.none_model);
    /* GREEDY reorders x once for two readers: the pairwise sum counts it twice. */
    cr_expect(f.greedy_sum >= f.greedy_model, "%g < %g", f.greedy_sum, f.greedy_model);
    lg_plan *b = compile_with(w.g, LG_STRATEGY_NONE, "fuse");
    expect_same_plan(u, b, "W2 none (config 1) unfused");
    lg_plan_destroy(u);
    lg_plan_destroy(b);
    free_workload(&w);
}
