/* A stand-in for <criterion/criterion.h>, used only by scripts/tsan.sh:
 * Criterion's runner cannot start under ThreadSanitizer (its inheritable
 * arena clashes with TSan's memory layout: Snaipe/Criterion issue 274), so
 * the threaded test files are compiled against this header instead, found
 * first through -I. It keeps what those tests rely on: Test(suite, name,
 * .init/.fini/...), the cr_assert family used in tests/, one forked child
 * per test (each test starts from a fresh process, as under Criterion),
 * and `--filter suite/name` with shell wildcards. Other options are
 * accepted and ignored. Everything is defined in this header (weak where
 * several files of one test program include it). */
#ifndef LG_TSAN_CRITERION_H
#define LG_TSAN_CRITERION_H

#include <fnmatch.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct crs_test {
    const char *suite, *name;
    void (*fn)(void);
    void (*init)(void);
    void (*fini)(void);
    double timeout;
    int signal, exit_code;
    bool disabled;
    const char *description;
    struct crs_test *next;
};

__attribute__((weak)) struct crs_test *crs_tests;

static inline void crs_register(struct crs_test *t) {
    t->next = crs_tests;
    crs_tests = t;
}

/* Not a printf-format function for the compiler: the message may be empty. */
static inline void crs_fail(const char *file, int line, const char *expr, const char *fmt, ...) {
    fprintf(stderr, "%s:%d: assertion failed: %s\n  ", file, line, expr);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    fflush(stderr);
    _exit(1);
}

#define Test(S, N, ...)                                                                            \
    static void S##_##N##_impl(void);                                                              \
    __attribute__((constructor)) static void S##_##N##_reg(void) {                                 \
        static struct crs_test t = {.suite = #S, .name = #N, .fn = S##_##N##_impl, __VA_ARGS__};   \
        crs_register(&t);                                                                          \
    }                                                                                              \
    static void S##_##N##_impl(void)

#define cr_assert(cond, ...)                                                                       \
    ((cond) ? (void)0 : crs_fail(__FILE__, __LINE__, #cond, "" __VA_ARGS__))
#define cr_assert_not(cond, ...)     cr_assert(!(cond), __VA_ARGS__)
#define cr_assert_fail(...)          crs_fail(__FILE__, __LINE__, "cr_assert_fail", "" __VA_ARGS__)
#define cr_assert_eq(a, b, ...)      cr_assert((a) == (b), __VA_ARGS__)
#define cr_assert_neq(a, b, ...)     cr_assert((a) != (b), __VA_ARGS__)
#define cr_assert_lt(a, b, ...)      cr_assert((a) < (b), __VA_ARGS__)
#define cr_assert_leq(a, b, ...)     cr_assert((a) <= (b), __VA_ARGS__)
#define cr_assert_gt(a, b, ...)      cr_assert((a) > (b), __VA_ARGS__)
#define cr_assert_geq(a, b, ...)     cr_assert((a) >= (b), __VA_ARGS__)
#define cr_assert_null(p, ...)       cr_assert((p) == NULL, __VA_ARGS__)
#define cr_assert_not_null(p, ...)   cr_assert((p) != NULL, __VA_ARGS__)
#define cr_assert_str_eq(a, b, ...)  cr_assert(strcmp((a), (b)) == 0, __VA_ARGS__)
#define cr_assert_str_neq(a, b, ...) cr_assert(strcmp((a), (b)) != 0, __VA_ARGS__)
/* cr_expect: Criterion goes on after a failed expectation; the stand-in
 * stops the test there (stricter, same verdict). */
#define cr_expect(cond, ...)     cr_assert(cond, __VA_ARGS__)
#define cr_expect_eq(a, b, ...)  cr_assert_eq(a, b, __VA_ARGS__)
#define cr_expect_neq(a, b, ...) cr_assert_neq(a, b, __VA_ARGS__)
#define cr_expect_lt(a, b, ...)  cr_assert_lt(a, b, __VA_ARGS__)
#define cr_expect_leq(a, b, ...) cr_assert_leq(a, b, __VA_ARGS__)
#define cr_expect_gt(a, b, ...)  cr_assert_gt(a, b, __VA_ARGS__)
#define cr_expect_geq(a, b, ...) cr_assert_geq(a, b, __VA_ARGS__)
#define cr_log_info(...)         (fprintf(stderr, __VA_ARGS__), fputc('\n', stderr))

/* Run every test matching --filter, each in a child process; the exit
 * status is the number of tests that failed. */
__attribute__((weak)) int main(int argc, char **argv) {
    const char *filter = "*";
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--filter=", 9) == 0) filter = argv[i] + 9;
        if (strcmp(argv[i], "--filter") == 0 && i + 1 < argc) filter = argv[++i];
    }
    int run = 0, failed = 0;
    for (struct crs_test *t = crs_tests; t; t = t->next) {
        char full[256];
        snprintf(full, sizeof full, "%s/%s", t->suite, t->name);
        if (t->disabled || fnmatch(filter, full, 0) != 0) continue;
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0) return 1;
        if (pid == 0) {
            if (t->init) t->init();
            t->fn();
            if (t->fini) t->fini();
            exit(0); /* atexit handlers run, TSan's exit check too */
        }
        int st = 0;
        waitpid(pid, &st, 0);
        bool ok = WIFEXITED(st) ? WEXITSTATUS(st) == t->exit_code
                                : WIFSIGNALED(st) && WTERMSIG(st) == t->signal;
        printf("[%s] %s\n", ok ? "PASS" : "FAIL", full);
        run++;
        failed += !ok;
    }
    printf("[====] Synthesis: Tested: %d | Passing: %d | Failing: %d\n", run, run - failed, failed);
    return run == 0 ? 1 : failed;
}

#endif /* LG_TSAN_CRITERION_H */
