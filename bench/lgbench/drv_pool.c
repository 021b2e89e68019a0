/* --pool: lg_pool_create against lg__pool_ref (bit for bit: the fast paths
 * sum in the reference's order; padding must stay zero), or timed against
 * oneDNN.
 *
 *   --pool --dir=FWD_I --dt=f32 --tag=nChw16c --alg=max,avg_np,avg_p
 *          mb2ic64_ih56oh28kh3sh2ph1
 * Descriptors are benchdnn's pooling ones (mb, ic, id/ih/iw, od/oh/ow,
 * kd/kh/kw, sd/sh/sw, pd/ph/pw, dd/dh/dw, n"name"), read with the rules of
 * the conv descriptor (conv_desc.h): the right padding is what makes the
 * output exact. P mode times oneDNN's pooling (v2) on the same buffers. */
#include "conv_desc.h"
#include "drv_common.h"
#include "lgb_dnnl.h"

#include "primitives/pool/pool.h"

#include <stdlib.h>
#include <string.h>

enum { K_DIR, K_DT, K_TAG, K_ALG, K_COUNT };

/* The descriptor as a conv one whose oc is its ic. */
static bool parse_desc(const char *s, lgb_conv_desc *d, char *err, size_t len) {
    const char *ic = strstr(s, "ic");
    long long c = ic ? strtoll(ic + 2, NULL, 10) : 0;
    char buf[512];
    snprintf(buf, sizeof buf, "oc%lld%s", c, s);
    return lgb_conv_desc_parse(buf, d, err, len);
}

static void run(const lgb_ctx *ctx, const lgb_job *job, lgb_result *res) {
    lgb_conv_desc d;
    lg_conv_params cp;
    int64_t sd[LG_MAX_NDIMS], wd[LG_MAX_NDIMS], dd[LG_MAX_NDIMS];
    int wnd;
    char err[256];
    if (!parse_desc(job->desc, &d, err, sizeof err) ||
        !lgb_conv_desc_lg(&d, &cp, sd, wd, &wnd, dd, err, sizeof err)) {
        lgb_set(res, LGB_FAILED, "bad pooling descriptor '%s': %s", job->desc, err);
        return;
    }
    lg_prop prop;
    bool bias;
    if (!lgb_parse_dir(job->vals[K_DIR], &prop, &bias)) {
        lgb_set(res, LGB_FAILED, "bad --dir '%s'", job->vals[K_DIR]);
        return;
    }
    if (prop != LG_FORWARD) {
        lgb_skip(res, "backward out of scope", "lgraph's pooling is forward only");
        return;
    }
    lg_dtype dt;
    if (!lgb_dt(job->vals[K_DT], &dt, res)) return;
    const char *a = job->vals[K_ALG];
    lg_pool_params p;
    memset(&p, 0, sizeof p);
    if (!strcmp(a, "max") || !strcmp(a, "pooling_max"))
        p.alg = LG_POOL_MAX;
    else if (!strcmp(a, "avg_p") || !strcmp(a, "pooling_avg_include_padding"))
        p.alg = LG_POOL_AVG_INCLUDE_PADDING;
    else if (!strcmp(a, "avg_np") || !strcmp(a, "pooling_avg_exclude_padding"))
        p.alg = LG_POOL_AVG_EXCLUDE_PADDING;
    else {
        lgb_set(res, LGB_FAILED, "bad --alg '%s' (max, avg_np, avg_p)", a);
        return;
    }
    int sp = d.ndims - 2;
    for (int i = 0; i < sp; i++) {
        p.kernel[i] = wd[wnd - sp + i];
        p.strides[i] = cp.strides[i];
        p.dilates[i] = cp.dilates[i];
        p.pad_l[i] = cp.pad_l[i];
        p.pad_r[i] = cp.pad_r[i];
    }
    lg_md src, dst;
    if (!lgb_md(&src, d.ndims, sd, dt, job->vals[K_TAG], "src", res) ||
        !lgb_md(&dst, d.ndims, dd, dt, job->vals[K_TAG], "dst", res) ||
        !lgb_fits(2.0 * (double)(lg_md_size(&src) + lg_md_size(&dst)), res))
        return;
    lgb_run r = {0};
    void *in = NULL, *out = NULL, *want = NULL;
    lg__pool_geom g = {0};
    lgb_dnnl *dn = NULL;
    if (!lgb_created(lg_pool_create(&r.k, &p, &src, &dst), "lg_pool_create", res)) goto done;
    snprintf(res->impl, sizeof res->impl, "%s", lg_kernel_impl(r.k));
    in = lgb_buf_alloc(&src);
    out = lgb_buf_alloc(&dst);
    want = lgb_buf_alloc(&dst);
    if (!in || !out || !want) {
        lgb_set(res, LGB_FAILED, "out of memory");
        goto done;
    }
    lgb_rng rng = lgb_rng_seed(job->repro);
    bool ints = dt == LG_S8 || dt == LG_U8 || dt == LG_S32;
    lgb_buf_fill(&src, in, &rng, ints ? -100 : -10, ints ? 100 : 10, ints);
    r.args[0] = (lg_arg){LG_ARG_SRC, in};
    r.args[1] = (lg_arg){LG_ARG_DST, out};
    r.nargs = 2;
    res->status = LGB_PASSED;
    if (ctx->mode.correctness) {
        lg__pool_pd pd;
        if (lg__pool_query(&p, &src, &dst, NULL, &pd, NULL) != LG_OK ||
            !lg__pool_geom_init(&pd, &g)) {
            lgb_set(res, LGB_FAILED, "the reference's problem could not be built");
            goto done;
        }
        lg__pool_ref(&pd, &g, NULL, in, want);
        lgb_buf_poison(&dst, out);
        if (lgb_execute(r.k, r.nargs, r.args, res)) {
            lgb_inject_fault(ctx->fault, &dst, out);
            bool ok = lgb_check_padding(&dst, out, "dst", res->msg, sizeof res->msg) &&
                      lgb_compare(&dst, out, want, 0.0, "dst", res->msg, sizeof res->msg);
            res->status = ok ? LGB_PASSED : LGB_FAILED;
        }
    }
    if (ctx->mode.performance && res->status == LGB_PASSED) {
        dn = lgb_dnnl_pool(&p, &src, &dst, in, out, res->msg, sizeof res->msg);
        lgb_perf(ctx, lgb_run_exec, &r, dn ? lgb_dnnl_run : NULL, dn, res);
        if (dn) snprintf(res->dnnl_impl, sizeof res->dnnl_impl, "%s", lgb_dnnl_impl(dn));
        res->bytes = (double)(lg_md_size(&src) + lg_md_size(&dst));
    }
done:
    lgb_dnnl_destroy(dn);
    lg__free(g.mem);
    lg_kernel_destroy(r.k);
    free(in);
    free(out);
    free(want);
}

const lgb_driver lgb_drv_pool = {
    "pool", K_COUNT, {"dir", "dt", "tag", "alg"}, {"FWD_I", "f32", "abx", "max"}, {0}, run,
};
