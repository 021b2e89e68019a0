/* Buffers for lgbench's problems: allocation, seeded filling, the checks of
 * correctness mode (element comparison, the padded-area check) and the
 * fault injection that proves those checks can fail. */
#ifndef LGBENCH_CHECK_H
#define LGBENCH_CHECK_H

#include "lgbench.h"

/* splitmix64, seeded from a job's reproducer line so that every problem
 * gets the same data whatever runs before it. */
typedef struct lgb_rng {
    uint64_t s;
} lgb_rng;
lgb_rng lgb_rng_seed(const char *text);
uint64_t lgb_rng_next(lgb_rng *r);
/* Uniform in [lo, hi). */
float lgb_rng_float(lgb_rng *r, float lo, float hi);

/* A zeroed 64-byte-aligned buffer of lg_md_size(md) bytes (at least 64);
 * NULL when out of memory. Free with free(). */
void *lgb_buf_alloc(const lg_md *md);

/* Fill the logical elements of buf with values drawn from [lo, hi)
 * (rounded to integers if `integers`), converted to md's type; the padding
 * stays as it is (zero from lgb_buf_alloc). */
void lgb_buf_fill(const lg_md *md, void *buf, lgb_rng *r, float lo, float hi, bool integers);

/* Fill the whole buffer, padding included, with a non-zero byte pattern,
 * so that an output the kernel fails to write, or padding it fails to
 * zero, shows. */
void lgb_buf_poison(const lg_md *md, void *buf);

/* True if every padding element of buf (indices inside padded_dims but
 * outside dims) is zero; otherwise writes the first offender into msg. */
bool lgb_check_padding(const lg_md *md, const void *buf, const char *name, char *msg, size_t len);

/* Compare the logical elements of got with want. ulps 0: the same bits
 * (NaN payloads included); otherwise f32 within `ulps` units in the last
 * place of want, f16/bf16 within one step, integers exact; NaN matches NaN.
 * On a mismatch writes the first one (logical index, values) and the count
 * into msg. */
bool lgb_compare(const lg_md *md, const void *got, const void *want, double ulps, const char *name,
                 char *msg, size_t len);

/* As lgb_compare but within a relative tolerance: |got - want| <= rel *
 * max(|want|, floor) (for sums of many products, e.g. conv). */
bool lgb_compare_rel(const lg_md *md, const void *got, const void *want, double rel, double floor,
                     const char *name, char *msg, size_t len);

/* The --fault self-test: change one logical element (VALUE) or one padding
 * element (PADDING, when md has padding) of buf. */
void lgb_inject_fault(lgb_fault f, const lg_md *md, void *buf);

/* Advance idx over the box [0, ext) row-major; false after the last. */
bool lgb_next_index(int64_t *idx, const int64_t *ext, int nd);

#endif /* LGBENCH_CHECK_H */
