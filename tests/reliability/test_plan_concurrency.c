/* One plan, four threads: each executes the same compiled plan many times
 * on its own inputs while the others do, and checks every output against
 * the scalar reference chain (tests/graph/graph_ref.h). The graph has a conv
 * with bias and fused relu, a residual add, a channel shuffle and a second
 * output in the compiler's layout, so the plan holds kernels of every
 * kind, a constant folded at compile time and several arena buffers (each
 * thread gets its own scratch arena). Every strategy. Runs in the normal and
 * ASan suites and under ThreadSanitizer (scripts/tsan.sh). */
#include "graph/graph_ref.h"

#include <pthread.h>

#define NTHREADS 4
#define ITERS    12

static const int64_t xd[4] = {1, 16, 6, 5}, wd[4] = {16, 16, 3, 3}, bd[1] = {16};
static const lg_conv_params cp = {.strides = {1, 1}, .pad_l = {1, 1}, .pad_r = {1, 1}, .groups = 1};

typedef struct job {
    const lg_plan *plan;
    lg_md xmd, amd; /* the layouts the plan wants for x and gives for a */
    const tensor *w, *b;
    uint64_t seed;
    int failures;
    char msg[160];
} job;

/* y = shuffle(relu(conv(x) + b) + x, 4) in nchw; a = relu(conv(x) + b). */
static lg_graph *build(const tensor *w, const tensor *b) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_md xmd = md_tag(4, xd, "nchw"), wmd = md_tag(4, wd, "oihw"), bmd = md_tag(1, bd, "a");
    lg_value x, wv, bv, c, a, s, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &x), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "w", &wmd, w->d, &wv), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "b", &bmd, b->d, &bv), LG_OK);
    cr_assert_eq(lg_graph_add_conv(g, x, wv, bv, &cp, &c), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, c, LG_ELTWISE_RELU, 0, 0, &a), LG_OK);
    cr_assert_eq(lg_graph_add_binary(g, LG_BINARY_ADD, a, x, &s), LG_OK);
    cr_assert_eq(lg_graph_add_shuffle(g, s, 1, 4, &y), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y, "y", "nchw"), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, a, "a", "any"), LG_OK);
    return g;
}

/* Count the elements of got outside |got - want| <= 1e-4 (1 + |want|). */
static int mismatches(const tensor *got, const tensor *want) {
    int bad = 0;
    for (int64_t i = 0; i < t_count(want); i++)
        bad += !(fabsf(got->d[i] - want->d[i]) <= 1e-4f * (1 + fabsf(want->d[i])));
    return bad;
}

static void *thread_main(void *arg) {
    job *j = arg;
    lg_rng r = {j->seed};
    for (int it = 0; it < ITERS && !j->failures; it++) {
        tensor x = t_rand(4, xd, &r, -2, 2);
        tensor c = ref_conv2d(&x, j->w, j->b, &cp), a = ref_relu(&c, 0);
        tensor s = ref_binary(0, &a, &x), y = ref_shuffle(&s, 1, 4);
        void *xb = t_pack(&x, &j->xmd), *yb = calloc((size_t)t_count(&y), 4);
        void *ab = t_garbage(&j->amd);
        lg_binding in = {"x", xb}, out[2] = {{"y", yb}, {"a", ab}};
        lg_status st = lg_plan_execute(j->plan, 1, &in, 2, out);
        if (st != LG_OK) {
            snprintf(j->msg, sizeof j->msg, "execute: %s", lg_last_error());
            j->failures++;
        } else {
            tensor gy = {.nd = 4, .d = yb}, ga = t_unpack(&j->amd, ab);
            memcpy(gy.dims, xd, sizeof xd);
            int by = mismatches(&gy, &y), ba = mismatches(&ga, &a);
            if (by || ba) {
                snprintf(j->msg, sizeof j->msg, "iteration %d: %d wrong in y, %d in a", it, by, ba);
                j->failures++;
            }
            t_free(&ga);
        }
        free(xb);
        free(yb);
        free(ab);
        t_free(&x);
        t_free(&c);
        t_free(&a);
        t_free(&s);
        t_free(&y);
    }
    return NULL;
}

Test(plan_concurrency, four_threads_execute_one_plan) {
    lg_rng r = {77};
    tensor w = t_rand(4, wd, &r, -0.5f, 0.5f), b = t_rand(1, bd, &r, -1, 1);
    lg_graph *g = build(&w, &b);
    for (int st = 0; st < 3; st++) {
        lg_plan *p = compile_with(g, (lg_strategy)st, NULL);
        job jobs[NTHREADS];
        pthread_t th[NTHREADS];
        for (int t = 0; t < NTHREADS; t++) {
            jobs[t] = (job){.plan = p, .w = &w, .b = &b, .seed = 1000 + (uint64_t)(st * 10 + t)};
            cr_assert_eq(lg_plan_query_md(p, "x", &jobs[t].xmd), LG_OK);
            cr_assert_eq(lg_plan_query_md(p, "a", &jobs[t].amd), LG_OK);
        }
        for (int t = 0; t < NTHREADS; t++)
            cr_assert_eq(pthread_create(&th[t], NULL, thread_main, &jobs[t]), 0);
        for (int t = 0; t < NTHREADS; t++) cr_assert_eq(pthread_join(th[t], NULL), 0);
        for (int t = 0; t < NTHREADS; t++)
            cr_assert_eq(jobs[t].failures, 0, "%s, thread %d: %s", strategy_name((lg_strategy)st),
                         t, jobs[t].msg);
        lg_plan_destroy(p);
    }
    lg_graph_destroy(g);
    t_free(&w);
    t_free(&b);
}
