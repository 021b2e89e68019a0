/* oneDNN counterparts of lgbench's problems, for performance mode. Each
 * constructor builds the same problem in oneDNN (same layouts, types,
 * attributes) bound to the caller's buffers, or returns NULL with the reason
 * in `why`: oneDNN refuses the problem, or lgbench was built without it
 * (dnnl_none.c). The run function matches lgb_run_fn. */
#ifndef LGBENCH_DNNL_H
#define LGBENCH_DNNL_H

#include "parse.h"

typedef struct lgb_dnnl lgb_dnnl;

/* Scale and zero-point arrays are those passed to lgraph (NULL when unset),
 * laid out as lgraph's (row-major over the mask's dims). */
typedef struct lgb_quant_bufs {
    const float *scales[2]; /* src, dst */
    const int32_t *zps[2];  /* src, dst */
    int scale_mask[2], zp_mask[2];
} lgb_quant_bufs;

lgb_dnnl *lgb_dnnl_reorder(const lg_md *src, const lg_md *dst, const lgb_attr_spec *a,
                           const lgb_quant_bufs *q, void *sbuf, void *dbuf, char *why, size_t len);
lgb_dnnl *lgb_dnnl_shuffle(lg_prop prop, const lg_md *md, int axis, int64_t group, void *in,
                           void *out, char *why, size_t len);
lgb_dnnl *lgb_dnnl_eltwise(lg_eltwise_alg alg, float alpha, float beta, const lg_md *md, void *src,
                           void *dst, char *why, size_t len);
lgb_dnnl *lgb_dnnl_binary(lg_binary_alg alg, const lg_md *s0, const lg_md *s1, const lg_md *dst,
                          void *b0, void *b1, void *bd, char *why, size_t len);
/* Forward f32 convolution with lgraph's parameters; post-ops from a. */
lgb_dnnl *lgb_dnnl_conv(const lg_conv_params *p, const lg_md *src, const lg_md *wei,
                        const lg_md *bias, const lg_md *dst, const lgb_attr_spec *a, void *sbuf,
                        void *wbuf, void *bbuf, void *dbuf, char *why, size_t len);

/* Forward inference pooling, softmax and batch normalization (statistics
 * given: mean, variance, then scale and shift when the flags ask). */
lgb_dnnl *lgb_dnnl_pool(const lg_pool_params *p, const lg_md *src, const lg_md *dst, void *sbuf,
                        void *dbuf, char *why, size_t len);
lgb_dnnl *lgb_dnnl_softmax(lg_softmax_alg alg, int axis, const lg_md *src, const lg_md *dst,
                           void *sbuf, void *dbuf, char *why, size_t len);
lgb_dnnl *lgb_dnnl_bnorm(const lg_md *md, float eps, unsigned flags, void *sbuf, void *dbuf,
                         float *mean, float *var, float *scale, float *shift, char *why,
                         size_t len);
/* Concat of n sources along axis (oneDNN's MULTIPLE_SRC arguments). */
lgb_dnnl *lgb_dnnl_concat(int n, const lg_md *srcs, const lg_md *dst, int axis, void *const *sbufs,
                          void *dbuf, char *why, size_t len);

void lgb_dnnl_run(void *prim);
const char *lgb_dnnl_impl(const lgb_dnnl *p);
void lgb_dnnl_destroy(lgb_dnnl *p);

#endif /* LGBENCH_DNNL_H */
