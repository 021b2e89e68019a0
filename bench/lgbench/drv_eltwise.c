/* --eltwise: lg_eltwise_create against lg__eltwise_ref (within the stated
 * ulp bound of lg__eltwise_ulp_bound, exact where that is 0; padding must
 * stay zero), or timed against oneDNN's eltwise.
 *
 *   --eltwise --dt=f32 --tag=nChw16c --alg=relu,gelu_erf --alpha=0 --beta=0
 *             [--inplace=true] 8x256x56x56
 * As benchdnn, a non-zero alpha or beta for an algorithm that ignores it
 * skips the problem, so comma lists can mix algorithms. The *_dst forms run
 * their forward function. --attr-post-ops (sums, eltwise and binary
 * post-ops: add:f32+mul:f32:per_oc) runs lg_eltwise_create_attr against
 * the reference with the chain (lg__eltwise_ref_po). */
#include "drv_common.h"
#include "drv_po.h"
#include "lgb_dnnl.h"

#include "primitives/eltwise/eltwise.h"

#include <stdlib.h>
#include <string.h>

enum { K_DIR, K_DT, K_TAG, K_ALG, K_ALPHA, K_BETA, K_INPLACE, K_POST, K_COUNT };

/* Inputs that exercise each algorithm's interesting range. */
static void fill(const lg_md *md, void *buf, lgb_rng *r, lg_eltwise_alg alg) {
    switch (md->dtype) {
    case LG_S8:
        lgb_buf_fill(md, buf, r, -128, 128, true);
        return;
    case LG_U8:
        lgb_buf_fill(md, buf, r, 0, 256, true);
        return;
    case LG_S32:
        lgb_buf_fill(md, buf, r, -100000, 100000, true);
        return;
    default:
        break;
    }
    if (alg == LG_ELTWISE_EXP)
        lgb_buf_fill(md, buf, r, -100, 90, false);
    else if (alg == LG_ELTWISE_LOG || alg == LG_ELTWISE_SQRT)
        lgb_buf_fill(md, buf, r, -1, 100, false);
    else
        lgb_buf_fill(md, buf, r, -10, 10, false);
}

static bool parse_float(const char *s, float *v) {
    char *e;
    *v = strtof(s, &e);
    return *s && !*e;
}

static void run(const lgb_ctx *ctx, const lgb_job *job, lgb_result *res) {
    int nd;
    int64_t dims[LG_MAX_NDIMS];
    lg_dtype dt;
    lg_prop prop;
    lg_eltwise_alg alg;
    bool bias, inplace;
    float alpha, beta;
    if (!lgb_parse_dims(job->desc, &nd, dims)) {
        lgb_set(res, LGB_FAILED, "bad dims '%s' (want NxNx...)", job->desc);
        return;
    }
    if (!lgb_parse_dir(job->vals[K_DIR], &prop, &bias)) {
        lgb_set(res, LGB_FAILED, "bad --dir '%s'", job->vals[K_DIR]);
        return;
    }
    if (prop != LG_FORWARD) {
        lgb_skip(res, "backward out of scope", "lgraph's eltwise is forward only");
        return;
    }
    if (!lgb_dt(job->vals[K_DT], &dt, res)) return;
    if (dt == LG_F8_E4M3 || dt == LG_F8_E5M2) { /* reorder's types, not eltwise's */
        lgb_skip(res, "data type out of scope (f64, f8, f4, int4)", "data type %s",
                 job->vals[K_DT]);
        return;
    }
    if (lgb_eltwise_out_of_scope(job->vals[K_ALG])) {
        lgb_skip(res, "eltwise algorithm not implemented in lgraph", "alg %s", job->vals[K_ALG]);
        return;
    }
    if (!lgb_parse_eltwise_alg(job->vals[K_ALG], &alg) ||
        !parse_float(job->vals[K_ALPHA], &alpha) || !parse_float(job->vals[K_BETA], &beta) ||
        !lgb_parse_bool(job->vals[K_INPLACE], &inplace)) {
        lgb_set(res, LGB_FAILED, "bad --alg, --alpha, --beta or --inplace");
        return;
    }
    /* benchdnn's invalid cases: a parameter the algorithm ignores given a
     * value, a *_dst form of relu / elu with alpha < 0, soft_relu alpha 0. */
    if ((alpha != 0 && !lgb_eltwise_uses_alpha(alg)) ||
        (beta != 0 && !lgb_eltwise_uses_beta(alg))) {
        lgb_skip(res, "invalid case (benchdnn skips it too)", "%s ignores %s",
                 lgb_eltwise_alg_name(alg),
                 alpha != 0 && !lgb_eltwise_uses_alpha(alg) ? "alpha" : "beta");
        return;
    }
    if ((lgb_eltwise_is_dst(job->vals[K_ALG]) && alpha < 0 &&
         (alg == LG_ELTWISE_RELU || alg == LG_ELTWISE_ELU)) ||
        (alg == LG_ELTWISE_SOFT_RELU && alpha == 0)) {
        lgb_skip(res, "invalid case (benchdnn skips it too)", "%s with alpha %g", job->vals[K_ALG],
                 (double)alpha);
        return;
    }
    lg_md md;
    if (!lgb_md(&md, nd, dims, dt, job->vals[K_TAG], "data", res) ||
        !lgb_fits(3.0 * (double)lg_md_size(&md), res))
        return;
    lgb_attr_spec spec;
    if (!lgb_attr_parse("", "", job->vals[K_POST], &spec, res)) return;
    lgb_run r = {0};
    void *src = NULL, *dst = NULL, *want = NULL;
    lgb_dnnl *dn = NULL;
    lgb_po_bufs po;
    if (!lgb_po_build(&spec, &md, false, &po, res)) goto done;
    if (!lgb_created(
            lg_eltwise_create_attr(&r.k, alg, alpha, beta, &md, NULL, spec.npost ? po.attr : NULL),
            "lg_eltwise_create_attr", res))
        goto done;
    snprintf(res->impl, sizeof res->impl, "%s", lg_kernel_impl(r.k));
    src = lgb_buf_alloc(&md);
    dst = inplace ? src : lgb_buf_alloc(&md);
    want = lgb_buf_alloc(&md);
    if (!src || !dst || !want) {
        lgb_set(res, LGB_FAILED, "out of memory");
        goto done;
    }
    lgb_rng rng = lgb_rng_seed(job->repro);
    fill(&md, src, &rng, alg);
    if (!lgb_po_alloc(&po, r.k, &md, &rng, res)) goto done;
    const bool sum = lg__po_has_sum(&po.spec);
    if (sum && !inplace) fill(&md, dst, &rng, alg); /* dst_old */
    r.args[0] = (lg_arg){LG_ARG_SRC, src};
    r.args[1] = (lg_arg){LG_ARG_DST, dst};
    r.nargs = lgb_po_args(&po, r.args, 2);
    res->status = LGB_PASSED;
    if (ctx->mode.correctness) {
        lg__eltwise_pd pd;
        memset(&pd, 0, sizeof pd);
        pd.md = md;
        pd.alg = alg;
        pd.alpha = alpha;
        pd.beta = beta;
        const void *s1[LG_MAX_POST_OPS];
        lgb_po_src1(&po, s1);
        memcpy(want, dst, lg_md_size(&md)); /* dst_old (src in place) */
        lg__eltwise_ref_po(&pd, &po.spec, src, want, s1);
        if (!inplace && !sum) lgb_buf_poison(&md, dst);
        if (lgb_execute(r.k, r.nargs, r.args, res)) {
            lgb_inject_fault(ctx->fault, &md, dst);
            /* A chain after an inexact f: its error carried through the
             * chain's sums and products (relative to the result or to 16,
             * the scale of the post-ops' values), one step in 16-bit types. */
            double ulps = lg__eltwise_ulp_bound(alg), chain = lg__po_ulp_bound(&po.spec);
            bool rel = spec.npost && (ulps > 0 || chain > 0);
            double tol = dt == LG_BF16 ? 1.0 / 128 : dt == LG_F16 ? 1.0 / 1024 : 1e-5;
            bool ok =
                lgb_check_padding(&md, dst, "dst", res->msg, sizeof res->msg) &&
                (rel ? lgb_compare_rel(&md, dst, want, tol, 16.0, "dst", res->msg, sizeof res->msg)
                     : lgb_compare(&md, dst, want, ulps, "dst", res->msg, sizeof res->msg));
            res->status = ok ? LGB_PASSED : LGB_FAILED;
        }
        if (inplace) fill(&md, src, &rng, alg); /* fresh inputs for timing */
    }
    if (ctx->mode.performance && res->status == LGB_PASSED && !spec.npost) {
        dn = lgb_dnnl_eltwise(alg, alpha, beta, &md, src, inplace ? src : NULL, res->msg,
                              sizeof res->msg);
        lgb_perf(ctx, lgb_run_exec, &r, dn ? lgb_dnnl_run : NULL, dn, res);
        if (dn) snprintf(res->dnnl_impl, sizeof res->dnnl_impl, "%s", lgb_dnnl_impl(dn));
        res->bytes = 2.0 * (double)lg_md_size(&md);
    } else if (ctx->mode.performance && res->status == LGB_PASSED) {
        lgb_perf(ctx, lgb_run_exec, &r, NULL, NULL, res);
        res->bytes = 2.0 * (double)lg_md_size(&md);
    }
done:
    lgb_po_free(&po);
    lgb_dnnl_destroy(dn);
    lg_kernel_destroy(r.k);
    if (dst != src) free(dst);
    free(src);
    free(want);
}

const lgb_driver lgb_drv_eltwise = {
    "eltwise",
    K_COUNT,
    {"dir", "dt", "tag", "alg", "alpha", "beta", "inplace", "attr-post-ops"},
    {"FWD_D", "f32", "abx", "relu", "0", "0", "false", ""},
    {0},
    run,
};
