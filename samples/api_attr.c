/*
 * api_attr: attributes (docs/api.md, "Attributes").
 *
 * An attribute asks a kernel for scales, zero points and post-ops; the masks
 * are fixed at creation, the values come with every execution. Here a
 * reorder from f32 to u8 with per-channel source scales, a destination zero
 * point and a sum post-op:
 *     dst = scale_src[c] * src + 0.5 * dst_old + zp_dst
 * checked element by element against that formula. Exits non-zero on a
 * mismatch.
 */
#include <lgraph.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        lg_status s_ = (call);                                                                     \
        if (s_ != LG_OK) {                                                                         \
            fprintf(stderr, "%s: %s\n", #call, lg_last_error());                                   \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

int main(void) {
    enum { C = 3, HW = 4 };
    int64_t dims[4] = {1, C, 2, 2};
    lg_md src_md, dst_md;
    CHECK(lg_md_init_tag(&src_md, 4, dims, LG_F32, "nchw"));
    CHECK(lg_md_init_tag(&dst_md, 4, dims, LG_U8, "nhwc"));

    lg_attr *attr;
    CHECK(lg_attr_create(&attr));
    CHECK(lg_attr_set_scales(attr, LG_ARG_SRC, 1 << 1)); /* one scale per channel (dim 1) */
    CHECK(lg_attr_set_zero_points(attr, LG_ARG_DST, 0)); /* one zero point for all */
    CHECK(lg_attr_append_sum(attr, 0.5f));               /* + 0.5 * what dst held */
    lg_kernel *k;
    CHECK(lg_reorder_create(&k, &src_md, &dst_md, attr));
    lg_attr_destroy(attr); /* the kernel copied it */

    float src[C * HW] = {1, 2, 3, 4, 10, 20, 30, 40, -1, -2, -3, -4};
    float scales[C] = {2.0f, 0.5f, 4.0f};
    int32_t zp = 100;
    uint8_t dst[C * HW];
    for (int i = 0; i < C * HW; i++) dst[i] = 20; /* dst_old */
    lg_arg args[] = {{LG_ARG_SRC, src},
                     {LG_ARG_DST, dst},
                     {LG_ARG_ATTR_SCALES | LG_ARG_SRC, scales},
                     {LG_ARG_ATTR_ZERO_POINTS | LG_ARG_DST, &zp}};
    CHECK(lg_kernel_execute(k, 4, args));

    int bad = 0;
    for (int c = 0; c < C; c++)
        for (int p = 0; p < HW; p++) {
            /* nchw source index c*HW + p; nhwc destination index p*C + c. */
            float want = nearbyintf(scales[c] * src[c * HW + p] + 0.5f * 20 + (float)zp);
            uint8_t got = dst[p * C + c];
            printf("c%d p%d: %g * %g + 10 + %d = %u\n", c, p, (double)scales[c],
                   (double)src[c * HW + p], zp, got);
            if ((float)got != want) bad++;
        }
    lg_kernel_destroy(k);

    /* A mask naming a dim the tensor lacks is rejected at creation. */
    CHECK(lg_attr_create(&attr));
    CHECK(lg_attr_set_scales(attr, LG_ARG_SRC, 1 << 5));
    lg_status s = lg_reorder_create(&k, &src_md, &dst_md, attr);
    printf("scale mask 1<<5 on a 4D tensor: %s: %s\n", lg_status_str(s), lg_last_error());
    lg_attr_destroy(attr);
    if (s == LG_OK) {
        lg_kernel_destroy(k);
        bad++;
    }
    if (bad) {
        printf("FAILED: %d wrong\n", bad);
        return 1;
    }
    printf("OK\n");
    return 0;
}
