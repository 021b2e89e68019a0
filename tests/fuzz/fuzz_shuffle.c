/* Fuzz target: lg_shuffle_create + lg_kernel_execute on small random
 * problems (any layout, type, axis, group size dividing the axis, forward
 * and backward), every ISA level, against the reference
 * (src/primitives/shuffle/ref.c) bit for bit. Some inputs give an axis out
 * of range or a group that does not divide, which must be refused. */
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz f = {data, size, 0};
    fz_begin(&f);
    rel_problem p;
    rel_problem_init(&p, REL_SHUFFLE);
    int nd;
    int64_t dims[LG_MAX_NDIMS];
    fz_dims(&f, 5, &nd, dims);
    if (!fz_md(&f, nd, dims, fz_dtype(&f, 0x3f), &p.md[0])) goto out;
    uint8_t c = fz_u8(&f);
    p.prop = c & 1 ? LG_BACKWARD : LG_FORWARD;
    p.axis = fz_u8(&f) % nd;
    int64_t C = dims[p.axis];
    /* The k-th divisor of C (C = 0: any positive group divides it). */
    int64_t divs[64], ndiv = 0;
    for (int64_t g = 1; g <= (C ? C : 8) && ndiv < 64; g++)
        if (C % g == 0) divs[ndiv++] = g;
    p.group = divs[fz_u8(&f) % ndiv];
    fz_expect expect = FZ_MUST_CREATE;
    if ((c & 0x70) == 0x70) {
        expect = FZ_MUST_REFUSE;
        switch (fz_u8(&f) % 3) {
        case 0:
            p.axis = (fz_u8(&f) & 1) ? nd : -1;
            break;
        case 1:
            p.group = -(int64_t)fz_u8(&f);
            break;
        default: /* a group that does not divide C */
            if (C < 2) goto out;
            p.group = C + 1;
            break;
        }
    }
    fz_run("shuffle", &p, expect, &f);
out:
    fz_end();
    return 0;
}
