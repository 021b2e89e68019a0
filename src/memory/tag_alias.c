/* Domain aliases of format tags ("nchw", "nChw16c", "OIhw16i16o", ...).
 *
 * Every plain alias is listed once with its generic tag. A blocked alias is
 * a plain one with some letters in upper case and inner blocks named by
 * domain letters: "nChw16c" is "nchw" = "abcd" with c -> b blocked, so
 * "aBcd16b"; "gOIhw16i16o" is "goihw" = "abcde" with o,i blocked, so
 * "aBCde16c16b". Translating letter by letter covers every blocked alias
 * oneDNN lists (and their 1D/3D forms) without a second table. */
#include "memory/md.h"

#include <ctype.h>
#include <string.h>

static const struct {
    const char *alias, *generic;
} plain_aliases[] = {
    {"x", "a"},         {"nc", "ab"},         {"cn", "ba"},         {"tn", "ab"},
    {"nt", "ba"},       {"ncw", "abc"},       {"nwc", "acb"},       {"nchw", "abcd"},
    {"nhwc", "acdb"},   {"chwn", "bcda"},     {"ncdhw", "abcde"},   {"ndhwc", "acdeb"},
    {"oi", "ab"},       {"io", "ba"},         {"oiw", "abc"},       {"owi", "acb"},
    {"wio", "cba"},     {"iwo", "bca"},       {"oihw", "abcd"},     {"hwio", "cdba"},
    {"ohwi", "acdb"},   {"ihwo", "bcda"},     {"iohw", "bacd"},     {"oidhw", "abcde"},
    {"dhwio", "cdeba"}, {"odhwi", "acdeb"},   {"iodhw", "bacde"},   {"idhwo", "bcdea"},
    {"goiw", "abcd"},   {"wigo", "dcab"},     {"goihw", "abcde"},   {"hwigo", "decab"},
    {"giohw", "acbde"}, {"goidhw", "abcdef"}, {"giodhw", "acbdef"}, {"dhwigo", "defcab"},
    {"gowi", "abdc"},   {"gohwi", "abdec"},   {"godhwi", "abdefc"}, {"tnc", "abc"},
    {"ntc", "bac"},     {"ldnc", "abcd"},     {"ldigo", "abcde"},   {"ldgoi", "abdec"},
    {"ldio", "abcd"},   {"ldoi", "abdc"},     {"ldgo", "abcd"},
};

bool lg__alias_to_generic(const char *tag, char *buf, int *ndims, const char **why) {
    size_t len = strlen(tag);
    if (len > LG_TAG_MAX) {
        *why = "tag too long";
        return false;
    }
    size_t nouter = 0;
    while (nouter < len && isalpha((unsigned char)tag[nouter])) nouter++;
    char lower[LG_TAG_MAX + 1];
    for (size_t i = 0; i < nouter; i++) lower[i] = (char)tolower((unsigned char)tag[i]);
    lower[nouter] = '\0';

    const char *generic = NULL;
    for (size_t k = 0; k < sizeof plain_aliases / sizeof plain_aliases[0]; k++)
        if (strcmp(lower, plain_aliases[k].alias) == 0) generic = plain_aliases[k].generic;
    if (!generic) {
        *why = "unknown format tag";
        return false;
    }
    /* Outer letters: the generic letter, upper case where the alias has it. */
    for (size_t i = 0; i < nouter; i++)
        buf[i] =
            isupper((unsigned char)tag[i]) ? (char)toupper((unsigned char)generic[i]) : generic[i];
    /* Inner blocks: copy the digits, translate each block's domain letter. */
    size_t o = nouter;
    for (size_t i = nouter; i < len; i++) {
        char c = tag[i];
        if (isdigit((unsigned char)c)) {
            buf[o++] = c;
            continue;
        }
        const char *p = islower((unsigned char)c) ? strchr(lower, c) : NULL;
        if (!p) {
            *why = isupper((unsigned char)c) ? "an upper-case letter where a block's dim belongs"
                                             : "a block on a letter the alias does not have";
            return false;
        }
        buf[o++] = generic[p - lower];
    }
    buf[o] = '\0';
    *ndims = (int)nouter;
    return true;
}
