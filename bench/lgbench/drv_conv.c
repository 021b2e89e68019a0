/* --conv: lg_conv_create on benchdnn's problem descriptors, against the
 * scalar reference lg__conv_ref (padding of blocked outputs included), or
 * timed against oneDNN's convolution (GFLOP/s as benchdnn counts them).
 *
 *   --conv --dir=FWD_B --cfg=f32 --stag=any --wtag=any --dtag=any
 *          --attr-post-ops=sum:1+relu mb8ic64ih56oc64oh56kh3ph1
 *
 * Inputs are small integers (bias in quarter steps), so every partial sum is
 * exact in f32 whatever the order of accumulation: a path that sums in
 * another order than the reference must still match it, and the tolerance
 * (1e-5 relative, against max(|want|, 1)) only absorbs the vector math of
 * transcendental post-ops. --cfg names the data types (f32, or src/wei/dst
 * concatenated as benchdnn writes them, e.g. u8s8f32); lgraph's conv takes
 * f32 only and says so for the others (skipped). benchdnn's --dt=T or
 * --dt=SRC:WEI:DST overrides --cfg. */
#include "conv_desc.h"
#include "drv_common.h"
#include "lgb_dnnl.h"

#include "primitives/conv/conv.h"

#include <stdlib.h>
#include <string.h>

enum {
    K_DIR,
    K_CFG,
    K_STAG,
    K_WTAG,
    K_DTAG,
    K_POST,
    K_MB,
    K_DT,
    K_BIADT,
    K_ALG,
    K_SCALES,
    K_ZPS,
    K_FPMATH,
    K_STRIDES,
    K_ROUND,
    K_COUNT
};

/* "f32" (all three) or three type names run together ("u8s8f32"). */
static bool parse_cfg(const char *s, lg_dtype dt[3]) {
    static const char *const names[] = {"bf16", "f32", "f16", "s32", "s8", "u8"};
    if (lgb_parse_dt(s, &dt[0])) {
        dt[1] = dt[2] = dt[0];
        return true;
    }
    for (int k = 0; k < 3; k++) {
        size_t i = 0;
        while (i < sizeof names / sizeof names[0] && strncmp(s, names[i], strlen(names[i]))) i++;
        if (i == sizeof names / sizeof names[0]) return false;
        lgb_parse_dt(names[i], &dt[k]);
        s += strlen(names[i]);
    }
    return *s == '\0';
}

/* The reference into want (which holds dst_old for a sum). */
static bool reference(const lg_conv_params *p, const lg_md *s, const lg_md *w, const lg_md *b,
                      const lg_md *d, const lgb_attr_spec *spec, const void *src, const void *wei,
                      const void *bias, void *want, lgb_result *res) {
    lg__conv_pd pd;
    memset(&pd, 0, sizeof pd);
    pd.src = *s;
    pd.wei = *w;
    if (b) pd.bias = *b;
    pd.dst = *d;
    pd.has_bias = b != NULL;
    pd.nsp = s->ndims - 2;
    pd.groups = p->groups;
    for (int i = 0; i < pd.nsp; i++) {
        pd.strides[i] = p->strides[i];
        pd.dilates[i] = p->dilates[i];
        pd.pad_l[i] = p->pad_l[i];
        pd.pad_r[i] = p->pad_r[i];
    }
    pd.npost = spec->npost;
    for (int i = 0; i < spec->npost; i++) {
        const lgb_post *q = &spec->post[i];
        pd.post[i].kind = q->kind == LGB_POST_SUM ? LG_POST_SUM : LG_POST_ELTWISE;
        pd.post[i].scale = q->scale;
        pd.post[i].alg = q->alg;
        pd.post[i].alpha = q->alpha;
        pd.post[i].beta = q->beta;
    }
    lg__conv_tabs t;
    if (lg__conv_tabs_init(&pd, &t) != LG_OK) {
        lgb_set(res, LGB_FAILED, "out of memory (reference tables)");
        return false;
    }
    lg__conv_ref(&pd, &t, src, wei, bias, want);
    lg__conv_tabs_free(&t);
    return true;
}

static void run(const lgb_ctx *ctx, const lgb_job *job, lgb_result *res) {
    lgb_conv_desc cd;
    char err[200];
    if (!lgb_conv_desc_parse(job->desc, &cd, err, sizeof err)) {
        lgb_set(res, LGB_FAILED, "bad problem: %s", err);
        return;
    }
    long long mb = atoll(job->vals[K_MB]);
    if (mb > 0) cd.mb = mb;
    lg_prop prop;
    bool with_bias;
    lg_dtype dt[3];
    if (!lgb_parse_dir(job->vals[K_DIR], &prop, &with_bias)) {
        lgb_set(res, LGB_FAILED, "bad --dir '%s'", job->vals[K_DIR]);
        return;
    }
    if (prop != LG_FORWARD) {
        lgb_skip(res, "backward out of scope", "lgraph's conv is forward only");
        return;
    }
    if (job->vals[K_DT][0]) { /* --dt=T or --dt=SRC:WEI:DST */
        char f[3][32];
        const char *p0 = job->vals[K_DT];
        int n = 0;
        for (;;) {
            const char *e = strchr(p0, ':');
            size_t len = e ? (size_t)(e - p0) : strlen(p0);
            if (n == 3 || len >= sizeof f[0]) {
                lgb_set(res, LGB_FAILED, "bad --dt '%s'", job->vals[K_DT]);
                return;
            }
            memcpy(f[n], p0, len);
            f[n++][len] = '\0';
            if (!e) break;
            p0 = e + 1;
        }
        for (int i = 0; i < 3; i++)
            if (!lgb_dt(f[n == 3 ? i : 0], &dt[i], res)) return;
    } else if (!parse_cfg(job->vals[K_CFG], dt)) {
        lgb_set(res, LGB_FAILED, "bad --cfg '%s'", job->vals[K_CFG]);
        return;
    }
    if (dt[0] != LG_F32 || dt[1] != LG_F32 || dt[2] != LG_F32) {
        lgb_skip(res, "conv data types other than f32 not implemented in lgraph",
                 "lgraph's conv takes f32 only, not %s:%s:%s", lg_dtype_str(dt[0]),
                 lg_dtype_str(dt[1]), lg_dtype_str(dt[2]));
        return;
    }
    lg_conv_params p;
    int64_t sdims[5], wdims[6], ddims[5];
    int wnd;
    if (!lgb_conv_desc_lg(&cd, &p, sdims, wdims, &wnd, ddims, err, sizeof err)) {
        lgb_skip(res, "conv geometry not implemented in lgraph", "%s", err);
        return;
    }
    lgb_attr_spec spec;
    lg_md s, w, b, d;
    int64_t oc = cd.oc;
    if (!lgb_attr_parse("", "", job->vals[K_POST], &spec, res) ||
        !lgb_md(&s, cd.ndims, sdims, dt[0], job->vals[K_STAG], "src", res) ||
        !lgb_md(&w, wnd, wdims, dt[1], job->vals[K_WTAG], "weights", res) ||
        !lgb_md(&b, 1, &oc, LG_F32, "a", "bias", res) ||
        !lgb_md(&d, cd.ndims, ddims, dt[2], job->vals[K_DTAG], "dst", res))
        return;
    {
        double n =
            (double)cd.mb * (double)cd.ic * (double)cd.i[0] * (double)cd.i[1] * (double)cd.i[2] +
            2.0 * (double)cd.mb * (double)cd.oc * (double)cd.o[0] * (double)cd.o[1] *
                (double)cd.o[2] +
            (double)cd.oc * (double)cd.ic / (double)(cd.g ? cd.g : 1) * (double)cd.k[0] *
                (double)cd.k[1] * (double)cd.k[2];
        if (!lgb_fits(4.0 * n, res)) return;
    }
    lgb_attr_bufs ab;
    lgb_run r = {0};
    lgb_wbufs wb = {0};
    lgb_dnnl *dn = NULL;
    if (!lgb_attr_build(&spec, &s, &d, &ab, res)) goto done;
    if (!lgb_created(lg_conv_create(&r.k, &p, &s, &w, with_bias ? &b : NULL, &d, ab.attr),
                     "lg_conv_create", res))
        goto done;
    snprintf(res->impl, sizeof res->impl, "%s", lg_kernel_impl(r.k));
    if (!lgb_wbufs_init(&wb, &r, &b, with_bias, 0.25f, job->repro, res)) goto done;
    res->status = LGB_PASSED;
    bool has_sum = false;
    for (int i = 0; i < spec.npost; i++) has_sum = has_sum || spec.post[i].kind == LGB_POST_SUM;
    if (ctx->mode.correctness) {
        memcpy(wb.want, wb.dst, lg_md_size(&wb.dq));
        if (!reference(&p, &wb.sq, &wb.wq, with_bias ? &b : NULL, &wb.dq, &spec, wb.src, wb.wei,
                       with_bias ? wb.bias : NULL, wb.want, res))
            goto done;
        lgb_wbufs_check(ctx, &wb, &r, has_sum, res);
    }
    if (ctx->mode.performance && res->status == LGB_PASSED) {
        /* oneDNN gets the layouts as asked: "any" lets it choose its own. */
        dn = lgb_dnnl_conv(&p, &s, &w, with_bias ? &b : NULL, &d, &spec, wb.src, wb.wei, wb.bias,
                           NULL, res->msg, sizeof res->msg);
        lgb_perf(ctx, lgb_run_exec, &r, dn ? lgb_dnnl_run : NULL, dn, res);
        if (dn) snprintf(res->dnnl_impl, sizeof res->dnnl_impl, "%s", lgb_dnnl_impl(dn));
        res->flops = lgb_conv_desc_flops(&cd);
    }
done:
    lgb_dnnl_destroy(dn);
    lg_kernel_destroy(r.k);
    lgb_attr_free(&ab);
    lgb_wbufs_free(&wb);
}

const lgb_driver lgb_drv_conv = {
    "conv",
    K_COUNT,
    {"dir", "cfg", "stag", "wtag", "dtag", "attr-post-ops", "mb", "dt", "bia-dt", "alg",
     "attr-scales", "attr-zero-points", "attr-fpmath", "strides", "attr-rounding-mode"},
    {"FWD_B", "f32", "any", "any", "any", "", "0", "", "f32", "direct", "", "", "", "", ""},
    /* fpmath modes only allow lower precision: lgraph's f32 result meets
     * every one of them. */
    {[K_BIADT] = "f32|undef",
     [K_ALG] = "direct|auto|DIRECT|AUTO",
     [K_SCALES] = "",
     [K_ZPS] = "",
     [K_STRIDES] = "|::",
     [K_ROUND] = "|environment"},
    run,
};
