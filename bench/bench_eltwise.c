/* Eltwise and binary benchmark: lgraph against oneDNN in one process,
 * alternating, median of per-pair ratios; plus the ratio to a two-thread
 * memcpy moving the same bytes (what the kernel reads and writes, halved:
 * a memcpy of M bytes reads M and writes M).
 *
 * Usage: bench_eltwise [pairs [filter]]   (default 15 pairs per workload;
 * with a filter, only the workloads whose name contains it)
 * Prints a Markdown table. */
#include "bench_kernel.h"

#include <lgraph.h>
#include <math.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdint.h>
#include <stdio.h>

typedef struct workload {
    const char *name;
    int binary; /* 0: eltwise, 1: binary */
    int inplace;
    lg_eltwise_alg alg;
    dnnl_alg_kind_t dalg;
    const char *tag;
    dnnl_format_tag_t dtag;
    int64_t s1[4]; /* binary: src1 dims (nchw) */
    int bf16;      /* eltwise: bf16 data instead of f32 */
} workload;

#define BIG 8, 256, 56, 56
static const int64_t dims[4] = {BIG};
static const workload workloads[] = {
    {"eltwise relu f32 nChw16c",
     0,
     0,
     LG_ELTWISE_RELU,
     dnnl_eltwise_relu,
     "nChw16c",
     dnnl_nChw16c,
     {0},
     0},
    {"eltwise gelu_erf f32 nChw16c",
     0,
     0,
     LG_ELTWISE_GELU_ERF,
     dnnl_eltwise_gelu_erf,
     "nChw16c",
     dnnl_nChw16c,
     {0},
     0},
    {"binary add f32 nChw16c (same layout)",
     1,
     0,
     0,
     dnnl_binary_add,
     "nChw16c",
     dnnl_nChw16c,
     {BIG},
     0},
    {"eltwise relu f32 nChw16c, in place",
     0,
     1,
     LG_ELTWISE_RELU,
     dnnl_eltwise_relu,
     "nChw16c",
     dnnl_nChw16c,
     {0},
     0},
    {"eltwise gelu_tanh f32 nchw",
     0,
     0,
     LG_ELTWISE_GELU_TANH,
     dnnl_eltwise_gelu_tanh,
     "nchw",
     dnnl_nchw,
     {0},
     0},
    {"eltwise logistic f32 nChw16c",
     0,
     0,
     LG_ELTWISE_LOGISTIC,
     dnnl_eltwise_logistic,
     "nChw16c",
     dnnl_nChw16c,
     {0},
     0},
    {"binary add f32 nChw16c, src0 in place",
     1,
     1,
     0,
     dnnl_binary_add,
     "nChw16c",
     dnnl_nChw16c,
     {BIG},
     0},
    {"binary mul f32 nChw16c, per-channel src1",
     1,
     0,
     0,
     dnnl_binary_mul,
     "nChw16c",
     dnnl_nChw16c,
     {1, 256, 1, 1},
     0},
    {"binary add f32 nchw, per-channel src1",
     1,
     0,
     0,
     dnnl_binary_add,
     "nchw",
     dnnl_nchw,
     {1, 256, 1, 1},
     0},
    {"eltwise relu bf16 nChw16c",
     0,
     0,
     LG_ELTWISE_RELU,
     dnnl_eltwise_relu,
     "nChw16c",
     dnnl_nChw16c,
     {0},
     1},
    {"eltwise gelu_erf bf16 nChw16c",
     0,
     0,
     LG_ELTWISE_GELU_ERF,
     dnnl_eltwise_gelu_erf,
     "nChw16c",
     dnnl_nChw16c,
     {0},
     1},
};

/* Largest difference between the two outputs relative to max(|oneDNN|, 1)
 * (absolute below 1: oneDNN's gelu loses relative accuracy for x < 0). */
static double max_rel_diff(const float *a, const float *b, size_t n) {
    double m = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]) / fmax(fabs((double)b[i]), 1.0);
        if (d > m && !(isnan(a[i]) && isnan(b[i]))) m = d;
    }
    return m;
}

int main(int argc, char **argv) {
    int pairs = argc > 1 ? atoi(argv[1]) : 15;
    dnnl_engine_t eng;
    dnnl_stream_t stream;
    CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, eng, dnnl_stream_default_flags));
    printf("threads: %d, pairs per workload: %d, dims 8x256x56x56 (%.1f MB per f32 tensor)\n\n",
           omp_get_max_threads(), pairs, 8.0 * 256 * 56 * 56 * 4 / 1e6);
    printf(
        "| workload | lgraph impl | lgraph ms | oneDNN impl | oneDNN / lgraph time (median, "
        "min-max) | memcpy / lgraph time | max diff vs oneDNN |\n|---|---|---|---|---|---|---|\n");
    for (size_t w = 0; w < sizeof workloads / sizeof workloads[0]; w++) {
        const workload *wl = &workloads[w];
        if (argc > 2 && !strstr(wl->name, argv[2])) continue;
        lg_md md, m1;
        CHECK(lg_md_init_tag(&md, 4, dims, wl->bf16 ? LG_BF16 : LG_F32, wl->tag));
        size_t sz = lg_md_size(&md), sz1 = 0, n = sz / (wl->bf16 ? 2 : 4);
        float *src = bench_alloc(sz), *dst = bench_alloc(sz), *ddst = bench_alloc(sz), *src1 = NULL;
        for (size_t i = 0; i < n; i++) {
            float f = (float)((int)(i % 251) - 125) * 0.05f;
            if (!wl->bf16) {
                src[i] = f;
                continue;
            }
            uint32_t u; /* bf16: the top half of the f32 (truncated) */
            memcpy(&u, &f, 4);
            ((uint16_t *)src)[i] = (uint16_t)(u >> 16);
        }
        lg_ctx lc = {0};
        dnnl_ctx dc = {.stream = stream};
        dnnl_memory_desc_t dmd, dmd1;
        dnnl_dims_t dd = {BIG};
        CHECK(dnnl_memory_desc_init_by_tag(&dmd, 4, dd, wl->bf16 ? dnnl_bf16 : dnnl_f32, wl->dtag));
        dnnl_memory_t ms, md_, ms1 = NULL;
        dnnl_primitive_desc_t pd;
        if (!wl->binary) {
            CHECK(lg_eltwise_create(&lc.k, wl->alg, 0.0f, 0.0f, &md, NULL));
            lc.nargs = 2;
            lc.args[0] = (lg_arg){LG_ARG_SRC, src};
            lc.args[1] = (lg_arg){LG_ARG_DST, wl->inplace ? src : dst};
            dnnl_eltwise_desc_t ed;
            CHECK(dnnl_eltwise_forward_desc_init(&ed, dnnl_forward_inference, wl->dalg, &dmd, 0.0f,
                                                 0.0f));
            CHECK(dnnl_primitive_desc_create(&pd, &ed, NULL, eng, NULL));
        } else {
            CHECK(lg_md_init_tag(&m1, 4, wl->s1, LG_F32, wl->s1[0] == 1 ? "nchw" : wl->tag));
            sz1 = lg_md_size(&m1);
            src1 = bench_alloc(sz1);
            for (size_t i = 0; i < sz1 / 4; i++) src1[i] = (float)((int)(i % 97) - 48) * 0.01f;
            CHECK(lg_binary_create(&lc.k, (lg_binary_alg)(wl->dalg == dnnl_binary_mul ? 2 : 0), &md,
                                   &m1, &md));
            lc.nargs = 3;
            lc.args[0] = (lg_arg){LG_ARG_SRC, src};
            lc.args[1] = (lg_arg){LG_ARG_SRC + 1, src1};
            lc.args[2] = (lg_arg){LG_ARG_DST, wl->inplace ? src : dst};
            dnnl_dims_t d1 = {wl->s1[0], wl->s1[1], wl->s1[2], wl->s1[3]};
            CHECK(dnnl_memory_desc_init_by_tag(&dmd1, 4, d1, dnnl_f32,
                                               wl->s1[0] == 1 ? dnnl_nchw : wl->dtag));
            dnnl_binary_desc_t bd;
            CHECK(dnnl_binary_desc_init(&bd, wl->dalg, &dmd, &dmd1, &dmd));
            CHECK(dnnl_primitive_desc_create(&pd, &bd, NULL, eng, NULL));
            CHECK(dnnl_memory_create(&ms1, &dmd1, eng, src1));
        }
        /* oneDNN in place too when lgraph is: its own copy of src. */
        float *dsrc = bench_alloc(sz);
        memcpy(dsrc, src, sz);
        CHECK(dnnl_memory_create(&ms, &dmd, eng, dsrc));
        CHECK(dnnl_memory_create(&md_, &dmd, eng, wl->inplace ? dsrc : ddst));
        CHECK(dnnl_primitive_create(&dc.prim, pd));
        dc.nargs = wl->binary ? 3 : 2;
        dc.args[0] = (dnnl_exec_arg_t){wl->binary ? DNNL_ARG_SRC_0 : DNNL_ARG_SRC, ms};
        dc.args[1] = wl->binary ? (dnnl_exec_arg_t){DNNL_ARG_SRC_1, ms1}
                                : (dnnl_exec_arg_t){DNNL_ARG_DST, md_};
        dc.args[2] = (dnnl_exec_arg_t){DNNL_ARG_DST, md_};
        const char *dimpl = "";
        dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &dimpl);

        /* One run each out of place for the output comparison (in place
         * runs would compound). */
        double diff = 0;
        if (!wl->inplace && !wl->bf16) {
            run_lg(&lc);
            run_dnnl(&dc);
            diff = max_rel_diff(dst, ddst, n);
        }
        bench_ratio vs = bench_alternate(run_lg, &lc, run_dnnl, &dc, pairs);
        size_t traffic = wl->inplace ? 2 * sz : (wl->binary ? 2 * sz + sz1 : 2 * sz);
        size_t mbytes = traffic / 2;
        void *ma = bench_alloc(mbytes), *mb = bench_alloc(mbytes);
        memset(ma, 1, mbytes);
        bench_memcpy_ctx mc = {mb, ma, mbytes};
        bench_ratio vm = bench_alternate(run_lg, &lc, bench_memcpy, &mc, pairs);
        free(ma);
        free(mb);
        printf("| %s | %s | %.3f | %s | %.2fx (%.2f-%.2f) | %.2f | %.1e |\n", wl->name,
               lg_kernel_impl(lc.k), vs.time_a * 1e3, dimpl, vs.median, vs.min, vs.max, vm.median,
               diff);
        fflush(stdout);

        dnnl_primitive_destroy(dc.prim);
        dnnl_primitive_desc_destroy(pd);
        dnnl_memory_destroy(ms);
        dnnl_memory_destroy(md_);
        if (ms1) dnnl_memory_destroy(ms1);
        lg_kernel_destroy(lc.k);
        free(src);
        free(dst);
        free(ddst);
        free(dsrc);
        free(src1);
    }
    dnnl_stream_destroy(stream);
    dnnl_engine_destroy(eng);
    return 0;
}
