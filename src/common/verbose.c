/* LG_VERBOSE logging plumbing and the clock it times with. */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <uv.h>

static uv_once_t verbose_once = UV_ONCE_INIT;
static int verbose_level;

static void read_verbose_env(void) {
    const char *s = getenv("LG_VERBOSE");
    verbose_level = s ? atoi(s) : 0;
}

int lg__verbose(void) {
    uv_once(&verbose_once, read_verbose_env);
    return verbose_level;
}

void lg__verbose_printf(const char *fmt, ...) {
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* One fputs per line: stdio locks the stream, so lines from several
     * threads do not interleave. */
    fputs(line, stderr);
}

double lg__now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}
