/* The job list and the expansion of comma lists into every combination. */
#include "lgbench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Split a comma list into heap strings (an empty list gives one empty
 * value: benchdnn's "--attr-post-ops=" means "none"). Returns the count or
 * -1 when out of memory. */
static int split_list(const char *s, char ***out) {
    int n = 1;
    for (const char *p = s; *p; p++) n += *p == ',';
    char **v = calloc((size_t)n, sizeof *v);
    if (!v) return -1;
    const char *p = s;
    for (int i = 0; i < n; i++) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        v[i] = malloc(len + 1);
        if (!v[i]) {
            for (int k = 0; k < i; k++) free(v[k]);
            free(v);
            return -1;
        }
        memcpy(v[i], p, len);
        v[i][len] = '\0';
        p = e ? e + 1 : p + len;
    }
    *out = v;
    return n;
}

/* The reproducer: driver, the knobs that differ from their defaults, the
 * descriptor. */
static char *make_repro(const lgb_driver *drv, char *const *vals, const char *desc) {
    size_t len = strlen(drv->name) + strlen(desc) + 8;
    for (int k = 0; k < drv->nknobs; k++) len += strlen(drv->knobs[k]) + strlen(vals[k]) + 8;
    char *r = malloc(len);
    if (!r) return NULL;
    size_t o = (size_t)snprintf(r, len, "--%s", drv->name);
    for (int k = 0; k < drv->nknobs; k++)
        if (strcmp(vals[k], drv->defaults[k]))
            o += (size_t)snprintf(r + o, len - o, " --%s=%s", drv->knobs[k], vals[k]);
    snprintf(r + o, len - o, " %s", desc);
    return r;
}

static bool push(lgb_jobs *jobs, const lgb_driver *drv, char *const *vals, const char *desc,
                 const char *match) {
    if (match && *match) {
        char *r = make_repro(drv, vals, desc);
        if (!r) return false;
        bool keep = strstr(r, match) != NULL;
        free(r);
        if (!keep) return true;
    }
    if (jobs->n == jobs->cap) {
        size_t cap = jobs->cap ? 2 * jobs->cap : 64;
        lgb_job *v = realloc(jobs->v, cap * sizeof *v);
        if (!v) return false;
        jobs->v = v;
        jobs->cap = cap;
    }
    lgb_job *j = &jobs->v[jobs->n];
    memset(j, 0, sizeof *j);
    j->drv = drv;
    bool ok = true;
    for (int k = 0; k < drv->nknobs; k++) ok = ok && (j->vals[k] = strdup(vals[k])) != NULL;
    ok = ok && (j->desc = strdup(desc)) != NULL;
    ok = ok && (j->repro = make_repro(drv, vals, desc)) != NULL;
    jobs->n++; /* freed by lgb_jobs_free even when incomplete */
    return ok;
}

bool lgb_jobs_expand(lgb_jobs *jobs, const lgb_driver *drv, char *const *lists, const char *desc,
                     const char *match) {
    char **vals[LGB_MAX_KNOBS] = {0};
    int count[LGB_MAX_KNOBS] = {0}, at[LGB_MAX_KNOBS] = {0};
    bool ok = true;
    for (int k = 0; k < drv->nknobs && ok; k++) {
        count[k] = split_list(lists[k], &vals[k]);
        ok = count[k] > 0;
    }
    /* An odometer over the lists, the last knob fastest. */
    while (ok) {
        char *cur[LGB_MAX_KNOBS];
        for (int k = 0; k < drv->nknobs; k++) cur[k] = vals[k][at[k]];
        ok = push(jobs, drv, cur, desc, match);
        int k = drv->nknobs - 1;
        while (k >= 0 && ++at[k] == count[k]) at[k--] = 0;
        if (k < 0) break;
    }
    for (int k = 0; k < drv->nknobs; k++) {
        for (int i = 0; i < count[k]; i++) free(vals[k][i]);
        free(vals[k]);
    }
    return ok;
}

void lgb_jobs_free(lgb_jobs *jobs) {
    for (size_t i = 0; i < jobs->n; i++) {
        lgb_job *j = &jobs->v[i];
        for (int k = 0; k < LGB_MAX_KNOBS; k++) free(j->vals[k]);
        free(j->desc);
        free(j->repro);
    }
    free(jobs->v);
    memset(jobs, 0, sizeof *jobs);
}

/* Whether v is one of the '|'-separated values of list. */
static bool in_list(const char *v, const char *list) {
    size_t n = strlen(v);
    for (const char *p = list;;) {
        const char *e = strchr(p, '|');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, v, n)) return true;
        if (!e) return false;
        p = e + 1;
    }
}

bool lgb_job_supported(const lgb_job *job, lgb_result *res) {
    const lgb_driver *d = job->drv;
    for (int k = 0; k < d->nknobs; k++)
        if (d->only[k] && !in_list(job->vals[k], d->only[k])) {
            char reason[96];
            snprintf(reason, sizeof reason, "--%s not implemented in lgraph", d->knobs[k]);
            lgb_skip(res, reason, "--%s=%s: lgraph implements only '%s'", d->knobs[k], job->vals[k],
                     d->only[k]);
            return false;
        }
    return true;
}

bool lgb_ignored_option(const char *name, size_t len) {
    static const char *const t[] = {"allow-enum-tags-only",
                                    "skip-impl",
                                    "impl",
                                    "check-ref-impl",
                                    "attr-scratchpad",
                                    "cpu-isa-hints",
                                    "mem-check",
                                    "fix-times-per-prb",
                                    "max-ms-per-prb",
                                    "perf-template",
                                    "start",
                                    "ctx-init",
                                    "ctx-exe",
                                    "memory-kind",
                                    "repeats-per-prb",
                                    "cold-cache",
                                    "attr-deterministic",
                                    "summary",
                                    "canonical",
                                    "num-streams",
                                    "execution-mode",
                                    "mode-modifier",
                                    "engine"};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strlen(t[i]) == len && !strncmp(t[i], name, len)) return true;
    return false;
}
