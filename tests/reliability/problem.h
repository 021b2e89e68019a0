/* One problem of a kernel kind that exists today (reorder, shuffle, eltwise,
 * binary), as the reliability tests and the fuzz targets share it: create
 * it through the public API, execute it, and compare every byte of the
 * result with the kind's scalar reference (src/primitives/<kind>/ref.c),
 * called directly on a problem descriptor built here, not by the creator.
 *
 * Plain C with no Criterion: the fuzz targets (clang, libFuzzer) and their
 * replay driver (gcc) compile it too. */
#ifndef LG_TESTS_RELIABILITY_PROBLEM_H
#define LG_TESTS_RELIABILITY_PROBLEM_H

#include "lgraph.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum rel_kind {
    REL_REORDER,
    REL_SHUFFLE,
    REL_ELTWISE,
    REL_BINARY,
    REL_KIND_COUNT
} rel_kind;

typedef struct rel_problem {
    rel_kind kind;
    /* reorder: src, dst; shuffle: md; eltwise: src, dst; binary: src0,
     * src1, dst. dst may be "any" where the kind allows it. */
    lg_md md[3];
    bool null_dst; /* eltwise: pass dst = NULL */
    bool inplace;  /* eltwise: execute with src == dst */
    int alg;       /* eltwise, binary */
    float alpha, beta;
    /* reorder attributes: -1 means none; [0] src, [1] dst. */
    int32_t scale_mask[2], zp_mask[2];
    bool sum;
    float sum_beta;
    /* shuffle */
    lg_prop prop;
    int axis;
    int64_t group;
} rel_problem;

/* A zeroed problem of `kind` with no attributes. */
void rel_problem_init(rel_problem *p, rel_kind kind);

/* "reorder", "shuffle", ... */
const char *rel_kind_name(rel_kind kind);

/* Create the kernel through the public API (lg_attr_create and friends for
 * a reorder with attributes, so attribute allocation is part of it). */
lg_status rel_create(const rel_problem *p, lg_kernel **k);

/* Where input values come from: `fill` bytes (cycled) give raw bit
 * patterns, NaNs and all; with nfill == 0, a generator seeded by `seed`
 * gives moderate values ([-8, 8], converted to the type). */
typedef struct rel_data {
    const uint8_t *fill;
    size_t nfill;
    uint64_t seed;
} rel_data;

/* Execute k (created from p) on inputs from `data`, dst prefilled with the
 * same garbage as the reference's, and compare the whole dst buffer (values,
 * padding, gaps) with the reference: bit for bit, except eltwise algorithms
 * with a transcendental call, within lg__eltwise_ulp_bound (one step for
 * 16-bit types). Returns 0, or -1 with what differed in msg. Buffers above
 * max_bytes are not attempted (returns 0 with *skipped set, if given). */
int rel_check(const rel_problem *p, const lg_kernel *k, const rel_data *data, size_t max_bytes,
              bool *skipped, char *msg, size_t len);

#endif /* LG_TESTS_RELIABILITY_PROBLEM_H */
