/* Status names and the thread-local last-error message. */
#include "common/common.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <string.h>

Test(status, names) {
    cr_assert_str_eq(lg_status_str(LG_OK), "LG_OK");
    cr_assert_str_eq(lg_status_str(LG_INVALID_ARGUMENT), "LG_INVALID_ARGUMENT");
    cr_assert_str_eq(lg_status_str(LG_UNIMPLEMENTED), "LG_UNIMPLEMENTED");
    cr_assert_str_eq(lg_status_str(LG_OUT_OF_MEMORY), "LG_OUT_OF_MEMORY");
    cr_assert_str_eq(lg_status_str(LG_INVALID_GRAPH), "LG_INVALID_GRAPH");
    cr_assert_str_eq(lg_status_str(LG_RUNTIME_ERROR), "LG_RUNTIME_ERROR");
    cr_assert_str_eq(lg_status_str((lg_status)42), "LG_UNKNOWN_STATUS");
}

Test(status, dtype_sizes) {
    cr_assert_eq(lg_dtype_size(LG_F32), 4);
    cr_assert_eq(lg_dtype_size(LG_F16), 2);
    cr_assert_eq(lg_dtype_size(LG_BF16), 2);
    cr_assert_eq(lg_dtype_size(LG_S32), 4);
    cr_assert_eq(lg_dtype_size(LG_S8), 1);
    cr_assert_eq(lg_dtype_size(LG_U8), 1);
    cr_assert_eq(lg_dtype_size(LG_DT_UNDEF), 0);
    cr_assert_eq(lg_dtype_size((lg_dtype)99), 0);
    cr_assert_str_eq(lg_dtype_str(LG_BF16), "bf16");
}

Test(status, last_error_names_the_call_and_survives_success) {
    lg_md md;
    int64_t dims[2] = {2, 3};
    cr_assert_eq(lg_md_init_tag(&md, 2, dims, LG_F32, "abq"), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "lg_md_init_tag") != NULL, "%s", lg_last_error());
    cr_assert(strstr(lg_last_error(), "'q'") != NULL, "%s", lg_last_error());
    cr_assert_eq(lg_md_init_tag(&md, 2, dims, LG_F32, "ab"), LG_OK);
    cr_assert(strstr(lg_last_error(), "'q'") != NULL, "a success must not clear the message");
}

static void *fail_in_thread(void *arg) {
    (void)arg;
    lg_md md;
    int64_t dims[1] = {-5};
    lg_md_init_tag(&md, 1, dims, LG_F32, "a");
    return strstr(lg_last_error(), "negative") ? (void *)1 : NULL;
}

Test(status, last_error_is_per_thread) {
    lg_md md;
    int64_t dims[2] = {2, 3};
    lg_md_init_tag(&md, 2, dims, LG_F32, "abq");
    pthread_t t;
    void *ok = NULL;
    pthread_create(&t, NULL, fail_in_thread, NULL);
    pthread_join(t, &ok);
    cr_assert(ok, "the other thread sees its own message");
    cr_assert(strstr(lg_last_error(), "'q'") != NULL, "this thread keeps its own: %s",
              lg_last_error());
}

Test(status, allocator_failure_injection) {
    lg__alloc_fail_after(1);
    void *a = lg__malloc(16);
    void *b = lg__malloc(16);
    cr_assert_not_null(a);
    cr_assert_null(b);
    lg__alloc_fail_after(-1);
    void *c = lg__aligned_alloc(64, 100);
    cr_assert_not_null(c);
    cr_assert_eq((uintptr_t)c % 64, 0);
    lg__free(a);
    lg__free(c);
}
