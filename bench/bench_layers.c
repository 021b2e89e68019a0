/* Pooling, softmax, batch-normalization and inner-product benchmark on the layers of
 * ResNet-50 / MobileNetV2 classifiers: lgraph against oneDNN in one process,
 * alternating, median of per-pair ratios; plus the ratio to a memcpy moving
 * the same bytes (src read + dst written, halved: a memcpy of M bytes reads
 * M and writes M). Both libraries get the same layout and data.
 *
 * Usage: bench_layers [pairs [filter]]   (default 15 pairs per workload;
 * with a filter, only the workloads whose name contains it)
 * Prints a Markdown table. */
#include "bench_kernel.h"

#include <lgraph.h>
#include <math.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdint.h>
#include <stdio.h>

enum { POOL_MAX, POOL_GAP, SOFTMAX, BNORM };

/* bench_kernel.h's contexts hold 4 arguments; batch normalization takes 6. */
typedef struct lg6_ctx {
    lg_kernel *k;
    int nargs;
    lg_arg args[6];
} lg6_ctx;
static void run_lg6(void *p) {
    lg6_ctx *c = p;
    lg_kernel_execute(c->k, c->nargs, c->args);
}
typedef struct dnnl6_ctx {
    dnnl_primitive_t prim;
    dnnl_stream_t stream;
    int nargs;
    dnnl_exec_arg_t args[6];
} dnnl6_ctx;
static void run_dnnl6(void *p) {
    dnnl6_ctx *c = p;
    dnnl_primitive_execute(c->prim, c->stream, c->nargs, c->args);
    dnnl_stream_wait(c->stream);
}

typedef struct workload {
    const char *name;
    int kind;
    int64_t dims[4]; /* src, N x C x H x W (softmax: N x C) */
    const char *tag;
    dnnl_format_tag_t dtag;
} workload;

static const workload workloads[] = {
    {"maxpool 3x3 s2 64x112x112 N=1 nChw8c", POOL_MAX, {1, 64, 112, 112}, "nChw8c", dnnl_nChw8c},
    {"maxpool 3x3 s2 64x112x112 N=1 nChw16c", POOL_MAX, {1, 64, 112, 112}, "nChw16c", dnnl_nChw16c},
    {"maxpool 3x3 s2 64x112x112 N=1 nhwc", POOL_MAX, {1, 64, 112, 112}, "nhwc", dnnl_nhwc},
    {"maxpool 3x3 s2 64x112x112 N=16 nChw8c", POOL_MAX, {16, 64, 112, 112}, "nChw8c", dnnl_nChw8c},
    {"maxpool 3x3 s2 64x112x112 N=16 nChw16c",
     POOL_MAX,
     {16, 64, 112, 112},
     "nChw16c",
     dnnl_nChw16c},
    {"global avg 2048x7x7 N=1 nChw8c", POOL_GAP, {1, 2048, 7, 7}, "nChw8c", dnnl_nChw8c},
    {"global avg 2048x7x7 N=1 nChw16c", POOL_GAP, {1, 2048, 7, 7}, "nChw16c", dnnl_nChw16c},
    {"global avg 2048x7x7 N=16 nChw16c", POOL_GAP, {16, 2048, 7, 7}, "nChw16c", dnnl_nChw16c},
    {"global avg 1280x7x7 N=1 nChw8c", POOL_GAP, {1, 1280, 7, 7}, "nChw8c", dnnl_nChw8c},
    {"global avg 1280x7x7 N=16 nhwc", POOL_GAP, {16, 1280, 7, 7}, "nhwc", dnnl_nhwc},
    {"softmax 1000 N=1", SOFTMAX, {1, 1000}, "ab", dnnl_ab},
    {"softmax 1000 N=16", SOFTMAX, {16, 1000}, "ab", dnnl_ab},
    {"softmax 1000 N=256", SOFTMAX, {256, 1000}, "ab", dnnl_ab},
    {"bnorm+relu 8x256x56x56 nChw8c", BNORM, {8, 256, 56, 56}, "nChw8c", dnnl_nChw8c},
    {"bnorm+relu 8x256x56x56 nChw16c", BNORM, {8, 256, 56, 56}, "nChw16c", dnnl_nChw16c},
    {"bnorm+relu 8x256x56x56 nhwc", BNORM, {8, 256, 56, 56}, "nhwc", dnnl_nhwc},
};

/* bench_alternate_warm with BENCH_WARM=k untimed calls (default 0). */
static bench_ratio alternate_warm(bench_fn a, void *ca, bench_fn b, void *cb, int pairs) {
    const char *e = getenv("BENCH_WARM");
    return bench_alternate_warm(a, ca, b, cb, pairs, e ? atoi(e) : 0);
}

/* One table row: run both once, compare dst (n floats; relative difference
 * with `floor` added to the denominator), time them alternating, time
 * against a memcpy of mbytes, print. */
static void report(const char *name, const char *impl, const char *dimpl, bench_fn lg, void *lc,
                   bench_fn dn, void *dc, const float *dst, const float *ddst, size_t n,
                   double floor, size_t mbytes, int pairs) {
    lg(lc);
    dn(dc);
    double diff = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)dst[i] - ddst[i]) / (fabs((double)ddst[i]) + floor);
        diff = e > diff ? e : diff;
    }
    bench_ratio vs = alternate_warm(lg, lc, dn, dc, pairs);
    void *ma = bench_alloc(mbytes), *mb = bench_alloc(mbytes);
    memset(ma, 1, mbytes);
    bench_memcpy_ctx mc = {mb, ma, mbytes};
    bench_ratio vm = alternate_warm(lg, lc, bench_memcpy, &mc, pairs);
    free(ma);
    free(mb);
    printf("| %s | %s | %.4g | %s | %.2fx (%.2f-%.2f) | %.2f | %.1e |\n", name, impl,
           vs.time_a * 1e3, dimpl, vs.median, vs.min, vs.max, vm.median, diff);
    fflush(stdout);
}

/* ---- Inner product (classifier heads): src N x IC "ab", weights in the
 * layout each library picks for "any" (the same data reordered into it),
 * bias, dst N x OC. The memcpy column moves (src + weights + dst) / 2
 * bytes: at N = 1 the weights dominate and the kernel is memory bound. */
typedef struct ip_workload {
    const char *name;
    int64_t n, ic, oc;
} ip_workload;

static const ip_workload ip_workloads[] = {
    {"ip 2048->1000 N=1", 1, 2048, 1000},
    {"ip 2048->1000 N=16", 16, 2048, 1000},
    {"ip 1280->1000 N=1", 1, 1280, 1000},
    {"ip 1280->1000 N=16", 16, 1280, 1000},
};

static void bench_ip(dnnl_engine_t eng, dnnl_stream_t stream, int pairs, const char *filter) {
    for (size_t w = 0; w < sizeof ip_workloads / sizeof ip_workloads[0]; w++) {
        const ip_workload *wl = &ip_workloads[w];
        if (filter && !strstr(wl->name, filter)) continue;
        int64_t sd[2] = {wl->n, wl->ic}, wd[2] = {wl->oc, wl->ic}, dd[2] = {wl->n, wl->oc};
        lg_md sm, wp, wa, bm, dm, wk;
        CHECK(lg_md_init_tag(&sm, 2, sd, LG_F32, "ab"));
        CHECK(lg_md_init_tag(&wp, 2, wd, LG_F32, "ab"));
        CHECK(lg_md_init_tag(&wa, 2, wd, LG_F32, "any"));
        CHECK(lg_md_init_tag(&bm, 1, &wl->oc, LG_F32, "a"));
        CHECK(lg_md_init_tag(&dm, 2, dd, LG_F32, "ab"));
        size_t ssz = lg_md_size(&sm), wsz = lg_md_size(&wp), dsz = lg_md_size(&dm);
        float *src = bench_alloc(ssz), *wei = bench_alloc(wsz), *bias = bench_alloc(wl->oc * 4);
        float *dst = bench_alloc(dsz), *ddst = bench_alloc(dsz);
        for (size_t i = 0; i < ssz / 4; i++) src[i] = (float)((int)(i % 251) - 125) * 0.01f;
        for (size_t i = 0; i < wsz / 4; i++) wei[i] = (float)((int)(i % 241) - 120) * 0.001f;
        for (int64_t i = 0; i < wl->oc; i++) bias[i] = (float)(i % 7) * 0.1f;
        lg_ctx lc = {0};
        CHECK(lg_inner_product_create(&lc.k, &sm, &wa, &bm, &dm, NULL));
        CHECK(lg_kernel_query_md(lc.k, LG_ARG_WEIGHTS, &wk));
        float *lw = bench_alloc(lg_md_size(&wk));
        lg_kernel *re;
        CHECK(lg_reorder_create(&re, &wp, &wk, NULL));
        lg_arg ra[2] = {{LG_ARG_SRC, wei}, {LG_ARG_DST, lw}};
        CHECK(lg_kernel_execute(re, 2, ra));
        lg_kernel_destroy(re);
        lc.nargs = 4;
        lc.args[0] = (lg_arg){LG_ARG_SRC, src};
        lc.args[1] = (lg_arg){LG_ARG_WEIGHTS, lw};
        lc.args[2] = (lg_arg){LG_ARG_BIAS, bias};
        lc.args[3] = (lg_arg){LG_ARG_DST, dst};

        dnnl_memory_desc_t dsm, dwp, dwa, dbm, ddm;
        dnnl_dims_t dsd = {wl->n, wl->ic}, dwd = {wl->oc, wl->ic}, dbd = {wl->oc},
                    ddd = {wl->n, wl->oc};
        CHECK(dnnl_memory_desc_init_by_tag(&dsm, 2, dsd, dnnl_f32, dnnl_ab));
        CHECK(dnnl_memory_desc_init_by_tag(&dwp, 2, dwd, dnnl_f32, dnnl_ab));
        CHECK(dnnl_memory_desc_init_by_tag(&dwa, 2, dwd, dnnl_f32, dnnl_format_tag_any));
        CHECK(dnnl_memory_desc_init_by_tag(&dbm, 1, dbd, dnnl_f32, dnnl_a));
        CHECK(dnnl_memory_desc_init_by_tag(&ddm, 2, ddd, dnnl_f32, dnnl_ab));
        dnnl_inner_product_desc_t d;
        CHECK(dnnl_inner_product_forward_desc_init(&d, dnnl_forward_inference, &dsm, &dwa, &dbm,
                                                   &ddm));
        dnnl_primitive_desc_t pd;
        CHECK(dnnl_primitive_desc_create(&pd, &d, NULL, eng, NULL));
        const dnnl_memory_desc_t *dwk = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
        float *dw = bench_alloc(dnnl_memory_desc_get_size(dwk));
        dnnl_memory_t ms, mwp, mwk, mb, md;
        CHECK(dnnl_memory_create(&ms, &dsm, eng, src));
        CHECK(dnnl_memory_create(&mwp, &dwp, eng, wei));
        CHECK(dnnl_memory_create(&mwk, dwk, eng, dw));
        CHECK(dnnl_memory_create(&mb, &dbm, eng, bias));
        CHECK(dnnl_memory_create(&md, &ddm, eng, ddst));
        dnnl_primitive_desc_t rpd;
        dnnl_primitive_t rp;
        CHECK(dnnl_reorder_primitive_desc_create(&rpd, &dwp, eng, dwk, eng, NULL));
        CHECK(dnnl_primitive_create(&rp, rpd));
        dnnl_exec_arg_t rargs[2] = {{DNNL_ARG_FROM, mwp}, {DNNL_ARG_TO, mwk}};
        CHECK(dnnl_primitive_execute(rp, stream, 2, rargs));
        CHECK(dnnl_stream_wait(stream));
        dnnl_primitive_destroy(rp);
        dnnl_primitive_desc_destroy(rpd);
        dnnl_ctx dc = {.stream = stream, .nargs = 4};
        CHECK(dnnl_primitive_create(&dc.prim, pd));
        dc.args[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, ms};
        dc.args[1] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, mwk};
        dc.args[2] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, mb};
        dc.args[3] = (dnnl_exec_arg_t){DNNL_ARG_DST, md};
        const char *dimpl = "";
        dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &dimpl);
        report(wl->name, lg_kernel_impl(lc.k), dimpl, run_lg, &lc, run_dnnl, &dc, dst, ddst,
               dsz / 4, 1e-3, (ssz + wsz + dsz) / 2, pairs);
        dnnl_primitive_destroy(dc.prim);
        dnnl_primitive_desc_destroy(pd);
        dnnl_memory_destroy(ms);
        dnnl_memory_destroy(mwp);
        dnnl_memory_destroy(mwk);
        dnnl_memory_destroy(mb);
        dnnl_memory_destroy(md);
        lg_kernel_destroy(lc.k);
        free(src);
        free(wei);
        free(lw);
        free(dw);
        free(bias);
        free(dst);
        free(ddst);
    }
}

int main(int argc, char **argv) {
    int pairs = argc > 1 ? atoi(argv[1]) : 15;
    dnnl_engine_t eng;
    dnnl_stream_t stream;
    CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, eng, dnnl_stream_default_flags));
    printf("threads: %d, pairs per workload: %d\n\n", omp_get_max_threads(), pairs);
    printf(
        "| workload | lgraph impl | lgraph ms | oneDNN impl | oneDNN / lgraph time (median, "
        "min-max) | memcpy / lgraph time | max diff vs oneDNN |\n|---|---|---|---|---|---|---|\n");
    for (size_t w = 0; w < sizeof workloads / sizeof workloads[0]; w++) {
        const workload *wl = &workloads[w];
        if (argc > 2 && !strstr(wl->name, argv[2])) continue;
        const int nd = wl->kind == SOFTMAX ? 2 : 4;
        int64_t od[4] = {wl->dims[0], wl->dims[1], wl->dims[2], wl->dims[3]};
        if (wl->kind == POOL_MAX) od[2] = od[3] = (wl->dims[2] + 2 - 3) / 2 + 1;
        if (wl->kind == POOL_GAP) od[2] = od[3] = 1;
        lg_md sm, dm;
        CHECK(lg_md_init_tag(&sm, nd, wl->dims, LG_F32, wl->tag));
        CHECK(lg_md_init_tag(&dm, nd, od, LG_F32, wl->tag));
        size_t ssz = lg_md_size(&sm), dsz = lg_md_size(&dm);
        float *src = bench_alloc(ssz), *dst = bench_alloc(dsz), *ddst = bench_alloc(dsz);
        for (size_t i = 0; i < ssz / 4; i++) src[i] = (float)((int)(i % 251) - 125) * 0.05f;
        const int64_t C = wl->dims[1];
        float *stats = bench_alloc((size_t)C * 16);
        for (int64_t c = 0; c < 4 * C; c++) stats[c] = 0.5f + (float)(c % 7) * 0.1f;
        lg6_ctx lc = {0};
        dnnl6_ctx dc = {.stream = stream};
        dnnl_memory_desc_t dsm, ddm, cmd;
        dnnl_dims_t sdd = {wl->dims[0], wl->dims[1], wl->dims[2], wl->dims[3]},
                    ddd = {od[0], od[1], od[2], od[3]}, cdd = {C};
        CHECK(dnnl_memory_desc_init_by_tag(&dsm, nd, sdd, dnnl_f32, wl->dtag));
        CHECK(dnnl_memory_desc_init_by_tag(&ddm, nd, ddd, dnnl_f32, wl->dtag));
        CHECK(dnnl_memory_desc_init_by_tag(&cmd, 1, cdd, dnnl_f32, dnnl_a));
        dnnl_primitive_desc_t pd;
        dnnl_memory_t dm_[6] = {0};
        int nd_args = 2;
        CHECK(dnnl_memory_create(&dm_[0], &dsm, eng, src));
        CHECK(dnnl_memory_create(&dm_[1], &ddm, eng, ddst));
        lc.nargs = 2;
        lc.args[0] = (lg_arg){LG_ARG_SRC, src};
        lc.args[1] = (lg_arg){LG_ARG_DST, dst};
        if (wl->kind == POOL_MAX || wl->kind == POOL_GAP) {
            bool mx = wl->kind == POOL_MAX;
            lg_pool_params p = {mx ? LG_POOL_MAX : LG_POOL_AVG_EXCLUDE_PADDING,
                                {mx ? 3 : wl->dims[2], mx ? 3 : wl->dims[3]},
                                {mx ? 2 : 1, mx ? 2 : 1},
                                {0, 0},
                                {mx ? 1 : 0, mx ? 1 : 0},
                                {mx ? 1 : 0, mx ? 1 : 0},
                                {0, 0}};
            CHECK(lg_pool_create(&lc.k, &p, &sm, &dm));
            dnnl_dims_t ks = {p.kernel[0], p.kernel[1]}, ss = {p.strides[0], p.strides[1]},
                        dl = {0, 0}, pl = {p.pad_l[0], p.pad_l[1]}, pr = {p.pad_r[0], p.pad_r[1]};
            dnnl_pooling_v2_desc_t d;
            CHECK(dnnl_pooling_v2_forward_desc_init(&d, dnnl_forward_inference,
                                                    mx ? dnnl_pooling_max
                                                       : dnnl_pooling_avg_exclude_padding,
                                                    &dsm, &ddm, ss, ks, dl, pl, pr));
            CHECK(dnnl_primitive_desc_create(&pd, &d, NULL, eng, NULL));
        } else if (wl->kind == SOFTMAX) {
            CHECK(lg_softmax_create(&lc.k, LG_SOFTMAX, 1, &sm, NULL));
            dnnl_softmax_v2_desc_t d;
            CHECK(dnnl_softmax_v2_forward_desc_init(&d, dnnl_forward_inference,
                                                    dnnl_softmax_accurate, &dsm, &dsm, 1));
            CHECK(dnnl_primitive_desc_create(&pd, &d, NULL, eng, NULL));
        } else {
            unsigned fl = LG_BNORM_USE_SCALE | LG_BNORM_USE_SHIFT | LG_BNORM_FUSE_RELU;
            CHECK(lg_bnorm_create(&lc.k, &sm, NULL, 1e-5f, fl));
            const int ids[4] = {LG_ARG_MEAN, LG_ARG_VARIANCE, LG_ARG_SCALE, LG_ARG_SHIFT};
            for (int i = 0; i < 4; i++) {
                lc.args[2 + i] = (lg_arg){ids[i], stats + i * C};
                CHECK(dnnl_memory_create(&dm_[2 + i], &cmd, eng, stats + i * C));
            }
            lc.nargs = 6;
            nd_args = 6;
            dnnl_batch_normalization_desc_t d;
            CHECK(dnnl_batch_normalization_forward_desc_init(
                &d, dnnl_forward_inference, &dsm, 1e-5f,
                dnnl_use_global_stats | dnnl_use_scale | dnnl_use_shift | dnnl_fuse_norm_relu));
            CHECK(dnnl_primitive_desc_create(&pd, &d, NULL, eng, NULL));
        }
        CHECK(dnnl_primitive_create(&dc.prim, pd));
        const int dids[6] = {DNNL_ARG_SRC,      DNNL_ARG_DST,   DNNL_ARG_MEAN,
                             DNNL_ARG_VARIANCE, DNNL_ARG_SCALE, DNNL_ARG_SHIFT};
        dc.nargs = nd_args;
        for (int i = 0; i < nd_args; i++) dc.args[i] = (dnnl_exec_arg_t){dids[i], dm_[i]};
        const char *dimpl = "";
        dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &dimpl);
        report(wl->name, lg_kernel_impl(lc.k), dimpl, run_lg6, &lc, run_dnnl6, &dc, dst, ddst,
               dsz / 4, 1e-6, (ssz + dsz) / 2, pairs);
        dnnl_primitive_destroy(dc.prim);
        dnnl_primitive_desc_destroy(pd);
        for (int i = 0; i < 6; i++)
            if (dm_[i]) dnnl_memory_destroy(dm_[i]);
        lg_kernel_destroy(lc.k);
        free(src);
        free(dst);
        free(ddst);
        free(stats);
    }
    bench_ip(eng, stream, pairs, argc > 2 ? argv[2] : NULL);
    dnnl_stream_destroy(stream);
    dnnl_engine_destroy(eng);
    return 0;
}
