/* --shuffle: lg_shuffle_create against lg__shuffle_ref (bit for bit,
 * padding included), or timed against oneDNN's shuffle.
 *
 *   --shuffle --dir=FWD_D --dt=f32 --tag=nChw16c --axis=1 --group=4 8x256x56x56 */
#include "drv_common.h"
#include "lgb_dnnl.h"

#include "primitives/shuffle/shuffle.h"

#include <stdlib.h>
#include <string.h>

enum { K_DIR, K_DT, K_TAG, K_AXIS, K_GROUP, K_COUNT };

static bool parse_int(const char *s, long long lo, long long hi, long long *v) {
    char *e;
    *v = strtoll(s, &e, 10);
    return *s && !*e && *v >= lo && *v <= hi;
}

static void run(const lgb_ctx *ctx, const lgb_job *job, lgb_result *res) {
    int nd;
    int64_t dims[LG_MAX_NDIMS];
    lg_dtype dt;
    lg_prop prop;
    bool bias;
    long long axis, group;
    if (!lgb_parse_dims(job->desc, &nd, dims)) {
        lgb_set(res, LGB_FAILED, "bad dims '%s' (want NxNx...)", job->desc);
        return;
    }
    if (!lgb_dt(job->vals[K_DT], &dt, res)) return;
    if (!lgb_parse_dir(job->vals[K_DIR], &prop, &bias) ||
        !parse_int(job->vals[K_AXIS], 0, LG_MAX_NDIMS - 1, &axis) ||
        !parse_int(job->vals[K_GROUP], 1, INT64_MAX, &group)) {
        lgb_set(res, LGB_FAILED, "bad --dt, --dir, --axis or --group");
        return;
    }
    lg_md md;
    if (!lgb_md(&md, nd, dims, dt, job->vals[K_TAG], "data", res) ||
        !lgb_fits(3.0 * (double)lg_md_size(&md), res))
        return;
    lgb_run r = {0};
    void *in = NULL, *out = NULL, *want = NULL;
    lgb_dnnl *dn = NULL;
    if (!lgb_created(lg_shuffle_create(&r.k, prop, &md, (int)axis, group), "lg_shuffle_create",
                     res))
        goto done;
    snprintf(res->impl, sizeof res->impl, "%s", lg_kernel_impl(r.k));
    in = lgb_buf_alloc(&md);
    out = lgb_buf_alloc(&md);
    want = lgb_buf_alloc(&md);
    if (!in || !out || !want) {
        lgb_set(res, LGB_FAILED, "out of memory");
        goto done;
    }
    lgb_rng rng = lgb_rng_seed(job->repro);
    lgb_buf_fill(&md, in, &rng, -1000, 1000, dt == LG_S8 || dt == LG_U8 || dt == LG_S32);
    bool fwd = prop == LG_FORWARD;
    r.args[0] = (lg_arg){fwd ? LG_ARG_SRC : LG_ARG_DIFF_DST, in};
    r.args[1] = (lg_arg){fwd ? LG_ARG_DST : LG_ARG_DIFF_SRC, out};
    r.nargs = 2;
    res->status = LGB_PASSED;
    if (ctx->mode.correctness) {
        lg__shuffle_pd pd;
        memset(&pd, 0, sizeof pd);
        pd.src = md;
        pd.dst = md;
        pd.prop = prop;
        pd.axis = (int32_t)axis;
        pd.group = group;
        lg__shuffle_ref(&pd, in, want);
        lgb_buf_poison(&md, out);
        if (lgb_execute(r.k, r.nargs, r.args, res)) {
            lgb_inject_fault(ctx->fault, &md, out);
            bool ok = lgb_check_padding(&md, out, "dst", res->msg, sizeof res->msg) &&
                      lgb_compare(&md, out, want, 0.0, "dst", res->msg, sizeof res->msg);
            res->status = ok ? LGB_PASSED : LGB_FAILED;
        }
    }
    if (ctx->mode.performance && res->status == LGB_PASSED) {
        dn = lgb_dnnl_shuffle(prop, &md, (int)axis, group, in, NULL, res->msg, sizeof res->msg);
        lgb_perf(ctx, lgb_run_exec, &r, dn ? lgb_dnnl_run : NULL, dn, res);
        if (dn) snprintf(res->dnnl_impl, sizeof res->dnnl_impl, "%s", lgb_dnnl_impl(dn));
        res->bytes = 2.0 * (double)lg_md_size(&md);
    }
done:
    lgb_dnnl_destroy(dn);
    lg_kernel_destroy(r.k);
    free(in);
    free(out);
    free(want);
}

const lgb_driver lgb_drv_shuffle = {
    "shuffle", K_COUNT, {"dir", "dt", "tag", "axis", "group"}, {"FWD_D", "f32", "abx", "1", "1"},
    {0},       run,
};
