/* The attribute object behind lg_attr. */
#ifndef LG_PRIMITIVES_ATTR_H
#define LG_PRIMITIVES_ATTR_H

#include "common/common.h"

typedef enum lg__post_kind { LG_POST_SUM = 1, LG_POST_ELTWISE = 2 } lg__post_kind;

/* One post-op. Zeroed before filling: it is part of kernel-cache keys. */
typedef struct lg__post_op {
    int32_t kind;
    int32_t alg; /* lg_eltwise_alg, for eltwise */
    float scale; /* beta of a sum */
    float alpha, beta;
} lg__post_op;

/* Masks are -1 when not set; index 0 is LG_ARG_SRC, 1 is LG_ARG_DST. */
struct lg_attr {
    int32_t scale_mask[2];
    int32_t zp_mask[2];
    int32_t npost;
    lg__post_op post[LG_MAX_POST_OPS];
};

/* An attribute with nothing set (what a NULL lg_attr * means). */
LG_INTERNAL void lg__attr_init(struct lg_attr *a);

#endif /* LG_PRIMITIVES_ATTR_H */
