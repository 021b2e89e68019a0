/* Every bad input to the md API returns LG_INVALID_ARGUMENT with a message
 * that names the problem, and leaves the md untouched. */
#include "memory/md.h"

#include <criterion/criterion.h>
#include <string.h>

/* Expect init_tag to fail with a message containing `needle`. */
static void bad_tag(int nd, const int64_t *dims, lg_dtype dt, const char *tag, const char *needle) {
    lg_md md;
    memset(&md, 0xab, sizeof md);
    lg_md before = md;
    cr_assert_eq(lg_md_init_tag(&md, nd, dims, dt, tag), LG_INVALID_ARGUMENT, "tag %s accepted",
                 tag ? tag : "(null)");
    cr_assert(strstr(lg_last_error(), needle) != NULL, "tag %s: message '%s' lacks '%s'",
              tag ? tag : "(null)", lg_last_error(), needle);
    cr_assert(strstr(lg_last_error(), "lg_md_init_tag") != NULL, "%s", lg_last_error());
    cr_assert(memcmp(&md, &before, sizeof md) == 0, "md changed on failure");
}

Test(errors, bad_tags) {
    int64_t d4[4] = {2, 3, 4, 5};
    bad_tag(4, d4, LG_F32, NULL, "NULL");
    bad_tag(4, d4, LG_F32, "", "empty");
    bad_tag(4, d4, LG_F32, "abcq", "unknown letter 'q'");
    bad_tag(4, d4, LG_F32, "abca", "twice");
    bad_tag(4, d4, LG_F32, "abcdex", "names dim 4 but ndims is 4");
    bad_tag(4, d4, LG_F32, "axbx", "'x' twice");
    bad_tag(4, d4, LG_F32, "aBcd16e", "does not name");
    bad_tag(4, d4, LG_F32, "aBcd0b", "block size 0");
    bad_tag(4, d4, LG_F32, "aBcd16", "no dim letter");
    bad_tag(4, d4, LG_F32, "aBcd16B", "upper-case");
    bad_tag(4, d4, LG_F32, "aBcd99999999999b", "overflows");
    bad_tag(4, d4, LG_F32, "abcd16b", "lower case");
    bad_tag(4, d4, LG_F32, "aBcd", "no block");
    bad_tag(4, d4, LG_F32, "abc", "ndims is 4");
    bad_tag(4, d4, LG_F32, "abcde", "ndims is 4");
    bad_tag(4, d4, LG_F32, "nchw16", "no dim letter");
    bad_tag(4, d4, LG_F32, "ncdhw", "ndims is 4");
    bad_tag(4, d4, LG_F32, "nChw16q", "alias");
    bad_tag(4, d4, LG_F32, "nChw16C", "upper-case");
    bad_tag(4, d4, LG_F32, "nchx", "unknown");
    bad_tag(4, d4, LG_F32, "aBcd16bc", "expected a block size");
    bad_tag(4, d4, LG_F32, "aB16bcd", "ndims is 4");
    bad_tag(1, d4, LG_F32, "xx", "twice");
    bad_tag(4, d4, LG_F32,
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "longer than");
}

Test(errors, bad_dims_and_types) {
    int64_t d4[4] = {2, 3, 4, 5}, neg[4] = {2, -3, 4, 5};
    int64_t d13[13] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    bad_tag(0, d4, LG_F32, "a", "ndims 0");
    bad_tag(13, d13, LG_F32, "abcdefghijklm", "ndims 13");
    bad_tag(-1, d4, LG_F32, "a", "ndims -1");
    bad_tag(4, neg, LG_F32, "abcd", "negative");
    bad_tag(4, NULL, LG_F32, "abcd", "dims is NULL");
    bad_tag(4, d4, LG_DT_UNDEF, "abcd", "data type");
    bad_tag(4, d4, (lg_dtype)77, "abcd", "data type");
    cr_assert_eq(lg_md_init_tag(NULL, 4, d4, LG_F32, "abcd"), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "md is NULL"), "%s", lg_last_error());
}

Test(errors, overflowing_sizes) {
    int64_t big[4] = {INT64_MAX, 2, 1, 1};
    bad_tag(4, big, LG_F32, "abcd", "overflows");
    int64_t pad[4] = {2, INT64_MAX - 3, 1, 1};
    bad_tag(4, pad, LG_F32, "aBcd16b", "overflows");
    int64_t bytes[2] = {(int64_t)1 << 31, (int64_t)1 << 31}; /* 2^62 elements: bytes overflow */
    bad_tag(2, bytes, LG_F32, "ab", "byte size overflows");
    int64_t elems[3] = {(int64_t)1 << 40, (int64_t)1 << 40, 1};
    bad_tag(3, elems, LG_U8, "abc", "overflows");
    bad_tag(3, elems, LG_U8, "any", "overflows");
    /* A block whose product over several blocks overflows. */
    int64_t d2[2] = {2, 2};
    bad_tag(2, d2, LG_F32, "AB2000000000a2000000000a2000000000a16b", "overflow");
}

Test(errors, bad_strides) {
    int64_t dims[3] = {2, 3, 4};
    lg_md md;
    int64_t overlap[3] = {12, 4, 2}; /* dim 2 (4 x 2) runs past dim 1's stride 4 */
    cr_assert_eq(lg_md_init_strides(&md, 3, dims, LG_F32, overlap), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "overlap"), "%s", lg_last_error());
    cr_assert(strstr(lg_last_error(), "lg_md_init_strides"), "%s", lg_last_error());
    int64_t zero[3] = {12, 0, 1};
    cr_assert_eq(lg_md_init_strides(&md, 3, dims, LG_F32, zero), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "overlap"), "%s", lg_last_error());
    int64_t negs[3] = {12, -4, 1};
    cr_assert_eq(lg_md_init_strides(&md, 3, dims, LG_F32, negs), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "negative"), "%s", lg_last_error());
    int64_t same[3] = {4, 4, 1};
    cr_assert_eq(lg_md_init_strides(&md, 3, dims, LG_F32, same), LG_INVALID_ARGUMENT);
    int64_t huge[3] = {INT64_MAX / 2, 4, 1};
    cr_assert_eq(lg_md_init_strides(&md, 3, dims, LG_F32, huge), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "overflow"), "%s", lg_last_error());
    /* Extent-1 dims may have any stride, zero included. */
    int64_t d1[3] = {2, 1, 4}, s1[3] = {4, 0, 1};
    cr_assert_eq(lg_md_init_strides(&md, 3, d1, LG_F32, s1), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_md_init_strides(&md, 3, NULL, LG_F32, s1), LG_INVALID_ARGUMENT);
    cr_assert_eq(lg_md_init_strides(NULL, 3, d1, LG_F32, s1), LG_INVALID_ARGUMENT);
}

Test(errors, queries_on_invalid_mds) {
    lg_md md;
    memset(&md, 0, sizeof md);
    cr_assert_eq(lg_md_size(&md), 0);
    cr_assert_eq(lg_md_size(NULL), 0);
    cr_assert(!lg_md_is_any(NULL));
    cr_assert(!lg_md_equal(&md, &md));
    char tag[16];
    cr_assert_eq(lg_md_tag(&md, tag, sizeof tag), LG_INVALID_ARGUMENT);
    md.ndims = 99;
    int64_t idx[1] = {0};
    cr_assert_eq(lg_md_offset(&md, idx), -1);
}
