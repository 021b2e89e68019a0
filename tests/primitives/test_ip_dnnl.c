/* lg_inner_product_create against oneDNN's inner product on a chosen
 * problem set: 2D src (classifier heads 2048 -> 1000 and 1280 -> 1000 at
 * N = 1 and 16, odd sizes) and 4D src in nchw, nhwc, nChw8c and nChw16c
 * with 19 channels, with and without bias, and a relu post-op. oneDNN
 * states no error bound and its implementations sum in different orders,
 * so the two may differ by a relative bound on the sum of |products|:
 * (K + 8) 2^-22 (twice one summation's worst case), whichever oneDNN
 * implementation runs. Both sides get the weights in oihw / oi. */
#include "test_util.h"
#include "test_dnnl_util.h"
#include "test_layers_util.h"

#include <criterion/criterion.h>
#include <lgraph.h>
#include <math.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdlib.h>
#include <string.h>

static void run(int nd, const int64_t *sdims, int64_t oc, const char *tag, dnnl_format_tag_t stag,
                bool with_bias, bool relu, lg_rng *r) {
    lg_md src, wplain, wany, dst, bias;
    int64_t wdims[5], ddims[2] = {sdims[0], oc}, bdims[1] = {oc};
    memcpy(wdims, sdims, (size_t)nd * sizeof *wdims);
    wdims[0] = oc;
    cr_assert_eq(lg_md_init_tag(&src, nd, sdims, LG_F32, tag), LG_OK);
    cr_assert_eq(lg_md_init_tag(&wplain, nd, wdims, LG_F32, nd == 2 ? "ab" : "abcd"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&wany, nd, wdims, LG_F32, "any"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&dst, 2, ddims, LG_F32, "ab"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&bias, 1, bdims, LG_F32, "a"), LG_OK);
    float *s = calloc(1, lg_md_size(&src)), *w = malloc(lg_md_size(&wplain));
    float *b = malloc((size_t)oc * 4), *mine = malloc(lg_md_size(&dst)),
          *theirs = malloc(lg_md_size(&dst));
    int64_t idx[5] = {0};
    do {
        s[lg_md_offset(&src, idx)] = lg_rng_float(r, -1.0f, 1.0f);
    } while (next_idx(idx, sdims, nd));
    int64_t kw = lg_md_size(&wplain) / 4;
    for (int64_t i = 0; i < kw; i++) w[i] = lg_rng_float(r, -1.0f, 1.0f);
    for (int64_t i = 0; i < oc; i++) b[i] = lg_rng_float(r, -1.0f, 1.0f);

    /* oneDNN. */
    dnnl_dims_t dsd, dwd, ddd = {sdims[0], oc}, dbd = {oc};
    for (int d = 0; d < nd; d++) dsd[d] = sdims[d], dwd[d] = wdims[d];
    dnnl_memory_desc_t msd, mwd, mdd, mbd;
    DN(dnnl_memory_desc_init_by_tag(&msd, nd, dsd, dnnl_f32, stag));
    DN(dnnl_memory_desc_init_by_tag(&mwd, nd, dwd, dnnl_f32, nd == 2 ? dnnl_ab : dnnl_abcd));
    DN(dnnl_memory_desc_init_by_tag(&mdd, 2, ddd, dnnl_f32, dnnl_ab));
    DN(dnnl_memory_desc_init_by_tag(&mbd, 1, dbd, dnnl_f32, dnnl_a));
    dnnl_inner_product_desc_t ipd;
    DN(dnnl_inner_product_forward_desc_init(&ipd, dnnl_forward_inference, &msd, &mwd,
                                            with_bias ? &mbd : NULL, &mdd));
    dnnl_post_ops_t po;
    dnnl_primitive_attr_t attr;
    DN(dnnl_post_ops_create(&po));
    if (relu) DN(dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f));
    DN(dnnl_primitive_attr_create(&attr));
    DN(dnnl_primitive_attr_set_post_ops(attr, po));
    dnnl_primitive_desc_t pd;
    DN(dnnl_primitive_desc_create(&pd, &ipd, attr, eng, NULL));
    dnnl_primitive_t prim;
    DN(dnnl_primitive_create(&prim, pd));
    dnnl_memory_t ms, mw, mb, md;
    DN(dnnl_memory_create(&ms, &msd, eng, s));
    DN(dnnl_memory_create(&mw, &mwd, eng, w));
    DN(dnnl_memory_create(&mb, &mbd, eng, b));
    DN(dnnl_memory_create(&md, &mdd, eng, theirs));
    dnnl_exec_arg_t args[4] = {
        {DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}, {DNNL_ARG_BIAS, mb}};
    DN(dnnl_primitive_execute(prim, strm, with_bias ? 4 : 3, args));
    DN(dnnl_stream_wait(strm));

    /* lgraph: weights reordered into the layout the kernel picks. */
    lg_attr *la;
    cr_assert_eq(lg_attr_create(&la), LG_OK);
    if (relu) cr_assert_eq(lg_attr_append_eltwise(la, LG_ELTWISE_RELU, 0, 0), LG_OK);
    lg_kernel *k, *re;
    cr_assert_eq(lg_inner_product_create(&k, &src, &wany, with_bias ? &bias : NULL, &dst, la),
                 LG_OK, "%s", lg_last_error());
    lg_md wk;
    cr_assert_eq(lg_kernel_query_md(k, LG_ARG_WEIGHTS, &wk), LG_OK);
    float *wb = calloc(1, lg_md_size(&wk));
    cr_assert_eq(lg_reorder_create(&re, &wplain, &wk, NULL), LG_OK);
    lg_arg ra[2] = {{LG_ARG_SRC, w}, {LG_ARG_DST, wb}};
    cr_assert_eq(lg_kernel_execute(re, 2, ra), LG_OK);
    lg_arg a[4] = {{LG_ARG_SRC, s}, {LG_ARG_WEIGHTS, wb}, {LG_ARG_DST, mine}, {LG_ARG_BIAS, b}};
    cr_assert_eq(lg_kernel_execute(k, with_bias ? 4 : 3, a), LG_OK, "%s", lg_last_error());

    /* The bound: sum of |products| and |bias|, computed here. */
    int64_t n = sdims[0], kk = kw / oc;
    for (int64_t i = 0; i < n; i++)
        for (int64_t o = 0; o < oc; o++) {
            double mag = with_bias ? fabs(b[o]) : 0;
            int64_t id2[5] = {0}, sd1[5];
            memcpy(sd1, sdims, (size_t)nd * sizeof *sd1);
            sd1[0] = 1;
            int64_t j = 0;
            do {
                id2[0] = i;
                mag += fabs((double)s[lg_md_offset(&src, id2)] * w[o * kk + j++]);
                id2[0] = 0;
            } while (next_idx(id2, sd1, nd));
            double tol = ((double)kk + 8) * 0x1p-22 * mag + 1e-7;
            cr_assert(fabs((double)mine[i * oc + o] - theirs[i * oc + o]) <= tol,
                      "%s oc %lld (%lld, %lld): %.9g vs oneDNN %.9g (%s)", tag, (long long)oc,
                      (long long)i, (long long)o, (double)mine[i * oc + o],
                      (double)theirs[i * oc + o], lg_kernel_impl(k));
        }
    lg_kernel_destroy(k);
    lg_kernel_destroy(re);
    lg_attr_destroy(la);
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_attr_destroy(attr);
    dnnl_post_ops_destroy(po);
    dnnl_memory_destroy(ms);
    dnnl_memory_destroy(mw);
    dnnl_memory_destroy(mb);
    dnnl_memory_destroy(md);
    free(s);
    free(w);
    free(wb);
    free(b);
    free(mine);
    free(theirs);
}

Test(dnnl_ip, classifier_heads, .init = dnnl_setup, .fini = dnnl_teardown) {
    lg_rng r = {0x1bd1};
    const int64_t ic[2] = {2048, 1280}, ns[2] = {1, 16};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            int64_t sd[2] = {ns[j], ic[i]};
            run(2, sd, 1000, "ab", dnnl_ab, true, j == 1, &r);
        }
    int64_t odd[2] = {3, 37};
    run(2, odd, 13, "ab", dnnl_ab, false, true, &r);
}

Test(dnnl_ip, layouts_4d, .init = dnnl_setup, .fini = dnnl_teardown) {
    lg_rng r = {0x1bd2};
    int64_t sd[4] = {3, 19, 4, 5};
    const char *tags[4] = {"nchw", "nhwc", "nChw8c", "nChw16c"};
    const dnnl_format_tag_t dt[4] = {dnnl_nchw, dnnl_nhwc, dnnl_nChw8c, dnnl_nChw16c};
    for (int t = 0; t < 4; t++) {
        run(4, sd, 21, tags[t], dt[t], true, t % 2 == 0, &r);
        run(4, sd, 8, tags[t], dt[t], false, false, &r);
    }
}
