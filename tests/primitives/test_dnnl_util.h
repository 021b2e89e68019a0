/* What the oneDNN cross-checks share: one CPU engine and stream per test,
 * made by dnnl_setup and released by dnnl_teardown (Criterion's .init and
 * .fini), and DN(), which asserts that a oneDNN call succeeded. */
#ifndef LG_TESTS_DNNL_UTIL_H
#define LG_TESTS_DNNL_UTIL_H

#include <criterion/criterion.h>
#include <oneapi/dnnl/dnnl.h>

#define DN(x) cr_assert_eq((x), dnnl_success, "%s", #x)

static dnnl_engine_t eng;
static dnnl_stream_t strm;

static inline void dnnl_setup(void) {
    DN(dnnl_engine_create(&eng, dnnl_cpu, 0));
    DN(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
}

static inline void dnnl_teardown(void) {
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
}

#endif /* LG_TESTS_DNNL_UTIL_H */
