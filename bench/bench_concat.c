/* Concat and slice on ShuffleNetV2's layers (58 + 58 at 28x28, 116 + 116 at
 * 14x14, 232 + 232 at 7x7, and the channel split), lgraph against oneDNN in
 * one process, alternating, median of per-pair ratios; plus the ratio to a
 * memcpy of the same bytes (the sources' bytes and dst's, halved: a memcpy
 * of M bytes reads M and writes M). Both libraries get the same layouts
 * and data; outputs must agree bit for bit (a copy).
 *
 * Usage: bench_concat [pairs [filter]]   (default 15 pairs per workload)
 * Prints a Markdown table. */
#include "bench_kernel.h"

#include <lgraph.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdint.h>
#include <stdio.h>

typedef struct workload {
    const char *name;
    bool slice; /* one source of 2C channels; dst its second half */
    int64_t n, c, hw;
    const char *tag;
    dnnl_format_tag_t dtag;
} workload;

static const workload workloads[] = {
    {"concat 58+58 28x28 N=1 nChw16c", false, 1, 58, 28, "nChw16c", dnnl_nChw16c},
    {"concat 116+116 14x14 N=1 nChw16c", false, 1, 116, 14, "nChw16c", dnnl_nChw16c},
    {"concat 232+232 7x7 N=1 nChw16c", false, 1, 232, 7, "nChw16c", dnnl_nChw16c},
    {"concat 58+58 28x28 N=16 nChw16c", false, 16, 58, 28, "nChw16c", dnnl_nChw16c},
    {"concat 116+116 14x14 N=16 nChw16c", false, 16, 116, 14, "nChw16c", dnnl_nChw16c},
    {"concat 58+58 28x28 N=16 nChw8c", false, 16, 58, 28, "nChw8c", dnnl_nChw8c},
    {"concat 58+58 28x28 N=16 nchw", false, 16, 58, 28, "nchw", dnnl_nchw},
    {"concat 58+58 28x28 N=16 nhwc", false, 16, 58, 28, "nhwc", dnnl_nhwc},
    {"split 116 -> 58 (2nd half) 28x28 N=16 nChw16c", true, 16, 58, 28, "nChw16c", dnnl_nChw16c},
    {"split 128 -> 64 (2nd half) 28x28 N=16 nChw16c", true, 16, 64, 28, "nChw16c", dnnl_nChw16c},
};

typedef struct lgc_ctx {
    lg_kernel *k;
    int nargs;
    lg_arg args[3];
} lgc_ctx;
static void run_lgc(void *p) {
    lgc_ctx *c = p;
    lg_kernel_execute(c->k, c->nargs, c->args);
}
typedef struct dnc_ctx {
    dnnl_primitive_t prim;
    dnnl_stream_t stream;
    int nargs;
    dnnl_exec_arg_t args[3];
} dnc_ctx;
static void run_dnc(void *p) {
    dnc_ctx *c = p;
    dnnl_primitive_execute(c->prim, c->stream, c->nargs, c->args);
    dnnl_stream_wait(c->stream);
}

int main(int argc, char **argv) {
    int pairs = argc > 1 ? atoi(argv[1]) : 15;
    dnnl_engine_t eng;
    dnnl_stream_t stream;
    CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, eng, dnnl_stream_default_flags));
    printf("threads: %d, pairs per workload: %d\n\n", omp_get_max_threads(), pairs);
    printf("| workload | lgraph impl | lgraph ms | oneDNN impl | oneDNN / lgraph time (median, "
           "min-max) | memcpy / lgraph time | bytes differing |\n|---|---|---|---|---|---|---|\n");
    for (size_t w = 0; w < sizeof workloads / sizeof workloads[0]; w++) {
        const workload *wl = &workloads[w];
        if (argc > 2 && !strstr(wl->name, argv[2])) continue;
        int64_t half[4] = {wl->n, wl->c, wl->hw, wl->hw},
                full[4] = {wl->n, 2 * wl->c, wl->hw, wl->hw};
        lg_md hm, fm;
        CHECK(lg_md_init_tag(&hm, 4, half, LG_F32, wl->tag));
        CHECK(lg_md_init_tag(&fm, 4, full, LG_F32, wl->tag));
        size_t hsz = lg_md_size(&hm), fsz = lg_md_size(&fm);
        dnnl_memory_desc_t dh, df;
        dnnl_dims_t dhd = {half[0], half[1], half[2], half[3]},
                    dfd = {full[0], full[1], full[2], full[3]};
        CHECK(dnnl_memory_desc_init_by_tag(&dh, 4, dhd, dnnl_f32, wl->dtag));
        CHECK(dnnl_memory_desc_init_by_tag(&df, 4, dfd, dnnl_f32, wl->dtag));
        lgc_ctx lc = {0};
        dnc_ctx dc = {.stream = stream};
        dnnl_primitive_desc_t pd;
        dnnl_memory_t mem[3] = {0};
        float *bufs[3], *dref;
        size_t dsz;
        if (!wl->slice) {
            bufs[0] = bench_alloc(hsz);
            bufs[1] = bench_alloc(hsz);
            bufs[2] = bench_alloc(fsz);
            dref = bench_alloc(fsz);
            dsz = fsz;
            for (size_t i = 0; i < hsz / 4; i++) {
                bufs[0][i] = (float)(i % 251);
                bufs[1][i] = -(float)(i % 241);
            }
            lg_md srcs[2] = {hm, hm};
            CHECK(lg_concat_create(&lc.k, 1, 2, srcs, &fm));
            lc.nargs = 3;
            lc.args[0] = (lg_arg){LG_ARG_MULTIPLE_SRC, bufs[0]};
            lc.args[1] = (lg_arg){LG_ARG_MULTIPLE_SRC + 1, bufs[1]};
            lc.args[2] = (lg_arg){LG_ARG_DST, bufs[2]};
            dnnl_memory_desc_t ds[2] = {dh, dh};
            CHECK(dnnl_concat_primitive_desc_create(&pd, &df, 2, 1, ds, NULL, eng));
            CHECK(dnnl_memory_create(&mem[0], &dh, eng, bufs[0]));
            CHECK(dnnl_memory_create(&mem[1], &dh, eng, bufs[1]));
            CHECK(dnnl_memory_create(&mem[2], &df, eng, dref));
            dc.nargs = 3;
            dc.args[0] = (dnnl_exec_arg_t){DNNL_ARG_MULTIPLE_SRC, mem[0]};
            dc.args[1] = (dnnl_exec_arg_t){DNNL_ARG_MULTIPLE_SRC + 1, mem[1]};
            dc.args[2] = (dnnl_exec_arg_t){DNNL_ARG_DST, mem[2]};
        } else {
            /* oneDNN's split: a reorder from a submemory view of src. */
            bufs[0] = bench_alloc(fsz);
            bufs[1] = NULL;
            bufs[2] = bench_alloc(hsz);
            dref = bench_alloc(hsz);
            dsz = hsz;
            for (size_t i = 0; i < fsz / 4; i++) bufs[0][i] = (float)(i % 251);
            CHECK(lg_slice_create(&lc.k, 1, wl->c, &fm, &hm));
            lc.nargs = 2;
            lc.args[0] = (lg_arg){LG_ARG_SRC, bufs[0]};
            lc.args[1] = (lg_arg){LG_ARG_DST, bufs[2]};
            dnnl_memory_desc_t view;
            dnnl_dims_t offs = {0, wl->c, 0, 0};
            if (dnnl_memory_desc_init_submemory(&view, &df, dhd, offs) != dnnl_success) {
                /* oneDNN has no view there (58 is inside a block of 16): memcpy only. */
                CHECK(lg_kernel_execute(lc.k, lc.nargs, lc.args));
                size_t mbytes = hsz;
                void *ma = bench_alloc(mbytes), *mb = bench_alloc(mbytes);
                bench_memcpy_ctx mc = {mb, ma, mbytes};
                bench_ratio vm = bench_alternate(run_lgc, &lc, bench_memcpy, &mc, pairs);
                printf("| %s | %s | %.4g | (no view at this offset) | - | %.2f | - |\n", wl->name,
                       lg_kernel_impl(lc.k), vm.time_a * 1e3, vm.median);
                free(ma);
                free(mb);
                lg_kernel_destroy(lc.k);
                free(bufs[0]);
                free(bufs[2]);
                free(dref);
                continue;
            }
            CHECK(dnnl_reorder_primitive_desc_create(&pd, &view, eng, &dh, eng, NULL));
            CHECK(dnnl_memory_create(&mem[0], &view, eng, bufs[0]));
            CHECK(dnnl_memory_create(&mem[1], &dh, eng, dref));
            dc.nargs = 2;
            dc.args[0] = (dnnl_exec_arg_t){DNNL_ARG_FROM, mem[0]};
            dc.args[1] = (dnnl_exec_arg_t){DNNL_ARG_TO, mem[1]};
        }
        CHECK(dnnl_primitive_create(&dc.prim, pd));
        const char *dimpl = "";
        dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &dimpl);
        run_lgc(&lc);
        run_dnc(&dc);
        /* oneDNN need not zero dst's padding: compare the logical bytes. */
        const lg_md *om = wl->slice ? &hm : &fm;
        size_t differ = 0;
        int64_t idx[4];
        for (idx[0] = 0; idx[0] < om->dims[0]; idx[0]++)
            for (idx[1] = 0; idx[1] < om->dims[1]; idx[1]++)
                for (idx[2] = 0; idx[2] < om->dims[2]; idx[2]++)
                    for (idx[3] = 0; idx[3] < om->dims[3]; idx[3]++) {
                        int64_t o = lg_md_offset(om, idx);
                        differ += memcmp(&bufs[2][o], &dref[o], 4) != 0;
                    }
        bench_ratio vs = bench_alternate(run_lgc, &lc, run_dnc, &dc, pairs);
        size_t mbytes = (wl->slice ? hsz + hsz : hsz + hsz + fsz) / 2;
        void *ma = bench_alloc(mbytes), *mb = bench_alloc(mbytes);
        memset(ma, 1, mbytes);
        bench_memcpy_ctx mc = {mb, ma, mbytes};
        bench_ratio vm = bench_alternate(run_lgc, &lc, bench_memcpy, &mc, pairs);
        free(ma);
        free(mb);
        printf("| %s | %s | %.4g | %s | %.2fx (%.2f-%.2f) | %.2f | %zu |\n", wl->name,
               lg_kernel_impl(lc.k), vs.time_a * 1e3, dimpl, vs.median, vs.min, vs.max, vm.median,
               differ);
        fflush(stdout);
        (void)dsz;
        dnnl_primitive_destroy(dc.prim);
        dnnl_primitive_desc_destroy(pd);
        for (int i = 0; i < 3; i++)
            if (mem[i]) dnnl_memory_destroy(mem[i]);
        lg_kernel_destroy(lc.k);
        for (int i = 0; i < 3; i++) free(bufs[i]);
        free(dref);
    }
    dnnl_stream_destroy(stream);
    dnnl_engine_destroy(eng);
    return 0;
}
