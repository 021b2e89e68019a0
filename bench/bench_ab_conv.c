/* Two builds of liblgraph against each other on one convolution, in one
 * process: each build is loaded with dlopen (its own copy of every symbol),
 * each gets its own buffers, and their calls alternate (A B, then B A),
 * each measurement about 2 ms of calls. Prints the median of the per-pair
 * ratios time(A) / time(B) (> 1: B is faster) with its quartiles.
 *
 * This is the A/B tool for a change to a kernel: two clean builds compared
 * in one process resolve differences of 0.5%, where two runs of a
 * benchmark against oneDNN move 2-5% with the host's state, and a variant
 * switched inside one build changes how the compiler allocates the base's
 * registers too (docs/performance.md).
 *
 * usage: bench_ab_conv LIB_A LIB_B PAIRS N,IC,OC,HW,K,STRIDE,PAD[,GROUPS]
 * e.g.:  bench_ab_conv /tmp/base/liblgraph.so.0 build/liblgraph.so.0 200 8,128,128,28,3,1,1
 *        (GROUPS = IC = OC: depthwise, e.g. 8,144,144,56,3,1,1,144)
 *
 * Not linked with lgraph (a linked copy would take the dlopened builds'
 * calls between their own exported functions). */
#include "bench_util.h"

#include "lgraph.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The entry points this tool calls, from one build. */
typedef struct build {
    void *dl;
    lg_status (*md_init_tag)(lg_md *, int, const int64_t *, lg_dtype, const char *);
    lg_status (*conv_create)(lg_kernel **, const lg_conv_params *, const lg_md *, const lg_md *,
                             const lg_md *, const lg_md *, const lg_attr *);
    lg_status (*query_md)(const lg_kernel *, int, lg_md *);
    size_t (*md_size)(const lg_md *);
    lg_status (*execute)(const lg_kernel *, int, const lg_arg *);
    void (*destroy)(lg_kernel *);
    const char *(*last_error)(void);
    lg_kernel *k;
    lg_arg args[4];
} build;

typedef struct problem {
    int64_t n, ic, oc, hw, k, stride, pad, groups;
} problem;

static void *sym(void *dl, const char *path, const char *name) {
    void *p = dlsym(dl, name);
    if (!p) {
        fprintf(stderr, "%s: no symbol %s\n", path, name);
        exit(1);
    }
    return p;
}

static void check(const build *b, lg_status st, const char *what) {
    if (st == LG_OK) return;
    fprintf(stderr, "%s: %s\n", what, b->last_error());
    exit(1);
}

/* A buffer of `bytes` with small values (no denormals, no zeros). */
static float *filled(size_t bytes) {
    size_t n = (bytes + 63) / 64 * 16;
    float *p = aligned_alloc(64, n * sizeof(float));
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++) p[i] = (float)((int64_t)(i * 7919 % 2001) - 1000) * 1e-3f;
    return p;
}

/* Load the build at path and create the problem's kernel in it, every
 * layout "any" (the kernel's own choice), with its own buffers. */
static void load(build *b, const char *path, const problem *pr) {
    b->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!b->dl) {
        fprintf(stderr, "%s\n", dlerror());
        exit(1);
    }
    *(void **)&b->md_init_tag = sym(b->dl, path, "lg_md_init_tag");
    *(void **)&b->conv_create = sym(b->dl, path, "lg_conv_create");
    *(void **)&b->query_md = sym(b->dl, path, "lg_kernel_query_md");
    *(void **)&b->md_size = sym(b->dl, path, "lg_md_size");
    *(void **)&b->execute = sym(b->dl, path, "lg_kernel_execute");
    *(void **)&b->destroy = sym(b->dl, path, "lg_kernel_destroy");
    *(void **)&b->last_error = sym(b->dl, path, "lg_last_error");
    int64_t oh = (pr->hw + 2 * pr->pad - pr->k) / pr->stride + 1;
    int64_t sd[4] = {pr->n, pr->ic, pr->hw, pr->hw}, dd[4] = {pr->n, pr->oc, oh, oh};
    int64_t g = pr->groups, wd[5] = {g, pr->oc / g, pr->ic / g, pr->k, pr->k};
    lg_md sm, wm, dm, bm, q;
    check(b, b->md_init_tag(&sm, 4, sd, LG_F32, "any"), "src");
    check(b, b->md_init_tag(&wm, g > 1 ? 5 : 4, g > 1 ? wd : wd + 1, LG_F32, "any"), "weights");
    check(b, b->md_init_tag(&dm, 4, dd, LG_F32, "any"), "dst");
    check(b, b->md_init_tag(&bm, 1, &pr->oc, LG_F32, "a"), "bias");
    lg_conv_params p;
    memset(&p, 0, sizeof p);
    p.groups = g;
    for (int i = 0; i < 2; i++) p.strides[i] = pr->stride, p.pad_l[i] = p.pad_r[i] = pr->pad;
    check(b, b->conv_create(&b->k, &p, &sm, &wm, &bm, &dm, NULL), "conv");
    const int kinds[3] = {LG_ARG_SRC, LG_ARG_WEIGHTS, LG_ARG_DST};
    for (int i = 0; i < 3; i++) {
        check(b, b->query_md(b->k, kinds[i], &q), "query");
        b->args[i] = (lg_arg){kinds[i], filled(b->md_size(&q))};
    }
    b->args[3] = (lg_arg){LG_ARG_BIAS, filled((size_t)pr->oc * sizeof(float))};
}

/* Seconds per call over reps calls. */
static double timed(build *b, int reps) {
    double t0 = bench_now();
    for (int i = 0; i < reps; i++) check(b, b->execute(b->k, 4, b->args), "execute");
    return (bench_now() - t0) / reps;
}

int main(int argc, char **argv) {
    problem pr;
    int pairs = argc > 3 ? atoi(argv[3]) : 0;
    pr.groups = 1;
    int nf = argc == 5
                 ? sscanf(argv[4],
                          "%" SCNd64 ",%" SCNd64 ",%" SCNd64 ",%" SCNd64 ",%" SCNd64 ",%" SCNd64
                          ",%" SCNd64 ",%" SCNd64,
                          &pr.n, &pr.ic, &pr.oc, &pr.hw, &pr.k, &pr.stride, &pr.pad, &pr.groups)
                 : 0;
    if (pairs < 1 || nf < 7 || pr.groups < 1 || pr.ic % pr.groups || pr.oc % pr.groups) {
        fprintf(stderr, "usage: bench_ab_conv LIB_A LIB_B PAIRS N,IC,OC,HW,K,STRIDE,PAD[,GROUPS]\n"
                        "       (GROUPS divides IC and OC)\n");
        return 2;
    }
    build ab[2];
    load(&ab[0], argv[1], &pr);
    load(&ab[1], argv[2], &pr);
    for (int i = 0; i < 3; i++) timed(&ab[0], 1), timed(&ab[1], 1); /* warm up */
    double t1 = timed(&ab[0], 1);
    int reps = t1 > 0 && 2e-3 / t1 > 1 ? (int)(2e-3 / t1) : 1;
    double *r = malloc(sizeof(double) * (size_t)pairs),
           *ta = malloc(sizeof(double) * (size_t)pairs),
           *tb = malloc(sizeof(double) * (size_t)pairs);
    if (!r || !ta || !tb) return 1;
    for (int i = 0; i < pairs; i++) { /* who goes first alternates */
        int first = i & 1;
        double tf = timed(&ab[first], reps), ts = timed(&ab[!first], reps);
        ta[i] = first ? ts : tf;
        tb[i] = first ? tf : ts;
        r[i] = ta[i] / tb[i];
    }
    qsort(r, (size_t)pairs, sizeof(double), bench_cmp);
    qsort(ta, (size_t)pairs, sizeof(double), bench_cmp);
    qsort(tb, (size_t)pairs, sizeof(double), bench_cmp);
    printf("time A / time B (> 1: B faster): median %.4f, quartiles %.4f-%.4f; median times "
           "A %.1f us, B %.1f us (%d pairs, %d calls each)\n",
           r[pairs / 2], r[pairs / 4], r[3 * pairs / 4], ta[pairs / 2] * 1e6, tb[pairs / 2] * 1e6,
           pairs, reps);
    for (int i = 0; i < 2; i++) {
        ab[i].destroy(ab[i].k);
        for (int a = 0; a < 4; a++) free(ab[i].args[a].data);
    }
    free(r);
    free(ta);
    free(tb);
    return 0;
}
