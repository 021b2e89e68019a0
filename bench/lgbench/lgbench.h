/* lgbench: a benchdnn-style driver for lgraph's kernels. This header holds
 * what the parts share: the run context (mode, counters), drivers and their
 * knobs, the list of expanded problems ("jobs") and one job's result.
 *
 * Flow: main.c reads argv (and --batch files, batch.c) token by token;
 * a knob token (--sdt=f32,s8) sets the current driver's value list; a
 * problem descriptor (8x256x56x56, mb8ic64ih56...) is expanded over every
 * combination of the knob lists into jobs (jobs.c); then every job runs
 * through its driver (drv_*.c) in correctness or performance mode and
 * report.c prints results, progress and the summary. */
#ifndef LGBENCH_H
#define LGBENCH_H

#include <lgraph.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Most knobs one driver has. */
#define LGB_MAX_KNOBS 24

/* What a run measures; both flags may be set (--mode=CP). */
typedef struct lgb_mode {
    bool correctness; /* C: compare with the scalar reference */
    bool performance; /* P: time lgraph (and oneDNN when built with it) */
} lgb_mode;

typedef enum lgb_status { LGB_PASSED, LGB_SKIPPED, LGB_FAILED } lgb_status;

/* A fault the driver injects into lgraph's output before checking it, to
 * show that the checks can fail (--fault=..., used by a CTest case). */
typedef enum lgb_fault { LGB_FAULT_NONE, LGB_FAULT_VALUE, LGB_FAULT_PADDING } lgb_fault;

/* Settings common to every driver. */
typedef struct lgb_ctx {
    lgb_mode mode;
    int verbose;     /* -vN: 0 failures and summary, 1 every test, 2 more detail */
    int pairs;       /* P mode: alternating lgraph / oneDNN pairs per problem */
    lgb_fault fault; /* C mode self-test */
    int every;       /* --every=N: run the problems 0, N, 2N, ... only (sampling) */
} lgb_ctx;

/* The outcome of one job. */
typedef struct lgb_result {
    lgb_status status;
    char msg[512];      /* why it failed or was skipped */
    char reason[96];    /* a skip's reason for the summary ("" : taken from msg) */
    char impl[64];      /* lgraph's implementation name */
    char dnnl_impl[64]; /* oneDNN's, or "" */
    bool timed, has_dnnl;
    double lg_ms;             /* P: lgraph's median time per call */
    double dnnl_ms;           /* P: oneDNN's median time per call */
    double ratio, rmin, rmax; /* P: median (min, max) of oneDNN / lgraph time per pair */
    double bytes, flops;      /* P: bytes moved and flops per call, for GB/s and GFLOP/s */
} lgb_result;

struct lgb_job;

/* A driver: its name (the --NAME that selects it), its knobs with their
 * default value lists, and the function that runs one concrete problem.
 * run() gets the job (one value per knob, in the order of `knobs`, and the
 * problem descriptor) and fills *res. */
typedef struct lgb_driver {
    const char *name;
    int nknobs;
    const char *knobs[LGB_MAX_KNOBS];    /* "sdt", "stag", ... (without "--") */
    const char *defaults[LGB_MAX_KNOBS]; /* default value lists, e.g. "f32" */
    /* For benchdnn knobs lgraph implements for some values only: those
     * values, '|'-separated ("" is the empty value); a job with another
     * value is SKIPPED before run() with "--KNOB=VALUE not implemented".
     * NULL: run() takes every value. */
    const char *only[LGB_MAX_KNOBS];
    void (*run)(const lgb_ctx *ctx, const struct lgb_job *job, lgb_result *res);
} lgb_driver;

/* One expanded problem: a driver, a single value per knob, the descriptor,
 * and the reproducer line (the minimal command line that runs it alone). */
typedef struct lgb_job {
    const lgb_driver *drv;
    char *vals[LGB_MAX_KNOBS];
    char *desc;
    char *repro;
} lgb_job;

/* Whether job's knob values are all ones lgraph implements (driver's
 * `only`); if not, res is SKIPPED with the reason. */
bool lgb_job_supported(const lgb_job *job, lgb_result *res);

/* benchdnn options that select nothing lgbench measures or checks (which of
 * oneDNN's implementations to skip, enum-tag policy, scratchpad mode, ...):
 * accepted and ignored, for every driver. */
bool lgb_ignored_option(const char *name, size_t len);

/* The drivers (drv_*.c) and lookup by name; NULL if unknown. */
extern const lgb_driver lgb_drv_reorder, lgb_drv_shuffle, lgb_drv_eltwise, lgb_drv_binary;
extern const lgb_driver lgb_drv_pool, lgb_drv_softmax, lgb_drv_bnorm;
extern const lgb_driver lgb_drv_concat;
#if LGB_HAVE_CONV
extern const lgb_driver lgb_drv_conv;
#endif
const lgb_driver *lgb_find_driver(const char *name);

/* ---- jobs.c: a growing list of jobs and the expansion of knob lists ---- */

typedef struct lgb_jobs {
    lgb_job *v;
    size_t n, cap;
} lgb_jobs;

/* Append one job per combination of the comma lists in lists[0..nknobs)
 * (cartesian product, first knob outermost) for descriptor desc, keeping
 * only those whose reproducer line contains `match` (NULL or "": all).
 * Returns false when out of memory. */
bool lgb_jobs_expand(lgb_jobs *jobs, const lgb_driver *drv, char *const *lists, const char *desc,
                     const char *match);
void lgb_jobs_free(lgb_jobs *jobs);

/* ---- batch.c: the command line and batch files ---- */

/* The state while reading arguments: the current driver, its knob lists
 * (heap strings), the common context and the jobs expanded so far. */
typedef struct lgb_parser {
    lgb_ctx *ctx;
    lgb_jobs *jobs;
    const lgb_driver *drv;
    char *lists[LGB_MAX_KNOBS];
    char match[256]; /* --match: a substring of the reproducer line, or "" */
    int depth;       /* --batch nesting */
} lgb_parser;

/* Read tokens (argv or a batch file's). `where` names the source for error
 * messages ("argv" or a file path) and `dir` is the directory that relative
 * --batch paths are first looked up in (NULL: the current one). Returns
 * false after printing an error. */
bool lgb_parse_tokens(lgb_parser *p, int ntok, char **tok, const char *where, const char *dir);
void lgb_parser_free(lgb_parser *p);

/* ---- report.c ---- */

#define LGB_MAX_REASONS 40
typedef struct lgb_counts {
    size_t tests, passed, skipped, failed;
    int nreasons; /* distinct skip reasons; the last slot also takes "other" */
    char reasons[LGB_MAX_REASONS][96];
    size_t nskip[LGB_MAX_REASONS];
} lgb_counts;

/* Record and print one job's result (failures always, the rest with -v1;
 * P mode prints a perf line). */
void lgb_report(const lgb_ctx *ctx, const lgb_job *job, const lgb_result *res, lgb_counts *c);
/* A progress line on stderr, at most about once a second. */
void lgb_progress(const lgb_counts *c, size_t total, bool last);
/* The skips by reason (one "skipped:N reason" line each), then
 * "tests:N passed:P failed:F skipped:S" on stdout. */
void lgb_summary(const lgb_counts *c);

/* ---- perf.c ---- */

typedef void (*lgb_run_fn)(void *arg);

/* Time `lg` and, when dnnl is non-NULL, `dnnl` alternating (pairs of runs),
 * filling res's time fields: medians and the median per-pair ratio. */
void lgb_perf(const lgb_ctx *ctx, lgb_run_fn lg, void *lg_ctx, lgb_run_fn dnnl, void *dnnl_ctx,
              lgb_result *res);

/* printf into res->msg and set its status; returns the status. */
lgb_status lgb_set(lgb_result *res, lgb_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* SKIPPED with a short reason for the summary and a message. */
lgb_status lgb_skip(lgb_result *res, const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* LGBENCH_H */
