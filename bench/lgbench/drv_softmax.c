/* --softmax: lg_softmax_create against lg__softmax_ref (within the error
 * bound lg_softmax_create states, padding zero), or timed against oneDNN's
 * softmax (v2).
 *
 *   --softmax --dir=FWD_I --sdt=f32 --ddt=f32 --stag=abx --dtag=any
 *             --alg=SOFTMAX,LOGSOFTMAX --axis=1 [--inplace=true] 16x1000 */
#include "drv_common.h"
#include "lgb_dnnl.h"

#include "primitives/softmax/softmax.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { K_DIR, K_SDT, K_DDT, K_STAG, K_DTAG, K_ALG, K_AXIS, K_INPLACE, K_COUNT };

static void run(const lgb_ctx *ctx, const lgb_job *job, lgb_result *res) {
    int nd;
    int64_t dims[LG_MAX_NDIMS];
    if (!lgb_parse_dims(job->desc, &nd, dims)) {
        lgb_set(res, LGB_FAILED, "bad dims '%s' (want NxNx...)", job->desc);
        return;
    }
    lg_prop prop;
    bool bias, inplace;
    if (!lgb_parse_dir(job->vals[K_DIR], &prop, &bias) ||
        !lgb_parse_bool(job->vals[K_INPLACE], &inplace)) {
        lgb_set(res, LGB_FAILED, "bad --dir or --inplace");
        return;
    }
    if (prop != LG_FORWARD) {
        lgb_skip(res, "backward out of scope", "lgraph's softmax is forward only");
        return;
    }
    lg_dtype sdt, ddt;
    if (!lgb_dt(job->vals[K_SDT], &sdt, res) || !lgb_dt(job->vals[K_DDT], &ddt, res)) return;
    const char *a = job->vals[K_ALG];
    lg_softmax_alg alg;
    if (!strcmp(a, "SOFTMAX") || !strcmp(a, "softmax") || !strcmp(a, "softmax_accurate"))
        alg = LG_SOFTMAX;
    else if (!strcmp(a, "LOGSOFTMAX") || !strcmp(a, "logsoftmax") || !strcmp(a, "softmax_log"))
        alg = LG_LOGSOFTMAX;
    else {
        lgb_set(res, LGB_FAILED, "bad --alg '%s' (SOFTMAX, LOGSOFTMAX)", a);
        return;
    }
    char *e;
    long axis = strtol(job->vals[K_AXIS], &e, 10);
    if (*e || axis < 0 || axis >= nd) {
        lgb_set(res, LGB_FAILED, "bad --axis '%s' for %d dims", job->vals[K_AXIS], nd);
        return;
    }
    lg_md src, dst;
    bool dany = !strcmp(job->vals[K_DTAG], "any");
    if (!lgb_md(&src, nd, dims, sdt, job->vals[K_STAG], "src", res) ||
        !lgb_md(&dst, nd, dims, ddt, dany ? job->vals[K_STAG] : job->vals[K_DTAG], "dst", res) ||
        !lgb_fits(3.0 * (double)lg_md_size(&src), res))
        return;
    if (inplace && !lg_md_equal(&src, &dst)) {
        lgb_skip(res, "invalid case (benchdnn skips it too)", "in place with src != dst md");
        return;
    }
    lgb_run r = {0};
    void *in = NULL, *out = NULL, *want = NULL;
    lgb_dnnl *dn = NULL;
    if (!lgb_created(lg_softmax_create(&r.k, alg, (int)axis, &src, &dst), "lg_softmax_create", res))
        goto done;
    snprintf(res->impl, sizeof res->impl, "%s", lg_kernel_impl(r.k));
    in = lgb_buf_alloc(&src);
    out = inplace ? in : lgb_buf_alloc(&dst);
    want = lgb_buf_alloc(&dst);
    if (!in || !out || !want) {
        lgb_set(res, LGB_FAILED, "out of memory");
        goto done;
    }
    lgb_rng rng = lgb_rng_seed(job->repro);
    lgb_buf_fill(&src, in, &rng, -10, 10, false);
    r.args[0] = (lg_arg){LG_ARG_SRC, in};
    r.args[1] = (lg_arg){LG_ARG_DST, out};
    r.nargs = 2;
    res->status = LGB_PASSED;
    if (ctx->mode.correctness) {
        lg__softmax_pd pd;
        memset(&pd, 0, sizeof pd);
        pd.src = src;
        pd.dst = dst;
        pd.alg = alg;
        pd.axis = (int32_t)axis;
        lg__softmax_ref(&pd, NULL, in, want);
        if (!inplace) lgb_buf_poison(&dst, out);
        if (lgb_execute(r.k, r.nargs, r.args, res)) {
            lgb_inject_fault(ctx->fault, &dst, out);
            /* The stated bound with |d| <= 20 (inputs in [-10, 10)):
             * relative (A + 28) 2^-24 for softmax; for log-softmax an
             * absolute (A + 68) 2^-24 plus 3 2^-24 |y|; then dst's rounding. */
            double A = (double)dims[axis], u = ldexp(1.0, -24);
            double round = ddt == LG_BF16 ? ldexp(1.0, -8) : ddt == LG_F16 ? ldexp(1.0, -11) : 0;
            double rel = alg == LG_SOFTMAX ? (A + 30) * u : 8 * u;
            double floor = alg == LG_SOFTMAX ? 1e-37 : (A + 68) * u / (4 * u);
            bool ok = lgb_check_padding(&dst, out, "dst", res->msg, sizeof res->msg) &&
                      lgb_compare_rel(&dst, out, want, rel + round, floor, "dst", res->msg,
                                      sizeof res->msg);
            res->status = ok ? LGB_PASSED : LGB_FAILED;
        }
        if (inplace) lgb_buf_fill(&src, in, &rng, -10, 10, false);
    }
    if (ctx->mode.performance && res->status == LGB_PASSED) {
        dn = lgb_dnnl_softmax(alg, (int)axis, &src, &dst, in, out, res->msg, sizeof res->msg);
        lgb_perf(ctx, lgb_run_exec, &r, dn ? lgb_dnnl_run : NULL, dn, res);
        if (dn) snprintf(res->dnnl_impl, sizeof res->dnnl_impl, "%s", lgb_dnnl_impl(dn));
        res->bytes = (double)(lg_md_size(&src) + lg_md_size(&dst));
    }
done:
    lgb_dnnl_destroy(dn);
    lg_kernel_destroy(r.k);
    if (out != in) free(out);
    free(in);
    free(want);
}

const lgb_driver lgb_drv_softmax = {
    "softmax",
    K_COUNT,
    {"dir", "sdt", "ddt", "stag", "dtag", "alg", "axis", "inplace"},
    {"FWD_I", "f32", "f32", "abx", "any", "SOFTMAX", "1", "false"},
    {0},
    run,
};
