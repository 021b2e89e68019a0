/* Winograd F(4x4, 3x3) against the direct path on ResNet-50's 3x3 stride-1
 * layers (64@56x56, 128@28x28, 256@14x14, 512@7x7; N = 1 and 16): the same
 * problem, "any" layouts (channel-blocked), a bias and relu, created with
 * params alg LG_CONV_DIRECT and LG_CONV_WINOGRAD, alternating in one
 * process; per-pair ratios direct / Winograd (> 1: Winograd faster), their
 * median, min and max, each side's best ms and GFLOP/s counted as the direct
 * convolution's 2 x N x OC x IC x 9 x OH x OW (so Winograd's figure is an
 * effective rate). Weights stay the same between calls (a graph's case:
 * the transform is done once). For the issue-24 figures run with one thread
 * and the thread clock: BENCH_CLOCK=thread OMP_NUM_THREADS=1.
 *
 * Hot mode (default): the same layer called again and again, so its
 * weights (Winograd: the transformed weights U, 36 x IC x OC floats, 4x
 * the weights' bytes) stay in cache. Cold mode (`cold`): what a layer sees
 * inside a network, where the other layers' weights have evicted its own:
 * before every timed call the caches are flushed (a 96 MB buffer written
 * and read, 3x the L3) and the src read again (the previous layer just
 * wrote it); only the call is timed, one call per sample. The cold table
 * also covers more batch sizes (tiles) to place LG_CONV_AUTO's threshold
 * (lg__conv_wino_auto).
 *
 * Usage: bench_wino [pairs] [cold [channels]]   (default 9, hot; cold
 * with channels: only the layers of that width). Prints a Markdown table. */
#include "bench_util.h"

#include <lgraph.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        if ((x) != LG_OK) {                                                                        \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, lg_last_error());                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

typedef struct run_ctx {
    lg_kernel *k;
    lg_arg args[4];
} run_ctx;

static void run(void *p) {
    run_ctx *c = p;
    CHECK(lg_kernel_execute(c->k, 4, c->args));
}

static float *filled(size_t bytes, unsigned seed) {
    float *b = aligned_alloc(64, (bytes + 63) / 64 * 64);
    for (size_t i = 0; i < bytes / 4; i++) {
        seed = seed * 1664525u + 1013904223u;
        b[i] = (float)(seed >> 8) / (float)(1u << 24) - 0.5f;
    }
    return b;
}

static void make(run_ctx *c, int64_t n, int64_t ch, int64_t hw, lg_conv_alg alg, float **bufs) {
    int64_t sd[4] = {n, ch, hw, hw}, wd[4] = {ch, ch, 3, 3}, bd[1] = {ch};
    lg_md sm, wm, bm, dm;
    CHECK(lg_md_init_tag(&sm, 4, sd, LG_F32, "any"));
    CHECK(lg_md_init_tag(&wm, 4, wd, LG_F32, "any"));
    CHECK(lg_md_init_tag(&bm, 1, bd, LG_F32, "a"));
    CHECK(lg_md_init_tag(&dm, 4, sd, LG_F32, "any"));
    lg_conv_params p = {.strides = {1, 1}, .pad_l = {1, 1}, .pad_r = {1, 1}, .groups = 1};
    p.alg = alg;
    lg_attr *a;
    CHECK(lg_attr_create(&a));
    CHECK(lg_attr_append_eltwise(a, LG_ELTWISE_RELU, 0, 0));
    CHECK(lg_conv_create(&c->k, &p, &sm, &wm, &bm, &dm, a));
    lg_attr_destroy(a);
    static const int ids[4] = {LG_ARG_SRC, LG_ARG_WEIGHTS, LG_ARG_BIAS, LG_ARG_DST};
    for (int i = 0; i < 4; i++) {
        lg_md q;
        CHECK(lg_kernel_query_md(c->k, ids[i], &q));
        if (!bufs[i]) bufs[i] = filled(lg_md_size(&q), 7u + (unsigned)i);
        c->args[i] = (lg_arg){ids[i], bufs[i]};
    }
}

/* Cold mode runs each layer as a one-conv graph plan (input and output
 * layouts "any": the plan is the conv step alone, its weights a constant,
 * so Winograd runs on the transform the plan made at compile time, as in a
 * network). */
typedef struct plan_ctx {
    lg_plan *p;
    lg_binding in, out;
    size_t src_bytes;
} plan_ctx;

static void run_plan(void *p) {
    plan_ctx *c = p;
    CHECK(lg_plan_execute(c->p, 1, &c->in, 1, &c->out));
}

static void make_plan(plan_ctx *c, int64_t n, int64_t ch, int64_t hw, lg_conv_alg alg) {
    int64_t sd[4] = {n, ch, hw, hw}, wd[4] = {ch, ch, 3, 3}, bd[1] = {ch};
    lg_md sm, wm, bm;
    CHECK(lg_md_init_tag(&sm, 4, sd, LG_F32, "any"));
    CHECK(lg_md_init_tag(&wm, 4, wd, LG_F32, "oihw"));
    CHECK(lg_md_init_tag(&bm, 1, bd, LG_F32, "a"));
    float *wb = filled(lg_md_size(&wm), 11), *bb = filled(lg_md_size(&bm), 13);
    lg_graph *g;
    lg_value x, w, b, y, z;
    CHECK(lg_graph_create(&g));
    CHECK(lg_graph_add_input(g, "x", &sm, &x));
    CHECK(lg_graph_add_constant(g, "w", &wm, wb, &w));
    CHECK(lg_graph_add_constant(g, "b", &bm, bb, &b));
    lg_conv_params p = {.strides = {1, 1}, .pad_l = {1, 1}, .pad_r = {1, 1}, .groups = 1};
    p.alg = alg;
    CHECK(lg_graph_add_conv(g, x, w, b, &p, &y));
    CHECK(lg_graph_add_eltwise(g, y, LG_ELTWISE_RELU, 0, 0, &z));
    CHECK(lg_graph_add_output(g, z, "y", "any"));
    lg_compile_options o;
    lg_compile_options_init(&o);
    o.conv_alg = alg; /* LG_CONV_DIRECT: no AUTO upgrade */
    CHECK(lg_graph_compile(g, &o, &c->p));
    lg_graph_destroy(g);
    free(wb);
    free(bb);
    lg_md mi, mo;
    CHECK(lg_plan_query_md(c->p, "x", &mi));
    CHECK(lg_plan_query_md(c->p, "y", &mo));
    c->src_bytes = lg_md_size(&mi);
    c->in = (lg_binding){"x", filled(c->src_bytes, 17)};
    c->out = (lg_binding){"y", filled(lg_md_size(&mo), 19)};
}

static void free_plan(plan_ctx *c) {
    lg_plan_destroy(c->p);
    free(c->in.data);
    free(c->out.data);
}

/* Cold mode: a flush buffer, and a sample = flush, src warmed, one timed
 * call. */
#define FLUSH_BYTES ((size_t)96 << 20)
static float *flush_buf;
static volatile float flush_sink;

static void flush_caches(const float *src, size_t src_bytes) {
    size_t n = FLUSH_BYTES / sizeof(float);
    float acc = 0;
    for (size_t i = 0; i < n; i += 16) flush_buf[i] += 1.0f;
    for (size_t i = 0; i < n; i += 16) acc += flush_buf[i];
    for (size_t i = 0; i < src_bytes / sizeof(float); i += 16) acc += src[i];
    flush_sink = acc;
}

static double cold_call(plan_ctx *c) {
    flush_caches(c->in.data, c->src_bytes);
    double t0 = bench_now();
    run_plan(c);
    return bench_now() - t0;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Per-pair ratios direct / Winograd of cold calls, alternating; also each
 * side's median time. */
static bench_ratio cold_alternate(plan_ctx *w, plan_ctx *d, int pairs, double *td) {
    double *r = malloc(sizeof(double) * (size_t)pairs), *a = malloc(sizeof(double) * (size_t)pairs),
           *b = malloc(sizeof(double) * (size_t)pairs);
    run_plan(w), run_plan(d); /* first calls: threads */
    for (int i = 0; i < pairs; i++) {
        a[i] = cold_call(w);
        b[i] = cold_call(d);
        r[i] = b[i] / a[i];
    }
    qsort(r, (size_t)pairs, sizeof(double), cmp_d);
    qsort(a, (size_t)pairs, sizeof(double), cmp_d);
    qsort(b, (size_t)pairs, sizeof(double), cmp_d);
    bench_ratio out = {r[pairs / 2], r[0], r[pairs - 1], a[pairs / 2]};
    *td = b[pairs / 2];
    free(r);
    free(a);
    free(b);
    return out;
}

static int cold_main(int pairs, int64_t only) {
    flush_buf = aligned_alloc(64, FLUSH_BYTES);
    memset(flush_buf, 0, FLUSH_BYTES);
    /* {channels, spatial, N}: ResNet-50's layers at several batch sizes. */
    static const int64_t cases[][3] = {{64, 56, 1},  {128, 28, 1}, {128, 28, 2}, {256, 14, 1},
                                       {256, 14, 2}, {256, 14, 4}, {256, 14, 8}, {512, 7, 1},
                                       {512, 7, 4},  {512, 7, 8},  {512, 7, 16}, {256, 14, 16},
                                       {128, 28, 16}};
    printf("| layer | N | tiles | U MB | tiles / U MB | direct ms | wino ms | direct / wino "
           "(median, min-max) |\n|---|---|---|---|---|---|---|---|\n");
    for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++) {
        int64_t ch = cases[ci][0], hw = cases[ci][1], n = cases[ci][2];
        if (only && ch != only) continue;
        plan_ctx d, w;
        make_plan(&d, n, ch, hw, LG_CONV_DIRECT);
        make_plan(&w, n, ch, hw, LG_CONV_WINOGRAD);
        double td;
        bench_ratio r = cold_alternate(&w, &d, pairs, &td);
        int64_t tiles = n * ((hw + 3) / 4) * ((hw + 3) / 4);
        double umb = 36.0 * (double)ch * (double)ch * 4 / 1048576;
        printf("| 3x3 %lld@%lldx%lld | %lld | %lld | %.2f | %.1f | %.3f | %.3f | %.2fx "
               "(%.2f-%.2f) |\n",
               (long long)ch, (long long)hw, (long long)hw, (long long)n, (long long)tiles, umb,
               (double)tiles / umb, td * 1e3, r.time_a * 1e3, r.median, r.min, r.max);
        fflush(stdout);
        free_plan(&d);
        free_plan(&w);
    }
    free(flush_buf);
    return 0;
}

int main(int argc, char **argv) {
    int pairs = argc > 1 ? atoi(argv[1]) : 9;
    if (argc > 2 && strcmp(argv[2], "cold") == 0)
        return cold_main(pairs, argc > 3 ? atoll(argv[3]) : 0);
    static const int64_t layers[][2] = {{64, 56}, {128, 28}, {256, 14}, {512, 7}};
    static const int64_t ns[] = {1, 16};
    printf("| layer | N | direct ms | wino ms | direct GFLOP/s | wino eff. GFLOP/s | direct / "
           "wino (median, min-max) | wino impl |\n|---|---|---|---|---|---|---|---|\n");
    for (int ni = 0; ni < 2; ni++)
        for (int li = 0; li < 4; li++) {
            int64_t n = ns[ni], ch = layers[li][0], hw = layers[li][1];
            float *bufs[4] = {NULL, NULL, NULL, NULL};
            run_ctx d, w;
            make(&d, n, ch, hw, LG_CONV_DIRECT, bufs);
            make(&w, n, ch, hw, LG_CONV_WINOGRAD, bufs);
            bench_ratio r = bench_alternate(run, &w, run, &d, pairs);
            double tw = bench_time(run, &w, 3), td = bench_time(run, &d, 3);
            for (int i = 0; i < 3; i++) {
                double a = bench_time(run, &w, 3), b = bench_time(run, &d, 3);
                tw = a < tw ? a : tw, td = b < td ? b : td;
            }
            double fl = 2.0 * (double)n * (double)ch * (double)ch * 9 * (double)(hw * hw);
            printf("| 3x3 %lld@%lldx%lld | %lld | %.3f | %.3f | %.1f | %.1f | %.2fx (%.2f-%.2f) | "
                   "%s |\n",
                   (long long)ch, (long long)hw, (long long)hw, (long long)n, td * 1e3, tw * 1e3,
                   fl / td * 1e-9, fl / tw * 1e-9, r.median, r.min, r.max, lg_kernel_impl(w.k));
            fflush(stdout);
            lg_kernel_destroy(d.k);
            lg_kernel_destroy(w.k);
            for (int i = 0; i < 4; i++) free(bufs[i]);
        }
    return 0;
}
