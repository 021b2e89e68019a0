/* The hostile-input sweep's bookkeeping: every case calls sweep_check with
 * the public function it called, the words that name the argument at fault,
 * and the status it got. A failure must be a real lg_status whose message
 * begins "<function>: " and names the argument; each area ends with one
 * summary line (docs/reliability.md quotes them). */
#ifndef LG_TESTS_SWEEP_H
#define LG_TESTS_SWEEP_H

#include <criterion/criterion.h>
#include <lgraph.h>

#include <stdio.h>
#include <string.h>

typedef struct sweep_counts {
    int cases, by_status[6]; /* index: -status (LG_OK .. LG_RUNTIME_ERROR) */
} sweep_counts;

static sweep_counts sweep_tally;

/* True if msg contains one of the '|'-separated words. */
static inline bool sweep_names(const char *msg, const char *words) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", words);
    for (char *w = strtok(buf, "|"); w; w = strtok(NULL, "|"))
        if (strstr(msg, w)) return true;
    return false;
}

/* Record one case; `what` describes it for a failing assertion. */
static inline lg_status sweep_check(lg_status s, const char *fn, const char *words,
                                    const char *what) {
    cr_assert(s <= LG_OK && s >= LG_RUNTIME_ERROR, "%s: %s returned %d, not an lg_status", what, fn,
              (int)s);
    sweep_tally.cases++;
    sweep_tally.by_status[-s]++;
    if (s == LG_OK) return s;
    const char *msg = lg_last_error();
    size_t n = strlen(fn);
    cr_assert(strncmp(msg, fn, n) == 0 && msg[n] == ':', "%s: message '%s' does not start '%s:'",
              what, msg, fn);
    cr_assert(sweep_names(msg + n, words), "%s: message '%s' names none of '%s'", what, msg, words);
    return s;
}

/* The summary line of an area. */
static inline void sweep_report(const char *area) {
    const sweep_counts *c = &sweep_tally;
    printf("robustness: %-22s %5d cases: OK %d, INVALID_ARGUMENT %d, UNIMPLEMENTED %d, "
           "OUT_OF_MEMORY %d, INVALID_GRAPH %d, RUNTIME_ERROR %d\n",
           area, c->cases, c->by_status[0], c->by_status[1], c->by_status[2], c->by_status[3],
           c->by_status[4], c->by_status[5]);
    fflush(stdout);
    cr_assert_eq(c->by_status[5], 0, "%s: LG_RUNTIME_ERROR for a bad input", area);
}

#endif /* LG_TESTS_SWEEP_H */
