/* Layout structure: for every plain permutation up to 6 dims and every
 * blocked tag, with dims that are not multiples of the blocks, lg_md_offset
 * maps the logical index space one-to-one into [0, size/elt), the remaining
 * offsets are exactly the padding, and the size is the padded element count.
 * Hand-computed offsets pin the formula down. */
#include "memory/md.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Walk the padded index space; every index gets a distinct offset inside the
 * buffer, logical indices agree with lg_md_offset, padding indices are
 * rejected by it, and together they cover every offset. */
static void check_bijection(const lg_md *md, const int64_t *expect_padded, const char *what) {
    int nd = md->ndims;
    int64_t n_padded = 1, n_logical = 1;
    for (int d = 0; d < nd; d++) {
        cr_assert_eq(md->padded_dims[d], expect_padded[d], "%s: padded dim %d", what, d);
        n_padded *= expect_padded[d];
        n_logical *= md->dims[d];
    }
    size_t esz = lg_dtype_size(md->dtype);
    cr_assert_eq(lg_md_size(md), (size_t)n_padded * esz, "%s: size", what);
    if (n_logical == 0) return;
    uint8_t *seen = calloc((size_t)n_padded, 1);
    int64_t idx[LG_MAX_NDIMS] = {0}, logical = 0, pad = 0;
    for (int64_t k = 0; k < n_padded; k++) {
        int64_t off = lg__md_off(md, idx);
        cr_assert(off >= 0 && off < n_padded, "%s: offset %lld out of range", what, (long long)off);
        cr_assert(!seen[off], "%s: offset %lld twice", what, (long long)off);
        seen[off] = 1;
        bool inside = true;
        for (int d = 0; d < nd; d++) inside = inside && idx[d] < md->dims[d];
        if (inside) {
            cr_assert_eq(lg_md_offset(md, idx), off, "%s", what);
            logical++;
        } else {
            cr_assert_eq(lg_md_offset(md, idx), -1, "%s: padding index accepted", what);
            pad++;
        }
        for (int d = nd - 1; d >= 0; d--) {
            if (++idx[d] < expect_padded[d]) break;
            idx[d] = 0;
        }
    }
    cr_assert_eq(logical, n_logical, "%s", what);
    cr_assert_eq(logical + pad, n_padded, "%s", what);
    free(seen);
}

/* Heap's algorithm over the letters of a tag, checking each permutation. */
static int permute(char *letters, int k, int nd, const int64_t *dims, int count) {
    if (k == 1) {
        lg_md md;
        cr_assert_eq(lg_md_init_tag(&md, nd, dims, LG_F32, letters), LG_OK, "%s: %s", letters,
                     lg_last_error());
        check_bijection(&md, dims, letters);
        return count + 1;
    }
    for (int i = 0; i < k; i++) {
        count = permute(letters, k - 1, nd, dims, count);
        char *a = &letters[(k % 2) ? 0 : i], *b = &letters[k - 1], t = *a;
        *a = *b;
        *b = t;
    }
    return count;
}

Test(layout, every_plain_permutation_up_to_6d) {
    const int64_t dims[6] = {3, 1, 4, 2, 5, 3};
    int total = 0;
    for (int nd = 1; nd <= 6; nd++) {
        char letters[8] = {0};
        for (int d = 0; d < nd; d++) letters[d] = (char)('a' + d);
        total += permute(letters, nd, nd, dims, 0);
    }
    cr_assert_eq(total, 1 + 2 + 6 + 24 + 120 + 720);
}

/* Blocked tags with the product of blocks on each dim (0: not blocked). */
static const struct {
    const char *tag;
    int ndims;
    int64_t blk[6];
} blocked[] = {
    {"aBc16b", 3, {0, 16}},          {"aBcd16b", 4, {0, 16}},     {"aBcde16b", 5, {0, 16}},
    {"aBcd8b", 4, {0, 8}},           {"aBcd4b", 4, {0, 4}},       {"nCw16c", 3, {0, 16}},
    {"nChw16c", 4, {0, 16}},         {"nCdhw16c", 5, {0, 16}},    {"nCw8c", 3, {0, 8}},
    {"nChw8c", 4, {0, 8}},           {"nCdhw8c", 5, {0, 8}},      {"ABcd16b16a", 4, {16, 16}},
    {"ABcd16a16b", 4, {16, 16}},     {"ABcd8b8a", 4, {8, 8}},     {"ABcd4b16a4b", 4, {16, 16}},
    {"AB16b16a2b", 2, {16, 32}},     {"BA16a16b", 2, {16, 16}},   {"Abcd8a", 4, {8}},
    {"aBCde16c16b", 5, {0, 16, 16}}, {"OIhw16i16o", 4, {16, 16}}, {"OIhw16o16i", 4, {16, 16}},
    {"OIhw8i8o", 4, {8, 8}},         {"Ohwi16o", 4, {16}},        {"gOIhw16i16o", 5, {0, 16, 16}},
    {"Goihw16g", 5, {16}},           {"Goihw8g", 5, {8}},         {"OIw16i16o", 3, {16, 16}},
    {"OIdhw16i16o", 5, {16, 16}},    {"Goiw16g", 4, {16}},        {"Goidhw16g", 6, {16}},
    {"aBx16b", 5, {0, 16}},          {"Acdb16a", 4, {16}},        {"ABcd2a8b8a2b", 4, {16, 16}},
};

Test(layout, every_blocked_tag_with_tails) {
    const int64_t values[] = {1, 3, 17, 40, 71, 73};
    for (size_t t = 0; t < sizeof blocked / sizeof blocked[0]; t++) {
        int nd = blocked[t].ndims;
        /* Vary each blocked dim over the values (two blocked dims: all pairs,
         * a third one follows the second); other dims are small. */
        int nb = 0, bdims[6];
        for (int d = 0; d < nd; d++)
            if (blocked[t].blk[d]) bdims[nb++] = d;
        for (size_t i = 0; i < 6; i++)
            for (size_t j = 0; j < (nb > 1 ? 6u : 1u); j++) {
                int64_t dims[6], padded[6];
                for (int d = 0; d < nd; d++) dims[d] = 2 + d % 2;
                dims[bdims[0]] = values[i];
                for (int b = 1; b < nb; b++) dims[bdims[b]] = values[j];
                for (int d = 0; d < nd; d++) {
                    int64_t bk = blocked[t].blk[d] ? blocked[t].blk[d] : 1;
                    padded[d] = (dims[d] + bk - 1) / bk * bk;
                }
                lg_md md;
                char what[96];
                snprintf(what, sizeof what, "%s dims[%d]=%lld", blocked[t].tag, bdims[0],
                         (long long)values[i]);
                cr_assert_eq(lg_md_init_tag(&md, nd, dims, LG_F32, blocked[t].tag), LG_OK, "%s: %s",
                             what, lg_last_error());
                check_bijection(&md, padded, what);
            }
    }
}

Test(layout, hand_computed_offsets) {
    lg_md md;
    /* nChw16c 2x17x3x3: C padded to 32; w stride 16, h 48, C-block 144, n 288. */
    int64_t d1[4] = {2, 17, 3, 3}, i1[4] = {1, 16, 2, 1};
    cr_assert_eq(lg_md_init_tag(&md, 4, d1, LG_F32, "nChw16c"), LG_OK);
    cr_assert_eq(lg_md_offset(&md, i1), 288 + 144 + 2 * 48 + 16);
    cr_assert_eq(lg_md_size(&md), 2 * 32 * 9 * 4);
    /* nhwc 2x3x4x5: strides n 60, h 15, w 3, c 1. */
    int64_t d2[4] = {2, 3, 4, 5}, i2[4] = {1, 2, 3, 4};
    cr_assert_eq(lg_md_init_tag(&md, 4, d2, LG_F32, "nhwc"), LG_OK);
    cr_assert_eq(lg_md_offset(&md, i2), 60 + 3 * 15 + 4 * 3 + 2);
    /* OIhw16i16o 20x40x3x3: O->32, I->48; block 256; w 256, h 768, I 2304, O 6912. */
    int64_t d3[4] = {20, 40, 3, 3}, i3[4] = {17, 33, 1, 2};
    cr_assert_eq(lg_md_init_tag(&md, 4, d3, LG_F32, "OIhw16i16o"), LG_OK);
    cr_assert_eq(lg_md_offset(&md, i3), 6912 + 2 * 2304 + 768 + 2 * 256 + 1 * 16 + 1);
    /* ABcd4b16a4b 20x40x1x1: b=37 splits as outer 4b 1, 16a, inner 4b 1. */
    int64_t d4[4] = {20, 40, 1, 1}, i4[4] = {17, 37, 0, 0};
    cr_assert_eq(lg_md_init_tag(&md, 4, d4, LG_F32, "ABcd4b16a4b"), LG_OK);
    cr_assert_eq(lg_md_offset(&md, i4), 768 + 2 * 256 + 1 * 64 + 1 * 4 + 1);
    /* Out of range and NULL. */
    int64_t bad[4] = {17, 37, 1, 0};
    cr_assert_eq(lg_md_offset(&md, bad), -1);
    cr_assert_eq(lg_md_offset(NULL, i4), -1);
    cr_assert_eq(lg_md_offset(&md, NULL), -1);
}

Test(layout, strided_non_dense) {
    /* A 3x4 view inside a 3x10 row-major buffer: offset = 10 i + j. */
    lg_md md;
    int64_t dims[2] = {3, 4}, strides[2] = {10, 1}, idx[2] = {2, 3};
    cr_assert_eq(lg_md_init_strides(&md, 2, dims, LG_F32, strides), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_md_offset(&md, idx), 23);
    cr_assert_eq(lg_md_size(&md), 30 * 4);
    char tag[32];
    cr_assert_eq(lg_md_tag(&md, tag, sizeof tag), LG_UNIMPLEMENTED);
    /* Column-major: strides {1, 3}; the same as tag "ba". */
    int64_t cm[2] = {1, 3};
    lg_md ba;
    cr_assert_eq(lg_md_init_strides(&md, 2, dims, LG_F32, cm), LG_OK);
    cr_assert_eq(lg_md_init_tag(&ba, 2, dims, LG_F32, "ba"), LG_OK);
    cr_assert(lg_md_equal(&md, &ba));
    /* NULL strides: dense row-major, the same as "ab". */
    lg_md ab;
    cr_assert_eq(lg_md_init_strides(&md, 2, dims, LG_F32, NULL), LG_OK);
    cr_assert_eq(lg_md_init_tag(&ab, 2, dims, LG_F32, "ab"), LG_OK);
    cr_assert(lg_md_equal(&md, &ab));
    /* Exactly touching strides are fine: dims 2x3, strides {1, 2}. */
    int64_t d2[2] = {2, 3}, s2[2] = {1, 2};
    cr_assert_eq(lg_md_init_strides(&md, 2, d2, LG_F32, s2), LG_OK);
    cr_assert_eq(lg_md_size(&md), 6 * 4);
}

Test(layout, empty_tensors) {
    lg_md md;
    int64_t dims[4] = {2, 0, 3, 3};
    cr_assert_eq(lg_md_init_tag(&md, 4, dims, LG_F32, "nChw16c"), LG_OK);
    cr_assert_eq(lg_md_size(&md), 0);
    cr_assert_eq(lg_md_init_tag(&md, 4, dims, LG_F32, "nchw"), LG_OK);
    cr_assert_eq(lg_md_size(&md), 0);
    char tag[32];
    cr_assert_eq(lg_md_tag(&md, tag, sizeof tag), LG_OK);
    cr_assert_str_eq(tag, "abcd");
}

Test(layout, any_and_types) {
    lg_md md, md2;
    int64_t dims[3] = {4, 5, 6};
    cr_assert_eq(lg_md_init_tag(&md, 3, dims, LG_BF16, "any"), LG_OK);
    cr_assert(lg_md_is_any(&md));
    cr_assert_eq(lg_md_size(&md), 0);
    int64_t idx[3] = {0, 0, 0};
    cr_assert_eq(lg_md_offset(&md, idx), -1);
    char tag[8];
    cr_assert_eq(lg_md_tag(&md, tag, sizeof tag), LG_OK);
    cr_assert_str_eq(tag, "any");
    cr_assert_eq(lg_md_init_tag(&md2, 3, dims, LG_BF16, "abc"), LG_OK);
    cr_assert(!lg_md_equal(&md, &md2));
    cr_assert(!lg_md_is_any(&md2));
    cr_assert_eq(lg_md_size(&md2), 4 * 5 * 6 * 2);
    lg_md md3;
    cr_assert_eq(lg_md_init_tag(&md3, 3, dims, LG_F32, "abc"), LG_OK);
    cr_assert(!lg_md_equal(&md2, &md3), "different types are different mds");
    cr_assert(!lg_md_equal(NULL, NULL));
    const lg_dtype types[] = {LG_F32, LG_F16, LG_BF16, LG_S32, LG_S8, LG_U8};
    for (int t = 0; t < 6; t++) {
        cr_assert_eq(lg_md_init_tag(&md, 3, dims, types[t], "aBc16b"), LG_OK);
        cr_assert_eq(lg_md_size(&md), 4 * 16 * 6 * lg_dtype_size(types[t]));
    }
}
