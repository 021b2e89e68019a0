/* Helpers shared by the pooling, softmax and batch-normalization tests:
 * index iteration and the layout families they sweep. */
#ifndef LG_TEST_LAYERS_UTIL_H
#define LG_TEST_LAYERS_UTIL_H

#include <lgraph.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Advance idx over [0, dims); false after the last. */
static inline bool next_idx(int64_t *idx, const int64_t *dims, int nd) {
    for (int d = nd - 1; d >= 0; d--) {
        if (++idx[d] < dims[d]) return true;
        idx[d] = 0;
    }
    return false;
}

/* The generic tag of family fam for nd dims: 0 plain ("abcd"), 1 channels
 * last ("acdb"), 2 blocked by 8 on dim 1 ("aBcd8b"), 3 by 16 ("aBcd16b"). */
static inline void family_tag(int fam, int nd, char *tag) {
    int n = 0;
    tag[n++] = 'a';
    if (fam == 0) {
        for (int i = 1; i < nd; i++) tag[n++] = (char)('a' + i);
    } else if (fam == 1) {
        for (int i = 2; i < nd; i++) tag[n++] = (char)('a' + i);
        tag[n++] = 'b';
    } else {
        tag[n++] = 'B';
        for (int i = 2; i < nd; i++) tag[n++] = (char)('a' + i);
    }
    tag[n] = 0;
    if (fam == 2) strcat(tag, "8b");
    if (fam == 3) strcat(tag, "16b");
}

#endif /* LG_TEST_LAYERS_UTIL_H */
