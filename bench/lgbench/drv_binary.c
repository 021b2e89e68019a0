/* --binary: lg_binary_create against lg__binary_ref (bit for bit, padding
 * included), or timed against oneDNN's binary. benchdnn's forms:
 *
 *   --binary --alg=add --sdt=f32:f32 --ddt=f32 --stag=nchw:nchw --dtag=any
 *            8x64x28x28:1x64x1x1
 * A single value for --sdt or --stag serves both sources; src1 may have
 * fewer dims (padded with trailing 1s, as benchdnn does) or be omitted (same
 * dims as src0). src1 "any" (benchdnn's default, abx:any) takes the layout
 * lg_binary_create chooses; --inplace=true writes into src0 (where dst's md
 * is src0's). --attr-scales (src0 / src1, common) and --attr-post-ops (sums,
 * eltwise and binary post-ops) run lg_binary_create_attr against the
 * reference with scales and chain (lg__binary_ref_po). */
#include "drv_common.h"
#include "drv_po.h"
#include "lgb_dnnl.h"

#include "primitives/binary/binary.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { K_ALG, K_SDT, K_DDT, K_STAG, K_DTAG, K_INPLACE, K_SCALES, K_POST, K_COUNT };

/* Split "a:b" into two strings of at most 63 characters; "a" gives a, a. */
static bool pair(const char *s, char a[64], char b[64]) {
    const char *c = strchr(s, ':');
    size_t n = c ? (size_t)(c - s) : strlen(s);
    if (n >= 64 || (c && strlen(c + 1) >= 64) || (c && strchr(c + 1, ':'))) return false;
    memcpy(a, s, n);
    a[n] = '\0';
    snprintf(b, 64, "%s", c ? c + 1 : a);
    return true;
}

static void run(const lgb_ctx *ctx, const lgb_job *job, lgb_result *res) {
    char d0[64], d1[64], t0[64], t1[64], dt0s[64], dt1s[64];
    int nd0, nd1;
    int64_t dims0[LG_MAX_NDIMS], dims1[LG_MAX_NDIMS];
    lg_dtype dt0, dt1, ddt;
    lg_binary_alg alg;
    if (!pair(job->desc, d0, d1) || !lgb_parse_dims(d0, &nd0, dims0) ||
        !lgb_parse_dims(d1, &nd1, dims1)) {
        lgb_set(res, LGB_FAILED, "bad problem '%s' (want DIMS0[:DIMS1])", job->desc);
        return;
    }
    /* The shorter of the two is padded with trailing 1s. */
    for (int d = nd1; d < nd0; d++) dims1[d] = 1;
    for (int d = nd0; d < nd1; d++) dims0[d] = 1;
    nd0 = nd0 > nd1 ? nd0 : nd1;
    /* dst: the broadcast of the two (src0 may broadcast too). */
    int64_t dimsd[LG_MAX_NDIMS];
    for (int d = 0; d < nd0; d++) {
        if (dims0[d] != dims1[d] && dims0[d] != 1 && dims1[d] != 1) {
            lgb_set(res, LGB_FAILED, "dims %s and %s do not broadcast", d0, d1);
            return;
        }
        dimsd[d] = dims0[d] == 1 ? dims1[d] : dims0[d];
    }
    /* select: cond (benchdnn's src2) is s8 with src0's dims and tag. */
    const bool sel =
        !strcasecmp(job->vals[K_ALG], "select") || !strcasecmp(job->vals[K_ALG], "binary_select");
    bool inplace;
    if (!pair(job->vals[K_SDT], dt0s, dt1s) || !pair(job->vals[K_STAG], t0, t1) ||
        (!sel && !lgb_parse_binary_alg(job->vals[K_ALG], &alg)) ||
        !lgb_parse_bool(job->vals[K_INPLACE], &inplace)) {
        lgb_set(res, LGB_FAILED, "bad --alg, --sdt, --stag or --inplace");
        return;
    }
    if (!lgb_dt(dt0s, &dt0, res) || !lgb_dt(dt1s, &dt1, res) ||
        !lgb_dt(job->vals[K_DDT], &ddt, res))
        return;
    const lg_dtype f8[2] = {LG_F8_E4M3, LG_F8_E5M2};
    for (int i = 0; i < 2; i++)
        if (dt0 == f8[i] || dt1 == f8[i] || ddt == f8[i]) { /* reorder's types, not binary's */
            lgb_skip(res, "data type out of scope (f64, f8, f4, int4)", "data type %s",
                     lg_dtype_str(f8[i]));
            return;
        }
    lg_md m0, m1, md;
    if (!lgb_md(&m0, nd0, dims0, dt0, t0, "src0", res) ||
        !lgb_md(&m1, nd0, dims1, dt1, t1, "src1", res) ||
        !lgb_md(&md, nd0, dimsd, ddt, job->vals[K_DTAG], "dst", res))
        return;
    lgb_attr_spec spec;
    if (!lgb_attr_parse(job->vals[K_SCALES], "", job->vals[K_POST], &spec, res)) return;
    lgb_run r = {0};
    void *b0 = NULL, *b1 = NULL, *b2 = NULL, *bd = NULL, *want = NULL;
    lg_md m2 = {0};
    if (sel && !lgb_md(&m2, nd0, dims0, LG_S8, t0, "cond", res)) return;
    if (sel) alg = LG_BINARY_ADD;
    lgb_dnnl *dn = NULL;
    lgb_po_bufs po;
    if (!lgb_po_build(&spec, &md, true, &po, res)) goto done;
    const bool attr = spec.npost || po.has_scale[0] || po.has_scale[1];
    if (sel &&
        !lgb_created(lg_binary_create_select(&r.k, &m0, &m1, &m2, &md, attr ? po.attr : NULL),
                     "lg_binary_create_select", res))
        goto done;
    if (!sel && !lgb_created(lg_binary_create_attr(&r.k, alg, &m0, &m1, &md, attr ? po.attr : NULL),
                             "lg_binary_create_attr", res))
        goto done;
    snprintf(res->impl, sizeof res->impl, "%s", lg_kernel_impl(r.k));
    lg_md dq; /* dst's layout ("any" resolved), src1's likewise */
    if (lg_kernel_query_md(r.k, LG_ARG_DST, &dq) != LG_OK ||
        lg_kernel_query_md(r.k, LG_ARG_SRC + 1, &m1) != LG_OK) {
        lgb_set(res, LGB_FAILED, "lg_kernel_query_md: %s", lg_last_error());
        goto done;
    }
    /* benchdnn runs in place only where dst's md is src0's. */
    if (inplace && !lg_md_equal(&m0, &dq)) {
        lgb_skip(res, "invalid case (benchdnn skips it too)", "in place needs dst's md = src0's");
        goto done;
    }
    if (!lgb_fits((double)(lg_md_size(&m0) + lg_md_size(&m1) + 2 * lg_md_size(&dq)), res))
        goto done;
    b0 = lgb_buf_alloc(&m0);
    b1 = lgb_buf_alloc(&m1);
    b2 = sel ? lgb_buf_alloc(&m2) : NULL;
    bd = inplace ? b0 : lgb_buf_alloc(&dq);
    want = lgb_buf_alloc(&dq);
    if (!b0 || !b1 || !bd || !want) {
        lgb_set(res, LGB_FAILED, "out of memory");
        goto done;
    }
    lgb_rng rng = lgb_rng_seed(job->repro);
    lgb_buf_fill(&m0, b0, &rng, -10, 10, false);
    lgb_buf_fill(&m1, b1, &rng, -10, 10, false);
    if (sel) {
        if (!b2) {
            lgb_set(res, LGB_FAILED, "out of memory");
            goto done;
        }
        lgb_buf_fill(&m2, b2, &rng, 0, 2, true);
    }
    if (!lgb_po_alloc(&po, r.k, &dq, &rng, res)) goto done;
    const bool sum = lg__po_has_sum(&po.spec);
    if (sum && !inplace) lgb_buf_fill(&dq, bd, &rng, -10, 10, false); /* dst_old */
    r.args[0] = (lg_arg){LG_ARG_SRC, b0};
    r.args[1] = (lg_arg){LG_ARG_SRC + 1, b1};
    r.args[2] = (lg_arg){LG_ARG_DST, bd};
    r.nargs = 3;
    if (sel) r.args[r.nargs++] = (lg_arg){LG_ARG_SRC + 2, b2};
    r.nargs = lgb_po_args(&po, r.args, r.nargs);
    res->status = LGB_PASSED;
    if (ctx->mode.correctness) {
        lg__binary_pd pd;
        memset(&pd, 0, sizeof pd);
        pd.src0 = m0;
        pd.src1 = m1;
        pd.dst = dq;
        pd.alg = alg;
        const void *s1[LG_MAX_POST_OPS];
        lgb_po_src1(&po, s1);
        memcpy(want, bd, lg_md_size(&dq)); /* dst_old (src0 in place) */
        lg__binary_ref_select(&pd, &m2, b2, lgb_po_scale(&po, 0), lgb_po_scale(&po, 1), &po.spec,
                              b0, b1, want, s1);
        if (!inplace && !sum) lgb_buf_poison(&dq, bd);
        if (lgb_execute(r.k, r.nargs, r.args, res)) {
            lgb_inject_fault(ctx->fault, &dq, bd);
            /* Every step is one f32 operation on both sides (bit for bit),
             * but for transcendental eltwise post-ops (their stated bound). */
            double chain = lg__po_ulp_bound(&po.spec);
            double tol = ddt == LG_BF16 ? 1.0 / 128 : ddt == LG_F16 ? 1.0 / 1024 : 1e-5;
            bool ok =
                lgb_check_padding(&dq, bd, "dst", res->msg, sizeof res->msg) &&
                (chain > 0
                     ? lgb_compare_rel(&dq, bd, want, tol, 16.0, "dst", res->msg, sizeof res->msg)
                     : lgb_compare(&dq, bd, want, 0.0, "dst", res->msg, sizeof res->msg));
            res->status = ok ? LGB_PASSED : LGB_FAILED;
        }
    }
    if (ctx->mode.performance && res->status == LGB_PASSED && (attr || sel)) {
        lgb_perf(ctx, lgb_run_exec, &r, NULL, NULL, res);
        res->bytes = (double)(lg_md_size(&m0) + lg_md_size(&m1) + lg_md_size(&dq));
    } else if (ctx->mode.performance && res->status == LGB_PASSED) {
        dn = lgb_dnnl_binary(alg, &m0, &m1, &dq, b0, b1, NULL, res->msg, sizeof res->msg);
        lgb_perf(ctx, lgb_run_exec, &r, dn ? lgb_dnnl_run : NULL, dn, res);
        if (dn) snprintf(res->dnnl_impl, sizeof res->dnnl_impl, "%s", lgb_dnnl_impl(dn));
        res->bytes = (double)(lg_md_size(&m0) + lg_md_size(&m1) + lg_md_size(&dq));
    }
done:
    lgb_po_free(&po);
    lgb_dnnl_destroy(dn);
    lg_kernel_destroy(r.k);
    if (bd != b0) free(bd);
    free(b0);
    free(b1);
    free(b2);
    free(want);
}

const lgb_driver lgb_drv_binary = {
    "binary",
    K_COUNT,
    {"alg", "sdt", "ddt", "stag", "dtag", "inplace", "attr-scales", "attr-post-ops"},
    {"add", "f32", "f32", "abx:any", "any", "false", "", ""},
    {0},
    run,
};
