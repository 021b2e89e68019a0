/* --reorder: lg_reorder_create against the scalar reference
 * (lg__reorder_ref, bit for bit, padding included) or timed against
 * oneDNN's reorder.
 *
 *   --reorder --sdt=f32 --ddt=s8 --stag=nchw --dtag=nChw16c
 *             --attr-scales=src:per_dim_1 --attr-zero-points=dst:common:3
 *             --attr-post-ops=sum:0.5 8x256x56x56
 *
 * --oflag=s8s8_comp:M, zp_comp:M or both joined by '+' asks for the s8s8 /
 * zero-point compensation of int8 weights (lg_attr_set_compensation); the
 * values are checked against ones recomputed here from the reference's
 * dst. --runtime-dim-mask: lgraph has no run-time dims (kernels are created
 * per shape), so every value runs the problem with its dims known at
 * creation, which computes the same values oneDNN's run-time-dims
 * primitive computes for those dims.
 * --attr-scales / --attr-zero-points take oneDNN 3.x's ARG:POLICY:DT[:GROUPS]
 * (typed and grouped values, lg_attr_set_scales_ex); the reference here is
 * told the types and groups from the batch line, not from the library.
 * --attr-rounding-mode=dst:stochastic[:SEED] (lg_attr_set_rounding; default
 * seed 0) or environment. */
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

/* --oflag: the compensation masks (lg_comp_kind order; -1: none). False on
 * a value benchdnn would not read. */
static bool parse_oflag(const char *v, int32_t mask[2]) {
    mask[0] = mask[1] = -1;
    while (*v) {
        int kind;
        if (strncmp(v, "s8s8_comp:", 10) == 0)
            kind = LG_COMP_S8S8, v += 10;
        else if (strncmp(v, "zp_comp:", 8) == 0)
            kind = LG_COMP_ZERO_POINT, v += 8;
        else
            return false;
        char *end;
        long m = strtol(v, &end, 10);
        if (end == v || m < 0 || m > 0xffff || mask[kind] >= 0) return false;
        mask[kind] = (int32_t)m;
        v = end;
        if (*v == '+')
            v++;
        else if (*v)
            return false;
    }
    return true;
}

/* The compensation buffers of a run, with their masks. */
typedef struct comp_bufs {
    int32_t mask[2];
    int32_t *buf[2];
    int64_t n[2];
} comp_bufs;

/* -128 (s8s8) or -1 (zero point) times the sum of want's s8 values per
 * mask index, in 64 bits, wrapped to 32 (the contract of
 * lg_attr_set_compensation), against what the kernel wrote. */
static bool comp_check(const lg_md *d, const int8_t *want, const comp_bufs *c, char *msg,
                       size_t len) {
    for (int kind = 0; kind < 2; kind++) {
        if (c->mask[kind] < 0) continue;
        int64_t *sum = calloc((size_t)c->n[kind], sizeof *sum);
        if (!sum) {
            snprintf(msg, len, "out of memory");
            return false;
        }
        int64_t idx[LG_MAX_NDIMS] = {0}, ne = lg__md_nelems(d);
        for (int64_t e = 0; e < ne; e++) {
            int64_t r = e;
            for (int q = d->ndims - 1; q >= 0; q--) {
                idx[q] = r % d->dims[q];
                r /= d->dims[q];
            }
            sum[lg__mask_index(d, c->mask[kind], idx)] += want[lg__md_off(d, idx)];
        }
        for (int64_t k = 0; k < c->n[kind]; k++) {
            int32_t w = (int32_t)(uint32_t)(uint64_t)((kind ? -1 : -128) * sum[k]);
            if (c->buf[kind][k] != w) {
                snprintf(msg, len, "%s compensation[%lld]: lgraph %d, reference %d",
                         kind ? "zero-point" : "s8s8", (long long)k, c->buf[kind][k], w);
                free(sum);
                return false;
            }
        }
        free(sum);
    }
    return true;
}

/* --attr-rounding-mode: "", environment or dst:environment (0);
 * dst:stochastic[:SEED] (1, *seed). -1 for anything else. */
static int parse_rounding(const char *v, int32_t *seed) {
    *seed = 0;
    if (!*v || !strcmp(v, "environment") || !strcmp(v, "dst:environment")) return 0;
    if (strncmp(v, "dst:stochastic", 14) != 0) return -1;
    v += 14;
    if (!*v) return 1;
    if (*v != ':') return -1;
    char *end;
    long long x = strtoll(v + 1, &end, 10);
    if (end == v + 1 || *end || x < INT32_MIN || x > INT32_MAX) return -1;
    *seed = (int32_t)x;
    return 1;
}

/* The reference's type and groups of one quant array, from the batch line:
 * type 0 for the default, groups on the last gndims dims. */
static void ref_quant(const lgb_arg_quant *q, lg_dtype def, int nd, int32_t *dt, int64_t *group) {
    *dt = q->dt == def ? 0 : (int32_t)q->dt;
    for (int g = 0; g < q->gndims; g++)
        if (q->groups[g] > 1) group[nd - q->gndims + g] = q->groups[g];
}

static void check(const lgb_ctx *ctx, const lg_md *s, const lg_md *d, const lgb_attr_spec *spec,
                  const lgb_attr_bufs *ab, const comp_bufs *cb, int stochastic, int32_t seed,
                  lgb_run *run, void *src, void *dst, lgb_result *res) {
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
    for (int i = 0; i < 2; i++) {
        if (ab->scales[i])
            ref_quant(&spec->scales[i], LG_F32, d->ndims, &pd.scale_dt[i], pd.scale_group[i]);
        if (ab->zps[i]) ref_quant(&spec->zps[i], LG_S32, d->ndims, &pd.zp_dt[i], pd.zp_group[i]);
    }
    pd.stochastic = stochastic;
    for (int i = 0; i < spec->npost; i++)
        if (spec->post[i].kind == LGB_POST_SUM) {
            pd.has_sum = 1;
            pd.sum_beta = spec->post[i].scale;
        }
    lg__reorder_args a = {src,        want,       ab->scales[0], ab->scales[1],
                          ab->zps[0], ab->zps[1], {NULL, NULL},  seed};
    lg__reorder_ref(&pd, &a);
    /* Without a sum the kernel must write every byte: poison dst first. */
    if (!pd.has_sum) lgb_buf_poison(d, dst);
    if (lgb_execute(run->k, run->nargs, run->args, res)) {
        lgb_inject_fault(ctx->fault, d, dst);
        if (lgb_check_padding(d, dst, "dst", res->msg, sizeof res->msg) &&
            lgb_compare(d, dst, want, 0.0, "dst", res->msg, sizeof res->msg) &&
            comp_check(d, want, cb, res->msg, sizeof res->msg))
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
    comp_bufs cb = {{-1, -1}, {NULL, NULL}, {0, 0}};
    if (!parse_oflag(job->vals[K_OFLAG], cb.mask)) {
        lgb_set(res, LGB_FAILED, "bad --oflag '%s' (want s8s8_comp:M, zp_comp:M or both, '+')",
                job->vals[K_OFLAG]);
        return;
    }
    int32_t seed;
    int stochastic = parse_rounding(job->vals[K_ROUND], &seed);
    if (stochastic < 0) {
        lgb_set(res, LGB_FAILED,
                "bad --attr-rounding-mode '%s' (want environment or "
                "dst:stochastic[:SEED])",
                job->vals[K_ROUND]);
        return;
    }
    lgb_attr_bufs ab;
    lgb_run r = {0};
    void *src = NULL, *dst = NULL;
    lgb_dnnl *dn = NULL;
    if (!lgb_attr_build(&spec, &s, &d, &ab, res)) goto out;
    if (stochastic &&
        !lgb_created(lg_attr_set_rounding(ab.attr, LG_ARG_DST, LG_ROUNDING_STOCHASTIC),
                     "lg_attr_set_rounding", res))
        goto out;
    for (int kind = 0; kind < 2; kind++) {
        if (cb.mask[kind] < 0) continue;
        if (!lgb_created(lg_attr_set_compensation(ab.attr, (lg_comp_kind)kind, cb.mask[kind]),
                         "lg_attr_set_compensation", res))
            goto out;
        cb.n[kind] = 1;
        for (int q = 0; q < nd; q++)
            if (cb.mask[kind] & (1 << q)) cb.n[kind] *= dims[q];
        cb.buf[kind] = calloc((size_t)cb.n[kind], sizeof(int32_t));
        if (!cb.buf[kind]) {
            lgb_set(res, LGB_FAILED, "out of memory");
            goto out;
        }
    }
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
    static const int comp_args[2] = {LG_ARG_ATTR_COMP_S8S8 | LG_ARG_DST,
                                     LG_ARG_ATTR_COMP_ZERO_POINT | LG_ARG_DST};
    for (int kind = 0; kind < 2; kind++)
        if (cb.buf[kind]) r.args[r.nargs++] = (lg_arg){comp_args[kind], cb.buf[kind]};
    if (stochastic) r.args[r.nargs++] = (lg_arg){LG_ARG_ATTR_ROUNDING_SEED, &seed};
    res->status = LGB_PASSED;
    if (ctx->mode.correctness)
        check(ctx, &s, &d, &spec, &ab, &cb, stochastic, seed, &r, src, dst, res);
    if (ctx->mode.performance && res->status == LGB_PASSED) {
        lgb_quant_bufs q = {{ab.scales[0], ab.scales[1]},
                            {ab.zps[0], ab.zps[1]},
                            {ab.scale_mask[0], ab.scale_mask[1]},
                            {ab.zp_mask[0], ab.zp_mask[1]}};
        /* oneDNN's reorder here is created without compensation flags, and
         * the linked oneDNN may lack typed / grouped values and rounding
         * modes: no peer then */
        bool plain = !stochastic;
        for (int i = 0; i < 2; i++)
            plain = plain && (!spec.scales[i].set || spec.scales[i].dt == LG_F32) &&
                    (!spec.zps[i].set || spec.zps[i].dt == LG_S32) && !spec.scales[i].gndims &&
                    !spec.zps[i].gndims;
        if (plain && cb.mask[0] < 0 && cb.mask[1] < 0)
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
    free(cb.buf[0]);
    free(cb.buf[1]);
}

const lgb_driver lgb_drv_reorder = {
    "reorder",
    K_COUNT,
    {"sdt", "ddt", "stag", "dtag", "attr-scales", "attr-zero-points", "attr-post-ops", "strides",
     "oflag", "runtime-dim-mask", "attr-rounding-mode", "cross-engine"},
    {"f32", "f32", "abx", "abx", "", "", "", "", "", "0", "", "none"},
    {[K_STRIDES] = "|:", [K_XENGINE] = "none"},
    run,
};
