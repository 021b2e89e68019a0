/* The attributes of the eltwise and binary drivers: binary post-ops (their
 * src1 tensors: dims from the policy, tag, data) and binary's src0 / src1
 * scales, on top of sums and eltwise post-ops. */
#ifndef LGBENCH_DRV_PO_H
#define LGBENCH_DRV_PO_H

#include "drv_common.h"

#include "primitives/postops.h"

typedef struct lgb_po_bufs {
    lg_attr *attr;
    bool has_scale[2]; /* src0, src1 (binary only) */
    float scale[2];
    int npost;
    lg_md md[LG_MAX_POST_OPS];  /* each binary op's src1, as the kernel took it */
    void *buf[LG_MAX_POST_OPS]; /* its data (NULL for sums and eltwise ops) */
    lg__po_spec spec;           /* the chain, for the references */
} lgb_po_bufs;

/* The md of binary post-op i's src1 against dst: dst's dims where the
 * policy's mask has a bit, else 1; its type and tag. SKIPPED (a mask naming
 * a dim dst lacks) or FAILED into res on error. */
bool lgb_po_src1_md(const lgb_post *p, int i, const lg_md *dst, lg_md *m, lgb_result *res);

/* Append prelu post-op i (its policy's mask resolved against dst) to attr.
 * SKIPPED (a mask naming a dim dst lacks) or FAILED into res on error. */
bool lgb_po_prelu(const lgb_post *p, int i, const lg_md *dst, lg_attr *attr, lgb_result *res);

/* Build b->attr from spec for a kernel whose dst is `dst`: src0 / src1
 * scales (binary: with_scales), sums, eltwise and binary post-ops (src1's
 * dims: dst's where the policy's mask has a bit, else 1; its tag; "any"
 * stays "any"). SKIPPED (what lgraph lacks, invalid cases) or FAILED into
 * res on error. */
bool lgb_po_build(const lgb_attr_spec *spec, const lg_md *dst, bool with_scales, lgb_po_bufs *b,
                  lgb_result *res);

/* After the kernel k is created: the chain for the references (b->spec),
 * each binary op's src1 md as k took it, buffers filled from rng (integers
 * for integer types). FAILED into res on error. */
bool lgb_po_alloc(lgb_po_bufs *b, const lg_kernel *k, const lg_md *dst, lgb_rng *rng,
                  lgb_result *res);

/* Append the scale and post-op src1 arguments; returns the new count. */
int lgb_po_args(const lgb_po_bufs *b, lg_arg *args, int nargs);

/* The scale pointers for the binary reference (NULL: none). */
const float *lgb_po_scale(const lgb_po_bufs *b, int i);

/* The buffers as the references take them. */
void lgb_po_src1(const lgb_po_bufs *b, const void **out);

void lgb_po_free(lgb_po_bufs *b);

#endif /* LGBENCH_DRV_PO_H */
