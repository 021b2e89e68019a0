/* memory_formats: describe tensors with format tags and see where elements
 * live. Prints dims, padded dims, strides and a few offsets for plain and
 * blocked layouts, and shows how 17 channels are padded to 24 in nChw8c. */
#include <lgraph.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static void print_md(const char *label, const lg_md *md) {
    char tag[128];
    if (lg_md_tag(md, tag, sizeof tag) != LG_OK) snprintf(tag, sizeof tag, "(strided)");
    printf("%-10s tag %-12s %s  size %zu bytes\n", label, tag, lg_dtype_str(md->dtype),
           lg_md_size(md));
    printf("  dims       ");
    for (int d = 0; d < md->ndims; d++) printf(" %5" PRId64, md->dims[d]);
    printf("\n  padded dims");
    for (int d = 0; d < md->ndims; d++) printf(" %5" PRId64, md->padded_dims[d]);
    printf("\n  strides    ");
    for (int d = 0; d < md->ndims; d++) printf(" %5" PRId64, md->blocking.strides[d]);
    printf("\n  inner blocks:");
    for (int i = 0; i < md->blocking.inner_nblks; i++)
        printf(" %" PRId64 "%c", md->blocking.inner_blks[i], 'a' + md->blocking.inner_idxs[i]);
    printf("%s\n", md->blocking.inner_nblks ? "" : " none");
}

static int check(lg_status s) {
    if (s != LG_OK) {
        fprintf(stderr, "error: %s: %s\n", lg_status_str(s), lg_last_error());
        exit(1);
    }
    return 0;
}

int main(void) {
    const int64_t dims[4] = {2, 17, 3, 3};
    const char *tags[] = {"nchw", "nhwc", "nChw8c", "nChw16c"};
    lg_md mds[4];
    printf("A 2x17x3x3 f32 tensor in four layouts:\n\n");
    for (int t = 0; t < 4; t++) {
        check(lg_md_init_tag(&mds[t], 4, dims, LG_F32, tags[t]));
        print_md(tags[t], &mds[t]);
    }

    printf("\nWhere element (n, c, h, w) lives (element offset) in each layout:\n");
    printf("  %-14s %8s %8s %8s %8s\n", "index", tags[0], tags[1], tags[2], tags[3]);
    const int64_t idx[][4] = {{0, 0, 0, 0}, {0, 1, 0, 0},  {0, 0, 0, 1},
                              {0, 8, 0, 0}, {0, 16, 2, 2}, {1, 0, 0, 0}};
    for (size_t i = 0; i < sizeof idx / sizeof idx[0]; i++) {
        printf("  (%" PRId64 ",%2" PRId64 ",%" PRId64 ",%" PRId64 ")    ", idx[i][0], idx[i][1],
               idx[i][2], idx[i][3]);
        for (int t = 0; t < 4; t++) printf(" %8" PRId64, lg_md_offset(&mds[t], idx[i]));
        printf("\n");
    }

    printf("\nPadding of 17 channels in nChw8c: channels are stored in blocks of 8, so the\n"
           "third block holds channel 16 and 7 channels of zeros; the buffer holds %zu\n"
           "elements for %d logical ones (%.0f%% padding).\n",
           lg_md_size(&mds[2]) / 4, 2 * 17 * 3 * 3,
           100.0 * (double)(lg_md_size(&mds[2]) / 4 - 2 * 17 * 9) /
               (double)(lg_md_size(&mds[2]) / 4));

    printf("\nA bad tag is reported, not crashed on:\n");
    lg_md bad;
    lg_status s = lg_md_init_tag(&bad, 4, dims, LG_F32, "aBcd16q");
    printf("  lg_md_init_tag(\"aBcd16q\") -> %s: %s\n", lg_status_str(s), lg_last_error());
    return 0;
}
