/* lg_concat_create against oneDNN's concat, bit for bit on the logical
 * elements (a copy: no tolerance): nchw, nhwc, nChw8c and nChw16c sources
 * and dst, mixed among themselves, channel counts that are not multiples
 * of the block (ShuffleNetV2's 58 + 58, DenseNet's 64 + 32 + 32), concat
 * along channels, batch and width, f32 and s8 (and bf16 where oneDNN takes
 * it on this CPU; a refusal is skipped). Which oneDNN implementation runs
 * does not matter: only its output is read. */
#include "test_util.h"
#include "test_dnnl_util.h"

#include <criterion/criterion.h>
#include <lgraph.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *lg;
    dnnl_format_tag_t dn;
} tags[] = {
    {"nchw", dnnl_nchw}, {"nhwc", dnnl_nhwc}, {"nChw8c", dnnl_nChw8c}, {"nChw16c", dnnl_nChw16c}};

static dnnl_data_type_t dn_type(lg_dtype dt) {
    return dt == LG_F32 ? dnnl_f32 : dt == LG_BF16 ? dnnl_bf16 : dnnl_s8;
}

/* n sources of channels ch[i] (along axis: that dim), tags st[i], dst tag dtg. */
static void one(lg_rng *r, lg_dtype dt, int axis, int n, const int64_t *ext, const int *st,
                int dtg) {
    int64_t base[4] = {2, 6, 5, 7}, dd[4];
    memcpy(dd, base, sizeof dd);
    dd[axis] = 0;
    lg_md sm[4], dm;
    dnnl_memory_desc_t dsm[4], ddm;
    void *sb[4];
    dnnl_memory_t smem[4], dmem;
    size_t es = lg_dtype_size(dt);
    for (int i = 0; i < n; i++) {
        int64_t d[4];
        memcpy(d, base, sizeof d);
        d[axis] = ext[i];
        dd[axis] += ext[i];
        cr_assert_eq(lg_md_init_tag(&sm[i], 4, d, dt, tags[st[i]].lg), LG_OK);
        dnnl_dims_t dnd = {d[0], d[1], d[2], d[3]};
        cr_assert_eq(dnnl_memory_desc_init_by_tag(&dsm[i], 4, dnd, dn_type(dt), tags[st[i]].dn),
                     dnnl_success);
        size_t sz = lg_md_size(&sm[i]);
        cr_assert_eq(sz, dnnl_memory_desc_get_size(&dsm[i]));
        sb[i] = calloc(1, sz);
        int64_t idx[4];
        for (idx[0] = 0; idx[0] < d[0]; idx[0]++)
            for (idx[1] = 0; idx[1] < d[1]; idx[1]++)
                for (idx[2] = 0; idx[2] < d[2]; idx[2]++)
                    for (idx[3] = 0; idx[3] < d[3]; idx[3]++) {
                        unsigned char *p = (unsigned char *)sb[i] + lg_md_offset(&sm[i], idx) * es;
                        for (size_t b = 0; b < es; b++) /* normal finite values: oneDNN may convert
                                                           (and flush denormals) */
                            p[b] =
                                (unsigned char)(b + 1 == es && es > 1 ? 0x10 + lg_rng_next(r) % 0x30
                                                                      : lg_rng_next(r) & 0x7f);
                    }
        cr_assert_eq(dnnl_memory_create(&smem[i], &dsm[i], eng, sb[i]), dnnl_success);
    }
    cr_assert_eq(lg_md_init_tag(&dm, 4, dd, dt, tags[dtg].lg), LG_OK);
    dnnl_dims_t ddd = {dd[0], dd[1], dd[2], dd[3]};
    cr_assert_eq(dnnl_memory_desc_init_by_tag(&ddm, 4, ddd, dn_type(dt), tags[dtg].dn),
                 dnnl_success);
    dnnl_primitive_desc_t pd;
    if (dnnl_concat_primitive_desc_create(&pd, &ddm, n, axis, dsm, NULL, eng) != dnnl_success) {
        cr_assert(dt == LG_BF16, "oneDNN refused an %s concat", lg_dtype_str(dt));
        goto out;
    }
    size_t dsz = lg_md_size(&dm);
    void *want = calloc(1, dsz), *got = malloc(dsz);
    memset(got, 0x5a, dsz);
    cr_assert_eq(dnnl_memory_create(&dmem, &ddm, eng, want), dnnl_success);
    dnnl_primitive_t prim;
    cr_assert_eq(dnnl_primitive_create(&prim, pd), dnnl_success);
    dnnl_exec_arg_t da[5];
    lg_arg la[5];
    for (int i = 0; i < n; i++) {
        da[i] = (dnnl_exec_arg_t){DNNL_ARG_MULTIPLE_SRC + i, smem[i]};
        la[i] = (lg_arg){LG_ARG_MULTIPLE_SRC + i, sb[i]};
    }
    da[n] = (dnnl_exec_arg_t){DNNL_ARG_DST, dmem};
    la[n] = (lg_arg){LG_ARG_DST, got};
    cr_assert_eq(dnnl_primitive_execute(prim, strm, n + 1, da), dnnl_success);
    dnnl_stream_wait(strm);
    lg_kernel *k;
    cr_assert_eq(lg_concat_create(&k, axis, n, sm, &dm), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_kernel_execute(k, n + 1, la), LG_OK, "%s", lg_last_error());
    int64_t idx[4];
    for (idx[0] = 0; idx[0] < dd[0]; idx[0]++)
        for (idx[1] = 0; idx[1] < dd[1]; idx[1]++)
            for (idx[2] = 0; idx[2] < dd[2]; idx[2]++)
                for (idx[3] = 0; idx[3] < dd[3]; idx[3]++) {
                    int64_t o = lg_md_offset(&dm, idx) * (int64_t)es;
                    cr_assert(
                        memcmp((char *)got + o, (char *)want + o, es) == 0,
                        "%s axis %d dst %s (%s): element %lld %lld %lld %lld: %#x, oneDNN %#x",
                        lg_dtype_str(dt), axis, tags[dtg].lg, lg_kernel_impl(k), (long long)idx[0],
                        (long long)idx[1], (long long)idx[2], (long long)idx[3],
                        *(unsigned *)((char *)got + o) & (es == 4 ? ~0u : (1u << (8 * es)) - 1),
                        *(unsigned *)((char *)want + o) & (es == 4 ? ~0u : (1u << (8 * es)) - 1));
                }
    lg_kernel_destroy(k);
    dnnl_primitive_destroy(prim);
    dnnl_memory_destroy(dmem);
    free(want);
    free(got);
    dnnl_primitive_desc_destroy(pd);
out:
    for (int i = 0; i < n; i++) {
        dnnl_memory_destroy(smem[i]);
        free(sb[i]);
    }
}

Test(concat_dnnl, layouts_types_axes, .init = dnnl_setup, .fini = dnnl_teardown) {
    lg_rng r = {26};
    const lg_dtype types[] = {LG_F32, LG_S8, LG_BF16};
    for (int t = 0; t < 3; t++) {
        for (int dtg = 0; dtg < 4; dtg++) {
            one(&r, types[t], 1, 2, (int64_t[]){58, 58}, (int[]){dtg, dtg}, dtg);
            one(&r, types[t], 1, 3, (int64_t[]){64, 32, 32}, (int[]){dtg, dtg, dtg}, dtg);
            one(&r, types[t], 1, 2, (int64_t[]){13, 21}, (int[]){0, 3}, dtg);
            one(&r, types[t], 0, 2, (int64_t[]){1, 3}, (int[]){2, 1}, dtg);
            one(&r, types[t], 3, 3, (int64_t[]){2, 5, 1}, (int[]){dtg, 0, 3}, dtg);
        }
    }
}
