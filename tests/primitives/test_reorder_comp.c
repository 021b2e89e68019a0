/* Reorder compensation (lg_attr_set_compensation, oneDNN's s8s8 and
 * zero-point compensation of int8 weights): over seeded random weight
 * shapes in every layout family (plain oihw / goihw, channels-last ohwi,
 * blocked with padded tails), f32 / bf16 / s8 sources, with and without
 * src scales, at every ISA level the CPU has. The truth: dst equal to the
 * scalar reference reorder, bit for bit, and each compensation value
 * recomputed here from the reference's dst in 64 bits, -128 (s8s8) or -1
 * (zero point) times the sum over the dims outside the mask, taken modulo
 * 2^32. Then the error cases and their messages. */
#include "memory/convert.h"
#include "memory/md.h"
#include "primitives/cpu.h"
#include "primitives/reorder/reorder.h"
#include "test_util.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* Layout families for 4D (o, i, h, w) and 5D (g, o, i, h, w) weights. */
static const char *const tags4[] = {"abcd", "acdb", "ABcd16b16a", "Acdb16a", "ABcd4b16a4b"};
static const char *const tags5[] = {"abcde", "aBCde8c8b", "abdec"};

/* Compensation expected from the reference's dst: int64 sums, wrapped. */
static int32_t want_comp(const lg_md *d, const int8_t *dst, int32_t mask, int64_t k, int kind) {
    int64_t sum = 0;
    int64_t idx[LG_MAX_NDIMS] = {0}, n = lg__md_nelems(d);
    for (int64_t e = 0; e < n; e++) {
        int64_t r = e;
        for (int q = d->ndims - 1; q >= 0; q--) {
            idx[q] = r % d->dims[q];
            r /= d->dims[q];
        }
        if (lg__mask_index(d, mask, idx) == k) sum += dst[lg__md_off(d, idx)];
    }
    int64_t v = (kind == LG_COMP_S8S8 ? -128 : -1) * sum;
    return (int32_t)(uint32_t)(uint64_t)v;
}

static void one_case(lg_rng *r, int nd, const char *stag, const char *dtag, lg_dtype sdt) {
    int64_t dims[5];
    if (nd == 4) {
        int64_t d[4] = {lg_rng_int(r, 1, 40), lg_rng_int(r, 1, 40), lg_rng_int(r, 1, 3),
                        lg_rng_int(r, 1, 3)};
        memcpy(dims, d, sizeof d);
    } else {
        int64_t d[5] = {lg_rng_int(r, 1, 3), lg_rng_int(r, 1, 20), lg_rng_int(r, 1, 20),
                        lg_rng_int(r, 1, 3), lg_rng_int(r, 1, 3)};
        memcpy(dims, d, sizeof d);
    }
    lg_md s, d;
    cr_assert_eq(lg_md_init_tag(&s, nd, dims, sdt, stag), LG_OK, "%s", stag);
    cr_assert_eq(lg_md_init_tag(&d, nd, dims, LG_S8, dtag), LG_OK, "%s", dtag);
    /* masks: per output channel (and group), or a random subset */
    int32_t mask_s8 = nd == 4 ? 1 : 3, mask_zp = (int32_t)lg_rng_int(r, 0, (1 << nd) - 1);
    int kinds = (int)lg_rng_int(r, 1, 3); /* bit 0: s8s8, bit 1: zero point */
    bool scales = lg_rng_int(r, 0, 1);
    lg_attr *attr;
    cr_assert_eq(lg_attr_create(&attr), LG_OK);
    if (kinds & 1) cr_assert_eq(lg_attr_set_compensation(attr, LG_COMP_S8S8, mask_s8), LG_OK);
    if (kinds & 2) cr_assert_eq(lg_attr_set_compensation(attr, LG_COMP_ZERO_POINT, mask_zp), LG_OK);
    if (scales) cr_assert_eq(lg_attr_set_scales(attr, LG_ARG_SRC, 1), LG_OK);
    size_t ssz = lg_md_size(&s), dsz = lg_md_size(&d);
    char *src = calloc(ssz, 1), *dst = malloc(dsz), *want = calloc(dsz, 1);
    float sc[64];
    for (int i = 0; i < 64; i++) sc[i] = lg_rng_float(r, 0.25f, 3.0f);
    int64_t n = lg__md_nelems(&s), idx[5];
    for (int64_t e = 0; e < n; e++) {
        int64_t rem = e;
        for (int q = nd - 1; q >= 0; q--) {
            idx[q] = rem % dims[q];
            rem /= dims[q];
        }
        float v = sdt == LG_S8 ? (float)lg_rng_int(r, -128, 127) : lg_rng_float(r, -90, 90);
        lg__store_f32(src, sdt, lg__md_off(&s, idx), v);
    }
    lg__reorder_pd pd;
    memset(&pd, 0, sizeof pd);
    pd.src = s;
    pd.dst = d;
    pd.src_scale_mask = scales ? 1 : -1;
    pd.dst_scale_mask = pd.src_zp_mask = pd.dst_zp_mask = -1;
    pd.comp_mask[0] = pd.comp_mask[1] = -1;
    lg__reorder_args ra = {src, want, scales ? sc : NULL, NULL, NULL, NULL, {NULL, NULL}, 0};
    lg__reorder_ref(&pd, &ra);
    int64_t nc[2] = {1, 1};
    const int32_t masks[2] = {mask_s8, mask_zp};
    for (int k = 0; k < 2; k++)
        for (int q = 0; q < nd; q++)
            if (masks[k] & (1 << q)) nc[k] *= dims[q];
    int32_t *comp[2] = {malloc((size_t)nc[0] * 4), malloc((size_t)nc[1] * 4)};
    for (int isa = LG_ISA_SCALAR; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        lg_kernel *k;
        cr_assert_eq(lg_reorder_create(&k, &s, &d, attr), LG_OK, "%s", lg_last_error());
        memset(dst, 0x5a, dsz);
        for (int q = 0; q < 2; q++) memset(comp[q], 0x5a, (size_t)nc[q] * 4);
        lg_arg args[5] = {{LG_ARG_SRC, src}, {LG_ARG_DST, dst}};
        int na = 2;
        if (scales) args[na++] = (lg_arg){LG_ARG_ATTR_SCALES | LG_ARG_SRC, sc};
        if (kinds & 1) args[na++] = (lg_arg){LG_ARG_ATTR_COMP_S8S8 | LG_ARG_DST, comp[0]};
        if (kinds & 2) args[na++] = (lg_arg){LG_ARG_ATTR_COMP_ZERO_POINT | LG_ARG_DST, comp[1]};
        cr_assert_eq(lg_kernel_execute(k, na, args), LG_OK, "%s", lg_last_error());
        cr_assert(memcmp(dst, want, dsz) == 0, "%s %s -> %s: dst differs from the reference",
                  lg__isa_name((lg__isa)isa), stag, dtag);
        for (int q = 0; q < 2; q++) {
            if (!(kinds & (1 << q))) continue;
            for (int64_t c = 0; c < nc[q]; c++) {
                int32_t w = want_comp(&d, (const int8_t *)want, masks[q], c, q);
                cr_assert_eq(comp[q][c], w,
                             "%s %s -> %s kind %d mask %d: comp[%lld] = %d, want %d (%s)",
                             lg__isa_name((lg__isa)isa), stag, dtag, q, masks[q], (long long)c,
                             comp[q][c], w, lg_kernel_impl(k));
            }
        }
        lg_kernel_destroy(k);
    }
    lg__cpu_set_isa_cap(LG_ISA_AVX512);
    lg_attr_destroy(attr);
    free(src);
    free(dst);
    free(want);
    free(comp[0]);
    free(comp[1]);
}

Test(reorder_comp, random_weights_every_layout_every_isa) {
    lg_rng r = {17};
    static const lg_dtype sdts[3] = {LG_F32, LG_BF16, LG_S8};
    for (int rep = 0; rep < 3; rep++)
        for (size_t a = 0; a < sizeof tags4 / sizeof *tags4; a++)
            for (size_t b = 0; b < sizeof tags4 / sizeof *tags4; b++)
                one_case(&r, 4, tags4[a], tags4[b], sdts[lg_rng_int(&r, 0, 2)]);
    for (int rep = 0; rep < 3; rep++)
        for (size_t a = 0; a < sizeof tags5 / sizeof *tags5; a++)
            for (size_t b = 0; b < sizeof tags5 / sizeof *tags5; b++)
                one_case(&r, 5, tags5[a], tags5[b], sdts[lg_rng_int(&r, 0, 2)]);
}

/* Hand-computed: 2 x 3 weights, all 127 then all -128: s8s8 per row
 * -128 * 3 * 127 = -48768 and -128 * 3 * -128 = 49152; zero point 381... */
Test(reorder_comp, hand_computed) {
    int64_t dims[2] = {2, 3};
    lg_md s, d;
    cr_assert_eq(lg_md_init_tag(&s, 2, dims, LG_F32, "ab"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&d, 2, dims, LG_S8, "ba"), LG_OK);
    float src[6] = {500, 127, 126.6f, -1000, -128, -127.6f};
    int8_t dst[6];
    int32_t c8[2], cz[1];
    lg_attr *attr;
    cr_assert_eq(lg_attr_create(&attr), LG_OK);
    cr_assert_eq(lg_attr_set_compensation(attr, LG_COMP_S8S8, 1), LG_OK);
    cr_assert_eq(lg_attr_set_compensation(attr, LG_COMP_ZERO_POINT, 0), LG_OK);
    lg_kernel *k;
    cr_assert_eq(lg_reorder_create(&k, &s, &d, attr), LG_OK, "%s", lg_last_error());
    lg_arg a[4] = {{LG_ARG_SRC, src},
                   {LG_ARG_DST, dst},
                   {LG_ARG_ATTR_COMP_S8S8 | LG_ARG_DST, c8},
                   {LG_ARG_ATTR_COMP_ZERO_POINT | LG_ARG_DST, cz}};
    cr_assert_eq(lg_kernel_execute(k, 4, a), LG_OK, "%s", lg_last_error());
    cr_assert_eq(c8[0], -128 * 381);
    cr_assert_eq(c8[1], -128 * -384);
    cr_assert_eq(cz[0], 3);
    /* without a compensation buffer: refused, naming the argument */
    cr_assert_neq(lg_kernel_execute(k, 3, a), LG_OK);
    cr_assert(strstr(lg_last_error(), "lg_kernel_execute") != NULL, "%s", lg_last_error());
    lg_kernel_destroy(k);
    lg_attr_destroy(attr);
}

Test(reorder_comp, errors) {
    int64_t dims[4] = {16, 8, 3, 3};
    lg_md s, d8, df;
    cr_assert_eq(lg_md_init_tag(&s, 4, dims, LG_F32, "abcd"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&d8, 4, dims, LG_S8, "ABcd16b16a"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&df, 4, dims, LG_F32, "ABcd16b16a"), LG_OK);
    lg_attr *attr;
    cr_assert_eq(lg_attr_create(&attr), LG_OK);
    cr_assert_eq(lg_attr_set_compensation(NULL, LG_COMP_S8S8, 1), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "lg_attr_set_compensation") != NULL, "%s", lg_last_error());
    cr_assert_eq(lg_attr_set_compensation(attr, (lg_comp_kind)7, 1), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "kind") != NULL, "%s", lg_last_error());
    cr_assert_eq(lg_attr_set_compensation(attr, LG_COMP_S8S8, -2), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "mask") != NULL, "%s", lg_last_error());
    lg_kernel *k = NULL;
    /* a dst that is not s8 */
    cr_assert_eq(lg_attr_set_compensation(attr, LG_COMP_S8S8, 1), LG_OK);
    cr_assert_eq(lg_reorder_create(&k, &s, &df, attr), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "lg_reorder_create") != NULL &&
                  strstr(lg_last_error(), "s8") != NULL,
              "%s", lg_last_error());
    /* a mask naming a dim dst lacks */
    cr_assert_eq(lg_attr_set_compensation(attr, LG_COMP_ZERO_POINT, 16), LG_OK);
    cr_assert_eq(lg_reorder_create(&k, &s, &d8, attr), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "zero-point compensation mask") != NULL, "%s",
              lg_last_error());
    /* mask -1 removes the request */
    cr_assert_eq(lg_attr_set_compensation(attr, LG_COMP_ZERO_POINT, -1), LG_OK);
    cr_assert_eq(lg_reorder_create(&k, &s, &d8, attr), LG_OK, "%s", lg_last_error());
    lg_kernel_destroy(k);
    /* a graph reorder node refuses it */
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_value x, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &s, &x), LG_OK);
    cr_assert_eq(lg_graph_add_reorder_attr(g, x, &d8, attr, NULL, &y), LG_UNIMPLEMENTED);
    cr_assert(strstr(lg_last_error(), "compensation") != NULL, "%s", lg_last_error());
    lg_graph_destroy(g);
    lg_attr_destroy(attr);
}
