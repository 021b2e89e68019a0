/* What the per-kind drivers share: turning lgraph statuses into results,
 * building an lg_attr and its run-time arrays from an attribute spec. */
#ifndef LGBENCH_DRV_COMMON_H
#define LGBENCH_DRV_COMMON_H

#include "check.h"
#include "parse.h"

/* After an lg_*_create call named `what`: true for LG_OK; LG_UNIMPLEMENTED
 * makes the result SKIPPED (the library declines a valid problem, and says
 * why); anything else FAILED. Both carry lg_last_error(). */
bool lgb_created(lg_status s, const char *what, lgb_result *res);

/* Whether buffers of `bytes` in all fit in memory (half of RAM); if not,
 * res is SKIPPED, as benchdnn skips problems that do not fit. */
bool lgb_fits(double bytes, lgb_result *res);

/* A data type knob's value: true with *dt set; a type lgraph leaves out
 * (f64, f8, ...) SKIPPED, anything else FAILED, into res. */
bool lgb_dt(const char *s, lg_dtype *dt, lgb_result *res);

/* lg_kernel_execute, a failure recorded in res. */
bool lgb_execute(const lg_kernel *k, int nargs, const lg_arg *args, lgb_result *res);

/* Most execution arguments a driver passes (concat: 16 sources and dst). */
#define LGB_MAX_ARGS 17

/* A created kernel and its execution arguments: what lgb_perf times. */
typedef struct lgb_run {
    lg_kernel *k;
    int nargs;
    lg_arg args[LGB_MAX_ARGS];
} lgb_run;

/* lgb_perf's callback for an lgb_run: lg_kernel_execute(k, nargs, args). */
void lgb_run_exec(void *run);

/* What a weighted kernel (conv, inner product) runs on: the layouts the
 * kernel chose for "any", buffers for them filled with small integers
 * seeded by the reproducer line (dst holds dst_old, a sum's input), and
 * `want`, for the truth. */
typedef struct lgb_wbufs {
    lg_md sq, wq, dq;
    void *src, *wei, *bias, *dst, *want;
} lgb_wbufs;

/* After r->k is created: query its layouts, allocate and fill w (bias by
 * bias_md, each value times bias_scale), and set r's arguments (bias only
 * if with_bias). FAILED into res on error; w is freed by lgb_wbufs_free
 * either way. */
bool lgb_wbufs_init(lgb_wbufs *w, lgb_run *r, const lg_md *bias_md, bool with_bias,
                    float bias_scale, const char *seed, lgb_result *res);

/* Once the driver's reference has turned w->want (a copy of dst_old) into
 * the truth: run r (dst poisoned first unless the chain has a sum), then
 * check dst's padding and compare it with want (1e-5 relative to
 * max(|want|, 1)); PASSED or FAILED into res. */
void lgb_wbufs_check(const lgb_ctx *ctx, lgb_wbufs *w, const lgb_run *r, bool has_sum,
                     lgb_result *res);

void lgb_wbufs_free(lgb_wbufs *w);

/* An attribute and the run-time values it asks for. */
typedef struct lgb_attr_bufs {
    lg_attr *attr;
    float *scales[2]; /* src, dst; NULL when unset */
    int32_t *zps[2];
    int scale_mask[2], zp_mask[2];
} lgb_attr_bufs;

/* Build an lg_attr from spec for tensors src/dst (for the masks and the
 * number of values). FAILED or SKIPPED into res on error. */
bool lgb_attr_build(const lgb_attr_spec *spec, const lg_md *src, const lg_md *dst, lgb_attr_bufs *b,
                    lgb_result *res);
/* Append the scale / zero-point execution arguments; returns the new count. */
int lgb_attr_args(const lgb_attr_bufs *b, lg_arg *args, int nargs);
void lgb_attr_free(lgb_attr_bufs *b);

/* Parse the three attribute knobs into spec; FAILED into res on error. */
bool lgb_attr_parse(const char *scales, const char *zps, const char *post, lgb_attr_spec *spec,
                    lgb_result *res);
/* As lgb_attr_parse, taking conv's weights scales and zero points too. */
bool lgb_attr_parse_conv(const char *scales, const char *zps, const char *post, lgb_attr_spec *spec,
                         lgb_result *res);

/* lg_md_init_tag for a knob value (a meta-tag trimmed to ndims first, as
 * lgb_tag_for_rank); FAILED into res with the message. */
bool lgb_md(lg_md *md, int ndims, const int64_t *dims, lg_dtype dt, const char *tag,
            const char *what, lgb_result *res);

#endif /* LGBENCH_DRV_COMMON_H */
