/*
 * reorder_quantize: quantise an f32 activation to s8 and back with two
 * reorders, the way an int8 inference pipeline does it.
 *
 *   f32 nchw  --reorder, dst scales per channel, dst zero point-->  s8 nChw16c
 *   s8 nChw16c --reorder, src scales per channel, src zero point-->  f32 nchw
 *
 * A reorder computes dst = (scale_src / scale_dst) * (src - zp_src) + zp_dst,
 * then rounds to nearest even and saturates to the destination type. So:
 *   quantise:   q = saturate(round(x / s[c]) + z)   (dst scale s[c], dst zero point z)
 *   dequantise: y = s[c] * (q - z)                  (src scale s[c], src zero point z)
 * Each channel c gets its own step s[c]; one zero point z serves all. With
 * values inside the representable range, |x - y| is at most half a step,
 * s[c] / 2: the program checks that for every element and exits non-zero
 * otherwise. The tensor has 20 channels, so nChw16c pads them to 32: the
 * padding is zero in the s8 buffer, which the program also checks.
 */
#include <lgraph.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 2
#define C 20
#define H 5
#define W 5

/* Stop with lgraph's message if a call fails. */
#define CHECK(call)                                                                                \
    do {                                                                                           \
        lg_status s_ = (call);                                                                     \
        if (s_ != LG_OK) {                                                                         \
            fprintf(stderr, "%s: %s: %s\n", #call, lg_status_str(s_), lg_last_error());            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* A small deterministic generator, so that every run prints the same. */
static float uniform(unsigned *state) {
    *state = *state * 1664525u + 1013904223u;
    return (float)(*state >> 8) * (1.0f / 16777216.0f); /* [0, 1) */
}

int main(void) {
    int64_t dims[4] = {N, C, H, W};
    lg_md f32_md, s8_md;
    CHECK(lg_md_init_tag(&f32_md, 4, dims, LG_F32, "nchw"));
    CHECK(lg_md_init_tag(&s8_md, 4, dims, LG_S8, "nChw16c"));

    /* Channel c holds values in [-a, 3a) with a = 0.5 + c / 4: an
     * asymmetric range that differs per channel. */
    float *x = malloc(lg_md_size(&f32_md)), *y = malloc(lg_md_size(&f32_md));
    int8_t *q = malloc(lg_md_size(&s8_md));
    if (!x || !y || !q) return 1;
    unsigned state = 12345;
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t i = 0; i < H * W; i++) {
                float a = 0.5f + 0.25f * (float)c;
                x[(n * C + c) * H * W + i] = a * (4.0f * uniform(&state) - 1.0f);
            }

    /* The step of channel c spreads its 4a-wide range over 254 steps; the
     * zero point -64 then maps [-a, 3a) into [-127.5, 126.5], inside s8. */
    float scale[C];
    int32_t zp = -64;
    for (int c = 0; c < C; c++) scale[c] = 4.0f * (0.5f + 0.25f * (float)c) / 254.0f;

    /* Quantise: dst scales vary along dim 1 (mask 1 << 1); a common dst zero point (mask 0). */
    lg_attr *qa, *da;
    CHECK(lg_attr_create(&qa));
    CHECK(lg_attr_set_scales(qa, LG_ARG_DST, 1 << 1));
    CHECK(lg_attr_set_zero_points(qa, LG_ARG_DST, 0));
    lg_kernel *quant, *dequant;
    CHECK(lg_reorder_create(&quant, &f32_md, &s8_md, qa));
    lg_attr_destroy(qa); /* the kernel keeps its own copy */

    /* Dequantise: the same values as src scales and src zero point. */
    CHECK(lg_attr_create(&da));
    CHECK(lg_attr_set_scales(da, LG_ARG_SRC, 1 << 1));
    CHECK(lg_attr_set_zero_points(da, LG_ARG_SRC, 0));
    CHECK(lg_reorder_create(&dequant, &s8_md, &f32_md, da));
    lg_attr_destroy(da);

    lg_arg qargs[4] = {{LG_ARG_SRC, x},
                       {LG_ARG_DST, q},
                       {LG_ARG_ATTR_SCALES | LG_ARG_DST, scale},
                       {LG_ARG_ATTR_ZERO_POINTS | LG_ARG_DST, &zp}};
    CHECK(lg_kernel_execute(quant, 4, qargs));
    lg_arg dargs[4] = {{LG_ARG_SRC, q},
                       {LG_ARG_DST, y},
                       {LG_ARG_ATTR_SCALES | LG_ARG_SRC, scale},
                       {LG_ARG_ATTR_ZERO_POINTS | LG_ARG_SRC, &zp}};
    CHECK(lg_kernel_execute(dequant, 4, dargs));

    printf("quantise   %s -> %s (%s)\n", "f32 nchw", "s8 nChw16c", lg_kernel_impl(quant));
    printf("dequantise %s -> %s (%s)\n", "s8 nChw16c", "f32 nchw", lg_kernel_impl(dequant));
    printf("f32 buffer %zu bytes, s8 buffer %zu bytes (%d channels padded to %lld)\n",
           lg_md_size(&f32_md), lg_md_size(&s8_md), C, (long long)s8_md.padded_dims[1]);

    /* Round-trip error per channel, in units of the channel's step. */
    int bad = 0;
    double worst = 0;
    printf("channel   step       max |x - y|   in steps\n");
    for (int64_t c = 0; c < C; c++) {
        double err = 0;
        for (int64_t n = 0; n < N; n++)
            for (int64_t i = 0; i < H * W; i++) {
                int64_t k = (n * C + c) * H * W + i;
                double e = fabs((double)x[k] - (double)y[k]);
                if (e > err) err = e;
            }
        double steps = err / scale[c];
        if (steps > worst) worst = steps;
        /* Half a step, plus the f32 rounding of the two scalings (each a
         * few units in the last place of values up to 255 steps: below
         * 1e-4 of a step). */
        if (err > (0.5 + 1e-4) * scale[c]) bad++;
        if (c < 4 || c == C - 1)
            printf("%5lld   %.6f   %.6f      %.4f\n", (long long)c, scale[c], err, steps);
        else if (c == 4)
            printf("  ...\n");
    }

    /* The padded channels C..31 of every s8 block are zero. */
    int64_t pad_nonzero = 0;
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = C; c < s8_md.padded_dims[1]; c++)
            for (int64_t h = 0; h < H; h++)
                for (int64_t w = 0; w < W; w++) {
                    int64_t off =
                        n * s8_md.blocking.strides[0] + (c / 16) * s8_md.blocking.strides[1] +
                        h * s8_md.blocking.strides[2] + w * s8_md.blocking.strides[3] + c % 16;
                    pad_nonzero += q[off] != 0;
                }

    printf("worst round-trip error: %.4f steps (bound 0.5); padded channels non-zero: %lld\n",
           worst, (long long)pad_nonzero);
    lg_kernel_destroy(quant);
    lg_kernel_destroy(dequant);
    free(x);
    free(y);
    free(q);
    if (bad || pad_nonzero) {
        printf("FAILED: %d channel(s) beyond half a step, %lld padding element(s) non-zero\n", bad,
               (long long)pad_nonzero);
        return 1;
    }
    printf("OK: every element within half a quantisation step of its channel\n");
    return 0;
}
