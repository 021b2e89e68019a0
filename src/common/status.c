/* lg_status names and the thread-local last-error message. */
#include "common.h"

#include <stdio.h>

#define X(name, value, meaning) _Static_assert((name) == (value), #name " mismatch");
#include "status.def"
#undef X

enum {
#define X(name, value, meaning) lg__count_##name,
#include "status.def"
#undef X
    LG__STATUS_COUNT
};
_Static_assert(LG__STATUS_COUNT == 6, "status.def and lg_status disagree");

const char *lg_status_str(lg_status s) {
    switch (s) {
#define X(name, value, meaning)                                                                    \
    case name:                                                                                     \
        return #name;
#include "status.def"
#undef X
    }
    return "LG_UNKNOWN_STATUS";
}

static _Thread_local char last_error[1024];

const char *lg_last_error(void) {
    return last_error;
}

lg_status lg__error(lg_status status, const char *where, const char *fmt, ...) {
    if (!where) return status; /* a quiet probe records nothing */
    int n = snprintf(last_error, sizeof last_error, "%s: ", where);
    if (n < 0 || (size_t)n >= sizeof last_error) n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error + n, sizeof last_error - (size_t)n, fmt, ap);
    va_end(ap);
    return status;
}

lg_status lg_set_last_error(lg_status status, const char *message) {
    snprintf(last_error, sizeof last_error, "%s", message ? message : "");
    return status;
}
