/*
 * Compile time of a ResNet-50-sized graph (issue 18: "compile, all passes
 * and kernel creation included, under 100 ms, lg_plan_stats.exact true"):
 * 1 x 3 x 224 x 224 -> conv 7x7/2 + bn + relu -> max pool 3x3/2 -> 16
 * bottlenecks (3, 4, 6, 3; 53 convs in all, each followed by a batchnorm,
 * 16 residual adds each followed by a relu) -> global average pool ->
 * softmax over the 2048 channels. Weights are random (the weights' values do
 * not change compiling). For each strategy: the first compile in the process
 * (cold kernel cache), the median of `reps` warm compiles, the plan's steps,
 * runtime reorders, exact, and, for OPTIMAL, the same with fold_batchnorm
 * off. Each figure is lg_plan_stats.compile_ms.
 *
 * Usage: bench_resnet50_compile [reps] [N]   (defaults 11, 1)
 */
#include <lgraph.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x1234567;

static float frand(float scale) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return scale * ((float)(rng >> 40) * 0x1p-24f * 2.0f - 1.0f);
}

static int nconst = 0;

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        if ((x) != LG_OK) {                                                                        \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, lg_last_error());                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static lg_value constant(lg_graph *g, int nd, const int64_t *dims, float scale, float base) {
    lg_md md;
    CHECK(lg_md_init_strides(&md, nd, dims, LG_F32, NULL));
    size_t n = lg_md_size(&md) / sizeof(float);
    float *d = malloc(n * sizeof *d);
    for (size_t i = 0; i < n; i++) d[i] = base + frand(scale);
    char name[32];
    snprintf(name, sizeof name, "c%d", nconst++);
    lg_value v;
    CHECK(lg_graph_add_constant(g, name, &md, d, &v));
    free(d);
    return v;
}

static int nconv = 0, nadd = 0;

/* conv k x k / stride, pad k/2, no bias, then batchnorm (+ relu). */
static lg_value conv_bn(lg_graph *g, lg_value x, int64_t ic, int64_t oc, int64_t k, int64_t s,
                        bool relu) {
    int64_t wd[4] = {oc, ic, k, k}, cd[1] = {oc};
    lg_value w = constant(g, 4, wd, 1.0f / sqrtf((float)(ic * k * k)), 0), y;
    lg_conv_params p = {
        .strides = {s, s}, .pad_l = {k / 2, k / 2}, .pad_r = {k / 2, k / 2}, .groups = 1};
    CHECK(lg_graph_add_conv(g, x, w, LG_NO_VALUE, &p, &y));
    nconv++;
    lg_value m = constant(g, 1, cd, 0.1f, 0), v = constant(g, 1, cd, 0.2f, 1),
             ga = constant(g, 1, cd, 0.2f, 1), be = constant(g, 1, cd, 0.1f, 0);
    CHECK(lg_graph_add_batchnorm(g, y, m, v, ga, be, 1e-5f, false, &y));
    if (relu) CHECK(lg_graph_add_eltwise(g, y, LG_ELTWISE_RELU, 0, 0, &y));
    return y;
}

static lg_value bottleneck(lg_graph *g, lg_value x, int64_t ic, int64_t w, int64_t s, bool down) {
    lg_value y = conv_bn(g, x, ic, w, 1, 1, true);
    y = conv_bn(g, y, w, w, 3, s, true);
    y = conv_bn(g, y, w, 4 * w, 1, 1, false);
    lg_value sc = down ? conv_bn(g, x, ic, 4 * w, 1, s, false) : x;
    CHECK(lg_graph_add_binary(g, LG_BINARY_ADD, y, sc, &y));
    nadd++;
    CHECK(lg_graph_add_eltwise(g, y, LG_ELTWISE_RELU, 0, 0, &y));
    return y;
}

static lg_graph *resnet50(int64_t n) {
    lg_graph *g;
    CHECK(lg_graph_create(&g));
    int64_t xd[4] = {n, 3, 224, 224};
    lg_md md;
    CHECK(lg_md_init_tag(&md, 4, xd, LG_F32, "nchw"));
    lg_value x;
    CHECK(lg_graph_add_input(g, "x", &md, &x));
    x = conv_bn(g, x, 3, 64, 7, 2, true);
    lg_pool_params mp = {
        .alg = LG_POOL_MAX, .kernel = {3, 3}, .strides = {2, 2}, .pad_l = {1, 1}, .pad_r = {1, 1}};
    CHECK(lg_graph_add_pool(g, x, &mp, &x));
    static const int blocks[4] = {3, 4, 6, 3};
    int64_t ic = 64;
    for (int st = 0; st < 4; st++) {
        int64_t w = 64 << st;
        for (int b = 0; b < blocks[st]; b++) {
            x = bottleneck(g, x, ic, w, b == 0 && st > 0 ? 2 : 1, b == 0);
            ic = 4 * w;
        }
    }
    lg_pool_params gp = {.alg = LG_POOL_AVG_EXCLUDE_PADDING, .kernel = {7, 7}, .strides = {1, 1}};
    CHECK(lg_graph_add_pool(g, x, &gp, &x));
    CHECK(lg_graph_add_softmax(g, x, LG_SOFTMAX, 1, &x));
    CHECK(lg_graph_add_output(g, x, "y", "nchw"));
    return g;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static lg_plan_stats compile(const lg_graph *g, lg_strategy s, const char *disable) {
    lg_compile_options o;
    lg_compile_options_init(&o);
    o.strategy = s;
    o.disable_passes = disable;
    lg_plan *p;
    CHECK(lg_graph_compile(g, &o, &p));
    lg_plan_stats st;
    CHECK(lg_plan_stats_get(p, &st));
    lg_plan_destroy(p);
    return st;
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 11;
    int64_t n = argc > 2 ? atoll(argv[2]) : 1;
    if (reps < 1 || reps > 1000) reps = 11;
    if (n < 1 || n > 256) n = 1;
    lg_graph *g = resnet50(n);
    printf("ResNet-50-sized graph, N = %lld: %d convs (each + batchnorm), %d residual adds\n\n",
           (long long)n, nconv, nadd);
    printf("| strategy | passes off | first ms | warm ms (median of %d) | steps | runtime "
           "reorders | exact |\n|---|---|---|---|---|---|---|\n",
           reps);
    static const char *names[3] = {"NONE", "GREEDY", "OPTIMAL"};
    double *t = malloc((size_t)reps * sizeof *t);
    for (int s = 0; s < 4; s++) {
        lg_strategy strat = s == 3 ? LG_STRATEGY_OPTIMAL : (lg_strategy)s;
        const char *off = s == 3 ? "fold_batchnorm" : NULL;
        lg_plan_stats first = compile(g, strat, off), st = first;
        for (int r = 0; r < reps; r++) {
            st = compile(g, strat, off);
            t[r] = st.compile_ms;
        }
        qsort(t, (size_t)reps, sizeof *t, cmp);
        printf("| %s | %s | %.1f | %.1f | %d | %d | %s |\n", names[strat], off ? off : "-",
               first.compile_ms, t[reps / 2], st.steps, st.runtime_reorders,
               st.exact ? "yes" : "no");
    }
    free(t);
    lg_graph_destroy(g);
    return 0;
}
