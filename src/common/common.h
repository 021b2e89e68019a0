/* Internal helpers shared by every part of lgraph: error reporting, the
 * allocator (with its failure-injection hook), overflow-checked arithmetic and
 * verbose logging. Names are lg__ (internal across files). */
#ifndef LG_COMMON_H
#define LG_COMMON_H

#include "lgraph.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define LG_INTERNAL     __attribute__((visibility("hidden")))
#define LG_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* Record "where: message" as this thread's last error and return status.
 * Use through LG_ERROR so that `where` is the calling function. A NULL
 * `where` records nothing: internal probes (is this a valid tag?) pass it. */
LG_INTERNAL lg_status lg__error(lg_status status, const char *where, const char *fmt, ...)
    LG_PRINTF(3, 4);
#define LG_ERROR(status, ...) lg__error((status), __func__, __VA_ARGS__)

/* Set this thread's last error to `msg` as it is ("where: message", e.g.
 * one recorded on another thread, which an asynchronous execution hands
 * over); an empty msg leaves it unchanged. */
LG_INTERNAL void lg__error_copy(const char *msg);

/* Copy this thread's last error into buf, to quote it in a new message (a
 * message may not be formatted from the buffer it is written into). */
static inline const char *lg__why(char *buf, size_t len) {
    snprintf(buf, len, "%s", lg_last_error());
    return buf;
}

/* Return `status` from the enclosing function unless it is LG_OK. */
#define LG_CHECK(expr)                                                                             \
    do {                                                                                           \
        lg_status lg__s = (expr);                                                                  \
        if (lg__s != LG_OK) return lg__s;                                                          \
    } while (0)

/* The library's allocator. Every allocation lgraph makes goes through these
 * so that tests can fail the Nth one (lg__alloc_fail_after). lg__malloc and
 * lg__calloc return NULL on failure without setting an error; callers report
 * LG_OUT_OF_MEMORY themselves. lg__aligned_alloc aligns to `align` (a power of
 * two, at least sizeof(void *)) and must be released with lg__free. A
 * request above 512 GiB fails (NULL) without reaching the system allocator,
 * whose sanitizer builds abort on such sizes instead of failing. */
LG_INTERNAL void *lg__malloc(size_t size);
LG_INTERNAL void *lg__calloc(size_t n, size_t size);
LG_INTERNAL void *lg__aligned_alloc(size_t align, size_t size);

/* lg__aligned_alloc(64, size) for a large buffer written once and kept
 * (folded weights): from 4 MB on, 2 MB aligned and marked for transparent
 * huge pages, so that writing it takes one page fault per 2 MB instead of
 * one per 4 KB. Freed with lg__free. */
LG_INTERNAL void *lg__alloc_big(size_t size);
LG_INTERNAL void lg__free(void *p);
/* Make room in *arr, an array of *cap elements of `size` bytes holding n, for
 * one more: doubles the capacity (from 8) when full, keeping the n elements.
 * False when out of memory (the array is then unchanged). */
LG_INTERNAL bool lg__grow(void **arr, int n, int *cap, size_t size);
/* Test hook: allocations after the next n succeed fail; n < 0 turns it off.
 * Returns how many allocations were made since the previous call. */
LG_INTERNAL int64_t lg__alloc_fail_after(int64_t n);

/* Overflow-checked int64 arithmetic: false if the result does not fit. */
static inline bool lg__mul_ok(int64_t a, int64_t b, int64_t *r) {
    return !__builtin_mul_overflow(a, b, r);
}
static inline bool lg__add_ok(int64_t a, int64_t b, int64_t *r) {
    return !__builtin_add_overflow(a, b, r);
}
/* a + b for non-negative sizes, INT64_MAX when it does not fit: for byte
 * counts that only steer decisions (threads, streaming stores). */
static inline int64_t lg__sat_add(int64_t a, int64_t b) {
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

/* LG_VERBOSE level, read once from the environment (0 when unset). */
LG_INTERNAL int lg__verbose(void);
/* Print one "lgraph_verbose,<kind>,..." line to stderr, thread-safe per line. */
LG_INTERNAL void lg__verbose_printf(const char *fmt, ...) LG_PRINTF(1, 2);
/* A monotonic clock in milliseconds, for verbose timings and benchmarks. */
LG_INTERNAL double lg__now_ms(void);

#endif /* LG_COMMON_H */
