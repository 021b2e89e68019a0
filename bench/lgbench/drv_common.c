/* Helpers shared by the drivers (see drv_common.h). */
#include "drv_common.h"

#include "memory/convert.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool lgb_fits(double bytes, lgb_result *res) {
    static double limit;
    if (limit == 0) {
        long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
        limit = pages > 0 && psz > 0 ? 0.5 * (double)pages * (double)psz : 4e9;
    }
    if (bytes <= limit) return true;
    lgb_skip(res, "problem too large for memory",
             "needs %.3g GB, the limit is %.3g GB (half of RAM)", bytes * 1e-9, limit * 1e-9);
    return false;
}

bool lgb_dt(const char *s, lg_dtype *dt, lgb_result *res) {
    if (lgb_parse_dt(s, dt)) return true;
    if (lgb_dt_out_of_scope(s))
        lgb_skip(res, "data type out of scope (f64, f8, f4, int4)", "data type %s", s);
    else
        lgb_set(res, LGB_FAILED, "unknown data type '%s'", s);
    return false;
}

bool lgb_created(lg_status s, const char *what, lgb_result *res) {
    if (s == LG_OK) return true;
    lgb_set(res, s == LG_UNIMPLEMENTED ? LGB_SKIPPED : LGB_FAILED, "%s: %s: %s", what,
            lg_status_str(s), lg_last_error());
    return false;
}

bool lgb_execute(const lg_kernel *k, int nargs, const lg_arg *args, lgb_result *res) {
    lg_status s = lg_kernel_execute(k, nargs, args);
    if (s == LG_OK) return true;
    lgb_set(res, LGB_FAILED, "lg_kernel_execute: %s: %s", lg_status_str(s), lg_last_error());
    return false;
}

/* Values a mask selects on md; q's groups divide the last q->gndims dims
 * (q NULL: none). */
static int64_t mask_count(const lg_md *md, int mask, const lgb_arg_quant *q) {
    int64_t n = 1;
    for (int d = 0; d < md->ndims; d++) {
        int g = q ? d - (md->ndims - q->gndims) : -1;
        if (mask & (1 << d)) n *= md->dims[d] / (g >= 0 && q->groups[g] > 1 ? q->groups[g] : 1);
    }
    return n;
}

/* Whether q asks for more than plain f32 scales / s32 zero points. */
static bool quant_ex(const lgb_arg_quant *q, lg_dtype def) {
    for (int g = 0; g < q->gndims; g++)
        if (q->groups[g] > 1) return true;
    return q->dt != def;
}

/* Groups must divide their dims (benchdnn's own check): otherwise the
 * problem is invalid, FAILED as a bad batch line. */
static bool groups_ok(const lg_md *md, const lgb_arg_quant *q) {
    if (q->gndims > md->ndims) return false;
    for (int g = 0; g < q->gndims; g++)
        if (md->dims[md->ndims - q->gndims + g] % q->groups[g]) return false;
    return true;
}

bool lgb_attr_build(const lgb_attr_spec *spec, const lg_md *src, const lg_md *dst, lgb_attr_bufs *b,
                    lgb_result *res) {
    memset(b, 0, sizeof *b);
    lg_status s = lg_attr_create(&b->attr);
    if (s != LG_OK) return lgb_created(s, "lg_attr_create", res);
    for (int i = 0; i < 2; i++) {
        const lg_md *md = i ? dst : src;
        int arg = i ? LG_ARG_DST : LG_ARG_SRC;
        const char *name = i ? "dst" : "src";
        if (spec->scales[i].set) {
            int mask;
            if (!lgb_mask_resolve(spec->scales[i].mask, md->ndims, &mask)) {
                lgb_set(res, LGB_FAILED, "%s scale policy names a dim a %dD tensor lacks", name,
                        md->ndims);
                return false;
            }
            const lgb_arg_quant *q = &spec->scales[i];
            bool ex = quant_ex(q, LG_F32);
            if (ex && !groups_ok(md, q))
                return lgb_set(res, LGB_FAILED, "%s scale groups do not divide the dims", name),
                       false;
            s = ex ? lg_attr_set_scales_ex(b->attr, arg, mask, q->gndims, q->groups, q->dt)
                   : lg_attr_set_scales(b->attr, arg, mask);
            if (s != LG_OK) return lgb_created(s, "lg_attr_set_scales", res);
            int64_t n = mask_count(md, mask, q);
            b->scale_mask[i] = mask;
            /* typed values; at least 4 bytes, 4-aligned as the kernels ask */
            b->scales[i] = malloc(4 + lg_dtype_size(q->dt) * (size_t)(n ? n : 1));
            if (!b->scales[i]) return lgb_set(res, LGB_FAILED, "out of memory"), false;
            for (int64_t k = 0; k < n; k++)
                lg__store_f32(b->scales[i], q->dt, k,
                              mask ? lgb_scale_value(q->value, k) : q->value);
        }
        if (spec->zps[i].set) {
            int mask;
            if (!lgb_mask_resolve(spec->zps[i].mask, md->ndims, &mask)) {
                lgb_set(res, LGB_FAILED, "%s zero-point policy names a dim a %dD tensor lacks",
                        name, md->ndims);
                return false;
            }
            const lgb_arg_quant *q = &spec->zps[i];
            bool ex = quant_ex(q, LG_S32);
            if (ex && !groups_ok(md, q))
                return lgb_set(res, LGB_FAILED, "%s zero-point groups do not divide the dims",
                               name),
                       false;
            s = ex ? lg_attr_set_zero_points_ex(b->attr, arg, mask, q->gndims, q->groups, q->dt)
                   : lg_attr_set_zero_points(b->attr, arg, mask);
            if (s != LG_OK) return lgb_created(s, "lg_attr_set_zero_points", res);
            int64_t n = mask_count(md, mask, q);
            b->zp_mask[i] = mask;
            b->zps[i] = malloc(4 + lg_dtype_size(q->dt) * (size_t)(n ? n : 1));
            if (!b->zps[i]) return lgb_set(res, LGB_FAILED, "out of memory"), false;
            for (int64_t k = 0; k < n; k++)
                lg__store_f32(b->zps[i], q->dt, k, (float)lgb_zp_value(q->value, k));
        }
    }
    if (spec->src1_scale.set)
        return lgb_skip(res, "attribute not implemented in lgraph", "src1 scales"), false;
    for (int i = 0; i < spec->npost; i++) {
        const lgb_post *p = &spec->post[i];
        if (p->kind == LGB_POST_BINARY || p->kind == LGB_POST_PRELU)
            return lgb_skip(res, "attribute not implemented in lgraph",
                            "%s post-op (eltwise, binary and conv kernels only)",
                            p->kind == LGB_POST_PRELU ? "prelu" : "binary"),
                   false;
        if (p->kind == LGB_POST_SUM && (p->zp || p->sdt != LG_DT_UNDEF))
            return lgb_skip(res, "attribute not implemented in lgraph",
                            "a sum with a zero point or a data type (conv only)"),
                   false;
        if (p->kind == LGB_POST_ELTWISE && p->escale != 1.0f)
            return lgb_skip(res, "attribute not implemented in lgraph", "eltwise post-op scale"),
                   false;
        if (p->kind == LGB_POST_ELTWISE && p->alg == LG_ELTWISE_SOFT_RELU && p->alpha == 0)
            return lgb_skip(res, "invalid case (benchdnn skips it too)", "soft_relu with alpha 0"),
                   false;
        s = p->kind == LGB_POST_SUM ? lg_attr_append_sum(b->attr, p->scale)
                                    : lg_attr_append_eltwise(b->attr, p->alg, p->alpha, p->beta);
        if (s != LG_OK) return lgb_created(s, "lg_attr_append_*", res);
    }
    return true;
}

int lgb_attr_args(const lgb_attr_bufs *b, lg_arg *args, int n) {
    for (int i = 0; i < 2; i++) {
        int arg = i ? LG_ARG_DST : LG_ARG_SRC;
        if (b->scales[i]) args[n++] = (lg_arg){LG_ARG_ATTR_SCALES | arg, b->scales[i]};
        if (b->zps[i]) args[n++] = (lg_arg){LG_ARG_ATTR_ZERO_POINTS | arg, b->zps[i]};
    }
    return n;
}

void lgb_attr_free(lgb_attr_bufs *b) {
    lg_attr_destroy(b->attr);
    for (int i = 0; i < 2; i++) {
        free(b->scales[i]);
        free(b->zps[i]);
    }
    memset(b, 0, sizeof *b);
}

static bool parse_spec(const char *scales, const char *zps, const char *post, bool take_wei,
                       lgb_attr_spec *spec, lgb_result *res) {
    char err[200];
    memset(spec, 0, sizeof *spec);
    spec->take_wei = take_wei;
    if (!lgb_parse_scales(scales, spec, err, sizeof err) ||
        !lgb_parse_zero_points(zps, spec, err, sizeof err) ||
        !lgb_parse_post_ops(post, spec, err, sizeof err)) {
        size_t m = strlen(LGB_UNIMPL_MARK), o = strlen(LGB_OOS_MARK);
        if (!strncmp(err, LGB_UNIMPL_MARK, m))
            lgb_skip(res, "attribute not implemented in lgraph", "%s", err + m);
        else if (!strncmp(err, LGB_OOS_MARK, o))
            lgb_skip(res, "data type out of scope (f64, f8, f4, int4)", "%s", err + o);
        else
            lgb_set(res, LGB_FAILED, "bad attribute: %s", err);
        return false;
    }
    return true;
}

bool lgb_attr_parse(const char *scales, const char *zps, const char *post, lgb_attr_spec *spec,
                    lgb_result *res) {
    return parse_spec(scales, zps, post, false, spec, res);
}

bool lgb_attr_parse_conv(const char *scales, const char *zps, const char *post, lgb_attr_spec *spec,
                         lgb_result *res) {
    return parse_spec(scales, zps, post, true, spec, res);
}

bool lgb_md(lg_md *md, int ndims, const int64_t *dims, lg_dtype dt, const char *tag,
            const char *what, lgb_result *res) {
    char t[160];
    lgb_tag_for_rank(tag, ndims, t, sizeof t);
    lg_status s = lg_md_init_tag(md, ndims, dims, dt, t);
    if (s == LG_OK) return true;
    lgb_set(res, LGB_FAILED, "%s tag '%s': %s", what, tag, lg_last_error());
    return false;
}

void lgb_run_exec(void *run) {
    lgb_run *r = run;
    lg_kernel_execute(r->k, r->nargs, r->args);
}

bool lgb_wbufs_init(lgb_wbufs *w, lgb_run *r, const lg_md *bias_md, bool with_bias,
                    float bias_scale, const char *seed, lgb_result *res) {
    memset(w, 0, sizeof *w);
    if (lg_kernel_query_md(r->k, LG_ARG_SRC, &w->sq) != LG_OK ||
        lg_kernel_query_md(r->k, LG_ARG_WEIGHTS, &w->wq) != LG_OK ||
        lg_kernel_query_md(r->k, LG_ARG_DST, &w->dq) != LG_OK) {
        lgb_set(res, LGB_FAILED, "lg_kernel_query_md: %s", lg_last_error());
        return false;
    }
    w->src = lgb_buf_alloc(&w->sq);
    w->wei = lgb_buf_alloc(&w->wq);
    w->bias = lgb_buf_alloc(bias_md);
    w->dst = lgb_buf_alloc(&w->dq);
    w->want = lgb_buf_alloc(&w->dq);
    if (!w->src || !w->wei || !w->bias || !w->dst || !w->want) {
        lgb_set(res, LGB_FAILED, "out of memory");
        return false;
    }
    lgb_rng rng = lgb_rng_seed(seed);
    lgb_buf_fill(&w->sq, w->src, &rng, -3.5f, 4.5f, true);
    lgb_buf_fill(&w->wq, w->wei, &rng, -3.5f, 4.5f, true);
    lgb_buf_fill(bias_md, w->bias, &rng, -40, 40, true);
    for (int64_t i = 0; i < bias_md->dims[0]; i++) ((float *)w->bias)[i] *= bias_scale;
    lgb_buf_fill(&w->dq, w->dst, &rng, -20, 20, true); /* dst_old, for a sum */
    r->args[0] = (lg_arg){LG_ARG_SRC, w->src};
    r->args[1] = (lg_arg){LG_ARG_WEIGHTS, w->wei};
    r->args[2] = (lg_arg){LG_ARG_DST, w->dst};
    r->nargs = 3;
    if (with_bias) r->args[r->nargs++] = (lg_arg){LG_ARG_BIAS, w->bias};
    return true;
}

void lgb_wbufs_check(const lgb_ctx *ctx, lgb_wbufs *w, const lgb_run *r, bool has_sum,
                     lgb_result *res) {
    if (!has_sum) lgb_buf_poison(&w->dq, w->dst);
    if (!lgb_execute(r->k, r->nargs, r->args, res)) return;
    lgb_inject_fault(ctx->fault, &w->dq, w->dst);
    bool ok = lgb_check_padding(&w->dq, w->dst, "dst", res->msg, sizeof res->msg) &&
              lgb_compare_rel(&w->dq, w->dst, w->want, 1e-5, 1.0, "dst", res->msg, sizeof res->msg);
    res->status = ok ? LGB_PASSED : LGB_FAILED;
}

void lgb_wbufs_free(lgb_wbufs *w) {
    free(w->src);
    free(w->wei);
    free(w->bias);
    free(w->dst);
    free(w->want);
    memset(w, 0, sizeof *w);
}
