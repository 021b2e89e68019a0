/* The kernel object behind lg_kernel: what every kernel kind shares (its
 * arguments and their mds, reference count, implementation name) and the
 * generic execute that validates arguments before the kind's own code runs. */
#ifndef LG_PRIMITIVES_KERNEL_H
#define LG_PRIMITIVES_KERNEL_H

#include "memory/md.h"

typedef enum lg__kind {
#define X(id, name) LG_KIND_##id,
#include "primitives/kinds.def"
#undef X
    LG_KIND_COUNT
} lg__kind;

/* Most execution arguments a kernel of a fixed arity takes (the slots
 * lg__kernel_new gives, and what a plan step holds): a reorder has 9 (src,
 * dst, scales and zero points of both, two compensations, the rounding
 * seed). Kinds with more (a concat's sources, a typed conv's binary
 * post-ops) size their slots with lg__kernel_new_slots; a plan refuses a
 * step whose kernel has more than this (plan_build.c). */
#define LG_KERNEL_MAX_ARGS 16

/* Most execution arguments any kernel takes: a concat's sources
 * (LG_CONCAT_MAX_SRCS) and its dst. lg_kernel_execute binds this many at
 * most, on its stack. */
#define LG_KERNEL_MAX_SLOTS (LG_CONCAT_MAX_SRCS + 1)

/* One argument slot. `md` is set for tensors (they take part in overlap
 * checks and lg_kernel_query_md); `bytes` is the size of a non-tensor
 * buffer (scales, zero points). */
typedef struct lg__arg_slot {
    int arg;
    bool required;
    bool is_tensor;
    lg_md md;
    size_t bytes;
} lg__arg_slot;

/* What a kernel kind implements. `execute` receives one buffer per slot
 * (NULL for an absent optional one); it must not allocate. `destroy` frees
 * the kind's private data (kernel->data). */
typedef struct lg__kernel_ops {
    lg_status (*execute)(const lg_kernel *k, void *const *bufs);
    void (*destroy)(lg_kernel *k);
} lg__kernel_ops;

/* Optional (lg_kernel.prep, NULL: none): state a plan step keeps for a
 * kernel whose constant arguments the plan fixes for the step's life (a
 * Winograd conv's transformed weights). Kernels are shared between steps
 * and plans through the cache, each with its own constants, so such state
 * belongs to the step, never to the kernel. */
typedef struct lg__kernel_prep_ops {
    /* bufs: one per slot, the constant arguments' buffers and NULL for the
     * others (known only at execution). *state NULL: nothing to keep.
     * LG_OUT_OF_MEMORY (no message) on failure. */
    lg_status (*prepare)(const lg_kernel *k, void *const *bufs, void **state);
    /* As lg__kernel_ops.execute, with the state prepare made; the constant
     * slots hold the same buffers (and bytes) prepare saw. */
    lg_status (*execute)(const lg_kernel *k, void *const *bufs, void *state);
    void (*release)(void *state);
} lg__kernel_prep_ops;

struct lg_kernel {
    const lg__kernel_ops *ops;
    const lg__kernel_prep_ops *prep; /* NULL: no per-step state */
    lg__kind kind;
    int nslots, capslots;
    lg__arg_slot *slots;          /* capslots of them, allocated with the kernel */
    int inplace_src, inplace_dst; /* slots that may be the same buffer (-1: none) */
    _Atomic int refs;
    char impl[64];  /* "reorder:avx512:transpose16" */
    char desc[256]; /* the problem, for verbose lines and messages */
    void *data;     /* the kind's private data */
};

/* A new kernel with one reference and `data_size` zeroed bytes of private
 * data at k->data (which ops->destroy frees with lg__free), or NULL when out
 * of memory (nothing is left allocated; the caller reports the error). */
LG_INTERNAL lg_kernel *lg__kernel_new(lg__kind kind, const lg__kernel_ops *ops, size_t data_size);

/* As lg__kernel_new, with room for `nslots` argument slots (at most
 * LG_KERNEL_MAX_SLOTS) instead of LG_KERNEL_MAX_ARGS. */
LG_INTERNAL lg_kernel *lg__kernel_new_slots(lg__kind kind, const lg__kernel_ops *ops,
                                            size_t data_size, int nslots);

/* Add an argument slot (a tensor if md is non-NULL, else a buffer of
 * `bytes`). Returns its index. At most the kernel's capslots slots. */
LG_INTERNAL int lg__kernel_add_slot(lg_kernel *k, int arg, bool required, const lg_md *md,
                                    size_t bytes);

/* Take one more reference (the cache hands kernels out this way). */
LG_INTERNAL void lg__kernel_retain(lg_kernel *k);

/* The kind's name, e.g. "reorder". */
LG_INTERNAL const char *lg__kind_name(lg__kind kind);

#endif /* LG_PRIMITIVES_KERNEL_H */
