/* Binary benchmark: lgraph's binary paths in f32, bf16 and f16 against
 * oneDNN's binary on the same problem, in one process, alternating, median
 * of per-pair ratios; plus the ratio to a two-thread memcpy moving the same
 * bytes. 8x256x56x56, src0 and dst in one layout and type.
 *
 * Usage: bench_binary [pairs [filter]]   (default 15 pairs per workload;
 * with a filter, only the workloads whose name contains it)
 * Prints a Markdown table. */
#include "bench_kernel.h"

#include <lgraph.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdint.h>
#include <stdio.h>

typedef struct workload {
    const char *name;
    lg_binary_alg alg;
    dnnl_alg_kind_t dalg;
    lg_dtype dt, dt1;
    dnnl_data_type_t ddt, ddt1;
    const char *tag, *tag1;
    dnnl_format_tag_t dtag, dtag1;
    int64_t s1[4]; /* src1 dims */
} workload;

#define BIG 8, 256, 56, 56
static const int64_t dims[4] = {BIG};
#define W(name, alg, dalg, dt, dt1, ddt, ddt1, tag, tag1, dtag, dtag1, ...)                        \
    { name, alg, dalg, dt, dt1, ddt, ddt1, tag, tag1, dtag, dtag1, __VA_ARGS__ }
static const workload workloads[] = {
    W("add bf16 nChw16c, same layout", LG_BINARY_ADD, dnnl_binary_add, LG_BF16, LG_BF16, dnnl_bf16,
      dnnl_bf16, "nChw16c", "nChw16c", dnnl_nChw16c, dnnl_nChw16c, {BIG}),
    W("add f16 src0 + f32 src1 nchw, same layout", LG_BINARY_ADD, dnnl_binary_add, LG_F16, LG_F32,
      dnnl_f16, dnnl_f32, "nchw", "nchw", dnnl_nchw, dnnl_nchw, {BIG}),
    W("mul f32 nhwc, per-channel src1", LG_BINARY_MUL, dnnl_binary_mul, LG_F32, LG_F32, dnnl_f32,
      dnnl_f32, "nhwc", "nchw", dnnl_nhwc, dnnl_nchw, {1, 256, 1, 1}),
    W("mul bf16 nhwc, per-channel src1", LG_BINARY_MUL, dnnl_binary_mul, LG_BF16, LG_BF16,
      dnnl_bf16, dnnl_bf16, "nhwc", "nchw", dnnl_nhwc, dnnl_nchw, {1, 256, 1, 1}),
    W("add bf16 nChw16c, per-channel src1", LG_BINARY_ADD, dnnl_binary_add, LG_BF16, LG_BF16,
      dnnl_bf16, dnnl_bf16, "nChw16c", "nchw", dnnl_nChw16c, dnnl_nchw, {1, 256, 1, 1}),
    W("add f32 nhwc, scalar src1", LG_BINARY_ADD, dnnl_binary_add, LG_F32, LG_F32, dnnl_f32,
      dnnl_f32, "nhwc", "nchw", dnnl_nhwc, dnnl_nchw, {1, 1, 1, 1}),
};

/* Small integers in any float type: exact in bf16 and f16 (their bits are
 * the top half of the f32's for bf16; built by hand for f16). */
static void fill(void *p, lg_dtype dt, size_t n, int mod) {
    for (size_t i = 0; i < n; i++) {
        int v = (int)(i % (size_t)mod) - mod / 2;
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, 4);
        if (dt == LG_F32)
            ((float *)p)[i] = f;
        else if (dt == LG_BF16)
            ((uint16_t *)p)[i] = (uint16_t)(u >> 16);
        else { /* f16 of an integer below 2048 in magnitude */
            uint16_t h = 0;
            if (v) {
                int a = v < 0 ? -v : v, e = 0;
                while ((a >> e) > 1) e++;
                h = (uint16_t)((v < 0 ? 0x8000 : 0) | ((e + 15) << 10) |
                               (((unsigned)a << (10 - e)) & 0x3ff));
            }
            ((uint16_t *)p)[i] = h;
        }
    }
}

int main(int argc, char **argv) {
    int pairs = argc > 1 ? atoi(argv[1]) : 15;
    dnnl_engine_t eng;
    dnnl_stream_t stream;
    CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, eng, dnnl_stream_default_flags));
    printf("threads: %d, pairs per workload: %d, dims 8x256x56x56\n\n", omp_get_max_threads(),
           pairs);
    printf(
        "| workload | lgraph impl | lgraph ms | oneDNN impl | oneDNN / lgraph time (median, "
        "min-max) | memcpy / lgraph time | same bits as oneDNN |\n|---|---|---|---|---|---|---|\n");
    for (size_t w = 0; w < sizeof workloads / sizeof workloads[0]; w++) {
        const workload *wl = &workloads[w];
        if (argc > 2 && !strstr(wl->name, argv[2])) continue;
        lg_md md, m1;
        CHECK(lg_md_init_tag(&md, 4, dims, wl->dt, wl->tag));
        CHECK(lg_md_init_tag(&m1, 4, wl->s1, wl->dt1, wl->tag1));
        size_t sz = lg_md_size(&md), sz1 = lg_md_size(&m1);
        void *src = bench_alloc(sz), *src1 = bench_alloc(sz1), *dst = bench_alloc(sz),
             *ddst = bench_alloc(sz);
        fill(src, wl->dt, sz / lg_dtype_size(wl->dt), 251);
        fill(src1, wl->dt1, sz1 / lg_dtype_size(wl->dt1), 97);

        lg_ctx lc = {.nargs = 3,
                     .args = {{LG_ARG_SRC, src}, {LG_ARG_SRC + 1, src1}, {LG_ARG_DST, dst}}};
        CHECK(lg_binary_create(&lc.k, wl->alg, &md, &m1, &md));

        dnnl_memory_desc_t dmd, dmd1;
        dnnl_dims_t dd = {BIG}, d1 = {wl->s1[0], wl->s1[1], wl->s1[2], wl->s1[3]};
        CHECK(dnnl_memory_desc_init_by_tag(&dmd, 4, dd, wl->ddt, wl->dtag));
        CHECK(dnnl_memory_desc_init_by_tag(&dmd1, 4, d1, wl->ddt1, wl->dtag1));
        dnnl_binary_desc_t bd;
        CHECK(dnnl_binary_desc_init(&bd, wl->dalg, &dmd, &dmd1, &dmd));
        /* oneDNN 2.6's CPU binary lacks some type mixes (f16 among them):
         * such a row compares with memcpy only. */
        dnnl_primitive_desc_t pd = NULL;
        dnnl_memory_t ms = NULL, ms1 = NULL, mdst = NULL;
        dnnl_ctx dc = {.stream = stream, .nargs = 3};
        const char *dimpl = "none in oneDNN 2.6";
        int same = 0;
        bench_ratio vs = {0};
        if (dnnl_primitive_desc_create(&pd, &bd, NULL, eng, NULL) == dnnl_success) {
            CHECK(dnnl_memory_create(&ms, &dmd, eng, src));
            CHECK(dnnl_memory_create(&ms1, &dmd1, eng, src1));
            CHECK(dnnl_memory_create(&mdst, &dmd, eng, ddst));
            dc.args[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC_0, ms};
            dc.args[1] = (dnnl_exec_arg_t){DNNL_ARG_SRC_1, ms1};
            dc.args[2] = (dnnl_exec_arg_t){DNNL_ARG_DST, mdst};
            CHECK(dnnl_primitive_create(&dc.prim, pd));
            dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &dimpl);
            run_lg(&lc);
            run_dnnl(&dc);
            same = memcmp(dst, ddst, sz) == 0;
            vs = bench_alternate(run_lg, &lc, run_dnnl, &dc, pairs);
        }
        size_t mbytes = (2 * sz + sz1) / 2;
        void *ma = bench_alloc(mbytes), *mb = bench_alloc(mbytes);
        memset(ma, 1, mbytes);
        bench_memcpy_ctx mc = {mb, ma, mbytes};
        bench_ratio vm = bench_alternate(run_lg, &lc, bench_memcpy, &mc, pairs);
        free(ma);
        free(mb);
        if (pd)
            printf("| %s | %s | %.3f | %s | %.2fx (%.2f-%.2f) | %.2f | %s |\n", wl->name,
                   lg_kernel_impl(lc.k), vs.time_a * 1e3, dimpl, vs.median, vs.min, vs.max,
                   vm.median, same ? "yes" : "no");
        else
            printf("| %s | %s | %.3f | %s | - | %.2f | - |\n", wl->name, lg_kernel_impl(lc.k),
                   vm.time_a * 1e3, dimpl, vm.median);
        fflush(stdout);

        if (pd) {
            dnnl_primitive_destroy(dc.prim);
            dnnl_primitive_desc_destroy(pd);
            dnnl_memory_destroy(ms);
            dnnl_memory_destroy(ms1);
            dnnl_memory_destroy(mdst);
        }
        lg_kernel_destroy(lc.k);
        free(src);
        free(src1);
        free(dst);
        free(ddst);
    }
    dnnl_stream_destroy(stream);
    dnnl_engine_destroy(eng);
    return 0;
}
