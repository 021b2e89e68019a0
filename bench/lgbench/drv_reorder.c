/* --reorder: lg_reorder_create against the scalar reference
 * (lg__reorder_ref, bit for bit, padding included) or timed against
 * oneDNN's reorder.
 *
 *   --reorder --sdt=f32 --ddt=s8 --stag=nchw --dtag=nChw16c
 *             --attr-scales=src:per_dim_1 --attr-zero-points=dst:common:3
 *             --attr-post-ops=sum:0.5 8x256x56x56 */
#include "drv_common.h"
#include "lgb_dnnl.h"

#include "primitives/reorder/reorder.h"

#include <stdlib.h>
#include <string.h>

enum {
    K_SDT,
    K_DDT,
    K_STAG,
    K_DTAG,
    K_SCALES,
    K_ZPS,
    K_POST,
    K_STRIDES,
    K_OFLAG,
    K_RTMASK,
    K_ROUND,
    K_XENGINE,
    K_COUNT
};

/* Values for a source of type dt: a range that, with scales up to 4, also
 * drives s8/u8 destinations into saturation. */
static void fill_src(const lg_md *md, void *buf, lgb_rng *r) {
    switch (md->dtype) {
    case LG_S8:
        lgb_buf_fill(md, buf, r, -128, 128, true);
        break;
    case LG_U8:
        lgb_buf_fill(md, buf, r, 0, 256, true);
        break;
    case LG_S32:
        lgb_buf_fill(md, buf, r, -70000, 70000, true);
        break;
    default:
        lgb_buf_fill(md, buf, r, -80, 80, false);
        break;
    }
}

static void check(const lgb_ctx *ctx, const lg_md *s, const lg_md *d, const lgb_attr_spec *spec,
                  const lgb_attr_bufs *ab, lgb_run *run, void *src, void *dst, lgb_result *res) {
    size_t dsz = lg_md_size(d);
    void *want = lgb_buf_alloc(d);
    if (!want) {
        lgb_set(res, LGB_FAILED, "out of memory");
        return;
    }
    /* dst_old matters with a sum; its padding is zero as inputs' must be. */
    memcpy(want, dst, dsz);
    lg__reorder_pd pd;
    memset(&pd, 0, sizeof pd);
    pd.src = *s;
    pd.dst = *d;
    pd.src_scale_mask = ab->scales[0] ? ab->scale_mask[0] : -1;
    pd.dst_scale_mask = ab->scales[1] ? ab->scale_mask[1] : -1;
    pd.src_zp_mask = ab->zps[0] ? ab->zp_mask[0] : -1;
    pd.dst_zp_mask = ab->zps[1] ? ab->zp_mask[1] : -1;
    for (int i = 0; i < spec->npost; i++)
        if (spec->post[i].kind == LGB_POST_SUM) {
            pd.has_sum = 1;
            pd.sum_beta = spec->post[i].scale;
        }
    lg__reorder_args a = {src, want, ab->scales[0], ab->scales[1], ab->zps[0], ab->zps[1]};
    lg__reorder_ref(&pd, &a);
    /* Without a sum the kernel must write every byte: poison dst first. */
    if (!pd.has_sum) lgb_buf_poison(d, dst);
    if (lgb_execute(run->k, run->nargs, run->args, res)) {
        lgb_inject_fault(ctx->fault, d, dst);
        if (lgb_check_padding(d, dst, "dst", res->msg, sizeof res->msg) &&
            lgb_compare(d, dst, want, 0.0, "dst", res->msg, sizeof res->msg))
            res->status = LGB_PASSED;
        else
            res->status = LGB_FAILED;
    }
    free(want);
}

static void run(const lgb_ctx *ctx, const lgb_job *job, lgb_result *res) {
    int nd;
    int64_t dims[LG_MAX_NDIMS];
    lg_dtype sdt, ddt;
    if (!lgb_parse_dims(job->desc, &nd, dims)) {
        lgb_set(res, LGB_FAILED, "bad dims '%s' (want NxNx...)", job->desc);
        return;
    }
    if (!lgb_dt(job->vals[K_SDT], &sdt, res) || !lgb_dt(job->vals[K_DDT], &ddt, res)) return;
    lg_md s, d;
    lgb_attr_spec spec;
    if (!lgb_md(&s, nd, dims, sdt, job->vals[K_STAG], "src", res) ||
        !lgb_md(&d, nd, dims, ddt, job->vals[K_DTAG], "dst", res) ||
        !lgb_attr_parse(job->vals[K_SCALES], job->vals[K_ZPS], job->vals[K_POST], &spec, res) ||
        !lgb_fits((double)lg_md_size(&s) + 2.0 * (double)lg_md_size(&d), res))
        return;
    lgb_attr_bufs ab;
    lgb_run r = {0};
    void *src = NULL, *dst = NULL;
    lgb_dnnl *dn = NULL;
    if (!lgb_attr_build(&spec, &s, &d, &ab, res)) goto out;
    if (!lgb_created(lg_reorder_create(&r.k, &s, &d, ab.attr), "lg_reorder_create", res)) goto out;
    snprintf(res->impl, sizeof res->impl, "%s", lg_kernel_impl(r.k));
    src = lgb_buf_alloc(&s);
    dst = lgb_buf_alloc(&d);
    if (!src || !dst) {
        lgb_set(res, LGB_FAILED, "out of memory");
        goto out;
    }
    lgb_rng rng = lgb_rng_seed(job->repro);
    fill_src(&s, src, &rng);
    fill_src(&d, dst, &rng); /* dst_old, for a sum */
    r.args[0] = (lg_arg){LG_ARG_SRC, src};
    r.args[1] = (lg_arg){LG_ARG_DST, dst};
    r.nargs = lgb_attr_args(&ab, r.args, 2);
    res->status = LGB_PASSED;
    if (ctx->mode.correctness) check(ctx, &s, &d, &spec, &ab, &r, src, dst, res);
    if (ctx->mode.performance && res->status == LGB_PASSED) {
        lgb_quant_bufs q = {{ab.scales[0], ab.scales[1]},
                            {ab.zps[0], ab.zps[1]},
                            {ab.scale_mask[0], ab.scale_mask[1]},
                            {ab.zp_mask[0], ab.zp_mask[1]}};
        dn = lgb_dnnl_reorder(&s, &d, &spec, &q, src, NULL, res->msg, sizeof res->msg);
        lgb_perf(ctx, lgb_run_exec, &r, dn ? lgb_dnnl_run : NULL, dn, res);
        if (dn) snprintf(res->dnnl_impl, sizeof res->dnnl_impl, "%s", lgb_dnnl_impl(dn));
        res->bytes = (double)(lg_md_size(&s) + lg_md_size(&d) * (spec.npost ? 2 : 1));
    }
out:
    lgb_dnnl_destroy(dn);
    lg_kernel_destroy(r.k);
    lgb_attr_free(&ab);
    free(src);
    free(dst);
}

const lgb_driver lgb_drv_reorder = {
    "reorder",
    K_COUNT,
    {"sdt", "ddt", "stag", "dtag", "attr-scales", "attr-zero-points", "attr-post-ops", "strides",
     "oflag", "runtime-dim-mask", "attr-rounding-mode", "cross-engine"},
    {"f32", "f32", "abx", "abx", "", "", "", "", "", "0", "", "none"},
    {[K_STRIDES] = "|:",
     [K_OFLAG] = "",
     [K_RTMASK] = "0",
     [K_ROUND] = "|environment",
     [K_XENGINE] = "none"},
    run,
};
