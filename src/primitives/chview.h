/* A channel view of an N x C x spatial tensor (spatial rank 0..3): where
 * element (n, c, d, h, w) lives, for the layouts the pooling and
 * batch-normalization kernels run fast. Shared by pool/ and bnorm/. */
#ifndef LG_PRIMITIVES_POOL_CHVIEW_H
#define LG_PRIMITIVES_POOL_CHVIEW_H

#include "memory/md.h"

typedef enum lg__chkind {
    LG_CH_OTHER = 0, /* none of the below: the reference runs it */
    LG_CH_INNER,     /* channels innermost: nspc (acdb) or blocked on C only (aBcd8b) */
    LG_CH_PLAIN,     /* plain, channels not innermost (abcd and strided kin) */
} lg__chkind;

/*
 * offset(n, c, d, h, w) = offset0 + n sn + (c / run) scb + c % run + d sd + h sh + w sw
 * for LG_CH_INNER (run = the C block, or C itself for nspc; ncb = padded C /
 * run, the lanes c >= C of the last block are padding), and
 * offset0 + n sn + c sc + d sd + h sh + w sw for LG_CH_PLAIN (run = 1,
 * scb = sc). Spatial dims are right-aligned into d, h, w: a 2D tensor has
 * d = 1 (sd = 0), a 1D one d = h = 1.
 */
typedef struct lg__chview {
    lg__chkind kind;
    int64_t n, c, ncb, run; /* batch, channels, channel blocks, lanes per block */
    int64_t sp[3];          /* spatial sizes d, h, w */
    int64_t off0, sn, scb, ss[3];
} lg__chview;

/* Classify md (ndims >= 2, blocked) into *v. */
LG_INTERNAL void lg__chview_init(const lg_md *md, lg__chview *v);

/* Re-view a channels-last md (unblocked, channel stride 1) as plain: for a
 * tensor whose spatial dims are all 1 either reading is right, and a pair
 * of tensors needs the same one. Other views are left alone. */
LG_INTERNAL void lg__chview_as_plain(const lg_md *md, lg__chview *v);

/* The generic tag of md's layout family for a tensor of `ndims` dims
 * ("aBcd16b", "acdb", "abcd"): blocked on C by md's block, channels last,
 * or plain. Used to resolve a dst given as "any". */
LG_INTERNAL void lg__chview_family_tag(const lg_md *md, int ndims, char *tag);

#endif /* LG_PRIMITIVES_POOL_CHVIEW_H */
