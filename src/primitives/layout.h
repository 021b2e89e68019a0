/* Layout helpers shared by the eltwise and binary kernels: per-dim offset
 * tables (an lg_md offset is a sum of one term per dim) and zeroing of a
 * buffer's padding. */
#ifndef LG_PRIMITIVES_ELTWISE_LAYOUT_H
#define LG_PRIMITIVES_ELTWISE_LAYOUT_H

#include "memory/md.h"

/*
 * Offset tables of md (blocked) over the index box ext[0..ndims): the offset
 * of index idx is md->offset0 + sum_d tab[tab[d] + idx[d]], i.e. table d
 * starts at element tab[d]. With bcast, a dim where md has size 1 maps every
 * index to 0 (numpy broadcast); otherwise ext[d] may reach md's padded dims.
 * One allocation of 8 x (ndims + sum_d ext[d]) bytes, made at kernel
 * creation (lg__free it); NULL when out of memory. Small beside the tensor
 * unless one dim holds nearly all of its elements (a 1D-like tensor of n
 * elements costs 8n bytes here).
 */
LG_INTERNAL int64_t *lg__offtab_new(const lg_md *md, const int64_t *ext, bool bcast);

/* Table d of an lg__offtab_new result. */
static inline const int64_t *lg__offtab_dim(const int64_t *tab, int d) {
    return tab + tab[d];
}

/* Zero every padding element of buf (laid out as md, whose tables over its
 * padded dims are tab). Costs O(padding elements); single-threaded. */
LG_INTERNAL void lg__zero_padding(const lg_md *md, const int64_t *tab, void *buf);

#endif /* LG_PRIMITIVES_ELTWISE_LAYOUT_H */
