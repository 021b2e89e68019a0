/* Convolution benchmark: lgraph against oneDNN on the conv workloads of
 * WORKLOADS.md, in one process, alternating, median of per-pair ratios;
 * GFLOP/s of both, and lgraph's fraction of the machine's FMA peak measured
 * here by a register-only FMA loop on all OpenMP threads.
 *
 * Both libraries get "any" layouts for src, weights and dst (each picks its
 * best), f32, a bias, forward inference, the same thread count; oneDNN runs
 * its direct convolution algorithm (its best implementation for it). Weight
 * and input reorders are done once, outside the timing. The outputs are
 * compared (max |lgraph - oneDNN| / max(1, |oneDNN|)).
 *
 * Usage: bench_conv [pairs] [workload substring]   (default 11 pairs)
 *        bench_conv pairs custom N,IC,OC,HW,K,STRIDE,PAD,GROUPS
 * (the second form runs one problem given on the command line; for
 * experiments). Prints a Markdown table. */
#include "bench_kernel.h"
#include "fma_peak.h"

#include <immintrin.h>
#include <inttypes.h>
#include <lgraph.h>
#include <math.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdio.h>

typedef struct workload {
    const char *name;
    int64_t n, ic, oc, hw, k, stride, pad, groups;
} workload;

static workload workloads[] = {
    {"3x3 64->64 56x56 N=8", 8, 64, 64, 56, 3, 1, 1, 1},
    {"3x3 64->64 56x56 N=1", 1, 64, 64, 56, 3, 1, 1, 1},
    {"1x1 256->64 56x56 N=8", 8, 256, 64, 56, 1, 1, 0, 1},
    {"1x1 64->256 56x56 N=8", 8, 64, 256, 56, 1, 1, 0, 1},
    {"3x3 128->128 28x28 N=8", 8, 128, 128, 28, 3, 1, 1, 1},
    {"depthwise 3x3 116 28x28 N=8", 8, 116, 116, 28, 3, 1, 1, 116},
    {"1x1 58->58 28x28 N=8", 8, 58, 58, 28, 1, 1, 0, 1},
    {"7x7 s2 3->64 224x224 N=1", 1, 3, 64, 224, 7, 2, 3, 1},
};

/* ---- lgraph and oneDNN sides ------------------------------------------- */

/* lgraph: reorder plain data (tag) into md's layout; returns the buffer. */
static float *lg_into(const lg_md *md, int nd, const int64_t *dims, const char *tag,
                      const float *plain) {
    lg_md pm;
    CHECK(lg_md_init_tag(&pm, nd, dims, LG_F32, tag));
    float *buf = bench_alloc(lg_md_size(md));
    lg_kernel *r;
    CHECK(lg_reorder_create(&r, &pm, md, NULL));
    lg_arg a[2] = {{LG_ARG_SRC, (void *)plain}, {LG_ARG_DST, buf}};
    CHECK(lg_kernel_execute(r, 2, a));
    lg_kernel_destroy(r);
    return buf;
}

/* oneDNN: reorder between two mds of the engine. */
static void dn_reorder(dnnl_engine_t eng, dnnl_stream_t st, const dnnl_memory_desc_t *from,
                       void *src, const dnnl_memory_desc_t *to, void *dst) {
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t r;
    dnnl_memory_t a, b;
    CHECK(dnnl_reorder_primitive_desc_create(&pd, from, eng, to, eng, NULL));
    CHECK(dnnl_primitive_create(&r, pd));
    CHECK(dnnl_memory_create(&a, from, eng, src));
    CHECK(dnnl_memory_create(&b, to, eng, dst));
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, a}, {DNNL_ARG_TO, b}};
    CHECK(dnnl_primitive_execute(r, st, 2, args));
    dnnl_stream_wait(st);
    dnnl_memory_destroy(a);
    dnnl_memory_destroy(b);
    dnnl_primitive_destroy(r);
    dnnl_primitive_desc_destroy(pd);
}

/* With BENCH_BEST set (for decisions on a loaded machine): the ratio of
 * the best times of `pairs` alternating single calls each (min-max: the
 * ratio's range over the pairs). */
static bench_ratio alternate_best(bench_fn a, void *ca, bench_fn b, void *cb, int pairs) {
    double ba = 1e30, bb = 1e30, lo = 1e30, hi = 0;
    a(ca), b(cb);
    for (int i = 0; i < pairs; i++) {
        double ta = bench_time(a, ca, 1), tb = bench_time(b, cb, 1);
        ba = ta < ba ? ta : ba, bb = tb < bb ? tb : bb;
        lo = tb / ta < lo ? tb / ta : lo, hi = tb / ta > hi ? tb / ta : hi;
    }
    return (bench_ratio){bb / ba, lo, hi, ba};
}

static int match(const char *name, const char *filter) {
    return !filter || strstr(name, filter);
}

int main(int argc, char **argv) {
    int pairs = argc > 1 ? atoi(argv[1]) : 11;
    const char *filter = argc > 2 ? argv[2] : NULL;
    workload *wls = workloads;
    size_t nwl = sizeof workloads / sizeof workloads[0];
    static workload custom = {"custom", 0, 0, 0, 0, 0, 0, 0, 0};
    if (filter && strcmp(filter, "custom") == 0) {
        workload *c = &custom;
        if (argc < 4 ||
            sscanf(argv[3],
                   "%" SCNd64 ",%" SCNd64 ",%" SCNd64 ",%" SCNd64 ",%" SCNd64 ",%" SCNd64
                   ",%" SCNd64 ",%" SCNd64,
                   &c->n, &c->ic, &c->oc, &c->hw, &c->k, &c->stride, &c->pad, &c->groups) != 8) {
            fprintf(stderr, "usage: bench_conv pairs custom N,IC,OC,HW,K,STRIDE,PAD,GROUPS\n");
            return 2;
        }
        c->name = argv[3];
        wls = c, nwl = 1, filter = NULL;
    }
    dnnl_engine_t eng;
    dnnl_stream_t stream;
    CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, eng, dnnl_stream_default_flags));
    int lanes;
    double peak = fma_peak(&lanes);
    printf(
        "threads: %d, pairs per workload: %d, measured FMA peak: %.1f GFLOP/s (%d-lane FMAs)\n\n",
        omp_get_max_threads(), pairs, peak, lanes);
    printf("| workload (f32) | lgraph impl | lgraph GFLOP/s | oneDNN impl | oneDNN GFLOP/s | "
           "oneDNN / lgraph time (median, min-max) | lgraph / peak | max diff |\n"
           "|---|---|---|---|---|---|---|---|\n");
    for (size_t w = 0; w < nwl; w++) {
        const workload *wl = &wls[w];
        if (!match(wl->name, filter)) continue;
        int64_t g = wl->groups, oh = (wl->hw + 2 * wl->pad - wl->k) / wl->stride + 1;
        int64_t sd[4] = {wl->n, wl->ic, wl->hw, wl->hw}, dd[4] = {wl->n, wl->oc, oh, oh};
        int64_t wd[5] = {g, wl->oc / g, wl->ic / g, wl->k, wl->k};
        int wnd = g > 1 ? 5 : 4;
        const int64_t *wdims = g > 1 ? wd : wd + 1;
        int64_t nsrc = sd[0] * sd[1] * sd[2] * sd[3], ndst = dd[0] * dd[1] * dd[2] * dd[3];
        int64_t nwei = wl->oc * (wl->ic / g) * wl->k * wl->k;
        double flops = 2.0 * (double)ndst * (double)(wl->ic / g) * (double)(wl->k * wl->k);
        float *src = bench_alloc((size_t)nsrc * 4), *wei = bench_alloc((size_t)nwei * 4);
        float *bias = bench_alloc((size_t)wl->oc * 4);
        for (int64_t i = 0; i < nsrc; i++) src[i] = (float)((i * 7919) % 2001 - 1000) * 1e-3f;
        for (int64_t i = 0; i < nwei; i++) wei[i] = (float)((i * 104729) % 2001 - 1000) * 1e-3f;
        for (int64_t i = 0; i < wl->oc; i++) bias[i] = (float)(i % 17) * 0.1f;

        /* lgraph */
        lg_md sm, wm, dm, bm;
        CHECK(lg_md_init_tag(&sm, 4, sd, LG_F32, "any"));
        CHECK(lg_md_init_tag(&wm, wnd, wdims, LG_F32, "any"));
        CHECK(lg_md_init_tag(&dm, 4, dd, LG_F32, "any"));
        CHECK(lg_md_init_tag(&bm, 1, &wl->oc, LG_F32, "a"));
        lg_conv_params p;
        memset(&p, 0, sizeof p);
        p.groups = g;
        for (int i = 0; i < 2; i++) p.strides[i] = wl->stride, p.pad_l[i] = p.pad_r[i] = wl->pad;
        lg_ctx lc = {.nargs = 4};
        CHECK(lg_conv_create(&lc.k, &p, &sm, &wm, &bm, &dm, NULL));
        lg_md qs, qw, qd;
        CHECK(lg_kernel_query_md(lc.k, LG_ARG_SRC, &qs));
        CHECK(lg_kernel_query_md(lc.k, LG_ARG_WEIGHTS, &qw));
        CHECK(lg_kernel_query_md(lc.k, LG_ARG_DST, &qd));
        float *lsrc = lg_into(&qs, 4, sd, "nchw", src);
        float *lwei = lg_into(&qw, wnd, wdims, g > 1 ? "goihw" : "oihw", wei);
        float *ldst = bench_alloc(lg_md_size(&qd));
        lc.args[0] = (lg_arg){LG_ARG_SRC, lsrc};
        lc.args[1] = (lg_arg){LG_ARG_WEIGHTS, lwei};
        lc.args[2] = (lg_arg){LG_ARG_BIAS, bias};
        lc.args[3] = (lg_arg){LG_ARG_DST, ldst};

        /* oneDNN */
        dnnl_memory_desc_t dsm, dwm, ddm, dbm, psm, pwm, pdm;
        dnnl_dims_t xs, xw, xd, xb = {wl->oc};
        memcpy(xs, sd, sizeof sd);
        memcpy(xw, wdims, sizeof(int64_t) * (size_t)wnd);
        memcpy(xd, dd, sizeof dd);
        CHECK(dnnl_memory_desc_init_by_tag(&dsm, 4, xs, dnnl_f32, dnnl_format_tag_any));
        CHECK(dnnl_memory_desc_init_by_tag(&dwm, wnd, xw, dnnl_f32, dnnl_format_tag_any));
        CHECK(dnnl_memory_desc_init_by_tag(&ddm, 4, xd, dnnl_f32, dnnl_format_tag_any));
        CHECK(dnnl_memory_desc_init_by_tag(&dbm, 1, xb, dnnl_f32, dnnl_a));
        CHECK(dnnl_memory_desc_init_by_tag(&psm, 4, xs, dnnl_f32, dnnl_nchw));
        CHECK(
            dnnl_memory_desc_init_by_tag(&pwm, wnd, xw, dnnl_f32, g > 1 ? dnnl_goihw : dnnl_oihw));
        CHECK(dnnl_memory_desc_init_by_tag(&pdm, 4, xd, dnnl_f32, dnnl_nchw));
        dnnl_dims_t strides = {wl->stride, wl->stride}, pads = {wl->pad, wl->pad};
        dnnl_convolution_desc_t cd;
        CHECK(dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference,
                                                 dnnl_convolution_direct, &dsm, &dwm, &dbm, &ddm,
                                                 strides, pads, pads));
        dnnl_primitive_desc_t pd;
        CHECK(dnnl_primitive_desc_create(&pd, &cd, NULL, eng, NULL));
        const dnnl_memory_desc_t *qsm = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
        const dnnl_memory_desc_t *qwm = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
        const dnnl_memory_desc_t *qdm = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
        float *dsrc = bench_alloc(dnnl_memory_desc_get_size(qsm));
        float *dwei = bench_alloc(dnnl_memory_desc_get_size(qwm));
        float *ddst = bench_alloc(dnnl_memory_desc_get_size(qdm));
        dn_reorder(eng, stream, &psm, src, qsm, dsrc);
        dn_reorder(eng, stream, &pwm, wei, qwm, dwei);
        dnnl_ctx dc = {.stream = stream, .nargs = 4};
        CHECK(dnnl_primitive_create(&dc.prim, pd));
        dnnl_memory_t ms, mw, mb, md;
        CHECK(dnnl_memory_create(&ms, qsm, eng, dsrc));
        CHECK(dnnl_memory_create(&mw, qwm, eng, dwei));
        CHECK(dnnl_memory_create(&mb, &dbm, eng, bias));
        CHECK(dnnl_memory_create(&md, qdm, eng, ddst));
        dc.args[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, ms};
        dc.args[1] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, mw};
        dc.args[2] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, mb};
        dc.args[3] = (dnnl_exec_arg_t){DNNL_ARG_DST, md};
        const char *dimpl = "";
        dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &dimpl);

        /* Outputs, both back in nchw. */
        run_lg(&lc);
        run_dnnl(&dc);
        float *o1 = bench_alloc((size_t)ndst * 4), *o2 = bench_alloc((size_t)ndst * 4);
        {
            lg_md pm;
            lg_kernel *r;
            CHECK(lg_md_init_tag(&pm, 4, dd, LG_F32, "nchw"));
            CHECK(lg_reorder_create(&r, &qd, &pm, NULL));
            lg_arg a[2] = {{LG_ARG_SRC, ldst}, {LG_ARG_DST, o1}};
            CHECK(lg_kernel_execute(r, 2, a));
            lg_kernel_destroy(r);
        }
        dn_reorder(eng, stream, qdm, ddst, &pdm, o2);
        double diff = 0;
        for (int64_t i = 0; i < ndst; i++) {
            double d = fabs((double)o1[i] - (double)o2[i]) / fmax(1.0, fabs((double)o2[i]));
            if (d > diff || isnan(d)) diff = isnan(d) ? INFINITY : d;
        }

        bench_ratio r = getenv("BENCH_BEST") ? alternate_best(run_lg, &lc, run_dnnl, &dc, pairs)
                                             : bench_alternate(run_lg, &lc, run_dnnl, &dc, pairs);
        double lg_gf = flops / r.time_a / 1e9;
        double dn_gf = lg_gf / r.median; /* median dnnl time = lg time * ratio */
        printf("| %s | %s | %.1f | %s | %.1f | %.2fx (%.2f-%.2f) | %.2f | %.1e |\n", wl->name,
               lg_kernel_impl(lc.k), lg_gf, dimpl, dn_gf, r.median, r.min, r.max, lg_gf / peak,
               diff);
        fflush(stdout);

        dnnl_memory_destroy(ms);
        dnnl_memory_destroy(mw);
        dnnl_memory_destroy(mb);
        dnnl_memory_destroy(md);
        dnnl_primitive_destroy(dc.prim);
        dnnl_primitive_desc_destroy(pd);
        lg_kernel_destroy(lc.k);
        free(src), free(wei), free(bias), free(lsrc), free(lwei), free(ldst);
        free(dsrc), free(dwei), free(ddst), free(o1), free(o2);
    }
    dnnl_stream_destroy(stream);
    dnnl_engine_destroy(eng);
    return 0;
}
