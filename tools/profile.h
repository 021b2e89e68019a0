/* lgraph-run --profile: per-step table and summaries of lg_plan_profile. */
#ifndef LG_TOOLS_PROFILE_H
#define LG_TOOLS_PROFILE_H

#include <lgraph.h>

#include <stdio.h>

/* Profile p over `runs` runs into *steps (malloc'd, *n entries). Returns 0,
 * or -1 with a message on stderr. */
int profile_collect(const lg_plan *p, int nin, const lg_binding *in, int nout,
                    const lg_binding *out, int runs, lg_step_profile **steps, int *n);

/* The per-step table, then time by node kind and by layer class (share of
 * the steps' total), then predicted (model) beside measured. */
void profile_print_text(FILE *f, const lg_step_profile *s, int n, int runs);

/* The same as a JSON member: `"profile": {...}` (no leading comma). */
void profile_print_json(FILE *f, const lg_step_profile *s, int n, int runs);

#endif /* LG_TOOLS_PROFILE_H */
