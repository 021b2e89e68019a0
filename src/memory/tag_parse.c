/* The format-tag parser: generic tags, the "x" shorthand and domain aliases
 * (through tag_alias.c), into an lg__tag. */
#include "memory/md.h"

#include <ctype.h>
#include <string.h>

/* Dim index of a generic letter ('a'..'l' or 'A'..'L'), or -1. */
static int letter_dim(char c) {
    if (c >= 'a' && c <= 'l') return c - 'a';
    if (c >= 'A' && c <= 'L') return c - 'A';
    return -1;
}

/* A tag is generic if it uses only generic letters, 'x' and digits. */
static bool is_generic(const char *tag) {
    if (strcmp(tag, "x") == 0) return false; /* the 1D alias */
    for (const char *p = tag; *p; p++)
        if (letter_dim(*p) < 0 && *p != 'x' && !isdigit((unsigned char)*p)) return false;
    return true;
}

/* Parse a generic tag (letters, optional single 'x' for the remaining
 * dims, then <N><letter> blocks) for ndims dims. */
static lg_status parse_generic(const char *tag, const char *shown, int ndims, lg__tag *t,
                               const char *where) {
    bool named[LG_MAX_NDIMS] = {false}, upper[LG_MAX_NDIMS] = {false};
    int outer[LG_MAX_NDIMS + 1], nouter = 0, xpos = -1;
    const char *p = tag;
    for (; *p && !isdigit((unsigned char)*p); p++) {
        if (*p == 'x') {
            if (xpos >= 0)
                return lg__error(LG_INVALID_ARGUMENT, where, "tag '%s': 'x' twice", shown);
            xpos = nouter;
            continue;
        }
        int d = letter_dim(*p);
        if (d < 0)
            return lg__error(LG_INVALID_ARGUMENT, where, "tag '%s': unknown letter '%c'", shown,
                             *p);
        if (d >= ndims)
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "tag '%s': letter '%c' names dim %d but ndims is %d", shown, *p, d,
                             ndims);
        if (named[d])
            return lg__error(LG_INVALID_ARGUMENT, where, "tag '%s': letter '%c' twice", shown, *p);
        named[d] = true;
        upper[d] = isupper((unsigned char)*p) != 0;
        if (nouter >= LG_MAX_NDIMS)
            return lg__error(LG_INVALID_ARGUMENT, where, "tag '%s': too many letters", shown);
        outer[nouter++] = d;
    }
    /* Expand 'x' into the dims not named (zero or more, as benchdnn's abx,
     * axb, aBx16b of every rank: abx on 2 dims is ab), in increasing order. */
    int nx = ndims - nouter;
    if (xpos < 0 && nx != 0)
        return lg__error(LG_INVALID_ARGUMENT, where, "tag '%s' has %d dims but ndims is %d", shown,
                         nouter, ndims);
    t->ndims = ndims;
    int k = 0;
    for (int i = 0; i <= nouter; i++) {
        if (i == xpos)
            for (int d = 0; d < ndims; d++)
                if (!named[d]) t->order[k++] = d;
        if (i < nouter) t->order[k++] = outer[i];
    }
    /* Inner blocks. */
    t->nblks = 0;
    bool blocked[LG_MAX_NDIMS] = {false};
    while (*p) {
        if (!isdigit((unsigned char)*p))
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "tag '%s': expected a block size before '%c'", shown, *p);
        int64_t size = 0;
        for (; isdigit((unsigned char)*p); p++) {
            size = size * 10 + (*p - '0');
            if (size > INT32_MAX)
                return lg__error(LG_INVALID_ARGUMENT, where, "tag '%s': block size overflows",
                                 shown);
        }
        if (size == 0)
            return lg__error(LG_INVALID_ARGUMENT, where, "tag '%s': block size 0", shown);
        if (!*p)
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "tag '%s': block size %lld has no dim letter", shown, (long long)size);
        if (isupper((unsigned char)*p))
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "tag '%s': upper-case '%c' where a block's dim letter belongs", shown,
                             *p);
        int d = letter_dim(*p);
        if (d < 0 || d >= ndims || !named[d])
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "tag '%s': block on '%c', a dim the tag does not name", shown, *p);
        if (!upper[d])
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "tag '%s': dim '%c' is blocked but written in lower case", shown, *p);
        if (t->nblks >= LG_MAX_NDIMS)
            return lg__error(LG_INVALID_ARGUMENT, where, "tag '%s': more than %d blocks", shown,
                             LG_MAX_NDIMS);
        t->blks[t->nblks] = size;
        t->blk_dims[t->nblks++] = d;
        blocked[d] = true;
        p++;
    }
    for (int d = 0; d < ndims; d++)
        if (upper[d] && !blocked[d])
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "tag '%s': dim '%c' is upper case but has no block", shown, 'A' + d);
    return LG_OK;
}

lg_status lg__tag_parse(const char *tag, int ndims, lg__tag *out, const char *where) {
    if (!tag) return lg__error(LG_INVALID_ARGUMENT, where, "tag is NULL");
    if (strlen(tag) > LG_TAG_MAX)
        return lg__error(LG_INVALID_ARGUMENT, where, "tag longer than %d characters", LG_TAG_MAX);
    if (tag[0] == '\0') return lg__error(LG_INVALID_ARGUMENT, where, "tag is empty");
    if (is_generic(tag)) return parse_generic(tag, tag, ndims, out, where);

    char generic[LG_TAG_MAX + 1];
    int alias_ndims = 0;
    const char *why = NULL;
    if (!lg__alias_to_generic(tag, generic, &alias_ndims, &why)) {
        const char *bad = tag;
        while (*bad && (letter_dim(*bad) >= 0 || *bad == 'x' || isdigit((unsigned char)*bad)))
            bad++;
        if (*bad && strcmp(tag, "x") != 0)
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "tag '%s': unknown letter '%c' (and not a known alias: %s)", tag, *bad,
                             why);
        return lg__error(LG_INVALID_ARGUMENT, where, "tag '%s': %s", tag, why);
    }
    if (alias_ndims != ndims)
        return lg__error(LG_INVALID_ARGUMENT, where, "tag '%s' is for %d dims but ndims is %d", tag,
                         alias_ndims, ndims);
    return parse_generic(generic, tag, ndims, out, where);
}
