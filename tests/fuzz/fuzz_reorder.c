/* Fuzz target: lg_reorder_create + lg_kernel_execute on small random
 * problems (any two layouts, any of the 36 type pairs, scales and zero
 * points on any dims, a sum), every ISA level, against the reference
 * (src/primitives/reorder/ref.c) bit for bit; the data are the input's raw
 * bytes. Some inputs corrupt one argument, which must then be refused. */
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz f = {data, size, 0};
    fz_begin(&f);
    rel_problem p;
    rel_problem_init(&p, REL_REORDER);
    int nd;
    int64_t dims[LG_MAX_NDIMS];
    fz_dims(&f, 5, &nd, dims);
    if (!fz_md(&f, nd, dims, fz_dtype(&f, 0x3f), &p.md[0])) goto out;
    lg_dtype ddt = fz_dtype(&f, 0x3f);
    uint8_t attrs = fz_u8(&f);
    if (attrs & 0x80) {
        lg_md_init_tag(&p.md[1], nd, dims, ddt, "any");
    } else if (!fz_md(&f, nd, dims, ddt, &p.md[1])) {
        goto out;
    }
    int all = (1 << nd) - 1;
    if (attrs & 1) p.scale_mask[0] = fz_u8(&f) & all;
    if (attrs & 2) p.scale_mask[1] = fz_u8(&f) & all;
    if (attrs & 4) p.zp_mask[0] = fz_u8(&f) & all;
    if (attrs & 8) p.zp_mask[1] = fz_u8(&f) & all;
    if (attrs & 16) {
        p.sum = true;
        p.sum_beta = (float)((int)fz_u8(&f) - 128) / 32.0f;
    }
    fz_expect expect = FZ_MUST_CREATE;
    if ((attrs & 0x60) == 0x60) { /* corrupt one argument */
        expect = FZ_MUST_REFUSE;
        switch (fz_u8(&f) % 3) {
        case 0: /* a mask naming a dim the tensor lacks */
            p.scale_mask[0] = 1 << nd;
            break;
        case 1: /* different dims */
            if (lg_md_is_any(&p.md[1])) goto out;
            p.md[1].dims[fz_u8(&f) % nd] += 1;
            break;
        default: /* src "any" */
            lg_md_init_tag(&p.md[0], nd, dims, p.md[0].dtype, "any");
            break;
        }
    }
    fz_run("reorder", &p, expect, &f);
out:
    fz_end();
    return 0;
}
