/* A fixed set of problems covering every path of every kernel kind, shared
 * by the allocation-failure sweeps and the cache-concurrency test, and the
 * heap accounting those tests use. Criterion tests only. */
#ifndef LG_TESTS_RELIABILITY_PROBLEMS_H
#define LG_TESTS_RELIABILITY_PROBLEMS_H

#include "reliability/problem.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

typedef struct rel_named {
    const char *name;
    rel_problem p;
} rel_named;

/* Fill out[0..max) with the problems; returns how many. */
int rel_problems(rel_named *out, int max);

/* Bytes malloc has handed out and not had back (glibc's main arena), for
 * leak checks that also hold without a sanitizer. Exact only with glibc's
 * per-thread cache off (freed chunks parked there count as in use), so the
 * CTest case sets GLIBC_TUNABLES=glibc.malloc.tcache_count=0 and
 * rel_heap_exact() says whether it is set. Under ASan the allocator is
 * ASan's and this stays constant: LeakSanitizer checks leaks there. */
static inline size_t rel_heap_in_use(void) {
    return mallinfo2().uordblks;
}

static inline bool rel_heap_exact(void) {
    const char *t = getenv("GLIBC_TUNABLES");
    return t && strstr(t, "glibc.malloc.tcache_count=0");
}

#endif /* LG_TESTS_RELIABILITY_PROBLEMS_H */
