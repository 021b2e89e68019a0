/* The kernel cache: counters, LRU eviction, capacity changes, reference
 * counting, and many threads creating and executing overlapping problems.
 * Criterion runs each test in a fresh process, so each starts empty. */
#include "memory/convert.h"
#include "primitives/reorder/reorder.h"
#include "test_util.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* A distinct reorder problem for each i: nchw -> nhwc of 1 x (i+1) x 4 x 4. */
static lg_status make(int i, lg_kernel **k) {
    int64_t dims[4] = {1, i + 1, 4, 4};
    lg_md s, d;
    lg_md_init_tag(&s, 4, dims, LG_F32, "nchw");
    lg_md_init_tag(&d, 4, dims, LG_F32, "nhwc");
    return lg_reorder_create(k, &s, &d, NULL);
}

static lg_cache_stats stats(void) {
    lg_cache_stats s;
    lg_kernel_cache_stats(&s);
    return s;
}

Test(cache, hits_misses_and_same_kernel) {
    cr_assert_eq(lg_kernel_cache_capacity(), 1024);
    lg_kernel *a, *b, *c;
    cr_assert_eq(make(0, &a), LG_OK);
    cr_assert_eq(make(0, &b), LG_OK);
    cr_assert_eq(make(1, &c), LG_OK);
    cr_assert_eq(a, b, "the same problem gives the same kernel");
    cr_assert_neq(a, c);
    lg_cache_stats s = stats();
    cr_assert_eq(s.misses, 2);
    cr_assert_eq(s.hits, 1);
    cr_assert_eq(s.size, 2);
    cr_assert_eq(s.evictions, 0);
    lg_kernel_destroy(a);
    lg_kernel_destroy(b);
    lg_kernel_destroy(c);
    /* Still cached after the users released them. */
    cr_assert_eq(make(1, &c), LG_OK);
    cr_assert_eq(stats().hits, 2);
    lg_kernel_destroy(c);
}

Test(cache, lru_eviction_and_capacity) {
    cr_assert_eq(lg_kernel_cache_set_capacity(3), LG_OK);
    lg_kernel *k;
    for (int i = 0; i < 3; i++) {
        make(i, &k);
        lg_kernel_destroy(k);
    }
    make(0, &k); /* touch 0: now 1 is least recently used */
    lg_kernel_destroy(k);
    make(3, &k); /* evicts 1 */
    lg_kernel_destroy(k);
    lg_cache_stats s = stats();
    cr_assert_eq(s.evictions, 1);
    cr_assert_eq(s.size, 3);
    uint64_t misses = s.misses;
    make(0, &k); /* still there */
    lg_kernel_destroy(k);
    cr_assert_eq(stats().misses, misses);
    make(1, &k); /* was evicted: a miss */
    lg_kernel_destroy(k);
    cr_assert_eq(stats().misses, misses + 1);
    /* Shrinking evicts at once; 0 disables. */
    cr_assert_eq(lg_kernel_cache_set_capacity(1), LG_OK);
    cr_assert_eq(stats().size, 1);
    cr_assert_eq(lg_kernel_cache_set_capacity(0), LG_OK);
    cr_assert_eq(stats().size, 0);
    lg_kernel *x, *y;
    make(5, &x);
    make(5, &y);
    cr_assert_neq(x, y, "a disabled cache builds every time");
    cr_assert_eq(stats().size, 0);
    lg_kernel_destroy(x);
    lg_kernel_destroy(y);
    cr_assert_eq(lg_kernel_cache_set_capacity(-1), LG_INVALID_ARGUMENT);
}

Test(cache, kernel_outlives_its_eviction) {
    lg_kernel_cache_set_capacity(1);
    lg_kernel *k, *other;
    make(7, &k);
    make(8, &other); /* evicts 7 while the user still holds it */
    cr_assert_eq(stats().evictions, 1);
    float src[8 * 16], dst[8 * 16];
    for (int i = 0; i < 8 * 16; i++) src[i] = (float)i;
    lg_arg args[2] = {{LG_ARG_SRC, src}, {LG_ARG_DST, dst}};
    cr_assert_eq(lg_kernel_execute(k, 2, args), LG_OK);
    cr_assert_eq(dst[1], src[16], "nchw -> nhwc: channel 1 of pixel 0");
    lg_kernel_destroy(k);
    lg_kernel_destroy(other);
}

Test(cache, capacity_from_environment) {
    setenv("LG_KERNEL_CACHE_CAPACITY", "7", 1);
    cr_assert_eq(lg_kernel_cache_capacity(), 7);
}

Test(cache, different_isa_caps_are_different_kernels) {
    lg_kernel *a, *b;
    lg__cpu_set_isa_cap(LG_ISA_SCALAR);
    make(2, &a);
    lg__cpu_set_isa_cap(-1);
    make(2, &b);
    if (lg__cpu_isa_hw() > LG_ISA_SCALAR) cr_assert_neq(a, b);
    lg_kernel_destroy(a);
    lg_kernel_destroy(b);
}

#define NTHREADS  8
#define NPROBLEMS 12
static lg_kernel *seen[NTHREADS][NPROBLEMS];

/* Each thread creates every problem (in a thread-specific order), executes
 * it and checks the nchw -> nhwc result by hand, then keeps the kernel. */
static void *worker(void *arg) {
    int t = (int)(intptr_t)arg;
    float src[NPROBLEMS * 16], dst[NPROBLEMS * 16];
    for (int rep = 0; rep < 20; rep++)
        for (int j = 0; j < NPROBLEMS; j++) {
            int i = (j * (t + 1) + rep) % NPROBLEMS;
            lg_kernel *k;
            if (make(i, &k) != LG_OK) return (void *)1;
            int c = i + 1;
            for (int e = 0; e < c * 16; e++) src[e] = (float)(e * (t + 1));
            lg_arg args[2] = {{LG_ARG_SRC, src}, {LG_ARG_DST, dst}};
            if (lg_kernel_execute(k, 2, args) != LG_OK) return (void *)2;
            for (int ch = 0; ch < c; ch++)
                for (int p = 0; p < 16; p++)
                    if (dst[p * c + ch] != src[ch * 16 + p]) return (void *)3;
            if (!seen[t][i])
                seen[t][i] = k;
            else
                lg_kernel_destroy(k);
        }
    return NULL;
}

Test(cache, eight_threads_overlapping_problems) {
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < NTHREADS; t++) {
        void *r;
        pthread_join(th[t], &r);
        cr_assert_null(r, "thread %d failed with %d", t, (int)(intptr_t)r);
    }
    lg_cache_stats s = stats();
    cr_assert_eq(s.misses, NPROBLEMS, "each problem built exactly once, got %llu builds",
                 (unsigned long long)s.misses);
    cr_assert_eq(s.hits, (uint64_t)NTHREADS * NPROBLEMS * 20 - NPROBLEMS);
    for (int i = 0; i < NPROBLEMS; i++)
        for (int t = 0; t < NTHREADS; t++) {
            cr_assert_eq(seen[t][i], seen[0][i], "one kernel per problem");
            lg_kernel_destroy(seen[t][i]);
        }
}

/* Threads creating while another thread keeps changing the capacity. */
static _Atomic int stop_flag;
static void clear_seen(void) {
    memset(seen, 0, sizeof seen);
}

static void *capacity_changer(void *arg) {
    (void)arg;
    for (int i = 0; !stop_flag; i++) lg_kernel_cache_set_capacity(i % 5);
    return NULL;
}

Test(cache, capacity_changes_under_load) {
    pthread_t ch, th[4];
    clear_seen();
    pthread_create(&ch, NULL, capacity_changer, NULL);
    for (int t = 0; t < 4; t++) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < 4; t++) {
        void *r;
        pthread_join(th[t], &r);
        cr_assert_null(r, "thread %d failed", t);
    }
    stop_flag = 1;
    pthread_join(ch, NULL);
    for (int i = 0; i < NPROBLEMS; i++)
        for (int t = 0; t < 4; t++) lg_kernel_destroy(seen[t][i]);
}
