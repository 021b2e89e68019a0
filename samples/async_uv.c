/* async_uv: run plans concurrently on a libuv loop. Two plans (a ResNet-style
 * conv block and a ShuffleNet-style shuffle block, both small) are each
 * started several times with different inputs through lg_plan_execute_async;
 * libuv runs them on its thread pool and calls back on the loop's thread as
 * each finishes, in whatever order they complete. Each result is checked
 * against a synchronous run of the same plan on the same input. */
#include <uv.h>

#include "sample_common.h"

#define RUNS 4

typedef struct job {
    const char *plan_name;
    int index;
    float *x, *y, *want;
    size_t elems;
    int *pending, *failures;
} job;

/* Called on the loop's thread: report and check one completed run. */
static void on_done(lg_status status, void *user_data) {
    job *j = user_data;
    double worst = 0;
    for (size_t i = 0; i < j->elems; i++) {
        double d = fabs((double)j->y[i] - j->want[i]);
        if (!(d <= worst)) worst = d;
    }
    int ok = status == LG_OK && worst == 0;
    printf("done: %-9s run %d  status %s  %s\n", j->plan_name, j->index, lg_status_str(status),
           ok ? "matches the synchronous run" : "MISMATCH");
    if (!ok) (*j->failures)++;
    (*j->pending)--;
}

/* x[1,c,14,14] -> conv1x1 c->c -> relu -> (shuffle of 4 groups) -> add(x). */
static lg_graph *build(int64_t c, int shuffle) {
    lg_graph *g;
    sample_check(lg_graph_create(&g), "lg_graph_create");
    lg_md md;
    int64_t dims[4] = {1, c, 14, 14}, wd[4] = {c, c, 1, 1};
    sample_check(lg_md_init_tag(&md, 4, dims, LG_F32, "nchw"), "x");
    lg_value x, t;
    sample_check(lg_graph_add_input(g, "x", &md, &x), "x");
    lg_value w = sample_constant(g, "w", 4, wd, "oihw", 9, c);
    lg_conv_params p = {.strides = {1, 1}, .groups = 1};
    sample_check(lg_graph_add_conv(g, x, w, LG_NO_VALUE, &p, &t), "conv");
    sample_check(lg_graph_add_eltwise(g, t, LG_ELTWISE_RELU, 0, 0, &t), "relu");
    if (shuffle) sample_check(lg_graph_add_shuffle(g, t, 1, c / 4, &t), "shuffle");
    sample_check(lg_graph_add_binary(g, LG_BINARY_ADD, t, x, &t), "add");
    sample_check(lg_graph_add_output(g, t, "y", "nchw"), "y");
    return g;
}

int main(void) {
    const int64_t cs[2] = {64, 48};
    const char *names[2] = {"conv", "shuffle"};
    lg_plan *plans[2];
    job jobs[2][RUNS];
    int pending = 0, failures = 0;
    uv_loop_t loop;
    if (uv_loop_init(&loop) != 0) return 1;

    for (int p = 0; p < 2; p++) {
        lg_graph *g = build(cs[p], p);
        sample_check(lg_graph_compile(g, NULL, &plans[p]), "lg_graph_compile");
        lg_graph_destroy(g); /* the plan does not need the graph */
        size_t elems = (size_t)(cs[p] * 14 * 14);
        for (int r = 0; r < RUNS; r++) {
            job *j = &jobs[p][r];
            *j = (job){names[p],          r,     malloc(elems * 4), malloc(elems * 4),
                       malloc(elems * 4), elems, &pending,          &failures};
            if (!j->x || !j->y || !j->want) return 1;
            sample_fill(j->x, elems, (uint32_t)(100 * p + r), 1.0f);
            lg_binding in = {"x", j->x}, want = {"y", j->want};
            sample_check(lg_plan_execute(plans[p], 1, &in, 1, &want), "lg_plan_execute");
        }
    }
    /* Queue everything, then let the loop deliver completions. */
    for (int r = 0; r < RUNS; r++)
        for (int p = 0; p < 2; p++) {
            job *j = &jobs[p][r];
            lg_binding in = {"x", j->x}, out = {"y", j->y};
            sample_check(lg_plan_execute_async(plans[p], &loop, 1, &in, 1, &out, on_done, j),
                         "lg_plan_execute_async");
            pending++;
            printf("queued: %-9s run %d\n", names[p], r);
        }
    uv_run(&loop, UV_RUN_DEFAULT);
    printf("%d runs finished, %d pending, %d failures\n", 2 * RUNS, pending, failures);

    for (int p = 0; p < 2; p++) {
        lg_plan_destroy(plans[p]);
        for (int r = 0; r < RUNS; r++) {
            free(jobs[p][r].x);
            free(jobs[p][r].y);
            free(jobs[p][r].want);
        }
    }
    uv_loop_close(&loop);
    return failures == 0 && pending == 0 ? 0 : 1;
}
