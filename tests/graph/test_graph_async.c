/* Concurrency: threads executing one plan at once with different inputs,
 * and asynchronous executions of several plans in flight on a real libuv
 * loop (callbacks on the loop's thread, lg_plan_destroy waiting for work
 * still running). Outputs are checked against scalar references. */
#include "graph_ref.h"

#include <pthread.h>
#include <uv.h>

static const int64_t dims[4] = {2, 48, 12, 12};

/* x(nchw) -> relu -> shuffle(gs) -> add(x) -> y(nchw), with a reorder to
 * nChw16c in the middle so that the plan has several arena buffers. */
static lg_graph *build(int64_t gs) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_md md = md_tag(4, dims, "nchw"), blk = md_tag(4, dims, "nChw16c");
    lg_value x, a, b, s, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &md, &x), LG_OK);
    cr_assert_eq(lg_graph_add_eltwise(g, x, LG_ELTWISE_RELU, 0.5f, 0, &a), LG_OK);
    cr_assert_eq(lg_graph_add_reorder(g, a, &blk, NULL, &b), LG_OK);
    cr_assert_eq(lg_graph_add_shuffle(g, b, 1, gs, &s), LG_OK);
    cr_assert_eq(lg_graph_add_binary(g, LG_BINARY_ADD, s, x, &y), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y, "y", "nchw"), LG_OK);
    return g;
}

static tensor reference(const tensor *x, int64_t gs) {
    tensor a = ref_relu(x, 0.5f), s = ref_shuffle(&a, 1, gs), y = ref_binary(0, &s, x);
    t_free(&a);
    t_free(&s);
    return y;
}

typedef struct job {
    const lg_plan *plan;
    int64_t gs;
    uint64_t seed;
    int iters;
    int failures;
} job;

static void *thread_main(void *arg) {
    job *j = arg;
    lg_rng r = {j->seed};
    size_t n = (size_t)(dims[0] * dims[1] * dims[2] * dims[3]);
    float *yb = malloc(n * 4);
    for (int it = 0; it < j->iters; it++) {
        tensor x = t_rand(4, dims, &r, -4, 4), want = reference(&x, j->gs);
        lg_binding in = {"x", x.d}, out = {"y", yb};
        if (lg_plan_execute(j->plan, 1, &in, 1, &out) != LG_OK) j->failures++;
        for (size_t i = 0; i < n; i++)
            if (yb[i] != want.d[i]) {
                j->failures++;
                break;
            }
        t_free(&x);
        t_free(&want);
    }
    free(yb);
    return NULL;
}

Test(graph_async, threads_share_one_plan) {
    lg_graph *g = build(4);
    for (int s = 0; s < 3; s++) {
        lg_plan *p = compile_with(g, (lg_strategy)s, NULL);
        job jobs[3];
        pthread_t th[3];
        for (int t = 0; t < 3; t++) {
            jobs[t] = (job){p, 4, 100 + (uint64_t)t, 20, 0};
            cr_assert_eq(pthread_create(&th[t], NULL, thread_main, &jobs[t]), 0);
        }
        for (int t = 0; t < 3; t++) {
            pthread_join(th[t], NULL);
            cr_expect_eq(jobs[t].failures, 0, "thread %d, strategy %d", t, s);
        }
        lg_plan_destroy(p);
    }
    lg_graph_destroy(g);
}

/* One asynchronous run: its buffers, its expected result, what the callback
 * saw. */
typedef struct run {
    tensor x, want;
    float *y;
    int calls;
    lg_status status;
    uv_thread_t thread;
} run;

static void on_done(lg_status status, void *user) {
    run *r = user;
    r->calls++;
    r->status = status;
    r->thread = uv_thread_self();
}

Test(graph_async, several_plans_in_flight_on_a_loop) {
    enum { NPLANS = 3, PER_PLAN = 4 };
    static const int64_t gss[NPLANS] = {4, 16, 6};
    uv_loop_t loop;
    cr_assert_eq(uv_loop_init(&loop), 0);
    lg_graph *gs[NPLANS];
    lg_plan *ps[NPLANS];
    run runs[NPLANS][PER_PLAN];
    lg_rng r = {77};
    size_t n = (size_t)(dims[0] * dims[1] * dims[2] * dims[3]);
    for (int i = 0; i < NPLANS; i++) {
        gs[i] = build(gss[i]);
        ps[i] = compile_with(gs[i], (lg_strategy)(i % 3), NULL);
    }
    for (int k = 0; k < PER_PLAN; k++)
        for (int i = 0; i < NPLANS; i++) {
            run *u = &runs[i][k];
            u->x = t_rand(4, dims, &r, -4, 4);
            u->want = reference(&u->x, gss[i]);
            u->y = malloc(n * 4);
            u->calls = 0;
            lg_binding in = {"x", u->x.d}, out = {"y", u->y};
            cr_assert_eq(lg_plan_execute_async(ps[i], &loop, 1, &in, 1, &out, on_done, u), LG_OK,
                         "%s", lg_last_error());
        }
    /* Bad bindings fail at once and queue nothing. */
    lg_binding bad = {"nope", runs[0][0].y};
    cr_expect_eq(lg_plan_execute_async(ps[0], &loop, 1, &bad, 0, NULL, on_done, NULL),
                 LG_INVALID_ARGUMENT);
    cr_expect(strstr(lg_last_error(), "no input 'nope'") != NULL, "%s", lg_last_error());
    uv_thread_t self = uv_thread_self();
    cr_assert_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
    for (int i = 0; i < NPLANS; i++)
        for (int k = 0; k < PER_PLAN; k++) {
            run *u = &runs[i][k];
            cr_expect_eq(u->calls, 1);
            cr_expect_eq(u->status, LG_OK);
            cr_expect(uv_thread_equal(&u->thread, &self), "callback on the loop's thread");
            tensor got = {.nd = 4, .d = u->y};
            memcpy(got.dims, dims, sizeof dims);
            t_expect_near(&got, &u->want, 0, 0, "async");
            free(u->y);
            t_free(&u->x);
            t_free(&u->want);
        }
    for (int i = 0; i < NPLANS; i++) {
        lg_plan_destroy(ps[i]);
        lg_graph_destroy(gs[i]);
    }
    cr_assert_eq(uv_loop_close(&loop), 0);
}

/* Destroying a plan while its runs are queued waits for them: the runs
 * complete with correct results (ASan would see a use after free
 * otherwise), and their callbacks still arrive afterwards on the loop. */
Test(graph_async, destroy_waits_for_work_in_flight) {
    enum { N = 6 };
    uv_loop_t loop;
    cr_assert_eq(uv_loop_init(&loop), 0);
    lg_graph *g = build(12);
    lg_plan *p = compile_with(g, LG_STRATEGY_GREEDY, NULL);
    lg_graph_destroy(g);
    run runs[N];
    lg_rng r = {5};
    size_t n = (size_t)(dims[0] * dims[1] * dims[2] * dims[3]);
    for (int k = 0; k < N; k++) {
        run *u = &runs[k];
        u->x = t_rand(4, dims, &r, -4, 4);
        u->want = reference(&u->x, 12);
        u->y = malloc(n * 4);
        u->calls = 0;
        lg_binding in = {"x", u->x.d}, out = {"y", u->y};
        cr_assert_eq(lg_plan_execute_async(p, &loop, 1, &in, 1, &out, on_done, u), LG_OK);
    }
    lg_plan_destroy(p); /* waits for the six runs on the thread pool */
    for (int k = 0; k < N; k++) cr_expect_eq(runs[k].calls, 0, "callbacks wait for the loop");
    cr_assert_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
    for (int k = 0; k < N; k++) {
        run *u = &runs[k];
        cr_expect_eq(u->calls, 1);
        cr_expect_eq(u->status, LG_OK);
        tensor got = {.nd = 4, .d = u->y};
        memcpy(got.dims, dims, sizeof dims);
        t_expect_near(&got, &u->want, 0, 0, "async after destroy");
        free(u->y);
        t_free(&u->x);
        t_free(&u->want);
    }
    cr_assert_eq(uv_loop_close(&loop), 0);
}
