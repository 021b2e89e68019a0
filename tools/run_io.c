/* lgraph-run's buffers and clock (run_io.h). */
#include "run_io.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

double run_now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

double run_cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int run_cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

int run_setup_buf(const lg_plan *p, const char *name, run_buf *b) {
    memset(b, 0, sizeof *b);
    b->name = name;
    if (lg_plan_query_md(p, name, &b->plan) != LG_OK) return -1;
    static const char *tags[] = {"a", "ab", "abc", "abcd", "abcde", "abcdef"};
    if (b->plan.ndims > 6 || lg_md_init_tag(&b->plain, b->plan.ndims, b->plan.dims, LG_F32,
                                            tags[b->plan.ndims - 1]) != LG_OK)
        return -1;
    b->user = malloc(lg_md_size(&b->plain) + 1);
    if (!b->user) return -1;
    if (lg_md_equal(&b->plain, &b->plan)) {
        b->data = b->user;
        return 0;
    }
    b->data = aligned_alloc(64, (lg_md_size(&b->plan) + 63) / 64 * 64);
    if (!b->data || lg_reorder_create(&b->to_plan, &b->plain, &b->plan, NULL) != LG_OK ||
        lg_reorder_create(&b->from_plan, &b->plan, &b->plain, NULL) != LG_OK)
        return -1;
    return 0;
}

int64_t run_elems(const lg_md *md) {
    int64_t n = 1;
    for (int d = 0; d < md->ndims; d++) n *= md->dims[d];
    return n;
}

void run_free_buf(run_buf *b) {
    if (b->data != b->user) free(b->data);
    free(b->user);
    lg_kernel_destroy(b->to_plan);
    lg_kernel_destroy(b->from_plan);
}

int run_move(lg_kernel *k, void *src, void *dst) {
    if (!k) return 0;
    lg_arg ka[2] = {{LG_ARG_SRC, src}, {LG_ARG_DST, dst}};
    return lg_kernel_execute(k, 2, ka) == LG_OK ? 0 : -1;
}

void run_fill(float *x, int64_t n, unsigned long long *state) {
    for (int64_t e = 0; e < n; e++) {
        *state = *state * 6364136223846793005ull + 1442695040888963407ull;
        x[e] = (float)((*state >> 40) * (1.0 / (1 << 24))) * 2.0f - 1.0f;
    }
}

int64_t run_micro_auto(int64_t n, int64_t arena, int64_t consts, int64_t llc) {
    if (n <= 1 || arena <= llc) return n;
    int64_t per_item = (arena + n - 1) / n, b = 1;
    for (int64_t d = 1; d <= n; d++)
        if (n % d == 0 && d <= llc / per_item) b = d;
    /* Slices re-read every constant once each: worth it only while that is
     * less than the spilled activations (the arena, a lower bound of them). */
    double reread = (double)(n / b - 1) * (double)consts;
    return reread < (double)arena ? b : n;
}

int64_t run_llc_bytes(void) {
    int64_t best = 0;
    for (int i = 0; i < 8; i++) {
        char path[96], unit = 0;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        long long v = 0;
        int got = fscanf(f, "%lld%c", &v, &unit);
        fclose(f);
        if (got < 1 || v <= 0) continue;
        int64_t bytes = unit == 'K' ? v << 10 : unit == 'M' ? v << 20 : v;
        if (bytes > best) best = bytes;
    }
    return best > 0 ? best : (int64_t)32 << 20;
}
