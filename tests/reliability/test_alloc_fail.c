/* Allocation failure: for every problem of problems.c, every ISA level the
 * CPU has, and the kernel cache on and off, fail the Nth allocation for
 * N = 0, 1, 2, ... until the creation succeeds. Each failing N must give
 * LG_OUT_OF_MEMORY with a message, leave the kernel pointer alone, leave no
 * entry in the cache and no byte on the heap (glibc's counters with its
 * thread cache off, as CTest runs it;
 * LeakSanitizer in the ASan run); the succeeding N must give a kernel that
 * executes correctly (against the reference) without allocating. */
#include "primitives/cpu.h"
#include "reliability/problems.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#define MAX_ALLOCS 64

static lg_cache_stats stats(void) {
    lg_cache_stats s;
    lg_kernel_cache_stats(&s);
    return s;
}

/* One sweep; returns the number of allocations the successful call made. */
static int sweep(const rel_named *pr, bool heap_check) {
    const rel_problem *p = &pr->p;
    for (int n = 0; n <= MAX_ALLOCS; n++) {
        lg_kernel *k = NULL;
        lg_cache_stats before = stats();
        size_t heap = rel_heap_in_use();
        lg__alloc_fail_after(n);
        lg_status s = rel_create(p, &k);
        int64_t used = lg__alloc_fail_after(-1);
        if (s == LG_OK) {
            cr_assert_leq(used, n, "%s: success after %lld allocations with %d allowed", pr->name,
                          (long long)used, n);
            /* Execution must not allocate: every allocation fails from now. */
            lg__alloc_fail_after(0);
            char msg[256];
            rel_data data = {NULL, 0, (uint64_t)n + 1};
            int r = rel_check(p, k, &data, SIZE_MAX, NULL, msg, sizeof msg);
            int64_t exec_allocs = lg__alloc_fail_after(-1);
            cr_assert_eq(r, 0, "%s after %d failed allocations: %s", pr->name, n, msg);
            cr_assert_eq(exec_allocs, 0, "%s: execute allocated", pr->name);
            lg_kernel_destroy(k);
            return n;
        }
        cr_assert_eq(s, LG_OUT_OF_MEMORY, "%s: failing allocation %d gave %s (%s)", pr->name, n,
                     lg_status_str(s), lg_last_error());
        cr_assert_gt(used, n, "%s: LG_OUT_OF_MEMORY without an injected failure (%d)", pr->name, n);
        cr_assert(strstr(lg_last_error(), "allocate") != NULL, "%s: message '%s'", pr->name,
                  lg_last_error());
        cr_assert_null(k, "%s: kernel pointer set on failure", pr->name);
        cr_assert_eq(stats().size, before.size, "%s: failed creation left a cache entry", pr->name);
        if (heap_check)
            cr_assert_eq(rel_heap_in_use(), heap, "%s: failing allocation %d leaked %zd bytes",
                         pr->name, n, (ssize_t)(rel_heap_in_use() - heap));
    }
    cr_assert_fail("%s: still failing after %d allocations", pr->name, MAX_ALLOCS);
    return -1;
}

/* A created kernel of another problem, so that the cache's bucket array
 * (kept for the life of the process) exists before the heap is watched. */
static void warm_cache(void) {
    rel_problem p;
    rel_problem_init(&p, REL_ELTWISE);
    int64_t dims[1] = {5};
    lg_md_init_tag(&p.md[0], 1, dims, LG_F32, "a");
    p.null_dst = true;
    lg_kernel *k;
    cr_assert_eq(rel_create(&p, &k), LG_OK);
    lg_kernel_destroy(k);
}

static void sweep_kind(rel_kind kind) {
    rel_named all[32];
    int n = rel_problems(all, 32), swept = 0;
    bool heap = rel_heap_exact();
    warm_cache();
    for (int cap = 0; cap < 2; cap++) {
        lg_kernel_cache_set_capacity(cap ? 1024 : 0);
        for (int isa = LG_ISA_SCALAR; isa <= (int)lg__cpu_isa_hw(); isa++) {
            lg__cpu_set_isa_cap(isa);
            for (int i = 0; i < n; i++) {
                if (all[i].p.kind != kind) continue;
                int allocs = sweep(&all[i], heap);
                printf("alloc-fail: %-66s %-6s cache %-3s: %d allocations, each failing one "
                       "gives LG_OUT_OF_MEMORY%s\n",
                       all[i].name, lg__isa_name((lg__isa)isa), cap ? "on" : "off", allocs,
                       heap ? ", heap back to its size" : "");
                swept++;
            }
        }
    }
    lg__cpu_set_isa_cap(-1);
    cr_assert_gt(swept, 0);
}

Test(alloc_fail, reorder) {
    sweep_kind(REL_REORDER);
}

Test(alloc_fail, shuffle) {
    sweep_kind(REL_SHUFFLE);
}

Test(alloc_fail, eltwise) {
    sweep_kind(REL_ELTWISE);
}

Test(alloc_fail, binary) {
    sweep_kind(REL_BINARY);
}

/* The very first cache insert of the process: the bucket array itself. */
Test(alloc_fail, first_cache_insert) {
    rel_named all[32];
    rel_problems(all, 32);
    cr_assert_eq(lg_kernel_cache_capacity(), 1024);
    cr_assert_eq(stats().size, 0);
    int allocs = sweep(&all[0], false);
    cr_assert_geq(allocs, 3, "entry, key copy and bucket array come before the kernel");
    cr_assert_eq(stats().size, 1);
}

Test(alloc_fail, attr) {
    lg_attr *a = (lg_attr *)&a; /* a value that must survive the failure */
    lg_attr *const before = a;
    size_t heap = rel_heap_in_use();
    lg__alloc_fail_after(0);
    lg_status s = lg_attr_create(&a);
    cr_assert_eq(lg__alloc_fail_after(-1), 1);
    cr_assert_eq(s, LG_OUT_OF_MEMORY);
    cr_assert(strstr(lg_last_error(), "allocate") != NULL, "%s", lg_last_error());
    cr_assert_eq(a, before);
    if (rel_heap_exact()) cr_assert_eq(rel_heap_in_use(), heap);
    lg__alloc_fail_after(1);
    cr_assert_eq(lg_attr_create(&a), LG_OK);
    /* Setting masks and post-ops never allocates. */
    lg__alloc_fail_after(0);
    cr_assert_eq(lg_attr_set_scales(a, LG_ARG_SRC, 3), LG_OK);
    cr_assert_eq(lg_attr_set_zero_points(a, LG_ARG_DST, 0), LG_OK);
    cr_assert_eq(lg_attr_append_sum(a, 1.0f), LG_OK);
    cr_assert_eq(lg_attr_append_eltwise(a, LG_ELTWISE_RELU, 0.0f, 0.0f), LG_OK);
    cr_assert_eq(lg__alloc_fail_after(-1), 0);
    lg_attr_destroy(a);
}
