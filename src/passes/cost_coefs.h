/* The calibrated coefficients of the cost model (issue 20): a table of
 * entries, each giving the time of one step kind as
 *
 *     fixed_ns + ns_per_byte * bytes + ns_per_flop * flops
 *              + ns_per_spill * spilled bytes (steps with flops)
 *
 * keyed by "kind:class:families:dtype" (lg__cost_key), read from and written
 * to a small JSON file (docs/propagation.md, "The cost model"). The library
 * ships a default table produced by lgraph-calibrate (cost_default.inc). */
#ifndef LG_PASSES_COST_COEFS_H
#define LG_PASSES_COST_COEFS_H

#include <stdio.h>

#include "common/common.h"
#include "lgraph.h"

/* Longest key, NUL included. */
#define LG_COST_KEY_LEN 48

typedef struct lg__cost_entry {
    char key[LG_COST_KEY_LEN];
    double fixed_ns, ns_per_byte, ns_per_flop;
    /* ns per byte beyond the caches (lg__cost_spill) of a step with
     * arithmetic: what its out-of-cache traffic adds (0 in tables made
     * before it; memory-bound steps price spilled bytes by ns_per_flop). */
    double ns_per_spill;
    int samples;        /* measurements the fit used (0: not fitted) */
    double rms_rel_err; /* root mean square relative error of the fit */
} lg__cost_entry;

typedef struct lg__cost_coefs {
    int n;
    lg__cost_entry *e; /* n entries, owned */
    char machine[96];  /* what the calibration ran on, informative */
    int threads;       /* threads the calibration ran with, informative */
    /* Measured speedup of a step on 2 threads over 1 (1 when absent: the
     * entries are then the time on any number of threads): of steps with
     * arithmetic (convs, inner products, pooling) and of memory-bound ones
     * (reorders, eltwise, binary, concat, ...). The entries give the time on
     * one thread; a plan on T threads divides it by 1 + (T - 1) (s - 1). */
    double speedup2_compute, speedup2_memory;
    /* What one step costs on more than one thread beyond its divided
     * one-thread time (waking the other thread, the barrier at its end),
     * ns; 0 when absent. Measured by lg_calibrate on a chain of steps too
     * small to matter by themselves. */
    double step_ns_mt;
} lg__cost_coefs;

/* The per-step overhead of c on `threads` threads (0 or fewer: OpenMP's
 * maximum): c->step_ns_mt from 2 threads on, else 0. */
LG_INTERNAL double lg__cost_step_overhead(const lg__cost_coefs *c, int threads);

/* The layout family of an activation md: "plain" (dense row-major), "cl"
 * (channels last: dim 1 innermost), "b8" / "b16" / "bN" (channels blocked by
 * N), "other". */
LG_INTERNAL const char *lg__cost_family(const lg_md *md, char buf[8]);

/* The key of a step of node kind `kind` (ops name, "reorder"), layer class
 * `cls` (lg_layer_class_name; a kind's variant such as "pooling.ref" may
 * follow it) reading `src` and writing `dst` (either may be NULL): the
 * families as "fam" when equal, else "src>dst", and dst's data type. */
LG_INTERNAL void lg__cost_key(const char *kind, const char *cls, const lg_md *src, const lg_md *dst,
                              char key[LG_COST_KEY_LEN]);

/* The entry for key: the exact key, else the same kind and class in any
 * family ("kind:class:*:*"), else the kind's ("kind:*:*:*"), else "*";
 * NULL when none matches. */
LG_INTERNAL const lg__cost_entry *lg__cost_lookup(const lg__cost_coefs *c, const char *key);

/* Time in ns of a step of `bytes`, `flops` (the third term: spilled bytes
 * for a memory-bound step) and `spill` (lg__cost_spill(bytes) for a step
 * with flops, else 0) under entry e. With no entry (a table without "*"),
 * the byte-count model that preceded calibration: bytes + 0.1 x flops, the
 * caller passing flops times the kind's slowdown. */
LG_INTERNAL double lg__cost_eval(const lg__cost_entry *e, double bytes, double flops, double spill);

/* Bytes of a memory-bound step (no arithmetic) beyond what stays in the
 * caches: the model's third term prices these instead of flops for such
 * steps (ns_per_flop is then ns per spilled byte), since a reorder or an
 * eltwise over tens of MB runs at the memory's bandwidth, not the cache's. */
#define LG_COST_CACHE_BYTES (8.0 * 1024 * 1024)
LG_INTERNAL double lg__cost_spill(double bytes);

/* The factor a step's one-thread time is divided by on `threads` threads
 * (0: OpenMP's default), from c's 2-thread speedups (see above). */
LG_INTERNAL double lg__cost_speedup(const lg__cost_coefs *c, int threads, bool compute);

/* Parse JSON text into *c (which the caller frees with lg__cost_coefs_free).
 * On a malformed text returns LG_INVALID_ARGUMENT with a message naming
 * `where`, `what` (the file) and the line. */
LG_INTERNAL lg_status lg__cost_coefs_parse(const char *text, const char *what, const char *where,
                                           lg__cost_coefs *c);

/* Read and parse the file at path (errors as lg__cost_coefs_parse; a file
 * that cannot be read is LG_INVALID_ARGUMENT too). */
LG_INTERNAL lg_status lg__cost_coefs_load(const char *path, const char *where, lg__cost_coefs *c);

/* Write c as JSON (the format lg__cost_coefs_parse reads). */
LG_INTERNAL lg_status lg__cost_coefs_write(const lg__cost_coefs *c, FILE *f);

/* Append (or replace) an entry; LG_OUT_OF_MEMORY. */
LG_INTERNAL lg_status lg__cost_coefs_set(lg__cost_coefs *c, const lg__cost_entry *e);

LG_INTERNAL void lg__cost_coefs_free(lg__cost_coefs *c);

/* The shipped default table (parsed once; never NULL: an empty table if the
 * embedded text were unreadable, which a test rules out). */
LG_INTERNAL const lg__cost_coefs *lg__cost_coefs_default(void);

/* The table a compile uses: options' path, else LG_COST_MODEL, else the
 * default. *owned receives a table the caller frees (NULL when the default
 * is used). Errors name `where`. */
LG_INTERNAL lg_status lg__cost_coefs_for(const char *path, const char *where,
                                         const lg__cost_coefs **c, lg__cost_coefs **owned);

#endif /* LG_PASSES_COST_COEFS_H */
