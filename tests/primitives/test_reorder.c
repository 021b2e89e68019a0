/* lg_reorder_create through the public API: hand-computed semantics, every
 * type pair against the reference, padding, and every bad input. */
#include "memory/convert.h"
#include "primitives/reorder/reorder.h"
#include "test_util.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static lg_md md_of(int nd, const int64_t *dims, lg_dtype dt, const char *tag) {
    lg_md md;
    cr_assert_eq(lg_md_init_tag(&md, nd, dims, dt, tag), LG_OK, "%s: %s", tag, lg_last_error());
    return md;
}

static lg_kernel *reorder(const lg_md *s, const lg_md *d, const lg_attr *attr) {
    lg_kernel *k = NULL;
    cr_assert_eq(lg_reorder_create(&k, s, d, attr), LG_OK, "%s", lg_last_error());
    return k;
}

Test(reorder, nchw_to_nChw16c_places_elements_and_zeroes_padding) {
    int64_t dims[4] = {2, 17, 3, 2};
    lg_md s = md_of(4, dims, LG_F32, "nchw"), d = md_of(4, dims, LG_F32, "nChw16c");
    float src[2 * 17 * 3 * 2], dst[2 * 32 * 3 * 2];
    for (int i = 0; i < 204; i++) src[i] = (float)i + 0.25f;
    memset(dst, 0xff, sizeof dst); /* NaN garbage */
    lg_kernel *k = reorder(&s, &d, NULL);
    lg_arg args[2] = {{LG_ARG_SRC, src}, {LG_ARG_DST, dst}};
    cr_assert_eq(lg_kernel_execute(k, 2, args), LG_OK, "%s", lg_last_error());
    /* Hand layout of nChw16c: ((n * 2 + c / 16) * 3 + h) * 2 + w) * 16 + c % 16. */
    for (int n = 0; n < 2; n++)
        for (int c = 0; c < 32; c++)
            for (int h = 0; h < 3; h++)
                for (int w = 0; w < 2; w++) {
                    float got = dst[(((n * 2 + c / 16) * 3 + h) * 2 + w) * 16 + c % 16];
                    float want = c < 17 ? src[((n * 17 + c) * 3 + h) * 2 + w] : 0.0f;
                    cr_assert(memcmp(&got, &want, 4) == 0, "n%d c%d h%d w%d: %g vs %g", n, c, h, w,
                              got, want);
                }
    cr_assert(strncmp(lg_kernel_impl(k), "reorder:", 8) == 0, "%s", lg_kernel_impl(k));
    lg_kernel_destroy(k);
}

Test(reorder, quantize_with_scales_zero_points_and_sum) {
    /* f32 -> s8, src scale 0.5 (mask 0), per-channel dst scales, src zp 3, dst zp -2:
     * dst = (0.5 / ds[c]) * (src - 3) + (-2). */
    int64_t dims[2] = {2, 3};
    lg_md s = md_of(2, dims, LG_F32, "ab"), d = md_of(2, dims, LG_S8, "ba");
    lg_attr *attr;
    cr_assert_eq(lg_attr_create(&attr), LG_OK);
    cr_assert_eq(lg_attr_set_scales(attr, LG_ARG_SRC, 0), LG_OK);
    cr_assert_eq(lg_attr_set_scales(attr, LG_ARG_DST, 2), LG_OK);
    cr_assert_eq(lg_attr_set_zero_points(attr, LG_ARG_SRC, 0), LG_OK);
    cr_assert_eq(lg_attr_set_zero_points(attr, LG_ARG_DST, 0), LG_OK);
    lg_kernel *k = reorder(&s, &d, attr);
    lg_attr_destroy(attr);
    float src[6] = {7.0f, 3.0f, 1000.0f, -1000.0f, 8.0f, 4.0f};
    float ss = 0.5f, ds[3] = {1.0f, 0.25f, 2.0f};
    int32_t zs = 3, zd = -2;
    int8_t dst[6];
    lg_arg args[6] = {{LG_ARG_SRC, src},
                      {LG_ARG_DST, dst},
                      {LG_ARG_ATTR_SCALES | LG_ARG_SRC, &ss},
                      {LG_ARG_ATTR_SCALES | LG_ARG_DST, ds},
                      {LG_ARG_ATTR_ZERO_POINTS | LG_ARG_SRC, &zs},
                      {LG_ARG_ATTR_ZERO_POINTS | LG_ARG_DST, &zd}};
    cr_assert_eq(lg_kernel_execute(k, 6, args), LG_OK, "%s", lg_last_error());
    /* dst is "ba": element (n, c) at c * 2 + n. Hand values:
     * (0,0): 0.5*(7-3)-2 = 0; (0,1): 2*(3-3)-2 = -2; (0,2): 0.25*997-2 = 247.25 -> 127;
     * (1,0): 0.5*(-1003)-2 = -503.5 -> -128; (1,1): 2*5-2 = 8; (1,2): 0.25*1-2 = -1.75 -> -2. */
    const int8_t want[6] = {0, -128, -2, 8, 127, -2};
    for (int i = 0; i < 6; i++) cr_assert_eq(dst[i], want[i], "dst[%d] = %d", i, dst[i]);
    lg_kernel_destroy(k);

    /* Sum: dst = src + 0.5 * dst_old, f32 -> f32. */
    lg_attr *sum;
    lg_attr_create(&sum);
    lg_attr_append_sum(sum, 0.5f);
    lg_md sf = md_of(2, dims, LG_F32, "ab");
    lg_kernel *k2 = reorder(&sf, &sf, sum);
    lg_attr_destroy(sum);
    float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {2, 2, 2, 4, 4, 4};
    lg_arg args2[2] = {{LG_ARG_SRC, a}, {LG_ARG_DST, b}};
    cr_assert_eq(lg_kernel_execute(k2, 2, args2), LG_OK, "%s", lg_last_error());
    const float want2[6] = {2, 3, 4, 6, 7, 8};
    for (int i = 0; i < 6; i++) cr_assert_eq(b[i], want2[i]);
    lg_kernel_destroy(k2);
}

Test(reorder, rounding_and_saturation_edges) {
    int64_t dims[1] = {8};
    lg_md s = md_of(1, dims, LG_F32, "a");
    const float src[8] = {0.5f, 1.5f, 2.5f, -0.5f, 127.5f, -128.5f, NAN, 4294967295.0f};
    const int8_t s8[8] = {0, 2, 2, 0, 127, -128, 0, 127};
    const uint8_t u8[8] = {0, 2, 2, 0, 128, 0, 0, 255};
    const int32_t s32[8] = {0, 2, 2, 0, 128, -128, 0, 2147483520};
    lg_md d8 = md_of(1, dims, LG_S8, "a"), du = md_of(1, dims, LG_U8, "a"),
          d32 = md_of(1, dims, LG_S32, "a");
    int8_t o8[8];
    uint8_t ou[8];
    int32_t o32[8];
    void *outs[3] = {o8, ou, o32};
    const lg_md *mds[3] = {&d8, &du, &d32};
    for (int t = 0; t < 3; t++) {
        lg_kernel *k = reorder(&s, mds[t], NULL);
        lg_arg args[2] = {{LG_ARG_SRC, (void *)src}, {LG_ARG_DST, outs[t]}};
        cr_assert_eq(lg_kernel_execute(k, 2, args), LG_OK);
        lg_kernel_destroy(k);
    }
    for (int i = 0; i < 8; i++) {
        cr_assert_eq(o8[i], s8[i], "s8[%d] = %d", i, o8[i]);
        cr_assert_eq(ou[i], u8[i], "u8[%d] = %d", i, ou[i]);
        cr_assert_eq(o32[i], s32[i], "s32[%d] = %d", i, o32[i]);
    }
    /* A src scale of 4294967295 (rounds to 2^32 in f32) saturates. */
    lg_attr *attr;
    lg_attr_create(&attr);
    lg_attr_set_scales(attr, LG_ARG_SRC, 0);
    lg_kernel *k = reorder(&s, &d32, attr);
    lg_attr_destroy(attr);
    float one[8] = {1, -1, 0, 0.5f, 1e-9f, -1e-9f, 2, -2}, sc = 4294967295.0f;
    lg_arg args[3] = {{LG_ARG_SRC, one}, {LG_ARG_DST, o32}, {LG_ARG_ATTR_SCALES | LG_ARG_SRC, &sc}};
    cr_assert_eq(lg_kernel_execute(k, 3, args), LG_OK);
    const int32_t want[8] = {2147483520, INT32_MIN, 0, 2147483520, 4, -4, 2147483520, INT32_MIN};
    for (int i = 0; i < 8; i++) cr_assert_eq(o32[i], want[i], "[%d] = %d", i, o32[i]);
    lg_kernel_destroy(k);
}

Test(reorder, equal_types_copy_bits) {
    /* s32 beyond 2^24 and NaN payloads must survive: no trip through f32. */
    int64_t dims[2] = {3, 5};
    lg_md s = md_of(2, dims, LG_S32, "ab"), d = md_of(2, dims, LG_S32, "ba");
    int32_t src[15], dst[15];
    for (int i = 0; i < 15; i++) src[i] = 16777217 + i * 1000003;
    lg_kernel *k = reorder(&s, &d, NULL);
    lg_arg args[2] = {{LG_ARG_SRC, src}, {LG_ARG_DST, dst}};
    cr_assert_eq(lg_kernel_execute(k, 2, args), LG_OK);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 5; j++) cr_assert_eq(dst[j * 3 + i], src[i * 5 + j]);
    lg_kernel_destroy(k);
    lg_md fs = md_of(2, dims, LG_F32, "ab"), fd = md_of(2, dims, LG_F32, "ba");
    uint32_t nan[15], out[15];
    for (int i = 0; i < 15; i++) nan[i] = 0x7f800001u + (uint32_t)i; /* signalling NaNs */
    k = reorder(&fs, &fd, NULL);
    lg_arg args2[2] = {{LG_ARG_SRC, nan}, {LG_ARG_DST, out}};
    cr_assert_eq(lg_kernel_execute(k, 2, args2), LG_OK);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 5; j++) cr_assert_eq(out[j * 3 + i], nan[i * 5 + j]);
    lg_kernel_destroy(k);
}

/* Fill a buffer of md's type with random values (f16/bf16 via f32). */
static void fill_random(void *p, const lg_md *md, lg_rng *r) {
    int64_t n = (int64_t)(lg_md_size(md) / lg_dtype_size(md->dtype));
    for (int64_t i = 0; i < n; i++) lg__store_f32(p, md->dtype, i, lg_rng_float(r, -300, 300));
}

Test(reorder, all_64_type_pairs_match_the_reference) {
    const lg_dtype types[8] = {LG_F32, LG_F16, LG_BF16,    LG_S32,
                               LG_S8,  LG_U8,  LG_F8_E4M3, LG_F8_E5M2};
    int64_t dims[4] = {2, 19, 3, 5};
    lg_rng rng = {42};
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++)
            for (int variant = 0; variant < 2; variant++) {
                lg_md s = md_of(4, dims, types[i], variant ? "nhwc" : "nchw");
                lg_md d = md_of(4, dims, types[j], variant ? "nChw8c" : "nChw16c");
                size_t ssz = lg_md_size(&s), dsz = lg_md_size(&d);
                void *src = malloc(ssz), *dst = malloc(dsz), *ref = malloc(dsz);
                fill_random(src, &s, &rng);
                memset(dst, 0x5a, dsz);
                memset(ref, 0x5a, dsz);
                lg_attr *attr = NULL;
                float scale[19];
                for (int c = 0; c < 19; c++) scale[c] = lg_rng_float(&rng, 0.1f, 2.0f);
                if (variant) {
                    lg_attr_create(&attr);
                    lg_attr_set_scales(attr, LG_ARG_SRC, 2);
                }
                lg_kernel *k = reorder(&s, &d, attr);
                lg_attr_destroy(attr);
                lg_arg args[3] = {
                    {LG_ARG_SRC, src}, {LG_ARG_DST, dst}, {LG_ARG_ATTR_SCALES | LG_ARG_SRC, scale}};
                cr_assert_eq(lg_kernel_execute(k, variant ? 3 : 2, args), LG_OK, "%s",
                             lg_last_error());
                lg__reorder_pd pd;
                memset(&pd, 0, sizeof pd);
                pd.src = s;
                pd.dst = d;
                pd.src_scale_mask = variant ? 2 : -1;
                pd.dst_scale_mask = pd.src_zp_mask = pd.dst_zp_mask = -1;
                lg__reorder_args ra = {.src = src, .dst = ref, .src_scales = scale};
                lg__reorder_ref(&pd, &ra);
                cr_assert(memcmp(dst, ref, dsz) == 0, "%s -> %s (%s) differs from the reference",
                          lg_dtype_str(types[i]), lg_dtype_str(types[j]), lg_kernel_impl(k));
                lg_kernel_destroy(k);
                free(src);
                free(dst);
                free(ref);
            }
}

Test(reorder, query_md_and_dst_any) {
    int64_t dims[4] = {1, 20, 4, 4};
    lg_md s = md_of(4, dims, LG_F32, "nChw16c"), any = md_of(4, dims, LG_BF16, "any"), q;
    lg_kernel *k = reorder(&s, &any, NULL);
    cr_assert_eq(lg_kernel_query_md(k, LG_ARG_DST, &q), LG_OK);
    lg_md want = md_of(4, dims, LG_BF16, "nChw16c");
    cr_assert(lg_md_equal(&q, &want), "dst 'any' takes src's layout in dst's type");
    cr_assert_eq(lg_kernel_query_md(k, LG_ARG_SRC, &q), LG_OK);
    cr_assert(lg_md_equal(&q, &s));
    cr_assert_eq(lg_kernel_query_md(k, LG_ARG_WEIGHTS, &q), LG_INVALID_ARGUMENT);
    lg_kernel_destroy(k);
}

Test(reorder, in_place_copy_with_equal_mds) {
    int64_t dims[2] = {4, 4};
    lg_md m = md_of(2, dims, LG_F32, "ab");
    lg_attr *attr;
    lg_attr_create(&attr);
    lg_attr_set_scales(attr, LG_ARG_SRC, 0);
    lg_kernel *k = reorder(&m, &m, attr);
    lg_attr_destroy(attr);
    float buf[16], two = 2.0f;
    for (int i = 0; i < 16; i++) buf[i] = (float)i;
    lg_arg args[3] = {
        {LG_ARG_SRC, buf}, {LG_ARG_DST, buf}, {LG_ARG_ATTR_SCALES | LG_ARG_SRC, &two}};
    cr_assert_eq(lg_kernel_execute(k, 3, args), LG_OK, "%s", lg_last_error());
    for (int i = 0; i < 16; i++) cr_assert_eq(buf[i], 2.0f * (float)i);
    /* Overlapping but shifted: rejected. */
    float big[20];
    lg_arg shifted[3] = {
        {LG_ARG_SRC, big}, {LG_ARG_DST, big + 2}, {LG_ARG_ATTR_SCALES | LG_ARG_SRC, &two}};
    cr_assert_eq(lg_kernel_execute(k, 3, shifted), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "overlap"), "%s", lg_last_error());
    lg_kernel_destroy(k);
    /* Same buffer, different mds: rejected. */
    lg_md t = md_of(2, dims, LG_F32, "ba");
    k = reorder(&m, &t, NULL);
    lg_arg same[2] = {{LG_ARG_SRC, buf}, {LG_ARG_DST, buf}};
    cr_assert_eq(lg_kernel_execute(k, 2, same), LG_INVALID_ARGUMENT);
    lg_kernel_destroy(k);
}

Test(reorder, bad_inputs) {
    int64_t d4[4] = {2, 3, 4, 5}, d4b[4] = {2, 3, 4, 6}, d3[3] = {2, 3, 4};
    lg_md a = md_of(4, d4, LG_F32, "nchw"), b = md_of(4, d4b, LG_F32, "nchw"),
          c = md_of(3, d3, LG_F32, "abc"), any = md_of(4, d4, LG_F32, "any");
    lg_kernel *k = NULL;
    cr_assert_eq(lg_reorder_create(&k, &a, &b, NULL), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "dims[3] differ"), "%s", lg_last_error());
    cr_assert_eq(lg_reorder_create(&k, &a, &c, NULL), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "dims"), "%s", lg_last_error());
    cr_assert_eq(lg_reorder_create(&k, &any, &a, NULL), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "'any'"), "%s", lg_last_error());
    cr_assert_eq(lg_reorder_create(&k, NULL, &a, NULL), LG_INVALID_ARGUMENT);
    cr_assert_eq(lg_reorder_create(NULL, &a, &a, NULL), LG_INVALID_ARGUMENT);
    cr_assert_null(k);
    lg_attr *attr;
    lg_attr_create(&attr);
    cr_assert_eq(lg_attr_set_scales(attr, LG_ARG_BIAS, 0), LG_INVALID_ARGUMENT);
    cr_assert_eq(lg_attr_set_scales(attr, LG_ARG_SRC, -1), LG_INVALID_ARGUMENT);
    cr_assert_eq(lg_attr_set_scales(NULL, LG_ARG_SRC, 0), LG_INVALID_ARGUMENT);
    cr_assert_eq(lg_attr_set_scales(attr, LG_ARG_SRC, 1 << 4), LG_OK);
    cr_assert_eq(lg_reorder_create(&k, &a, &a, attr), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "mask"), "%s", lg_last_error());
    lg_attr_destroy(attr);
    lg_attr_create(&attr);
    lg_attr_append_eltwise(attr, LG_ELTWISE_RELU, 0, 0);
    cr_assert_eq(lg_reorder_create(&k, &a, &a, attr), LG_UNIMPLEMENTED);
    lg_attr_destroy(attr);

    /* Execution: missing scales, NULL buffers, unknown or repeated args. */
    lg_attr_create(&attr);
    lg_attr_set_scales(attr, LG_ARG_DST, 2);
    lg_md t = md_of(4, d4, LG_F32, "nhwc");
    cr_assert_eq(lg_reorder_create(&k, &a, &t, attr), LG_OK);
    lg_attr_destroy(attr);
    float src[120], dst[120], sc[3] = {1, 1, 1};
    lg_arg missing[2] = {{LG_ARG_SRC, src}, {LG_ARG_DST, dst}};
    cr_assert_eq(lg_kernel_execute(k, 2, missing), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "missing"), "%s", lg_last_error());
    lg_arg null_dst[3] = {
        {LG_ARG_SRC, src}, {LG_ARG_DST, NULL}, {LG_ARG_ATTR_SCALES | LG_ARG_DST, sc}};
    cr_assert_eq(lg_kernel_execute(k, 3, null_dst), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "NULL"), "%s", lg_last_error());
    lg_arg unknown[3] = {{LG_ARG_SRC, src}, {LG_ARG_DST, dst}, {LG_ARG_WEIGHTS, sc}};
    cr_assert_eq(lg_kernel_execute(k, 3, unknown), LG_INVALID_ARGUMENT);
    lg_arg twice[3] = {{LG_ARG_SRC, src}, {LG_ARG_SRC, src}, {LG_ARG_DST, dst}};
    cr_assert_eq(lg_kernel_execute(k, 3, twice), LG_INVALID_ARGUMENT);
    cr_assert_eq(lg_kernel_execute(k, 1, NULL), LG_INVALID_ARGUMENT);
    cr_assert_eq(lg_kernel_execute(NULL, 0, NULL), LG_INVALID_ARGUMENT);
    lg_kernel_destroy(k);
    lg_kernel_destroy(NULL);
}
