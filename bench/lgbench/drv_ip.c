/* --ip: lg_inner_product_create on benchdnn's inner-product descriptors,
 * against the scalar reference lg__ip_ref, or timed against oneDNN's inner
 * product (GFLOP/s as benchdnn counts them: 2 x MB x OC x IC x spatial).
 *
 *   --ip --dir=FWD_B --dt=f32 --stag=any --wtag=any --dtag=any
 *        --attr-post-ops=relu mb16ic2048oc1000
 *
 * Descriptor: mbN icC [idD] [ihH] [iwW] ocO, an optional "nNAME_" prefix
 * (iw defaults to ih, ih to iw; no spatial entry: a 2D src). Inputs are
 * small integers, so every partial sum is exact in f32 and the order of
 * accumulation does not matter; the tolerance (1e-5 relative to
 * max(|want|, 1)) absorbs transcendental post-ops only. lgraph's inner
 * product takes f32 only and says so for other --dt values (skipped). */
#include "drv_common.h"
#include "lgb_dnnl.h"

#include "primitives/ip/ip.h"

#include <stdlib.h>
#include <string.h>

enum { K_DIR, K_DT, K_STAG, K_WTAG, K_DTAG, K_POST, K_MB, K_COUNT };

/* mb, ic, id, ih, iw, oc from the descriptor; false on a malformed one. */
static bool parse_desc(const char *s, int64_t v[6], int *nd) {
    static const char *const keys[6] = {"mb", "ic", "id", "ih", "iw", "oc"};
    for (int i = 0; i < 6; i++) v[i] = 0;
    v[0] = 2;
    if (*s == 'n') { /* a name: up to the next '_' */
        const char *u = strchr(s, '_');
        if (!u) return false;
        s = u + 1;
    }
    while (*s) {
        if (*s == '_') {
            s++;
            continue;
        }
        int k = 0;
        while (k < 6 && strncmp(s, keys[k], 2)) k++;
        if (k == 6) return false;
        char *e;
        long long x = strtoll(s + 2, &e, 10);
        if (e == s + 2 || x < 1) return false;
        v[k] = x;
        s = e;
    }
    if (!v[1] || !v[5]) return false;
    if (v[3] && !v[4]) v[4] = v[3];
    if (v[4] && !v[3]) v[3] = v[4];
    *nd = v[2] ? 5 : v[3] ? 4 : 2;
    if (*nd == 5 && !v[3]) v[3] = v[4] = 1;
    return true;
}

static void run(const lgb_ctx *ctx, const lgb_job *job, lgb_result *res) {
    int64_t v[6];
    int nd;
    if (!parse_desc(job->desc, v, &nd)) {
        lgb_set(res, LGB_FAILED, "bad problem '%s' (want mbNicCocO, optionally idD ihH iwW)",
                job->desc);
        return;
    }
    long long mb;
    if (!lgb_parse_int(job->vals[K_MB], 0, INT64_MAX, &mb)) {
        lgb_set(res, LGB_FAILED, "bad --mb '%s'", job->vals[K_MB]);
        return;
    }
    if (mb > 0) v[0] = mb;
    lg_prop prop;
    bool with_bias;
    lg_dtype dt;
    if (!lgb_parse_dir(job->vals[K_DIR], &prop, &with_bias)) {
        lgb_set(res, LGB_FAILED, "bad --dir '%s'", job->vals[K_DIR]);
        return;
    }
    if (prop != LG_FORWARD) {
        lgb_skip(res, "backward out of scope", "lgraph's inner product is forward only");
        return;
    }
    if (!lgb_dt(job->vals[K_DT], &dt, res)) return;
    if (dt != LG_F32) {
        lgb_skip(res, "inner product data types other than f32 not implemented in lgraph",
                 "lgraph's inner product takes f32 only, not %s", lg_dtype_str(dt));
        return;
    }
    int64_t sd[5] = {v[0], v[1]}, wd[5] = {v[5], v[1]}, dd[2] = {v[0], v[5]}, oc = v[5];
    for (int i = 2; i < nd; i++) sd[i] = wd[i] = v[2 + (5 - nd) + (i - 2)];
    lgb_attr_spec spec;
    lg_md s, w, b, d;
    if (!lgb_attr_parse("", "", job->vals[K_POST], &spec, res) ||
        !lgb_md(&s, nd, sd, dt, job->vals[K_STAG], "src", res) ||
        !lgb_md(&w, nd, wd, dt, job->vals[K_WTAG], "weights", res) ||
        !lgb_md(&b, 1, &oc, LG_F32, "a", "bias", res) ||
        !lgb_md(&d, 2, dd, dt, job->vals[K_DTAG], "dst", res))
        return;
    double k = (double)lg_md_size(&s) / 4.0 / (double)v[0];
    if (!lgb_fits(4.0 * ((double)v[0] * k * 2 + (double)oc * k + 3.0 * (double)v[0] * oc), res))
        return;
    lgb_attr_bufs ab;
    lgb_run r = {0};
    lgb_wbufs wb = {0};
    lgb_dnnl *dn = NULL;
    if (!lgb_attr_build(&spec, &s, &d, &ab, res)) goto done;
    if (!lgb_created(lg_inner_product_create(&r.k, &s, &w, with_bias ? &b : NULL, &d, ab.attr),
                     "lg_inner_product_create", res))
        goto done;
    snprintf(res->impl, sizeof res->impl, "%s", lg_kernel_impl(r.k));
    if (!lgb_wbufs_init(&wb, &r, &b, with_bias, 1.0f, job->repro, res)) goto done;
    res->status = LGB_PASSED;
    bool has_sum = false;
    for (int i = 0; i < spec.npost; i++) has_sum = has_sum || spec.post[i].kind == LGB_POST_SUM;
    if (ctx->mode.correctness) {
        lg__ip_pd pd;
        if (lg__ip_query(&wb.sq, &wb.wq, with_bias ? &b : NULL, &wb.dq, ab.attr, NULL, &pd) !=
            LG_OK) {
            lgb_set(res, LGB_FAILED, "the reference refuses the problem");
            goto done;
        }
        lg__ip_tabs t;
        if (lg__ip_tabs_init(&pd, &t) != LG_OK) {
            lgb_set(res, LGB_FAILED, "out of memory (reference tables)");
            goto done;
        }
        memcpy(wb.want, wb.dst, lg_md_size(&wb.dq));
        lg__ip_ref(&pd, &t, wb.src, wb.wei, with_bias ? wb.bias : NULL, wb.want);
        lg__ip_tabs_free(&t);
        lgb_wbufs_check(ctx, &wb, &r, has_sum, res);
    }
    if (ctx->mode.performance && res->status == LGB_PASSED) {
        dn = lgb_dnnl_ip(&s, &w, with_bias ? &b : NULL, &d, &spec, wb.src, wb.wei, wb.bias, NULL,
                         res->msg, sizeof res->msg);
        lgb_perf(ctx, lgb_run_exec, &r, dn ? lgb_dnnl_run : NULL, dn, res);
        if (dn) snprintf(res->dnnl_impl, sizeof res->dnnl_impl, "%s", lgb_dnnl_impl(dn));
        res->flops = 2.0 * (double)v[0] * (double)oc * k;
    }
done:
    lgb_dnnl_destroy(dn);
    lg_kernel_destroy(r.k);
    lgb_attr_free(&ab);
    lgb_wbufs_free(&wb);
}

const lgb_driver lgb_drv_ip = {
    "ip",
    K_COUNT,
    {"dir", "dt", "stag", "wtag", "dtag", "attr-post-ops", "mb"},
    {"FWD_B", "f32", "any", "any", "any", "", "0"},
    {0},
    run,
};
