/* Shuffle benchmark: the shuffle workloads, lgraph against oneDNN's best
 * shuffle in one process, alternating, median of per-pair ratios; plus the
 * ratio to a two-thread memcpy of the same bytes (one tensor: a shuffle
 * reads and writes as much as memcpy of the tensor does).
 *
 * Usage: bench_shuffle [pairs]   (default 15 pairs per workload)
 * Prints a Markdown table. */
#include "bench_kernel.h"

#include <lgraph.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdio.h>

typedef struct workload {
    const char *name;
    int64_t dims[4];
    int64_t group;
    lg_dtype dt;
    const char *tag;
    dnnl_data_type_t ddt;
    dnnl_format_tag_t dtag;
} workload;

static const workload workloads[] = {
    {"f32 nchw 8x256x56x56 g4", {8, 256, 56, 56}, 4, LG_F32, "nchw", dnnl_f32, dnnl_nchw},
    {"f32 nhwc 8x256x56x56 g4", {8, 256, 56, 56}, 4, LG_F32, "nhwc", dnnl_f32, dnnl_nhwc},
    {"f32 nChw16c 8x256x56x56 g4", {8, 256, 56, 56}, 4, LG_F32, "nChw16c", dnnl_f32, dnnl_nChw16c},
    {"f32 nChw16c 8x116x28x28 g2", {8, 116, 28, 28}, 2, LG_F32, "nChw16c", dnnl_f32, dnnl_nChw16c},
};

int main(int argc, char **argv) {
    int pairs = argc > 1 ? atoi(argv[1]) : 15;
    dnnl_engine_t eng;
    dnnl_stream_t stream;
    CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, eng, dnnl_stream_default_flags));
    printf("threads: %d, pairs per workload: %d\n\n", omp_get_max_threads(), pairs);
    printf("| workload | lgraph impl | oneDNN impl | lgraph ms | oneDNN / lgraph time (median, "
           "min-max) | memcpy / lgraph time |\n|---|---|---|---|---|---|\n");
    for (size_t w = 0; w < sizeof workloads / sizeof workloads[0]; w++) {
        const workload *wl = &workloads[w];
        lg_md md;
        CHECK(lg_md_init_tag(&md, 4, wl->dims, wl->dt, wl->tag));
        size_t sz = lg_md_size(&md);
        void *src = bench_alloc(sz), *dst = bench_alloc(sz);
        void *ddst = bench_alloc(sz);
        /* Values in every element but the padding (zero from bench_alloc, as
         * the contract assumes). */
        int64_t idx[4];
        for (idx[0] = 0; idx[0] < wl->dims[0]; idx[0]++)
            for (idx[1] = 0; idx[1] < wl->dims[1]; idx[1]++)
                for (idx[2] = 0; idx[2] < wl->dims[2]; idx[2]++)
                    for (idx[3] = 0; idx[3] < wl->dims[3]; idx[3]++)
                        ((float *)src)[lg_md_offset(&md, idx)] =
                            (float)((idx[0] * 131 + idx[1] * 7 + idx[2] * 3 + idx[3]) % 251);

        lg_ctx lc = {.nargs = 2, .args = {{LG_ARG_SRC, src}, {LG_ARG_DST, dst}}};
        CHECK(lg_shuffle_create(&lc.k, LG_FORWARD, &md, 1, wl->group));

        dnnl_memory_desc_t dmd;
        dnnl_dims_t dd;
        for (int i = 0; i < 4; i++) dd[i] = wl->dims[i];
        CHECK(dnnl_memory_desc_init_by_tag(&dmd, 4, dd, wl->ddt, wl->dtag));
        dnnl_shuffle_desc_t sd;
        CHECK(dnnl_shuffle_forward_desc_init(&sd, dnnl_forward_inference, &dmd, 1, wl->group));
        dnnl_primitive_desc_t pd;
        CHECK(dnnl_primitive_desc_create(&pd, &sd, NULL, eng, NULL));
        dnnl_memory_t ms, mdm;
        CHECK(dnnl_memory_create(&ms, &dmd, eng, src));
        CHECK(dnnl_memory_create(&mdm, &dmd, eng, ddst));
        dnnl_ctx dc = {
            .stream = stream, .nargs = 2, .args = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_DST, mdm}}};
        CHECK(dnnl_primitive_create(&dc.prim, pd));
        const char *dimpl = "";
        dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &dimpl);

        run_lg(&lc);
        run_dnnl(&dc);
        int same = memcmp(dst, ddst, sz) == 0;

        bench_ratio vs = bench_alternate(run_lg, &lc, run_dnnl, &dc, pairs);
        /* memcpy of one tensor: as many bytes read and written as the shuffle. */
        void *ma = bench_alloc(sz), *mb = bench_alloc(sz);
        memset(ma, 1, sz);
        bench_memcpy_ctx mc = {mb, ma, sz};
        bench_ratio vm = bench_alternate(run_lg, &lc, bench_memcpy, &mc, pairs);
        free(ma);
        free(mb);
        printf("| %s | %s | %s | %.3f | %.2fx (%.2f-%.2f)%s | %.2f |\n", wl->name,
               lg_kernel_impl(lc.k), dimpl, vs.time_a * 1e3, vs.median, vs.min, vs.max,
               same ? "" : " (outputs differ!)", vm.median);
        fflush(stdout);

        dnnl_primitive_destroy(dc.prim);
        dnnl_primitive_desc_destroy(pd);
        dnnl_memory_destroy(ms);
        dnnl_memory_destroy(mdm);
        lg_kernel_destroy(lc.k);
        free(src);
        free(dst);
        free(ddst);
    }
    dnnl_stream_destroy(stream);
    dnnl_engine_destroy(eng);
    return 0;
}
