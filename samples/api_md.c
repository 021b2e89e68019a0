/*
 * api_md: memory descriptors (docs/api.md, "Memory descriptors").
 *
 * Describe a tensor in a plain and a blocked layout, read its size, padding
 * and strides, find elements, print canonical tags, compare descriptors, and
 * see what a bad tag returns. Exits non-zero if any result is not the one
 * the comments state.
 */
#include <lgraph.h>

#include <stdio.h>
#include <string.h>

static int failures;
#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAILED: %s (line %d)\n", #cond, __LINE__);                                     \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

int main(void) {
    /* A 2x17x5x5 f32 activation: logical dims are always (n, c, h, w). */
    int64_t dims[4] = {2, 17, 5, 5};
    lg_md plain, blocked;
    EXPECT(lg_md_init_tag(&plain, 4, dims, LG_F32, "nchw") == LG_OK);
    EXPECT(lg_md_init_tag(&blocked, 4, dims, LG_F32, "nChw8c") == LG_OK);

    /* nChw8c pads the 17 channels to 24: the buffer holds the padding. */
    printf("nchw: %zu bytes; nChw8c: %zu bytes, channels padded to %lld\n", lg_md_size(&plain),
           lg_md_size(&blocked), (long long)blocked.padded_dims[1]);
    EXPECT(lg_md_size(&plain) == 2 * 17 * 5 * 5 * 4);
    EXPECT(lg_md_size(&blocked) == 2 * 24 * 5 * 5 * 4);

    /* Where element (1, 9, 2, 3) lives: nchw 1*425 + 9*25 + 2*5 + 3;
     * nChw8c: n stride 600, block 9/8 = 1 of stride 200, h 2*40, w 3*8, 9%8. */
    int64_t idx[4] = {1, 9, 2, 3};
    EXPECT(lg_md_offset(&plain, idx) == 425 + 225 + 10 + 3);
    EXPECT(lg_md_offset(&blocked, idx) == 600 + 200 + 80 + 24 + 1);
    printf("element (1,9,2,3): offset %lld in nchw, %lld in nChw8c\n",
           (long long)lg_md_offset(&plain, idx), (long long)lg_md_offset(&blocked, idx));

    /* Canonical tags: aliases and the x shorthand map to generic tags. */
    char tag[64];
    EXPECT(lg_md_tag(&blocked, tag, sizeof tag) == LG_OK && strcmp(tag, "aBcd8b") == 0);
    lg_md same;
    EXPECT(lg_md_init_tag(&same, 4, dims, LG_F32, "aBx8b") == LG_OK);
    EXPECT(lg_md_equal(&same, &blocked));
    printf("nChw8c is %s; aBx8b describes the same layout: %s\n", tag,
           lg_md_equal(&same, &blocked) ? "yes" : "no");

    /* Explicit strides (in elements): rows of 8 with 3 unused. */
    int64_t sdims[2] = {4, 5}, strides[2] = {8, 1};
    lg_md strided;
    EXPECT(lg_md_init_strides(&strided, 2, sdims, LG_F32, strides) == LG_OK);
    EXPECT(lg_md_size(&strided) == 4 * 8 * 4); /* outer stride x extent, as oneDNN counts */
    EXPECT(lg_md_tag(&strided, tag, sizeof tag) == LG_UNIMPLEMENTED); /* no tag says "gaps" */

    /* "any": dims and type known, layout left to a kernel or the compiler. */
    lg_md any;
    EXPECT(lg_md_init_tag(&any, 4, dims, LG_F32, "any") == LG_OK);
    EXPECT(lg_md_is_any(&any) && lg_md_size(&any) == 0);

    /* Bad input returns a status and a message; the md is left unchanged. */
    lg_md bad = plain;
    lg_status s = lg_md_init_tag(&bad, 4, dims, LG_F32, "aBcd16e");
    EXPECT(s == LG_INVALID_ARGUMENT && lg_md_equal(&bad, &plain));
    printf("bad tag: %s: %s\n", lg_status_str(s), lg_last_error());
    s = lg_md_init_tag(&bad, 3, dims, LG_F32, "nchw"); /* nchw is 4D only */
    EXPECT(s == LG_INVALID_ARGUMENT);
    printf("wrong rank: %s\n", lg_last_error());

    if (failures) return 1;
    printf("OK\n");
    return 0;
}
