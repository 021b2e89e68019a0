/* A fixed set of problems, one or more per path of every kernel kind, that
 * the allocation-failure sweeps and the cache-concurrency test share. */
#include "reliability/problems.h"

#include <criterion/criterion.h>
#include <string.h>

static lg_md tag_md(int nd, const int64_t *dims, lg_dtype dt, const char *tag) {
    lg_md md;
    cr_assert_eq(lg_md_init_tag(&md, nd, dims, dt, tag), LG_OK, "%s: %s", tag, lg_last_error());
    return md;
}

static lg_md strided_md(int nd, const int64_t *dims, lg_dtype dt, const int64_t *strides) {
    lg_md md;
    cr_assert_eq(lg_md_init_strides(&md, nd, dims, dt, strides), LG_OK, "%s", lg_last_error());
    return md;
}

int rel_problems(rel_named *out, int max) {
    static const int64_t d4[4] = {2, 17, 3, 3}, d16[4] = {2, 16, 3, 5}, d40[4] = {1, 40, 2, 3};
    static const int64_t gaps[4] = {700, 40, 12, 2}; /* 2x17x3x3 with gaps */
    static const int64_t one_c[4] = {1, 17, 1, 1}, row[4] = {2, 1, 3, 3};
    int n = 0;
    rel_problem *p;
#define ADD(kind, name_)                                                                           \
    do {                                                                                           \
        cr_assert(n < max);                                                                        \
        out[n].name = name_;                                                                       \
        p = &out[n++].p;                                                                           \
        rel_problem_init(p, kind);                                                                 \
    } while (0)

    ADD(REL_REORDER, "reorder f32 nchw->nChw16c");
    p->md[0] = tag_md(4, d4, LG_F32, "nchw");
    p->md[1] = tag_md(4, d4, LG_F32, "nChw16c");
    ADD(REL_REORDER, "reorder s8 nhwc->f32 ABcd16b16a, scales, zero point, sum");
    p->md[0] = tag_md(4, d4, LG_S8, "nhwc");
    p->md[1] = tag_md(4, d4, LG_F32, "ABcd16b16a");
    p->scale_mask[0] = 2;
    p->zp_mask[1] = 0;
    p->sum = true;
    p->sum_beta = 0.5f;
    ADD(REL_REORDER, "reorder f32 strided->bf16 acdb");
    p->md[0] = strided_md(4, d4, LG_F32, gaps);
    p->md[1] = tag_md(4, d4, LG_BF16, "acdb");
    ADD(REL_REORDER, "reorder f16 aBcd8b->any s8");
    p->md[0] = tag_md(4, d4, LG_F16, "aBcd8b");
    p->md[1] = tag_md(4, d4, LG_S8, "any");

    ADD(REL_SHUFFLE, "shuffle f32 nchw (planes)");
    p->md[0] = tag_md(4, d16, LG_F32, "nchw");
    p->axis = 1;
    p->group = 4;
    ADD(REL_SHUFFLE, "shuffle f32 nhwc (permute)");
    p->md[0] = tag_md(4, d40, LG_F32, "nhwc");
    p->axis = 1;
    p->group = 8;
    ADD(REL_SHUFFLE, "shuffle u8 nChw16c backward");
    p->md[0] = tag_md(4, d40, LG_U8, "nChw16c");
    p->axis = 1;
    p->group = 5;
    p->prop = LG_BACKWARD;
    ADD(REL_SHUFFLE, "shuffle bf16 strided axis 3 (table)");
    p->md[0] = strided_md(4, d4, LG_BF16, gaps);
    p->axis = 3;
    p->group = 3;

    ADD(REL_ELTWISE, "eltwise f32 nChw16c exp (padding table)");
    p->md[0] = tag_md(4, d4, LG_F32, "nChw16c");
    p->null_dst = true;
    p->alg = LG_ELTWISE_EXP;
    ADD(REL_ELTWISE, "eltwise f32 strided gelu_erf");
    p->md[0] = p->md[1] = strided_md(4, d4, LG_F32, gaps);
    p->alg = LG_ELTWISE_GELU_ERF;
    ADD(REL_ELTWISE, "eltwise s8 nChw8c linear (padding table)");
    p->md[0] = tag_md(4, d4, LG_S8, "nChw8c");
    p->md[1] = tag_md(4, d4, LG_S8, "any");
    p->alg = LG_ELTWISE_LINEAR;
    p->alpha = 2.0f;
    p->beta = 1.0f;
    ADD(REL_ELTWISE, "eltwise f16 nhwc tanh in place");
    p->md[0] = p->md[1] = tag_md(4, d16, LG_F16, "nhwc");
    p->alg = LG_ELTWISE_TANH;
    p->inplace = true;

    ADD(REL_BINARY, "binary f32 nChw16c div (same layout, padding table)");
    p->md[0] = p->md[1] = p->md[2] = tag_md(4, d4, LG_F32, "nChw16c");
    p->alg = LG_BINARY_DIV;
    ADD(REL_BINARY, "binary f32 nChw16c add per-channel (bcast_channel)");
    p->md[0] = p->md[2] = tag_md(4, d4, LG_F32, "nChw16c");
    p->md[1] = tag_md(4, one_c, LG_F32, "nchw");
    p->alg = LG_BINARY_ADD;
    ADD(REL_BINARY, "binary bf16 nhwc x f32 broadcast -> f16 nChw8c (generic tables)");
    p->md[0] = tag_md(4, d4, LG_BF16, "nhwc");
    p->md[1] = tag_md(4, row, LG_F32, "nchw");
    p->md[2] = tag_md(4, d4, LG_F16, "nChw8c");
    p->alg = LG_BINARY_MAX;
    ADD(REL_BINARY, "binary f32 nchw sub, dst any");
    p->md[0] = p->md[1] = tag_md(4, d16, LG_F32, "nchw");
    p->md[2] = tag_md(4, d16, LG_F32, "any");
    p->alg = LG_BINARY_SUB;
#undef ADD
    return n;
}
