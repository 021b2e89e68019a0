/* What the fuzz targets share: a reader that turns the fuzzer's bytes into
 * choices (reading past the end gives zeros, so every input is valid), a
 * generator of small descriptors in every layout family, and the runner of
 * the kernel targets (create through the public API, execute, compare with
 * the reference: tests/reliability/problem.c).
 *
 * Every target is one file tests/fuzz/fuzz_<name>.c defining
 * LLVMFuzzerTestOneInput; it is linked with libFuzzer (clang, scripts/fuzz.sh)
 * or with replay.c (any compiler: the CTest case that replays the committed
 * corpus tests/fuzz/corpus/<name>/). A property that does not hold aborts,
 * which both count as a failure. */
#ifndef LG_TESTS_FUZZ_H
#define LG_TESTS_FUZZ_H

#include "reliability/problem.h"
#include "robustness/extremes.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fz {
    const uint8_t *p;
    size_t n, at;
} fz;

static inline uint8_t fz_u8(fz *f) {
    return f->at < f->n ? f->p[f->at++] : 0;
}

/* An integer in [lo, hi] (hi - lo < 256) from one byte. */
static inline int fz_int(fz *f, int lo, int hi) {
    return lo + fz_u8(f) % (hi - lo + 1);
}

static inline uint64_t fz_u64(fz *f) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | fz_u8(f);
    return v;
}

/* One of the hostile-input sweep's extreme values (tests/robustness/
 * extremes.h: 0, -1, the int64 / int limits, overflowing products, huge
 * thread counts), chosen by one byte. */
static inline int64_t fz_x64(fz *f) {
    return lg_x64_at(fz_u8(f));
}
static inline int fz_xint(fz *f) {
    return lg_xint_at(fz_u8(f));
}

/* Abort with "fuzz <target>: <message>" on stderr: the property failed. */
_Noreturn void fz_fail(const char *target, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Read the control byte every kernel target starts with: the ISA cap (the
 * levels the CPU lacks fold onto what it has) and, now and then, a small
 * kernel-cache capacity so eviction runs too. fz_end undoes both. */
void fz_begin(fz *f);
void fz_end(void);

/* Largest buffer (bytes) a kernel target's descriptor may need. */
#define FZ_MAX_BYTES (64 * 1024)

/* Small dims: ndims in [1, max_nd], each mostly 1..12, sometimes up to 36
 * (odd channel counts), rarely 0. */
void fz_dims(fz *f, int max_nd, int *nd, int64_t *dims);

/* One of the six data types, or one of those whose bit `allowed` is set
 * (bit i: lg_dtype i + 1). */
lg_dtype fz_dtype(fz *f, unsigned allowed);

/* A descriptor of the given dims and type in a layout the bytes choose:
 * a permuted plain tag, a generated blocked tag (one or two inner blocks of
 * 2, 3, 4, 8 or 16), explicit strides with gaps, or a domain alias. False
 * if the layout does not apply or the buffer would exceed FZ_MAX_BYTES. */
bool fz_md(fz *f, int nd, const int64_t *dims, lg_dtype dt, lg_md *md);

/* What a target expects of creation. */
typedef enum fz_expect {
    FZ_MUST_CREATE, /* a valid problem the kind supports */
    FZ_MAY_REFUSE,  /* LG_UNIMPLEMENTED is an acceptable answer */
    FZ_MUST_REFUSE, /* an invalid argument: LG_INVALID_ARGUMENT with a message */
} fz_expect;

/* Create p; check the status against `expect` (a refusal must be
 * LG_INVALID_ARGUMENT or LG_UNIMPLEMENTED with a message); when created,
 * execute on the input's remaining bytes and compare with the reference. */
void fz_run(const char *target, const rel_problem *p, fz_expect expect, fz *f);

#endif /* LG_TESTS_FUZZ_H */
