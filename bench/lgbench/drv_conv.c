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
 * concatenated as benchdnn writes them, e.g. u8s8f32); benchdnn's --dt=T or
 * --dt=SRC:WEI:DST overrides --cfg. Other types and the quantisation
 * attributes (--attr-scales on src / wei / dst, --attr-zero-points, sums
 * with a zero point and type, binary post-ops) run lg_conv_create's typed
 * path and are checked against its scalar reference lg__convq_ref (s32-exact
 * accumulation for int8). */
#include "conv_desc.h"
#include "drv_common.h"
#include "drv_po.h"
#include "lgb_dnnl.h"

#include "primitives/conv/conv.h"
#include "primitives/conv/quant.h"

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

/* The three attribute knobs, conv's weights scales and zero points
 * included; SKIPPED (what lgraph lacks) or FAILED into res. */
static bool parse_attrs(const lgb_job *job, lgb_attr_spec *spec, lgb_result *res) {
    char zps[256];
    /* ARG:POLICY:ZP:DT with DT s8 / u8 / s32 only says how benchdnn stores
     * the zero point ZP: lgraph takes the same value as s32. */
    snprintf(zps, sizeof zps, "%s", job->vals[K_ZPS]);
    for (char *q = zps; (q = strchr(q, ':')) != NULL; q++) {
        static const char *const dts[3] = {":s8", ":u8", ":s32"};
        for (int i = 0; i < 3; i++) {
            size_t n = strlen(dts[i]);
            bool number = q > zps && ((q[-1] >= '0' && q[-1] <= '9') || q[-1] == '*');
            if (number && !strncmp(q, dts[i], n) && (q[n] == '\0' || q[n] == '+')) {
                memmove(q, q + n, strlen(q + n) + 1);
                break;
            }
        }
    }
    return lgb_attr_parse_conv(job->vals[K_SCALES], zps, job->vals[K_POST], spec, res);
}

/* Whether the problem takes lg_conv_create's typed path (quant.h). */
static bool typed(const lg_dtype dt[3], const lgb_attr_spec *a) {
    bool q = dt[0] != LG_F32 || dt[1] != LG_F32 || dt[2] != LG_F32 || a->scales[0].set ||
             a->scales[1].set || a->zps[0].set || a->zps[1].set || a->wei_scale.set ||
             a->wei_zp.set || a->src1_scale.set;
    for (int i = 0; i < a->npost; i++)
        q = q || a->post[i].kind == LGB_POST_BINARY || a->post[i].kind == LGB_POST_PRELU ||
            (a->post[i].kind == LGB_POST_ELTWISE && a->post[i].escale != 1.0f) ||
            (a->post[i].kind == LGB_POST_SUM && (a->post[i].zp || a->post[i].sdt != LG_DT_UNDEF));
    return q;
}

/* An lg_attr for the typed path and its run-time values. */
typedef struct typed_attr {
    lg_attr *attr;
    float *scale[3];
    int32_t *zp[3];
    void *src1[LG_MAX_POST_OPS];
    lg_md src1_md[LG_MAX_POST_OPS];
} typed_attr;

static void typed_attr_free(typed_attr *t) {
    lg_attr_destroy(t->attr);
    for (int i = 0; i < 3; i++) {
        free(t->scale[i]);
        free(t->zp[i]);
    }
    for (int i = 0; i < LG_MAX_POST_OPS; i++) free(t->src1[i]);
    memset(t, 0, sizeof *t);
}

/* The conv mask of one quantisation request on slot i (LG_CQ_*): weights
 * per_oc (policy mask 2) is oneDNN's 1 (3 with groups); -2 when lgraph has no
 * such mask (the library refuses it: SKIPPED there). */
static int quant_mask(const lgb_arg_quant *q, int i, int64_t groups, int ndims) {
    int mask;
    if (!lgb_mask_resolve(q->mask, ndims, &mask)) return -2;
    if (i == LG_CQ_WEI && mask == 2) return groups > 1 ? 3 : 1;
    return mask;
}

static bool typed_attr_build(const lgb_attr_spec *spec, int64_t groups, int64_t ic,
                             const lg_md *dst, typed_attr *t, lgb_result *res) {
    memset(t, 0, sizeof *t);
    lg_status st = lg_attr_create(&t->attr);
    if (st != LG_OK) return lgb_created(st, "lg_attr_create", res);
    if (spec->src1_scale.set)
        return lgb_skip(res, "attribute not implemented in lgraph", "src1 scales"), false;
    static const int args[3] = {LG_ARG_SRC, LG_ARG_WEIGHTS, LG_ARG_DST};
    const lgb_arg_quant *sc[3] = {&spec->scales[0], &spec->wei_scale, &spec->scales[1]};
    const lgb_arg_quant *zp[3] = {&spec->zps[0], &spec->wei_zp, &spec->zps[1]};
    for (int i = 0; i < 3; i++) {
        for (int z = 0; z < 2; z++) {
            const lgb_arg_quant *q = z ? zp[i] : sc[i];
            if (!q->set) continue;
            int mask = quant_mask(q, i, groups, dst->ndims);
            if (mask == -2)
                return lgb_skip(res, "invalid case (benchdnn skips it too)",
                                "quantisation policy names a dim the tensor lacks"),
                       false;
            st = z ? lg_attr_set_zero_points(t->attr, args[i], mask)
                   : lg_attr_set_scales(t->attr, args[i], mask);
            if (st != LG_OK) return lgb_created(st, "lg_attr_set_*", res);
            int64_t n = 1; /* per channel: dim 1 of src / dst, the output channels of weights */
            if (mask) n = i == LG_CQ_SRC ? ic : dst->dims[1];
            void *v = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
            if (!v) return lgb_set(res, LGB_FAILED, "out of memory"), false;
            for (int64_t k = 0; k < n; k++) {
                if (z)
                    ((int32_t *)v)[k] = mask ? lgb_zp_value(q->value, k) : (int32_t)q->value;
                else
                    ((float *)v)[k] = mask ? lgb_scale_value(q->value, k) : q->value;
            }
            if (z)
                t->zp[i] = v;
            else
                t->scale[i] = v;
        }
    }
    for (int i = 0; i < spec->npost; i++) {
        const lgb_post *p = &spec->post[i];
        if (p->kind == LGB_POST_SUM) {
            st = lg_attr_append_sum_dt(t->attr, p->scale, p->zp, p->sdt);
        } else if (p->kind == LGB_POST_ELTWISE) {
            if (p->alg == LG_ELTWISE_SOFT_RELU && p->alpha == 0)
                return lgb_skip(res, "invalid case (benchdnn skips it too)",
                                "soft_relu with alpha 0"),
                       false;
            st = lg_attr_append_eltwise(t->attr, p->alg, p->alpha, p->beta);
            /* benchdnn's ELTWISE:ALPHA:BETA:SCALE, oneDNN 2.x's eltwise
             * post-op scale: the result times SCALE, a linear op after it */
            if (st == LG_OK && p->escale != 1.0f)
                st = lg_attr_append_eltwise(t->attr, LG_ELTWISE_LINEAR, p->escale, 0.0f);
        } else if (p->kind == LGB_POST_PRELU) {
            if (!lgb_po_prelu(p, i, dst, t->attr, res)) return false;
            st = LG_OK;
        } else {
            lg_md m;
            if (!lgb_po_src1_md(p, i, dst, &m, res)) return false;
            st = lg_attr_append_binary(t->attr, p->balg, &m);
        }
        if (st != LG_OK) return lgb_created(st, "lg_attr_append_*", res);
    }
    return true;
}

/* A typed / quantised problem: lg_conv_create against lg__convq_ref. */
static void run_typed(const lgb_ctx *ctx, const lgb_job *job, const lg_conv_params *p,
                      const lg_md *s, const lg_md *w, const lg_md *b, const lg_md *d,
                      const lgb_attr_spec *spec, lgb_result *res) {
    typed_attr ta;
    lgb_run r = {0};
    lgb_wbufs wb = {0};
    if (!typed_attr_build(spec, p->groups, s->dims[1], d, &ta, res)) goto done;
    if (!lgb_created(lg_conv_create(&r.k, p, s, w, b, d, ta.attr), "lg_conv_create", res))
        goto done;
    snprintf(res->impl, sizeof res->impl, "%s", lg_kernel_impl(r.k));
    lg_md bias_md;
    int64_t oc = d->dims[1];
    lg_md_init_tag(&bias_md, 1, &oc, LG_F32, "a");
    if (!lgb_wbufs_init(&wb, &r, &bias_md, b != NULL, 0.25f, job->repro, res)) goto done;
    /* Sources within their types' ranges (lgb_wbufs_init saturates). */
    static const int qargs[3] = {LG_ARG_SRC, LG_ARG_WEIGHTS, LG_ARG_DST};
    for (int i = 0; i < 3; i++) {
        if (ta.scale[i]) r.args[r.nargs++] = (lg_arg){LG_ARG_ATTR_SCALES | qargs[i], ta.scale[i]};
        if (ta.zp[i]) r.args[r.nargs++] = (lg_arg){LG_ARG_ATTR_ZERO_POINTS | qargs[i], ta.zp[i]};
    }
    lgb_rng rng = lgb_rng_seed(job->repro);
    for (int i = 0; i < spec->npost; i++) {
        const bool prelu = spec->post[i].kind == LGB_POST_PRELU;
        const int arg = prelu ? LG_ARG_ATTR_POST_OP_WEIGHTS(i) : LG_ARG_ATTR_POST_OP_SRC1(i);
        if (spec->post[i].kind != LGB_POST_BINARY && !prelu) continue;
        if (lg_kernel_query_md(r.k, arg, &ta.src1_md[i]) != LG_OK) {
            lgb_set(res, LGB_FAILED, "lg_kernel_query_md (post-op %d): %s", i, lg_last_error());
            goto done;
        }
        ta.src1[i] = lgb_buf_alloc(&ta.src1_md[i]);
        if (!ta.src1[i] || r.nargs >= LGB_MAX_ARGS) {
            lgb_set(res, LGB_FAILED, "out of memory or too many arguments");
            goto done;
        }
        lg_dtype t = ta.src1_md[i].dtype;
        if (prelu) /* slopes of both signs */
            lgb_buf_fill(&ta.src1_md[i], ta.src1[i], &rng, -2, 2, false);
        else
            lgb_buf_fill(&ta.src1_md[i], ta.src1[i], &rng, t == LG_U8 ? 0 : -4, 5,
                         t == LG_S8 || t == LG_U8 || t == LG_S32);
        r.args[r.nargs++] = (lg_arg){arg, ta.src1[i]};
    }
    res->status = LGB_PASSED;
    bool has_sum = false;
    for (int i = 0; i < spec->npost; i++) has_sum = has_sum || spec->post[i].kind == LGB_POST_SUM;
    if (ctx->mode.correctness) {
        lg__convq_pd q;
        if (lg__convq_query(p, &wb.sq, &wb.wq, b, &wb.dq, ta.attr, "lgbench", &q) != LG_OK) {
            lgb_set(res, LGB_FAILED, "reference problem: %s", lg_last_error());
            goto done;
        }
        lg__conv_tabs t;
        if (lg__conv_tabs_init(&q.f, &t) != LG_OK) {
            lgb_set(res, LGB_FAILED, "out of memory (reference tables)");
            goto done;
        }
        memcpy(wb.want, wb.dst, lg_md_size(&wb.dq));
        lg__convq_args a;
        memset(&a, 0, sizeof a);
        a.src = wb.src;
        a.wei = wb.wei;
        a.bias = b ? wb.bias : NULL;
        a.dst = wb.want;
        for (int i = 0; i < 3; i++) {
            a.scale[i] = ta.scale[i];
            a.zp[i] = ta.zp[i];
        }
        for (int i = 0; i < LG_MAX_POST_OPS; i++) a.src1[i] = ta.src1[i];
        lg__convq_ref(&q, &t, &a);
        lg__conv_tabs_free(&t);
        lgb_wbufs_check(ctx, &wb, &r, has_sum, res);
    }
    if (ctx->mode.performance && res->status == LGB_PASSED) {
        lgb_perf(ctx, lgb_run_exec, &r, NULL, NULL, res);
        res->flops = 0;
    }
done:
    lg_kernel_destroy(r.k);
    typed_attr_free(&ta);
    lgb_wbufs_free(&wb);
}

static void run(const lgb_ctx *ctx, const lgb_job *job, lgb_result *res) {
    lgb_conv_desc cd;
    char err[200];
    if (!lgb_conv_desc_parse(job->desc, &cd, err, sizeof err)) {
        lgb_set(res, LGB_FAILED, "bad problem: %s", err);
        return;
    }
    long long mb;
    if (!lgb_parse_int(job->vals[K_MB], 0, INT64_MAX, &mb)) {
        lgb_set(res, LGB_FAILED, "bad --mb '%s'", job->vals[K_MB]);
        return;
    }
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
    for (int i = 0; i < 3; i++)
        if (dt[i] == LG_F8_E4M3 || dt[i] == LG_F8_E5M2) {
            lgb_skip(res, "data type out of scope (f64, f8, f4, int4)", "data type %s",
                     lg_dtype_str(dt[i]));
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
    if (!parse_attrs(job, &spec, res) ||
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
    if (typed(dt, &spec)) {
        run_typed(ctx, job, &p, &s, &w, with_bias ? &b : NULL, &d, &spec, res);
        return;
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
     [K_STRIDES] = "|::",
     [K_ROUND] = "|environment"},
    run,
};
