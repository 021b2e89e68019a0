/* The allocator every part of lgraph uses, with a failure-injection hook. */
#define _DEFAULT_SOURCE /* madvise */
#include "common.h"

#include <stdatomic.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>

/* Requests above this fail as out of memory without asking the system: no
 * machine lgraph runs on has that much, and sanitizers abort on such
 * requests (ASan's limit is 1 TiB) where lgraph must return a status (a
 * kernel sized from an absurd descriptor, found by fuzz_md_hand). */
#define ALLOC_MAX ((size_t)1 << 39)

/* Allocations left before failures start; negative: never fail. */
static _Atomic int64_t fail_budget = -1;
static _Atomic int64_t alloc_count = 0;

int64_t lg__alloc_fail_after(int64_t n) {
    atomic_store(&fail_budget, n);
    return atomic_exchange(&alloc_count, 0);
}

/* True if this allocation must fail (the injected failure). */
static bool should_fail(void) {
    atomic_fetch_add(&alloc_count, 1);
    int64_t b = atomic_load(&fail_budget);
    while (b >= 0) {
        if (b == 0) return true;
        if (atomic_compare_exchange_weak(&fail_budget, &b, b - 1)) return false;
    }
    return false;
}

void *lg__malloc(size_t size) {
    return should_fail() || size > ALLOC_MAX ? NULL : malloc(size ? size : 1);
}

void *lg__calloc(size_t n, size_t size) {
    if (should_fail() || (size && n > ALLOC_MAX / size)) return NULL;
    return calloc(n ? n : 1, size ? size : 1);
}

void *lg__aligned_alloc(size_t align, size_t size) {
    if (should_fail() || size > ALLOC_MAX) return NULL;
    void *p = NULL;
    if (posix_memalign(&p, align, size ? size : 1) != 0) return NULL;
    return p;
}

void *lg__alloc_big(size_t size) {
    const size_t huge = (size_t)2 << 20;
    if (size < 2 * huge) return lg__aligned_alloc(64, size);
    void *p = lg__aligned_alloc(huge, size);
#ifdef MADV_HUGEPAGE
    /* A hint: where the kernel has no huge pages it is ignored. */
    if (p) (void)madvise(p, size / 4096 * 4096, MADV_HUGEPAGE);
#endif
    return p;
}

void lg__free(void *p) {
    free(p);
}

bool lg__grow(void **arr, int n, int *cap, size_t size) {
    if (n < *cap) return true;
    int nc = *cap ? *cap * 2 : 8;
    void *p = lg__malloc((size_t)nc * size);
    if (!p) return false;
    if (n) memcpy(p, *arr, (size_t)n * size);
    lg__free(*arr);
    *arr = p;
    *cap = nc;
    return true;
}
