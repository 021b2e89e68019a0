/* The kernel cache under load: 8 threads create, execute and release
 * kernels of overlapping problems of every kind (problems.c) while another
 * thread keeps changing the capacity (0 disables the cache, 1 and 2 evict
 * constantly, 1024 keeps everything) and a third reads the counters. Every
 * execution is checked against the reference; each thread also holds some
 * kernels across evictions and executes them later. Runs in the normal and
 * ASan suites and under ThreadSanitizer (scripts/tsan.sh). */
#include "reliability/problems.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define NTHREADS 8
#define ROUNDS   4
#define HELD     3

static rel_named problems[32];
static int nproblems;
static _Atomic int stop;
static _Atomic uint64_t creates;

typedef struct result {
    int thread;
    int failed;
    char msg[320];
} result;

static int run_one(const rel_named *pr, const lg_kernel *k, uint64_t seed, result *res) {
    rel_data data = {NULL, 0, seed};
    char msg[256];
    if (rel_check(&pr->p, k, &data, SIZE_MAX, NULL, msg, sizeof msg) == 0) return 0;
    res->failed = 1;
    snprintf(res->msg, sizeof res->msg, "%s: %s", pr->name, msg);
    return -1;
}

static void *worker(void *arg) {
    result *res = arg;
    uint64_t seed = 1000003u * (uint64_t)(res->thread + 1);
    lg_kernel *held[HELD] = {NULL};
    int held_pb[HELD] = {0};
    for (int r = 0; r < ROUNDS; r++)
        for (int j = 0; j < nproblems; j++) {
            int i = (int)((j * 7 + seed % 13 + (uint64_t)r) % (uint64_t)nproblems);
            lg_kernel *k = NULL;
            lg_status s = rel_create(&problems[i].p, &k);
            atomic_fetch_add(&creates, 1);
            if (s != LG_OK) {
                res->failed = 1;
                snprintf(res->msg, sizeof res->msg, "%s: create: %s", problems[i].name,
                         lg_last_error());
                goto out;
            }
            if (run_one(&problems[i], k, seed + (uint64_t)(r * 100 + j), res)) {
                lg_kernel_destroy(k);
                goto out;
            }
            /* Keep every few kernels a while: the cache may evict them meanwhile. */
            int h = j % HELD;
            if (held[h] && run_one(&problems[held_pb[h]], held[h], seed ^ 0x55, res)) {
                lg_kernel_destroy(k);
                goto out;
            }
            lg_kernel_destroy(held[h]);
            held[h] = k;
            held_pb[h] = i;
        }
out:
    for (int h = 0; h < HELD; h++) lg_kernel_destroy(held[h]);
    return NULL;
}

static void *capacity_changer(void *arg) {
    (void)arg;
    static const int caps[] = {0, 1, 2, 5, 1024, 3, 0, 16};
    for (int i = 0; !atomic_load(&stop); i++) {
        lg_kernel_cache_set_capacity(caps[i % 8]);
        lg_kernel_cache_capacity();
    }
    return NULL;
}

static void *stats_reader(void *arg) {
    uint64_t *bad = arg;
    while (!atomic_load(&stop)) {
        lg_cache_stats s;
        lg_kernel_cache_stats(&s);
        if (s.size < 0 || s.capacity < 0) (*bad)++;
    }
    return NULL;
}

Test(cache_concurrency, eight_threads_while_capacity_changes) {
    nproblems = rel_problems(problems, 32);
    lg_cache_stats s0;
    lg_kernel_cache_stats(&s0);
    pthread_t th[NTHREADS], ch, rd;
    static result res[NTHREADS];
    uint64_t bad = 0;
    cr_assert_eq(pthread_create(&ch, NULL, capacity_changer, NULL), 0);
    cr_assert_eq(pthread_create(&rd, NULL, stats_reader, &bad), 0);
    for (int t = 0; t < NTHREADS; t++) {
        res[t].thread = t;
        cr_assert_eq(pthread_create(&th[t], NULL, worker, &res[t]), 0);
    }
    for (int t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
    atomic_store(&stop, 1);
    pthread_join(ch, NULL);
    pthread_join(rd, NULL);
    for (int t = 0; t < NTHREADS; t++)
        cr_assert_eq(res[t].failed, 0, "thread %d: %s", t, res[t].msg);
    cr_assert_eq(bad, 0);
    /* Every create was a hit or a miss; the cache fits its final capacity. */
    lg_cache_stats s;
    lg_kernel_cache_stats(&s);
    cr_assert_eq((s.hits - s0.hits) + (s.misses - s0.misses), atomic_load(&creates));
    printf("cache-concurrency: %llu creates: %llu hits, %llu misses, %llu evictions\n",
           (unsigned long long)atomic_load(&creates), (unsigned long long)(s.hits - s0.hits),
           (unsigned long long)(s.misses - s0.misses),
           (unsigned long long)(s.evictions - s0.evictions));
    cr_assert_eq(lg_kernel_cache_set_capacity(2), LG_OK);
    lg_kernel_cache_stats(&s);
    cr_assert_leq(s.size, 2);
    cr_assert_eq(s.capacity, 2);
    /* And the cache still works: a hit returns the kernel it keeps. */
    lg_kernel *a, *b;
    cr_assert_eq(rel_create(&problems[0].p, &a), LG_OK);
    cr_assert_eq(rel_create(&problems[0].p, &b), LG_OK);
    cr_assert_eq(a, b);
    lg_kernel_destroy(a);
    lg_kernel_destroy(b);
}
