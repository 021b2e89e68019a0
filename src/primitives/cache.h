/* The process-wide kernel cache: every kernel creator goes through it. */
#ifndef LG_PRIMITIVES_CACHE_H
#define LG_PRIMITIVES_CACHE_H

#include "primitives/kernel.h"

/* Build a kernel for `problem` (the bytes given to lg__cache_get). */
typedef lg_status (*lg__kernel_builder)(const void *problem, lg_kernel **out);

/*
 * The kernel for (kind, problem, current ISA): from the cache when present,
 * else built by `build` and kept (least recently used kernels are evicted
 * beyond the capacity). `problem` must be a zeroed-then-filled struct: it is
 * hashed (XXH3_64bits) and compared as raw bytes. Two threads asking for the
 * same new problem at once get one kernel, built once. On success *out holds
 * a reference the caller releases with lg_kernel_destroy.
 */
LG_INTERNAL lg_status lg__cache_get(lg__kind kind, const void *problem, size_t size,
                                    lg__kernel_builder build, lg_kernel **out);

#endif /* LG_PRIMITIVES_CACHE_H */
