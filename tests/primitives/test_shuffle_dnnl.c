/* lg_shuffle_create against oneDNN's shuffle, bit for bit: nchw, nhwc and
 * nChw16c (channel tails included), f32, bf16 and s8, several groups and
 * axes, forward and backward. oneDNN's group_size is lgraph's G. lgraph's
 * dst starts as garbage and oneDNN's as zeros, so lgraph must also zero the
 * padding of blocked layouts. oneDNN 2.6 has bf16 shuffles only on CPUs
 * with AVX-512 (its reference shuffle asks the platform for bf16 support);
 * elsewhere it refuses them and those cases are counted as skipped, while
 * every f32 and s8 case must run on every machine. test_shuffle.c checks
 * lgraph's bf16 shuffles against lgraph's reference on every CPU. */
#include "test_util.h"

#include <criterion/criterion.h>
#include <lgraph.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdlib.h>
#include <string.h>

static dnnl_engine_t eng;
static dnnl_stream_t strm;
static int skipped_bf16; /* cases oneDNN refused because this CPU lacks bf16 */

static void setup(void) {
    cr_assert_eq(dnnl_engine_create(&eng, dnnl_cpu, 0), dnnl_success);
    cr_assert_eq(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags), dnnl_success);
}

static void teardown(void) {
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
}

/* One problem through both libraries; backward runs oneDNN's backward shuffle. */
static void compare(const int64_t *dims, const char *tag, dnnl_format_tag_t dtag, lg_dtype dt,
                    dnnl_data_type_t ddt, int axis, int64_t g, lg_prop prop, lg_rng *r) {
    lg_md md;
    cr_assert_eq(lg_md_init_tag(&md, 4, dims, dt, tag), LG_OK, "%s", lg_last_error());
    size_t n = lg_md_size(&md), esz = lg_dtype_size(dt);
    uint8_t *src = calloc(n, 1), *got = malloc(n), *want = calloc(n, 1);
    cr_assert(src && got && want);
    /* Random values in the logical elements; padding stays zero. */
    int64_t idx[4];
    for (idx[0] = 0; idx[0] < dims[0]; idx[0]++)
        for (idx[1] = 0; idx[1] < dims[1]; idx[1]++)
            for (idx[2] = 0; idx[2] < dims[2]; idx[2]++)
                for (idx[3] = 0; idx[3] < dims[3]; idx[3]++) {
                    uint32_t v = (uint32_t)lg_rng_next(r);
                    if (dt == LG_F32) v &= 0xbfffffffu; /* finite values */
                    memcpy(src + lg_md_offset(&md, idx) * (int64_t)esz, &v, esz);
                }
    memset(got, 0xA5, n);

    lg_kernel *k;
    cr_assert_eq(lg_shuffle_create(&k, prop, &md, axis, g), LG_OK, "%s", lg_last_error());
    bool fwd = prop == LG_FORWARD;
    lg_arg args[2] = {{fwd ? LG_ARG_SRC : LG_ARG_DIFF_DST, src},
                      {fwd ? LG_ARG_DST : LG_ARG_DIFF_SRC, got}};
    cr_assert_eq(lg_kernel_execute(k, 2, args), LG_OK, "%s", lg_last_error());

    dnnl_memory_desc_t dmd;
    dnnl_dims_t dd = {dims[0], dims[1], dims[2], dims[3]};
    cr_assert_eq(dnnl_memory_desc_init_by_tag(&dmd, 4, dd, ddt, dtag), dnnl_success);
    cr_assert_eq(dnnl_memory_desc_get_size(&dmd), n, "%s: sizes differ", tag);
    dnnl_shuffle_desc_t fd, bd;
    dnnl_primitive_desc_t fpd, pd;
    cr_assert_eq(dnnl_shuffle_forward_desc_init(&fd, dnnl_forward_training, &dmd, axis, g),
                 dnnl_success);
    dnnl_status_t st = dnnl_primitive_desc_create(&fpd, &fd, NULL, eng, NULL);
    if (st == dnnl_unimplemented && dt == LG_BF16) {
        skipped_bf16++;
        lg_kernel_destroy(k);
        free(src);
        free(got);
        free(want);
        return;
    }
    cr_assert_eq(st, dnnl_success, "oneDNN refused %s %s", tag, lg_dtype_str(dt));
    if (fwd) {
        pd = fpd;
    } else {
        cr_assert_eq(dnnl_shuffle_backward_desc_init(&bd, &dmd, axis, g), dnnl_success);
        cr_assert_eq(dnnl_primitive_desc_create(&pd, &bd, NULL, eng, fpd), dnnl_success);
    }
    dnnl_memory_t ms, mdst;
    cr_assert_eq(dnnl_memory_create(&ms, &dmd, eng, src), dnnl_success);
    cr_assert_eq(dnnl_memory_create(&mdst, &dmd, eng, want), dnnl_success);
    dnnl_primitive_t prim;
    cr_assert_eq(dnnl_primitive_create(&prim, pd), dnnl_success);
    dnnl_exec_arg_t dargs[2] = {{fwd ? DNNL_ARG_SRC : DNNL_ARG_DIFF_DST, ms},
                                {fwd ? DNNL_ARG_DST : DNNL_ARG_DIFF_SRC, mdst}};
    cr_assert_eq(dnnl_primitive_execute(prim, strm, 2, dargs), dnnl_success);
    cr_assert_eq(dnnl_stream_wait(strm), dnnl_success);

    if (memcmp(got, want, n) != 0) {
        size_t i = 0;
        while (got[i] == want[i]) i++;
        cr_assert_fail("%s %s %dx%dx%dx%d axis %d g %lld %s (%s): byte %zu differs (%02x vs "
                       "oneDNN %02x)",
                       tag, lg_dtype_str(dt), (int)dims[0], (int)dims[1], (int)dims[2],
                       (int)dims[3], axis, (long long)g, fwd ? "fwd" : "bwd", lg_kernel_impl(k), i,
                       got[i], want[i]);
    }
    dnnl_primitive_destroy(prim);
    if (!fwd) dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_desc_destroy(fpd);
    dnnl_memory_destroy(ms);
    dnnl_memory_destroy(mdst);
    lg_kernel_destroy(k);
    free(src);
    free(got);
    free(want);
}

Test(shuffle_dnnl, matches_onednn_bit_for_bit, .init = setup, .fini = teardown) {
    lg_rng r = {5};
    const struct {
        const char *tag;
        dnnl_format_tag_t dtag;
    } layouts[3] = {{"nchw", dnnl_nchw}, {"nhwc", dnnl_nhwc}, {"nChw16c", dnnl_nChw16c}};
    const struct {
        lg_dtype dt;
        dnnl_data_type_t ddt;
    } types[3] = {{LG_F32, dnnl_f32}, {LG_S8, dnnl_s8}, {LG_BF16, dnnl_bf16}};
    const struct {
        int64_t dims[4];
        int64_t groups[4];
    } shapes[] = {
        {{2, 256, 7, 5}, {4, 16, 2, 64}}, {{3, 116, 6, 5}, {2, 58, 4, 29}},
        {{1, 282, 3, 4}, {3, 94, 6, 2}},  {{2, 60, 5, 7}, {20, 3, 4, 5}},
        {{2, 24, 4, 6}, {8, 3, 6, 12}},
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int l = 0; l < 3; l++)
            for (int t = 0; t < 3; t++)
                for (int gi = 0; gi < 4; gi++)
                    for (int prop = 0; prop < 2; prop++)
                        compare(shapes[s].dims, layouts[l].tag, layouts[l].dtag, types[t].dt,
                                types[t].ddt, 1, shapes[s].groups[gi], (lg_prop)prop, &r);
    /* Other axes: spatial shuffles and the batch axis. */
    int64_t dims[4] = {4, 32, 6, 8};
    for (int l = 0; l < 3; l++)
        for (int t = 0; t < 3; t++)
            for (int axis = 0; axis < 4; axis++)
                if (axis != 1)
                    compare(dims, layouts[l].tag, layouts[l].dtag, types[t].dt, types[t].ddt, axis,
                            2, LG_FORWARD, &r);
    cr_log_info("bf16 cases skipped (oneDNN has no bf16 on this CPU): %d", skipped_bf16);
}
