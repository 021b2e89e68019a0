/* Fuzz target: lg_binary_create + lg_kernel_execute on small random
 * problems (all six algorithms, src1 broadcast on any subset of dims, three
 * independent layouts, f32 / bf16 / f16 in any mix, dst "any"), every ISA
 * level, against the reference (src/primitives/binary/ref.c) bit for bit.
 * Some inputs give an integer type (LG_UNIMPLEMENTED), a dim that does not
 * broadcast or an unknown algorithm (LG_INVALID_ARGUMENT). */
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz f = {data, size, 0};
    fz_begin(&f);
    rel_problem p;
    rel_problem_init(&p, REL_BINARY);
    int nd;
    int64_t dims[LG_MAX_NDIMS], dims1[LG_MAX_NDIMS];
    fz_dims(&f, 5, &nd, dims);
    uint8_t bcast = fz_u8(&f);
    for (int d = 0; d < nd; d++) dims1[d] = bcast & (1 << d) ? 1 : dims[d];
    const unsigned floats = 0x7; /* f32, f16, bf16 */
    uint8_t c = fz_u8(&f);
    fz_expect expect = FZ_MUST_CREATE;
    unsigned types = floats;
    if ((c & 0x70) == 0x70) { /* an integer type somewhere: refused */
        types = 0x38;
        expect = FZ_MAY_REFUSE;
    }
    if (!fz_md(&f, nd, dims, fz_dtype(&f, c & 1 ? types : floats), &p.md[0]) ||
        !fz_md(&f, nd, dims1, fz_dtype(&f, c & 2 ? types : floats), &p.md[1]))
        goto out;
    lg_dtype ddt = fz_dtype(&f, c & 4 ? types : floats);
    if (c & 8) {
        lg_md_init_tag(&p.md[2], nd, dims, ddt, "any");
    } else if (!fz_md(&f, nd, dims, ddt, &p.md[2])) {
        goto out;
    }
    p.alg = fz_u8(&f) % 12;
    if (expect == FZ_MAY_REFUSE && !(c & 7)) expect = FZ_MUST_CREATE;
    if ((c & 0xf0) == 0xe0) { /* an unknown algorithm */
        p.alg = 12 + fz_u8(&f) % 8;
        expect = FZ_MUST_REFUSE;
    } else if ((c & 0xf0) == 0xd0) { /* src1 with a dim that neither matches nor is 1 */
        int d = fz_u8(&f) % nd;
        if (dims[d] < 1) goto out;
        int64_t bad[LG_MAX_NDIMS];
        for (int i = 0; i < nd; i++) bad[i] = dims1[i];
        bad[d] = dims[d] + 1;
        if (!fz_md(&f, nd, bad, LG_F32, &p.md[1])) goto out;
        expect = FZ_MUST_REFUSE;
    }
    fz_run("binary", &p, expect, &f);
out:
    fz_end();
    return 0;
}
