/* Fuzz target: lg_eltwise_create + lg_kernel_execute on small random
 * problems (all 16 algorithms, any layout and type, dst NULL / "any" /
 * equal, in place or not, alpha and beta from a set of meaningful values
 * or the input's bits), every ISA level, against the reference
 * (src/primitives/eltwise/ref.c): bit for bit, or within the stated ulp
 * bound for the algorithms with a transcendental call. Integer types take
 * relu, linear, clip and abs only: LG_UNIMPLEMENTED is accepted for the
 * others. Some inputs give an unknown algorithm or a dst of another
 * layout, which must be refused. */
#include "fuzz/fuzz.h"

#include <string.h>

static float param(fz *f) {
    static const float values[] = {0.0f,  1.0f, -1.0f, 0.5f,   0.2f, 1.0f / 6, 2.5f,
                                   -1.5f, 6.0f, 1e-3f, -0.75f, 4.0f, 1.25f,    0.1f};
    uint8_t b = fz_u8(f);
    if (b < 224) return values[b % (sizeof values / sizeof values[0])];
    return (float)((int)fz_u8(f) - 128) / 16.0f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz f = {data, size, 0};
    fz_begin(&f);
    rel_problem p;
    rel_problem_init(&p, REL_ELTWISE);
    int nd;
    int64_t dims[LG_MAX_NDIMS];
    fz_dims(&f, 5, &nd, dims);
    lg_dtype dt = fz_dtype(&f, 0x3f);
    if (!fz_md(&f, nd, dims, dt, &p.md[0])) goto out;
    p.alg = fz_u8(&f) % (LG_ELTWISE_SOFT_RELU + 1);
    p.alpha = param(&f);
    p.beta = param(&f);
    uint8_t c = fz_u8(&f);
    switch (c % 3) {
    case 0:
        p.null_dst = true;
        break;
    case 1:
        lg_md_init_tag(&p.md[1], nd, dims, dt, "any");
        break;
    default:
        p.md[1] = p.md[0];
        break;
    }
    p.inplace = c & 4;
    bool ints = dt == LG_S32 || dt == LG_S8 || dt == LG_U8;
    bool int_alg = p.alg == LG_ELTWISE_RELU || p.alg == LG_ELTWISE_LINEAR ||
                   p.alg == LG_ELTWISE_CLIP || p.alg == LG_ELTWISE_ABS ||
                   p.alg == LG_ELTWISE_CLIP_V2 || p.alg == LG_ELTWISE_ROUND;
    fz_expect expect = ints && !int_alg ? FZ_MAY_REFUSE : FZ_MUST_CREATE;
    if (p.alg == LG_ELTWISE_SOFT_RELU && p.alpha == 0) expect = FZ_MAY_REFUSE; /* divides by it */
    if ((c & 0x70) == 0x70) {
        expect = FZ_MUST_REFUSE;
        if (fz_u8(&f) & 1) {
            p.alg = LG_ELTWISE_SOFT_RELU + 1 + fz_u8(&f); /* not an algorithm */
        } else {                                          /* dst in another layout or type */
            lg_md other;
            if (!fz_md(&f, nd, dims, fz_dtype(&f, 0x3f), &other) || lg_md_equal(&other, &p.md[0]))
                goto out;
            p.md[1] = other;
            p.null_dst = false;
        }
    }
    fz_run("eltwise", &p, expect, &f);
out:
    fz_end();
    return 0;
}
