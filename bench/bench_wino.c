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
 * Usage: bench_wino [pairs]   (default 9). Prints a Markdown table. */
#include "bench_util.h"

#include <lgraph.h>
#include <stdio.h>
#include <stdlib.h>

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

int main(int argc, char **argv) {
    int pairs = argc > 1 ? atoi(argv[1]) : 9;
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
