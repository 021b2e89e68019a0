/* --concat: lg_concat_create against a copy by logical index done here
 * (bit for bit, dst padding zero), or timed against oneDNN's concat.
 * benchdnn's form:
 *
 *   --concat --sdt=f32 --ddt=f32 --stag=nChw16c:nchw --dtag=any --axis=1
 *            2x58x28x28:2x58x28x28
 * Each source's dims are given (colon-separated); a single --stag serves
 * every source, otherwise one tag per source. lgraph's concat copies bits:
 * a --ddt other than --sdt is skipped. */
#include "drv_common.h"
#include "lgb_dnnl.h"

#include <stdlib.h>
#include <string.h>

enum { K_SDT, K_DDT, K_STAG, K_DTAG, K_AXIS, K_COUNT };

/* Most sources a problem line may give. */
#define MAX_SRC (LGB_MAX_ARGS - 1)

/* Split s at ':' into at most MAX_SRC parts of at most 63 characters. */
static int split(const char *s, char parts[MAX_SRC][64]) {
    int n = 0;
    for (;;) {
        const char *c = strchr(s, ':');
        size_t len = c ? (size_t)(c - s) : strlen(s);
        if (n == MAX_SRC || len >= 64) return -1;
        memcpy(parts[n], s, len);
        parts[n++][len] = '\0';
        if (!c) return n;
        s = c + 1;
    }
}

/* want = the sources placed one after another along axis. */
static void expected(int n, const lg_md *sm, void *const *sb, const lg_md *dm, int axis,
                     void *want) {
    size_t es = lg_dtype_size(dm->dtype);
    int64_t off = 0;
    for (int i = 0; i < n; i++) {
        int64_t idx[LG_MAX_NDIMS] = {0}, di[LG_MAX_NDIMS];
        const int nd = sm[i].ndims;
        for (bool more = true; more;) {
            memcpy(di, idx, sizeof di);
            di[axis] += off;
            memcpy((char *)want + lg_md_offset(dm, di) * (int64_t)es,
                   (const char *)sb[i] + lg_md_offset(&sm[i], idx) * (int64_t)es, es);
            more = false;
            for (int d = nd - 1; d >= 0 && !more; d--) {
                if (++idx[d] < sm[i].dims[d])
                    more = true;
                else
                    idx[d] = 0;
            }
        }
        off += sm[i].dims[axis];
    }
}

static void run(const lgb_ctx *ctx, const lgb_job *job, lgb_result *res) {
    char ds[MAX_SRC][64], ts[MAX_SRC][64];
    int n = split(job->desc, ds), nt = split(job->vals[K_STAG], ts);
    lg_md sm[MAX_SRC], dm;
    int64_t dims[LG_MAX_NDIMS], total[LG_MAX_NDIMS];
    int nd = 0;
    char *end;
    long axis = strtol(job->vals[K_AXIS], &end, 10);
    if (n < 1 || nt < 1 || (nt != 1 && nt != n) || *end || !*job->vals[K_AXIS]) {
        lgb_set(res, LGB_FAILED,
                "bad problem '%s' or --stag / --axis (want DIMS:DIMS..., one "
                "tag or one per source)",
                job->desc);
        return;
    }
    lg_dtype sdt, ddt;
    if (!lgb_dt(job->vals[K_SDT], &sdt, res) || !lgb_dt(job->vals[K_DDT], &ddt, res)) return;
    if (sdt != ddt) {
        lgb_skip(res, "concat with type conversion not implemented in lgraph",
                 "--sdt=%s --ddt=%s (lgraph's concat copies bits)", job->vals[K_SDT],
                 job->vals[K_DDT]);
        return;
    }
    double bytes = 0;
    for (int i = 0; i < n; i++) {
        int ndi;
        if (!lgb_parse_dims(ds[i], &ndi, dims) || (i && ndi != nd)) {
            lgb_set(res, LGB_FAILED, "bad dims '%s'", ds[i]);
            return;
        }
        nd = ndi;
        if (!lgb_md(&sm[i], nd, dims, sdt, ts[nt == 1 ? 0 : i], "src", res)) return;
        if (i == 0)
            memcpy(total, dims, sizeof total);
        else if (axis >= 0 && axis < nd)
            total[axis] += dims[axis];
        bytes += 2.0 * (double)lg_md_size(&sm[i]);
    }
    if (axis < 0 || axis >= nd) {
        lgb_set(res, LGB_FAILED, "--axis=%ld is out of range for %d dims", axis, nd);
        return;
    }
    lg_md dq;
    if (!lgb_md(&dq, nd, total, ddt, job->vals[K_DTAG], "dst", res) || !lgb_fits(2.0 * bytes, res))
        return;
    lgb_run r = {0};
    void *sb[MAX_SRC] = {0}, *out = NULL, *want = NULL;
    lgb_dnnl *dn = NULL;
    if (!lgb_created(lg_concat_create(&r.k, (int)axis, n, sm, &dq), "lg_concat_create", res))
        goto done;
    lg_kernel_query_md(r.k, LG_ARG_DST, &dm);
    snprintf(res->impl, sizeof res->impl, "%s", lg_kernel_impl(r.k));
    lgb_rng rng = lgb_rng_seed(job->repro);
    bool ints = sdt == LG_S8 || sdt == LG_U8 || sdt == LG_S32;
    for (int i = 0; i < n; i++) {
        sb[i] = lgb_buf_alloc(&sm[i]);
        if (!sb[i]) break;
        lgb_buf_fill(&sm[i], sb[i], &rng, -1000, 1000, ints);
        r.args[i] = (lg_arg){LG_ARG_MULTIPLE_SRC + i, sb[i]};
    }
    out = lgb_buf_alloc(&dm);
    want = lgb_buf_alloc(&dm);
    if (!out || !want || !sb[n - 1]) {
        lgb_set(res, LGB_FAILED, "out of memory");
        goto done;
    }
    r.args[n] = (lg_arg){LG_ARG_DST, out};
    r.nargs = n + 1;
    res->status = LGB_PASSED;
    if (ctx->mode.correctness) {
        expected(n, sm, sb, &dm, (int)axis, want);
        lgb_buf_poison(&dm, out);
        if (lgb_execute(r.k, r.nargs, r.args, res)) {
            lgb_inject_fault(ctx->fault, &dm, out);
            bool ok = lgb_check_padding(&dm, out, "dst", res->msg, sizeof res->msg) &&
                      lgb_compare(&dm, out, want, 0.0, "dst", res->msg, sizeof res->msg);
            res->status = ok ? LGB_PASSED : LGB_FAILED;
        }
    }
    if (ctx->mode.performance && res->status == LGB_PASSED) {
        dn = lgb_dnnl_concat(n, sm, &dm, (int)axis, sb, NULL, res->msg, sizeof res->msg);
        lgb_perf(ctx, lgb_run_exec, &r, dn ? lgb_dnnl_run : NULL, dn, res);
        if (dn) snprintf(res->dnnl_impl, sizeof res->dnnl_impl, "%s", lgb_dnnl_impl(dn));
        res->bytes = bytes;
    }
done:
    lgb_dnnl_destroy(dn);
    lg_kernel_destroy(r.k);
    for (int i = 0; i < n; i++) free(sb[i]);
    free(out);
    free(want);
}

const lgb_driver lgb_drv_concat = {
    "concat", K_COUNT, {"sdt", "ddt", "stag", "dtag", "axis"}, {"f32", "f32", "abx", "any", "1"},
    {0},      run,
};
