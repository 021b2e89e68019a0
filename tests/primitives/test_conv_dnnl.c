/* Cross-check against oneDNN (2.6): the same convolutions (1D/2D/3D,
 * strides, dilation, asymmetric padding, groups, depthwise, ShuffleNet
 * groups, the first layer, post-op chains with a sum) run by oneDNN on plain
 * layouts and by lgraph on the layouts it picks for "any", under every ISA
 * cap. Tolerance: test_conv_util.h's bound tol (K * 2^-23 * M through the
 * post-op chain) holds for each of them against the exact result, so they
 * must agree within 2 * tol; oneDNN's own result is also checked against
 * the double-precision truth within tol (the post-ops used here, relu,
 * clip, linear and sum, are exact in both). */
#include "test_conv_util.h"

#include <oneapi/dnnl/dnnl.h>

#define DN(x) cr_assert_eq((x), dnnl_success, "%s", #x)

static dnnl_engine_t engine;
static dnnl_stream_t stream;

static void setup(void) {
    DN(dnnl_engine_create(&engine, dnnl_cpu, 0));
    DN(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
}
static void teardown(void) {
    dnnl_stream_destroy(stream);
    dnnl_engine_destroy(engine);
}

static dnnl_format_tag_t plain_tag(int nd) {
    static const dnnl_format_tag_t t[7] = {
        dnnl_format_tag_undef, dnnl_a, dnnl_ab, dnnl_abc, dnnl_abcd, dnnl_abcde, dnnl_abcdef};
    return t[nd];
}

static dnnl_alg_kind_t dnnl_alg(lg_eltwise_alg a) {
    switch (a) {
    case LG_ELTWISE_RELU:
        return dnnl_eltwise_relu;
    case LG_ELTWISE_CLIP:
        return dnnl_eltwise_clip;
    case LG_ELTWISE_LINEAR:
        return dnnl_eltwise_linear;
    default:
        cr_assert_fail("no oneDNN algorithm for %d in this test", (int)a);
    }
    return dnnl_alg_kind_undef;
}

/* oneDNN's result for p on d, in logical (plain) order, into out. */
static void run_dnnl(const cprob *p, const cdata *d, float *out) {
    dnnl_dims_t sd, wd, dd, bd = {p->g * p->ocg}, st, dl, pl, pr;
    int64_t t[6];
    int ns = cp_src_dims(p, t);
    for (int i = 0; i < ns; i++) sd[i] = t[i];
    int nw = cp_wei_dims(p, t);
    for (int i = 0; i < nw; i++) wd[i] = t[i];
    int nd = cp_dst_dims(p, t);
    for (int i = 0; i < nd; i++) dd[i] = t[i];
    for (int i = 0; i < p->nsp; i++)
        st[i] = p->st[i], dl[i] = p->dl[i], pl[i] = p->pl[i], pr[i] = p->pr[i];
    dnnl_memory_desc_t sm, wm, dm, bm;
    DN(dnnl_memory_desc_init_by_tag(&sm, ns, sd, dnnl_f32, plain_tag(ns)));
    DN(dnnl_memory_desc_init_by_tag(&wm, nw, wd, dnnl_f32, plain_tag(nw)));
    DN(dnnl_memory_desc_init_by_tag(&dm, nd, dd, dnnl_f32, plain_tag(nd)));
    DN(dnnl_memory_desc_init_by_tag(&bm, 1, bd, dnnl_f32, dnnl_a));
    dnnl_convolution_desc_t cd;
    DN(dnnl_dilated_convolution_forward_desc_init(&cd, dnnl_forward_inference,
                                                  dnnl_convolution_direct, &sm, &wm,
                                                  p->bias ? &bm : NULL, &dm, st, dl, pl, pr));
    dnnl_post_ops_t po;
    dnnl_primitive_attr_t attr;
    DN(dnnl_post_ops_create(&po));
    for (int i = 0; i < p->npost; i++) {
        if (p->post[i].kind == LG_POST_SUM)
            DN(dnnl_post_ops_append_sum(po, p->post[i].alpha));
        else
            DN(dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_alg(p->post[i].alg), p->post[i].alpha,
                                            p->post[i].beta));
    }
    DN(dnnl_primitive_attr_create(&attr));
    DN(dnnl_primitive_attr_set_post_ops(attr, po));
    dnnl_primitive_desc_t pd;
    DN(dnnl_primitive_desc_create(&pd, &cd, attr, engine, NULL));
    dnnl_primitive_t prim;
    DN(dnnl_primitive_create(&prim, pd));
    memcpy(out, d->old, sizeof(float) * (size_t)d->ndst);
    dnnl_memory_t ms, mw, mb, md;
    DN(dnnl_memory_create(&ms, &sm, engine, d->src));
    DN(dnnl_memory_create(&mw, &wm, engine, d->wei));
    DN(dnnl_memory_create(&mb, &bm, engine, d->bias));
    DN(dnnl_memory_create(&md, &dm, engine, out));
    dnnl_exec_arg_t args[4] = {
        {DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}, {DNNL_ARG_BIAS, mb}};
    DN(dnnl_primitive_execute(prim, stream, p->bias ? 4 : 3, args));
    DN(dnnl_stream_wait(stream));
    dnnl_memory_destroy(ms);
    dnnl_memory_destroy(mw);
    dnnl_memory_destroy(mb);
    dnnl_memory_destroy(md);
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_attr_destroy(attr);
    dnnl_post_ops_destroy(po);
}

static void check(const cprob *p, const char *what, uint64_t seed) {
    lg_rng r = {seed};
    cdata d;
    cp_data(p, &r, &d);
    float *dn = malloc(sizeof(float) * (size_t)(d.ndst + 1));
    float *lg = malloc(sizeof(float) * (size_t)(d.ndst + 1));
    run_dnnl(p, &d, dn);
    for (int64_t i = 0; i < d.ndst; i++)
        cr_assert(fabs((double)dn[i] - d.want[i]) <= d.tol[i],
                  "%s: oneDNN [%lld] = %.9g, truth %.9g (tol %.3g)", what, (long long)i,
                  (double)dn[i], d.want[i], d.tol[i]);
    for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        char msg[160];
        snprintf(msg, sizeof msg, "%s (isa %s)", what, lg__isa_name(lg__cpu_isa()));
        const char *impl = cp_run_out(p, &d, NULL, NULL, NULL, msg, lg);
        for (int64_t i = 0; i < d.ndst; i++)
            cr_assert(fabs((double)lg[i] - (double)dn[i]) <= 2 * d.tol[i],
                      "%s (%s): lgraph [%lld] = %.9g, oneDNN %.9g (2 tol %.3g)", msg, impl,
                      (long long)i, (double)lg[i], (double)dn[i], 2 * d.tol[i]);
    }
    lg__cpu_set_isa_cap(-1);
    free(dn);
    free(lg);
    cp_data_free(&d);
}

static cprob sq(int nsp, int64_t n, int64_t g, int64_t icg, int64_t ocg, int64_t in, int64_t k,
                int64_t st, int64_t pad) {
    cprob p = {.nsp = nsp, .n = n, .g = g, .icg = icg, .ocg = ocg, .bias = true};
    for (int i = 0; i < nsp; i++) p.in[i] = in, p.k[i] = k, p.st[i] = st, p.pl[i] = p.pr[i] = pad;
    return p;
}

TestSuite(conv_dnnl, .init = setup, .fini = teardown);

Test(conv_dnnl, plain_strided_dilated) {
    cprob p = sq(2, 2, 1, 17, 20, 9, 3, 1, 1);
    check(&p, "3x3 17->20", 1);
    p = sq(2, 1, 1, 32, 48, 14, 3, 2, 1);
    p.pr[0] = 0, p.pl[1] = 2;
    check(&p, "3x3 s2 asymmetric pads", 2);
    p = sq(2, 1, 1, 16, 16, 12, 3, 1, 2);
    p.dl[0] = p.dl[1] = 1;
    check(&p, "dilated", 3);
    p = sq(2, 1, 1, 3, 32, 31, 7, 2, 3);
    check(&p, "first layer 7x7 s2", 4);
    p = sq(2, 2, 1, 58, 116, 7, 1, 1, 0);
    check(&p, "1x1 58->116", 5);
}

Test(conv_dnnl, groups_depthwise_shufflenet) {
    cprob p = sq(2, 2, 4, 16, 16, 8, 3, 1, 1);
    check(&p, "4 groups of 16", 10);
    p = sq(2, 1, 3, 80, 20, 8, 1, 1, 0);
    check(&p, "conv1x1 g3 240->60", 11);
    p = sq(2, 1, 3, 20, 80, 8, 1, 1, 0);
    check(&p, "conv1x1 g3 60->240", 12);
    p = sq(2, 2, 60, 1, 1, 9, 3, 1, 1);
    check(&p, "depthwise 60", 13);
    p = sq(2, 1, 116, 1, 1, 10, 3, 2, 1);
    check(&p, "depthwise 116 s2", 14);
}

Test(conv_dnnl, conv1d_conv3d) {
    cprob p = sq(1, 2, 1, 10, 33, 27, 5, 2, 2);
    check(&p, "1D", 20);
    p = sq(3, 1, 1, 6, 18, 6, 3, 1, 1);
    check(&p, "3D", 21);
    p = sq(3, 1, 24, 1, 1, 5, 3, 1, 1);
    check(&p, "3D depthwise", 22);
}

Test(conv_dnnl, post_op_chains) {
    cprob p = sq(2, 2, 1, 24, 40, 9, 3, 1, 1);
    p.npost = 2;
    p.post[0] = (cpost){LG_POST_SUM, 0, 1.0f, 0};
    p.post[1] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_RELU, 0, 0};
    check(&p, "sum + relu", 30);
    p.npost = 3;
    p.post[0] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_RELU, 0.2f, 0};
    p.post[1] = (cpost){LG_POST_SUM, 0, 0.5f, 0};
    p.post[2] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_CLIP, -1.0f, 2.0f};
    check(&p, "leaky relu, sum 0.5, clip", 31);
    p = sq(2, 1, 3, 20, 80, 8, 1, 1, 0);
    p.npost = 2;
    p.post[0] = (cpost){LG_POST_SUM, 0, 1.0f, 0};
    p.post[1] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_LINEAR, 0.5f, 0.25f};
    check(&p, "shufflenet 60->240 + add + linear", 32);
}
