/* --bnorm: lg_bnorm_create (inference with given statistics) against
 * lg__bnorm_ref (bit for bit: every path computes the reference's
 * expression; padding zero), or timed against oneDNN's batch normalization
 * (global statistics).
 *
 *   --bnorm --dir=FWD_I --dt=f32 --tag=nChw16c --flags=GS,GCHR [--inplace=true]
 *           mb2ic64ih56
 * Flags as benchdnn's: G global statistics (required: lgraph takes the
 * statistics as inputs), S scale and shift, C scale, H shift, R fused relu.
 * Descriptors: mb, ic, id/ih/iw (only ih: square, only id: cubic), n"name". */
#include "drv_common.h"
#include "lgb_dnnl.h"

#include "primitives/bnorm/bnorm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { K_DIR, K_DT, K_TAG, K_FLAGS, K_INPLACE, K_COUNT };

/* mb2ic64id4ih56iw56 -> dims (mb, ic, spatial...); false on a bad entry. */
static bool parse_desc(const char *s, int *nd, int64_t *dims) {
    int64_t mb = 2, ic = 0, id = 0, ih = 0, iw = 0;
    while (*s && *s != 'n') {
        if (*s == '_') {
            s++;
            continue;
        }
        int64_t *f = !strncmp(s, "mb", 2)   ? &mb
                     : !strncmp(s, "ic", 2) ? &ic
                     : !strncmp(s, "id", 2) ? &id
                     : !strncmp(s, "ih", 2) ? &ih
                     : !strncmp(s, "iw", 2) ? &iw
                                            : NULL;
        if (!f) return false;
        char *e;
        *f = strtoll(s + 2, &e, 10);
        if (e == s + 2) return false;
        s = e;
    }
    if (ic < 1 || mb < 1) return false;
    if (id && !ih && !iw) ih = iw = id;
    if (ih && !iw) iw = ih;
    if (iw && !ih) ih = 1;
    dims[0] = mb;
    dims[1] = ic;
    *nd = id ? 5 : ih ? 4 : 2;
    if (id) dims[2] = id;
    if (ih) {
        dims[*nd - 2] = ih;
        dims[*nd - 1] = iw;
    }
    for (int d = 2; d < *nd; d++)
        if (dims[d] < 1) return false;
    return true;
}

static void run(const lgb_ctx *ctx, const lgb_job *job, lgb_result *res) {
    int nd;
    int64_t dims[LG_MAX_NDIMS];
    if (!parse_desc(job->desc, &nd, dims)) {
        lgb_set(res, LGB_FAILED, "bad bnorm descriptor '%s' (mb, ic, id/ih/iw)", job->desc);
        return;
    }
    lg_prop prop;
    bool bias, inplace;
    if (!lgb_parse_dir(job->vals[K_DIR], &prop, &bias) ||
        !lgb_parse_bool(job->vals[K_INPLACE], &inplace)) {
        lgb_set(res, LGB_FAILED, "bad --dir or --inplace");
        return;
    }
    if (prop != LG_FORWARD || strcmp(job->vals[K_DIR], "FWD_I") != 0) {
        lgb_skip(res, "training or backward out of scope", "lgraph's batch norm is inference");
        return;
    }
    unsigned flags = 0;
    bool global = false;
    for (const char *f = job->vals[K_FLAGS]; *f; f++) {
        switch (*f) {
        case 'G':
            global = true;
            break;
        case 'S':
            flags |= LG_BNORM_USE_SCALE | LG_BNORM_USE_SHIFT;
            break;
        case 'C':
            flags |= LG_BNORM_USE_SCALE;
            break;
        case 'H':
            flags |= LG_BNORM_USE_SHIFT;
            break;
        case 'R':
            flags |= LG_BNORM_FUSE_RELU;
            break;
        default:
            lgb_skip(res, "bnorm flag not implemented in lgraph", "flag '%c'", *f);
            return;
        }
    }
    if (!global) {
        lgb_skip(res, "batch statistics not implemented in lgraph",
                 "--flags without G (statistics computed from the batch)");
        return;
    }
    lg_dtype dt;
    if (!lgb_dt(job->vals[K_DT], &dt, res)) return;
    lg_md md;
    if (!lgb_md(&md, nd, dims, dt, job->vals[K_TAG], "data", res) ||
        !lgb_fits(3.0 * (double)lg_md_size(&md), res))
        return;
    int64_t c = dims[1];
    lgb_run r = {0};
    void *in = NULL, *out = NULL, *want = NULL;
    float *st = NULL;
    lgb_dnnl *dn = NULL;
    if (!lgb_created(lg_bnorm_create(&r.k, &md, NULL, 1e-5f, flags), "lg_bnorm_create", res))
        goto done;
    snprintf(res->impl, sizeof res->impl, "%s", lg_kernel_impl(r.k));
    in = lgb_buf_alloc(&md);
    out = inplace ? in : lgb_buf_alloc(&md);
    want = lgb_buf_alloc(&md);
    st = malloc(4 * (size_t)c * sizeof *st);
    if (!in || !out || !want || !st) {
        lgb_set(res, LGB_FAILED, "out of memory");
        goto done;
    }
    lgb_rng rng = lgb_rng_seed(job->repro);
    lgb_buf_fill(&md, in, &rng, -4, 4, false);
    for (int64_t i = 0; i < c; i++) {
        st[i] = lgb_rng_float(&rng, -1, 1);
        st[c + i] = lgb_rng_float(&rng, 0.25f, 4);
        st[2 * c + i] = lgb_rng_float(&rng, 0.5f, 2);
        st[3 * c + i] = lgb_rng_float(&rng, -1, 1);
    }
    r.args[0] = (lg_arg){LG_ARG_SRC, in};
    r.args[1] = (lg_arg){LG_ARG_DST, out};
    r.args[2] = (lg_arg){LG_ARG_MEAN, st};
    r.args[3] = (lg_arg){LG_ARG_VARIANCE, st + c};
    r.nargs = 4;
    if (flags & LG_BNORM_USE_SCALE) r.args[r.nargs++] = (lg_arg){LG_ARG_SCALE, st + 2 * c};
    if (flags & LG_BNORM_USE_SHIFT) r.args[r.nargs++] = (lg_arg){LG_ARG_SHIFT, st + 3 * c};
    res->status = LGB_PASSED;
    if (ctx->mode.correctness) {
        lg__bnorm_pd pd;
        memset(&pd, 0, sizeof pd);
        pd.src = pd.dst = md;
        pd.eps = 1e-5f;
        pd.flags = flags;
        lg__bnorm_stats s = {st, st + c, flags & LG_BNORM_USE_SCALE ? st + 2 * c : NULL,
                             flags & LG_BNORM_USE_SHIFT ? st + 3 * c : NULL};
        lg__bnorm_ref(&pd, NULL, &s, in, want);
        if (!inplace) lgb_buf_poison(&md, out);
        if (lgb_execute(r.k, r.nargs, r.args, res)) {
            lgb_inject_fault(ctx->fault, &md, out);
            bool ok = lgb_check_padding(&md, out, "dst", res->msg, sizeof res->msg) &&
                      lgb_compare(&md, out, want, 0.0, "dst", res->msg, sizeof res->msg);
            res->status = ok ? LGB_PASSED : LGB_FAILED;
        }
        if (inplace) lgb_buf_fill(&md, in, &rng, -4, 4, false);
    }
    if (ctx->mode.performance && res->status == LGB_PASSED) {
        dn = lgb_dnnl_bnorm(&md, 1e-5f, flags, in, out, st, st + c, st + 2 * c, st + 3 * c,
                            res->msg, sizeof res->msg);
        lgb_perf(ctx, lgb_run_exec, &r, dn ? lgb_dnnl_run : NULL, dn, res);
        if (dn) snprintf(res->dnnl_impl, sizeof res->dnnl_impl, "%s", lgb_dnnl_impl(dn));
        res->bytes = 2.0 * (double)lg_md_size(&md);
    }
done:
    lgb_dnnl_destroy(dn);
    lg_kernel_destroy(r.k);
    if (out != in) free(out);
    free(in);
    free(want);
    free(st);
}

const lgb_driver lgb_drv_bnorm = {
    "bnorm",
    K_COUNT,
    {"dir", "dt", "tag", "flags", "inplace"},
    {"FWD_I", "f32", "abx", "G", "false"},
    {0},
    run,
};
