/* lgbench built without oneDNN: every counterpart is absent, so
 * performance mode prints lgraph's figures only. */
#include "lgb_dnnl.h"

#include <stdio.h>

#define NONE(...)                                                                                  \
    do {                                                                                           \
        snprintf(why, len, "lgbench was built without oneDNN");                                    \
        return NULL;                                                                               \
    } while (0)

lgb_dnnl *lgb_dnnl_reorder(const lg_md *src, const lg_md *dst, const lgb_attr_spec *a,
                           const lgb_quant_bufs *q, void *sbuf, void *dbuf, char *why, size_t len) {
    (void)src, (void)dst, (void)a, (void)q, (void)sbuf, (void)dbuf;
    NONE();
}

lgb_dnnl *lgb_dnnl_shuffle(lg_prop prop, const lg_md *md, int axis, int64_t group, void *in,
                           void *out, char *why, size_t len) {
    (void)prop, (void)md, (void)axis, (void)group, (void)in, (void)out;
    NONE();
}

lgb_dnnl *lgb_dnnl_eltwise(lg_eltwise_alg alg, float alpha, float beta, const lg_md *md, void *src,
                           void *dst, char *why, size_t len) {
    (void)alg, (void)alpha, (void)beta, (void)md, (void)src, (void)dst;
    NONE();
}

lgb_dnnl *lgb_dnnl_binary(lg_binary_alg alg, const lg_md *s0, const lg_md *s1, const lg_md *dst,
                          void *b0, void *b1, void *bd, char *why, size_t len) {
    (void)alg, (void)s0, (void)s1, (void)dst, (void)b0, (void)b1, (void)bd;
    NONE();
}

lgb_dnnl *lgb_dnnl_conv(const lg_conv_params *p, const lg_md *src, const lg_md *wei,
                        const lg_md *bias, const lg_md *dst, const lgb_attr_spec *a, void *sbuf,
                        void *wbuf, void *bbuf, void *dbuf, char *why, size_t len) {
    (void)p, (void)src, (void)wei, (void)bias, (void)dst, (void)a, (void)sbuf, (void)wbuf;
    (void)bbuf, (void)dbuf;
    NONE();
}

lgb_dnnl *lgb_dnnl_pool(const lg_pool_params *p, const lg_md *src, const lg_md *dst, void *sbuf,
                        void *dbuf, char *why, size_t len) {
    (void)p, (void)src, (void)dst, (void)sbuf, (void)dbuf;
    NONE();
}

lgb_dnnl *lgb_dnnl_softmax(lg_softmax_alg alg, int axis, const lg_md *src, const lg_md *dst,
                           void *sbuf, void *dbuf, char *why, size_t len) {
    (void)alg, (void)axis, (void)src, (void)dst, (void)sbuf, (void)dbuf;
    NONE();
}

lgb_dnnl *lgb_dnnl_bnorm(const lg_md *md, float eps, unsigned flags, void *sbuf, void *dbuf,
                         float *mean, float *var, float *scale, float *shift, char *why,
                         size_t len) {
    (void)md, (void)eps, (void)flags, (void)sbuf, (void)dbuf, (void)mean, (void)var;
    (void)scale, (void)shift;
    NONE();
}

void lgb_dnnl_run(void *prim) {
    (void)prim;
}

const char *lgb_dnnl_impl(const lgb_dnnl *p) {
    (void)p;
    return "";
}

void lgb_dnnl_destroy(lgb_dnnl *p) {
    (void)p;
}

lgb_dnnl *lgb_dnnl_concat(int n, const lg_md *srcs, const lg_md *dst, int axis, void *const *sbufs,
                          void *dbuf, char *why, size_t len) {
    (void)n, (void)srcs, (void)dst, (void)axis, (void)sbufs, (void)dbuf;
    NONE();
}
