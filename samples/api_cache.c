/*
 * api_cache: the kernel cache (docs/api.md, "Kernel cache").
 *
 * Every lg_*_create looks its problem up in a process-wide LRU cache first:
 * the second request for the same problem is a hit and returns the same
 * kernel; a full cache evicts the least recently used. Exits non-zero if
 * the counters do not move as stated.
 */
#include <lgraph.h>

#include <stdio.h>

static int failures;
#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAILED: %s (line %d)\n", #cond, __LINE__);                                     \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static lg_kernel *relu_kernel(int64_t channels) {
    int64_t dims[4] = {1, channels, 8, 8};
    lg_md md;
    lg_kernel *k = NULL;
    if (lg_md_init_tag(&md, 4, dims, LG_F32, "nChw16c") != LG_OK ||
        lg_eltwise_create(&k, LG_ELTWISE_RELU, 0, 0, &md, NULL) != LG_OK)
        printf("create: %s\n", lg_last_error());
    return k;
}

int main(void) {
    lg_cache_stats s0, s;
    EXPECT(lg_kernel_cache_set_capacity(2) == LG_OK);
    lg_kernel_cache_stats(&s0);

    lg_kernel *a = relu_kernel(16); /* miss: built */
    lg_kernel *b = relu_kernel(16); /* hit: the same kernel */
    lg_kernel_cache_stats(&s);
    printf("after two requests: hits %llu, misses %llu, size %d\n",
           (unsigned long long)(s.hits - s0.hits), (unsigned long long)(s.misses - s0.misses),
           s.size);
    EXPECT(a && a == b);
    EXPECT(s.hits - s0.hits == 1 && s.misses - s0.misses == 1);

    /* Two more problems in a cache of two: the least recent (16) goes. */
    lg_kernel *c = relu_kernel(32), *d = relu_kernel(48);
    lg_kernel_cache_stats(&s);
    printf("capacity %d: size %d, evictions %llu\n", s.capacity, s.size,
           (unsigned long long)(s.evictions - s0.evictions));
    EXPECT(s.size == 2 && s.evictions - s0.evictions == 1);

    /* Kernels stay valid after eviction: each create is released by the caller. */
    lg_kernel_destroy(a);
    lg_kernel_destroy(b);
    lg_kernel_destroy(c);
    lg_kernel_destroy(d);

    /* Capacity 0 disables the cache: every request builds. */
    EXPECT(lg_kernel_cache_set_capacity(0) == LG_OK);
    lg_kernel_cache_stats(&s0);
    a = relu_kernel(16);
    b = relu_kernel(16);
    lg_kernel_cache_stats(&s);
    EXPECT(a && b && a != b && s.hits == s0.hits);
    lg_kernel_destroy(a);
    lg_kernel_destroy(b);
    EXPECT(lg_kernel_cache_set_capacity(-1) == LG_INVALID_ARGUMENT);
    printf("capacity -1: %s\n", lg_last_error());
    EXPECT(lg_kernel_cache_set_capacity(1024) == LG_OK);
    if (failures) return 1;
    printf("OK\n");
    return 0;
}
