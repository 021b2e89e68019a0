/* Pointwise (1x1) convolution benchmark: the conv:<isa>:pw path against the
 * path that ran these layers before it (the direct path, "1x1" / "direct":
 * the same kernel built with the pw path switched off) and against itself
 * on channels-last activations, on the 1x1 layers of ResNet-50 (N = 1 and
 * 16) and MobileNetV2 (N = 1); in one process, alternating, median of
 * per-pair ratios; GFLOP/s and share of the machine's FMA peak (measured
 * here). Layouts: "any" (lgraph's choice, channel-blocked) for the pw and
 * the direct kernel; nhwc src and dst for the channels-last one. Epilogue
 * as in the networks: bias + relu (ResNet-50), bias + relu6 (MobileNetV2
 * expansions), bias only (its projections). Also the count-weighted total
 * of each network's 1x1 layers (the whole "conv1x1" class of lgraph-run
 * --profile).
 *
 * Usage: bench_pw [pairs] [filter]   (default 7 pairs; filter: substring of
 * the layer name, e.g. "r50" or "mv2")
 *
 * With BENCH_PW_AB=1: a short listing for A/B runs of two builds (run them
 * alternately, e.g. under BENCH_CLOCK=thread OMP_NUM_THREADS=1): per layer
 * the best of `pairs` timings of the pw kernel on blocked ("any") and on
 * nhwc activations, then MobileNetV2's depthwise 3x3 layers (bias + relu6)
 * the same way, in GFLOP/s.
 * Links the static library for the lg__conv_pw_off switch. */
#include "bench_kernel.h"
#include "fma_peak.h"
#include "primitives/conv/pw.h"

#include <lgraph.h>
#include <stdio.h>
#include <string.h>

typedef struct layer {
    const char *name;
    int64_t n, ic, oc, hw, stride;
    int count; /* layers of this shape in the network */
    int post;  /* 0 none, 1 relu, 2 relu6 */
} layer;

static const layer layers[] = {
    {"r50 64->64 56", 1, 64, 64, 56, 1, 1, 1},
    {"r50 64->256 56", 1, 64, 256, 56, 1, 4, 1},
    {"r50 256->64 56", 1, 256, 64, 56, 1, 2, 1},
    {"r50 256->128 56", 1, 256, 128, 56, 1, 1, 1},
    {"r50 256->512 56 s2", 1, 256, 512, 56, 2, 1, 0},
    {"r50 128->512 28", 1, 128, 512, 28, 1, 4, 1},
    {"r50 512->128 28", 1, 512, 128, 28, 1, 3, 1},
    {"r50 512->256 28", 1, 512, 256, 28, 1, 1, 1},
    {"r50 512->1024 28 s2", 1, 512, 1024, 28, 2, 1, 0},
    {"r50 256->1024 14", 1, 256, 1024, 14, 1, 6, 1},
    {"r50 1024->256 14", 1, 1024, 256, 14, 1, 5, 1},
    {"r50 1024->512 14", 1, 1024, 512, 14, 1, 1, 1},
    {"r50 1024->2048 14 s2", 1, 1024, 2048, 14, 2, 1, 0},
    {"r50 512->2048 7", 1, 512, 2048, 7, 1, 3, 1},
    {"r50 2048->512 7", 1, 2048, 512, 7, 1, 2, 1},
    {"r50x16 64->64 56", 16, 64, 64, 56, 1, 1, 1},
    {"r50x16 64->256 56", 16, 64, 256, 56, 1, 4, 1},
    {"r50x16 256->64 56", 16, 256, 64, 56, 1, 2, 1},
    {"r50x16 256->128 56", 16, 256, 128, 56, 1, 1, 1},
    {"r50x16 256->512 56 s2", 16, 256, 512, 56, 2, 1, 0},
    {"r50x16 128->512 28", 16, 128, 512, 28, 1, 4, 1},
    {"r50x16 512->128 28", 16, 512, 128, 28, 1, 3, 1},
    {"r50x16 512->256 28", 16, 512, 256, 28, 1, 1, 1},
    {"r50x16 512->1024 28 s2", 16, 512, 1024, 28, 2, 1, 0},
    {"r50x16 256->1024 14", 16, 256, 1024, 14, 1, 6, 1},
    {"r50x16 1024->256 14", 16, 1024, 256, 14, 1, 5, 1},
    {"r50x16 1024->512 14", 16, 1024, 512, 14, 1, 1, 1},
    {"r50x16 1024->2048 14 s2", 16, 1024, 2048, 14, 2, 1, 0},
    {"r50x16 512->2048 7", 16, 512, 2048, 7, 1, 3, 1},
    {"r50x16 2048->512 7", 16, 2048, 512, 7, 1, 2, 1},
    {"mv2 32->16 112", 1, 32, 16, 112, 1, 1, 0},
    {"mv2 16->96 112", 1, 16, 96, 112, 1, 1, 2},
    {"mv2 96->24 56", 1, 96, 24, 56, 1, 1, 0},
    {"mv2 24->144 56", 1, 24, 144, 56, 1, 2, 2},
    {"mv2 144->24 56", 1, 144, 24, 56, 1, 1, 0},
    {"mv2 144->32 28", 1, 144, 32, 28, 1, 1, 0},
    {"mv2 32->192 28", 1, 32, 192, 28, 1, 3, 2},
    {"mv2 192->32 28", 1, 192, 32, 28, 1, 2, 0},
    {"mv2 192->64 14", 1, 192, 64, 14, 1, 1, 0},
    {"mv2 64->384 14", 1, 64, 384, 14, 1, 4, 2},
    {"mv2 384->64 14", 1, 384, 64, 14, 1, 3, 0},
    {"mv2 384->96 14", 1, 384, 96, 14, 1, 1, 0},
    {"mv2 96->576 14", 1, 96, 576, 14, 1, 3, 2},
    {"mv2 576->96 14", 1, 576, 96, 14, 1, 2, 0},
    {"mv2 576->160 7", 1, 576, 160, 7, 1, 1, 0},
    {"mv2 160->960 7", 1, 160, 960, 7, 1, 3, 2},
    {"mv2 960->160 7", 1, 960, 160, 7, 1, 2, 0},
    {"mv2 960->320 7", 1, 960, 320, 7, 1, 1, 0},
    {"mv2 320->1280 7", 1, 320, 1280, 7, 1, 1, 0},
};
#define NLAYER (int)(sizeof layers / sizeof layers[0])

/* c's src, weights and dst (in the kernel's layouts) filled, a zero bias of
 * oc channels. */
static void fill_args(lg_ctx *c, int64_t oc) {
    lg_md q[3];
    int which[3] = {LG_ARG_SRC, LG_ARG_WEIGHTS, LG_ARG_DST};
    for (int i = 0; i < 3; i++) {
        CHECK(lg_kernel_query_md(c->k, which[i], &q[i]));
        float *b = bench_alloc(lg_md_size(&q[i]));
        size_t nf = lg_md_size(&q[i]) / sizeof(float);
        for (size_t j = 0; j < nf; j++) b[j] = (float)((j * 2654435761u) % 1000) * 1e-3f - 0.5f;
        c->args[i] = (lg_arg){which[i], b};
    }
    c->args[3] = (lg_arg){LG_ARG_BIAS, bench_alloc(sizeof(float) * (size_t)oc)};
    c->nargs = 4;
}

/* A kernel of layer l with src/dst in tag (NULL: "any"), inputs filled. */
static void make(const layer *l, const char *tag, lg_ctx *c) {
    int64_t oh = (l->hw - 1) / l->stride + 1;
    int64_t sd[4] = {l->n, l->ic, l->hw, l->hw}, wd[4] = {l->oc, l->ic, 1, 1};
    int64_t dd[4] = {l->n, l->oc, oh, oh}, bd = l->oc;
    lg_md sm, wm, dm, bm;
    CHECK(lg_md_init_tag(&sm, 4, sd, LG_F32, tag ? tag : "any"));
    CHECK(lg_md_init_tag(&wm, 4, wd, LG_F32, "any"));
    CHECK(lg_md_init_tag(&dm, 4, dd, LG_F32, tag ? tag : "any"));
    CHECK(lg_md_init_tag(&bm, 1, &bd, LG_F32, "a"));
    lg_conv_params p;
    memset(&p, 0, sizeof p);
    p.groups = 1;
    p.strides[0] = p.strides[1] = l->stride;
    lg_attr *a;
    CHECK(lg_attr_create(&a));
    if (l->post == 1) CHECK(lg_attr_append_eltwise(a, LG_ELTWISE_RELU, 0, 0));
    if (l->post == 2) CHECK(lg_attr_append_eltwise(a, LG_ELTWISE_CLIP, 0, 6));
    CHECK(lg_conv_create(&c->k, &p, &sm, &wm, &bm, &dm, a));
    lg_attr_destroy(a);
    fill_args(c, l->oc);
}

static void unmake(lg_ctx *c) {
    for (int i = 0; i < 4; i++) free(c->args[i].data);
    lg_kernel_destroy(c->k);
}

/* MobileNetV2's depthwise 3x3 layers at N = 1: channels, input size, stride. */
typedef struct dwlayer {
    const char *name;
    int64_t c, hw, stride;
} dwlayer;
static const dwlayer dwlayers[] = {
    {"dw 32 112 s1", 32, 112, 1}, {"dw 96 112 s2", 96, 112, 2}, {"dw 144 56 s1", 144, 56, 1},
    {"dw 144 56 s2", 144, 56, 2}, {"dw 192 28 s1", 192, 28, 1}, {"dw 192 28 s2", 192, 28, 2},
    {"dw 384 14 s1", 384, 14, 1}, {"dw 576 14 s1", 576, 14, 1}, {"dw 576 14 s2", 576, 14, 2},
    {"dw 960 7 s1", 960, 7, 1},
};
#define NDW (int)(sizeof dwlayers / sizeof dwlayers[0])

/* A depthwise 3x3 pad 1 kernel of layer l with bias + relu6, src/dst in tag. */
static void make_dw(const dwlayer *l, const char *tag, lg_ctx *c) {
    int64_t oh = (l->hw - 1) / l->stride + 1;
    int64_t sd[4] = {1, l->c, l->hw, l->hw}, wd[5] = {l->c, 1, 1, 3, 3};
    int64_t dd[4] = {1, l->c, oh, oh}, bd = l->c;
    lg_md sm, wm, dm, bm;
    CHECK(lg_md_init_tag(&sm, 4, sd, LG_F32, tag));
    CHECK(lg_md_init_tag(&wm, 5, wd, LG_F32, "any"));
    CHECK(lg_md_init_tag(&dm, 4, dd, LG_F32, tag));
    CHECK(lg_md_init_tag(&bm, 1, &bd, LG_F32, "a"));
    lg_conv_params p;
    memset(&p, 0, sizeof p);
    p.groups = l->c;
    p.strides[0] = p.strides[1] = l->stride;
    p.pad_l[0] = p.pad_l[1] = p.pad_r[0] = p.pad_r[1] = 1;
    lg_attr *a;
    CHECK(lg_attr_create(&a));
    CHECK(lg_attr_append_eltwise(a, LG_ELTWISE_CLIP, 0, 6));
    CHECK(lg_conv_create(&c->k, &p, &sm, &wm, &bm, &dm, a));
    lg_attr_destroy(a);
    fill_args(c, l->c);
}

/* The best of `tries` timings of c (seconds per call). */
static double best_time(lg_ctx *c, int tries) {
    int reps = bench_reps(run_lg, c);
    double best = 1e30;
    for (int i = 0; i < tries; i++) {
        double t = bench_time(run_lg, c, reps);
        if (t < best) best = t;
    }
    return best;
}

/* BENCH_PW_AB=1: the short listing (see the top of the file). */
static int ab_mode(int tries, const char *filter) {
    for (int i = 0; i < NLAYER; i++) {
        const layer *l = &layers[i];
        if (filter && !strstr(l->name, filter)) continue;
        lg_ctx pw, cl;
        make(l, NULL, &pw);
        make(l, "acdb", &cl);
        int64_t oh = (l->hw - 1) / l->stride + 1;
        double flops = 2.0 * (double)(l->n * l->oc * l->ic * oh * oh);
        double tb = best_time(&pw, tries), tc = best_time(&cl, tries);
        printf("%-26s blk %7.1f nhwc %7.1f  %s\n", l->name, flops / tb * 1e-9, flops / tc * 1e-9,
               lg_kernel_impl(cl.k));
        fflush(stdout);
        unmake(&pw);
        unmake(&cl);
    }
    for (int i = 0; i < NDW; i++) {
        const dwlayer *l = &dwlayers[i];
        if (filter && !strstr(l->name, filter)) continue;
        lg_ctx bk, cl;
        make_dw(l, "any", &bk);
        make_dw(l, "acdb", &cl);
        int64_t oh = (l->hw - 1) / l->stride + 1;
        double flops = 2.0 * 9.0 * (double)(l->c * oh * oh);
        double tb = best_time(&bk, tries), tc = best_time(&cl, tries);
        printf("%-26s blk %7.1f nhwc %7.1f  %s\n", l->name, flops / tb * 1e-9, flops / tc * 1e-9,
               lg_kernel_impl(cl.k));
        fflush(stdout);
        unmake(&bk);
        unmake(&cl);
    }
    return 0;
}

int main(int argc, char **argv) {
    int pairs = argc > 1 ? atoi(argv[1]) : 7;
    const char *filter = argc > 2 ? argv[2] : NULL;
    if (pairs < 1) pairs = 1;
    CHECK(lg_kernel_cache_set_capacity(0)); /* each create builds its own kernel */
    const char *ab = getenv("BENCH_PW_AB");
    if (ab && atoi(ab)) return ab_mode(pairs, filter);
    int lanes = 0;
    double peak = fma_peak(&lanes);
    printf("FMA peak %.1f GFLOP/s (%d threads). Median of %d per-pair ratios [min, max].\n\n", peak,
           omp_get_max_threads(), pairs);
    printf("| layer | N | pw GFLOP/s | %% peak | before (impl) GFLOP/s | pw speedup | nhwc pw "
           "GFLOP/s | nhwc / blocked time |\n|---|---|---|---|---|---|---|---|\n");
    const char *nets[] = {"r50 ", "r50x16 ", "mv2 "};
    double tot_pw[3] = {0}, tot_old[3] = {0}, tot_cl[3] = {0}, tot_fl[3] = {0};
    for (int i = 0; i < NLAYER; i++) {
        const layer *l = &layers[i];
        if (filter && !strstr(l->name, filter)) continue;
        lg_ctx pw, old, cl;
        make(l, NULL, &pw);
        lg__conv_pw_off = 1;
        make(l, NULL, &old);
        lg__conv_pw_off = 0;
        make(l, "acdb", &cl);
        int64_t oh = (l->hw - 1) / l->stride + 1;
        double flops = 2.0 * (double)(l->n * l->oc * l->ic * oh * oh);
        bench_ratio r = bench_alternate(run_lg, &pw, run_lg, &old, pairs);
        bench_ratio rc = bench_alternate(run_lg, &pw, run_lg, &cl, pairs);
        double tp = r.time_a, to = r.time_a * r.median, tc = rc.time_a * rc.median;
        printf(
            "| %s | %lld | %.1f | %.0f%% | %.1f (%s) | %.2fx [%.2f, %.2f] | %.1f (%s) | %.2f |\n",
            l->name, (long long)l->n, flops / tp * 1e-9, 100 * flops / tp * 1e-9 / peak,
            flops / to * 1e-9, lg_kernel_impl(old.k), r.median, r.min, r.max, flops / tc * 1e-9,
            lg_kernel_impl(cl.k), rc.median);
        fflush(stdout);
        for (int k = 0; k < 3; k++)
            if (!strncmp(l->name, nets[k], strlen(nets[k]))) {
                tot_pw[k] += l->count * tp, tot_old[k] += l->count * to;
                tot_cl[k] += l->count * tc, tot_fl[k] += l->count * flops;
            }
        unmake(&pw);
        unmake(&old);
        unmake(&cl);
    }
    printf("\n| network's 1x1 layers (count-weighted) | pw ms | pw GFLOP/s | %% peak | before ms | "
           "before GFLOP/s | nhwc pw ms |\n|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < 3; k++)
        if (tot_fl[k] > 0)
            printf("| %s | %.2f | %.1f | %.0f%% | %.2f | %.1f | %.2f |\n",
                   k == 0   ? "resnet50 N=1"
                   : k == 1 ? "resnet50 N=16"
                            : "mobilenet_v2 N=1",
                   tot_pw[k] * 1e3, tot_fl[k] / tot_pw[k] * 1e-9,
                   100 * tot_fl[k] / tot_pw[k] * 1e-9 / peak, tot_old[k] * 1e3,
                   tot_fl[k] / tot_old[k] * 1e-9, tot_cl[k] * 1e3);
    return 0;
}
