/* Tag grammar: every alias equals its generic tag, the "x" shorthand expands
 * as benchdnn reads it, and lg_md_tag gives back the canonical generic tag. */
#include "memory/md.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *alias, *generic;
} aliases[] = {
    /* Plain aliases of the seed documents' list. */
    {"x", "a"},
    {"nc", "ab"},
    {"cn", "ba"},
    {"tn", "ab"},
    {"nt", "ba"},
    {"ncw", "abc"},
    {"nwc", "acb"},
    {"nchw", "abcd"},
    {"nhwc", "acdb"},
    {"chwn", "bcda"},
    {"ncdhw", "abcde"},
    {"ndhwc", "acdeb"},
    {"oi", "ab"},
    {"io", "ba"},
    {"oiw", "abc"},
    {"owi", "acb"},
    {"wio", "cba"},
    {"iwo", "bca"},
    {"oihw", "abcd"},
    {"hwio", "cdba"},
    {"ohwi", "acdb"},
    {"ihwo", "bcda"},
    {"iohw", "bacd"},
    {"oidhw", "abcde"},
    {"dhwio", "cdeba"},
    {"odhwi", "acdeb"},
    {"iodhw", "bacde"},
    {"idhwo", "bcdea"},
    {"goiw", "abcd"},
    {"wigo", "dcab"},
    {"goihw", "abcde"},
    {"hwigo", "decab"},
    {"giohw", "acbde"},
    {"goidhw", "abcdef"},
    {"giodhw", "acbdef"},
    {"dhwigo", "defcab"},
    {"gowi", "abdc"},
    {"gohwi", "abdec"},
    {"godhwi", "abdefc"},
    {"gOhwi16o", "aBdec16b"}, /* grouped, channels-last inputs, in benchdnn's reorders */
    {"gOwI16o4i", "aBdC16b4c"},
    {"tnc", "abc"},
    {"ntc", "bac"},
    {"ldnc", "abcd"},
    {"ldigo", "abcde"},
    {"ldgoi", "abdec"},
    {"ldio", "abcd"},
    {"ldoi", "abdc"},
    {"ldgo", "abcd"},
    /* Blocked aliases and their 1D/3D forms. */
    {"nCw16c", "aBc16b"},
    {"nChw16c", "aBcd16b"},
    {"nCdhw16c", "aBcde16b"},
    {"nCw8c", "aBc8b"},
    {"nChw8c", "aBcd8b"},
    {"nCdhw8c", "aBcde8b"},
    {"OIhw16i16o", "ABcd16b16a"},
    {"OIhw16o16i", "ABcd16a16b"},
    {"OIhw8i8o", "ABcd8b8a"},
    {"Ohwi16o", "Acdb16a"},
    {"gOIhw16i16o", "aBCde16c16b"},
    {"Goihw16g", "Abcde16a"},
    {"Goihw8g", "Abcde8a"},
    {"OIw16i16o", "ABc16b16a"},
    {"OIdhw16i16o", "ABcde16b16a"},
    {"Owi16o", "Acb16a"},
    {"Odhwi16o", "Acdeb16a"},
    {"gOIw16i16o", "aBCd16c16b"},
    {"gOIdhw16i16o", "aBCdef16c16b"},
    {"Goiw16g", "Abcd16a"},
    {"Goidhw16g", "Abcdef16a"},
    {"OIhw8o8i", "ABcd8a8b"},
    {"NChw16n16c", "ABcd16a16b"},
};

static void dims_for(int nd, int64_t *dims) {
    for (int d = 0; d < nd; d++) dims[d] = 2 + (d * 7) % 5 + d; /* all > 1, distinct-ish */
}

Test(tags, every_alias_equals_its_generic_tag) {
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        int nd = 0;
        for (const char *p = aliases[i].generic; *p && !(*p >= '0' && *p <= '9'); p++) nd++;
        int64_t dims[LG_MAX_NDIMS];
        dims_for(nd, dims);
        lg_md a, g;
        cr_assert_eq(lg_md_init_tag(&a, nd, dims, LG_F32, aliases[i].alias), LG_OK, "%s: %s",
                     aliases[i].alias, lg_last_error());
        cr_assert_eq(lg_md_init_tag(&g, nd, dims, LG_F32, aliases[i].generic), LG_OK, "%s: %s",
                     aliases[i].generic, lg_last_error());
        cr_assert(lg_md_equal(&a, &g), "%s != %s", aliases[i].alias, aliases[i].generic);
        char tag[64];
        cr_assert_eq(lg_md_tag(&a, tag, sizeof tag), LG_OK);
        cr_assert_str_eq(tag, aliases[i].generic, "lg_md_tag(%s)", aliases[i].alias);
        /* With the wrong ndims the alias is invalid. */
        if (nd < LG_MAX_NDIMS) {
            dims[nd] = 3;
            cr_assert_eq(lg_md_init_tag(&a, nd + 1, dims, LG_F32, aliases[i].alias),
                         LG_INVALID_ARGUMENT, "%s with %d dims", aliases[i].alias, nd + 1);
        }
    }
}

static const struct {
    const char *tag;
    int ndims;
    const char *canonical;
} shorthand[] = {
    {"abx", 5, "abcde"},
    {"abx", 3, "abc"},
    {"axb", 4, "acdb"},
    {"axb", 5, "acdeb"},
    {"aBx16b", 5, "aBcde16b"},
    {"aBx16b", 3, "aBc16b"},
    {"xba", 4, "cdba"},
    {"xa", 3, "bca"},
    {"ax", 2, "ab"},
    {"aBx8b", 4, "aBcd8b"},
    {"Abx16a", 4, "Abcd16a"},
    {"axB16b", 4, "acdB16b"},
    {"x", 1, "a"},
    /* 'x' may stand for no dim: benchdnn writes abx, axb, aBx16b for every
     * rank. */
    {"abx", 2, "ab"},
    {"axb", 2, "ab"},
    {"aBCx16c16b", 3, "aBC16c16b"},
    {"abcdx", 4, "abcd"},
    {"aBx16b", 2, "aB16b"},
    {"xa", 1, "a"},
};

Test(tags, x_shorthand) {
    for (size_t i = 0; i < sizeof shorthand / sizeof shorthand[0]; i++) {
        int64_t dims[LG_MAX_NDIMS];
        dims_for(shorthand[i].ndims, dims);
        lg_md md, ref;
        cr_assert_eq(lg_md_init_tag(&md, shorthand[i].ndims, dims, LG_F32, shorthand[i].tag), LG_OK,
                     "%s: %s", shorthand[i].tag, lg_last_error());
        cr_assert_eq(lg_md_init_tag(&ref, shorthand[i].ndims, dims, LG_F32, shorthand[i].canonical),
                     LG_OK);
        cr_assert(lg_md_equal(&md, &ref), "%s in %dD", shorthand[i].tag, shorthand[i].ndims);
        char tag[64];
        cr_assert_eq(lg_md_tag(&md, tag, sizeof tag), LG_OK);
        cr_assert_str_eq(tag, shorthand[i].canonical);
    }
}

Test(tags, generic_round_trip) {
    const char *tags[] = {"abcd",        "acdb",       "aBcd16b",      "ABcd16b16a",
                          "ABcd4b16a4b", "AB16b16a2b", "aBCde16c16b",  "BA16a16b",
                          "Abcd8a",      "dcba",       "abcdefghijkl", "lkjihgfedcba",
                          "aBCD4b4c4d",  "cdBa16b",    "ABc32a32b",    "AcdB8a16b2a"};
    for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
        int nd = 0;
        for (const char *p = tags[i]; *p && !(*p >= '0' && *p <= '9'); p++) nd++;
        int64_t dims[LG_MAX_NDIMS];
        for (int d = 0; d < nd; d++) dims[d] = nd > 6 ? 2 : 70 + d; /* outer extents > 1 */
        lg_md md;
        cr_assert_eq(lg_md_init_tag(&md, nd, dims, LG_F32, tags[i]), LG_OK, "%s: %s", tags[i],
                     lg_last_error());
        char tag[64];
        cr_assert_eq(lg_md_tag(&md, tag, sizeof tag), LG_OK);
        cr_assert_str_eq(tag, tags[i]);
    }
}

Test(tags, extent_one_dims_keep_a_natural_tag) {
    /* nhwc with C = 1 and nchw with W = 1: strides tie, the tag stays natural. */
    int64_t d1[4] = {2, 1, 3, 4}, d2[4] = {2, 3, 4, 1};
    lg_md md;
    char tag[16];
    cr_assert_eq(lg_md_init_tag(&md, 4, d1, LG_F32, "nhwc"), LG_OK);
    cr_assert_eq(lg_md_tag(&md, tag, sizeof tag), LG_OK);
    cr_assert_str_eq(tag, "acdb");
    cr_assert_eq(lg_md_init_tag(&md, 4, d2, LG_F32, "nchw"), LG_OK);
    cr_assert_eq(lg_md_tag(&md, tag, sizeof tag), LG_OK);
    cr_assert_str_eq(tag, "abcd");
    /* Physically identical layouts compare equal: nchw and nhwc when C = 1. */
    lg_md a, b;
    cr_assert_eq(lg_md_init_tag(&a, 4, d1, LG_F32, "nchw"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&b, 4, d1, LG_F32, "nhwc"), LG_OK);
    cr_assert(lg_md_equal(&a, &b));
}

Test(tags, tag_buffer_too_small) {
    int64_t dims[4] = {2, 3, 4, 5};
    lg_md md;
    cr_assert_eq(lg_md_init_tag(&md, 4, dims, LG_F32, "nChw16c"), LG_OK);
    char tag[7];
    cr_assert_eq(lg_md_tag(&md, tag, sizeof tag), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "too small"), "%s", lg_last_error());
    char ok[8];
    cr_assert_eq(lg_md_tag(&md, ok, sizeof ok), LG_OK);
    cr_assert_str_eq(ok, "aBcd16b");
    cr_assert_eq(lg_md_tag(NULL, ok, sizeof ok), LG_INVALID_ARGUMENT);
    cr_assert_eq(lg_md_tag(&md, NULL, 8), LG_INVALID_ARGUMENT);
}
