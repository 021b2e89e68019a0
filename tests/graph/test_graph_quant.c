/* Quantising reorder nodes (lg_graph_add_reorder_attr): f32 -> s8 with
 * per-channel scales and a zero point -> f32 again; f32 -> bf16 with
 * per-channel scales -> f32 again (bit for bit against a hand-written
 * round-to-nearest-even, planted ties and denormals); a reorder with a sum,
 * against hand-computed truths (s8: power-of-two scales make every step
 * exact, so the truth is the formula in double precision), under every
 * strategy, with the constant-folding pass on and off, with the arrays as
 * constants and as inputs bound at execution; and the builder's refusals. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "graph_ref.h"

static const int64_t dims[4] = {2, 6, 5, 3};
static const float scales[6] = {0.125f, 0.25f, 0.5f, 1.0f, 0.0625f, 2.0f};
static const int32_t zp = 3;

/* q = saturate_s8(rne(x / s_c) + zp), then y = s_c * (q - zp). */
static tensor ref_quant_dequant(const tensor *x) {
    tensor y = t_new(x->nd, x->dims);
    int64_t idx[LG_MAX_NDIMS];
    for (int64_t i = 0; i < t_count(x); i++) {
        t_index(x, i, idx);
        double s = scales[idx[1]];
        double q = nearbyint((double)x->d[i] / s) + zp;
        q = q < -128 ? -128 : q > 127 ? 127 : q;
        y.d[i] = (float)(s * (q - zp));
    }
    return y;
}

static lg_md md_type(int nd, const int64_t *d, lg_dtype t, const char *tag) {
    lg_md md;
    cr_assert_eq(lg_md_init_tag(&md, nd, d, t, tag), LG_OK, "%s", lg_last_error());
    return md;
}

/* x (f32 nchw) -> s8 (dst scales per channel, dst zero point) -> f32 (src
 * scales, src zero point) -> y. The arrays are constants, or inputs "s" and
 * "z" when `bound`. */
static lg_graph *quant_graph(const char *s8tag, bool bound) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_md xmd = md_tag(4, dims, "nchw"), q = md_type(4, dims, LG_S8, s8tag),
          f = md_type(4, dims, LG_F32, "nchw");
    int64_t six = 6, one = 1;
    lg_md smd = md_type(1, &six, LG_F32, "a"), zmd = md_type(1, &one, LG_S32, "a");
    lg_value x, s, z, xq, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &x), LG_OK);
    if (bound) {
        cr_assert_eq(lg_graph_add_input(g, "s", &smd, &s), LG_OK);
        cr_assert_eq(lg_graph_add_input(g, "z", &zmd, &z), LG_OK);
    } else {
        cr_assert_eq(lg_graph_add_constant(g, "s", &smd, scales, &s), LG_OK, "%s", lg_last_error());
        cr_assert_eq(lg_graph_add_constant(g, "z", &zmd, &zp, &z), LG_OK, "%s", lg_last_error());
    }
    lg_attr *aq, *ad;
    cr_assert_eq(lg_attr_create(&aq), LG_OK);
    cr_assert_eq(lg_attr_create(&ad), LG_OK);
    cr_assert_eq(lg_attr_set_scales(aq, LG_ARG_DST, 1 << 1), LG_OK);
    cr_assert_eq(lg_attr_set_zero_points(aq, LG_ARG_DST, 0), LG_OK);
    cr_assert_eq(lg_attr_set_scales(ad, LG_ARG_SRC, 1 << 1), LG_OK);
    cr_assert_eq(lg_attr_set_zero_points(ad, LG_ARG_SRC, 0), LG_OK);
    lg_reorder_operands oq = {LG_NO_VALUE, s, LG_NO_VALUE, z, LG_NO_VALUE};
    lg_reorder_operands od = {s, LG_NO_VALUE, z, LG_NO_VALUE, LG_NO_VALUE};
    cr_assert_eq(lg_graph_add_reorder_attr(g, x, &q, aq, &oq, &xq), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_reorder_attr(g, xq, &f, ad, &od, &y), LG_OK, "%s", lg_last_error());
    lg_attr_destroy(aq);
    lg_attr_destroy(ad);
    cr_assert_eq(lg_graph_add_output(g, y, "y", "nchw"), LG_OK);
    return g;
}

static void run_quant(lg_plan *p, const tensor *x, bool bound, tensor *y) {
    lg_md xmd;
    cr_assert_eq(lg_plan_query_md(p, "x", &xmd), LG_OK, "%s", lg_last_error());
    void *xb = t_pack(x, &xmd);
    float s[6];
    int32_t z = zp;
    memcpy(s, scales, sizeof s);
    lg_binding in[3] = {{"x", xb}, {"s", s}, {"z", &z}};
    lg_md ymd;
    cr_assert_eq(lg_plan_query_md(p, "y", &ymd), LG_OK);
    void *yb = t_garbage(&ymd);
    lg_binding out = {"y", yb};
    cr_assert_eq(lg_plan_execute(p, bound ? 3 : 1, in, 1, &out), LG_OK, "%s", lg_last_error());
    *y = t_unpack(&ymd, yb);
    free(xb);
    free(yb);
}

Test(graph_quant, s8_round_trip_per_channel) {
    lg_rng r = {7};
    /* Up to +-40: channels with scale 1/16 and 1/8 saturate. */
    tensor x = t_rand(4, dims, &r, -40, 40), want = ref_quant_dequant(&x);
    const char *tags[2] = {"nchw", "nhwc"};
    for (int b = 0; b < 2; b++)
        for (int t = 0; t < 2; t++)
            for (int st = 0; st < 3; st++)
                for (int fold = 0; fold < 2; fold++) {
                    lg_graph *g = quant_graph(tags[t], b);
                    lg_plan *p = compile_with(g, (lg_strategy)st, fold ? NULL : "fold_constants");
                    tensor y;
                    run_quant(p, &x, b, &y);
                    t_expect_near(&y, &want, 0, 0, "y");
                    cr_expect_eq(memcmp(y.d, want.d, (size_t)t_count(&y) * sizeof(float)), 0,
                                 "bound %d, s8 %s, %s, fold %d", b, tags[t],
                                 strategy_name((lg_strategy)st), fold);
                    /* Both quantising steps run (nothing merges them). */
                    lg_plan_stats ps;
                    cr_assert_eq(lg_plan_stats_get(p, &ps), LG_OK);
                    cr_expect_geq(ps.runtime_reorders, 2);
                    t_free(&y);
                    lg_plan_destroy(p);
                    lg_graph_destroy(g);
                }
    t_free(&x);
    t_free(&want);
}

/* bf16: per-channel scales that are not powers of two, so that the
 * conversion rounds; channel 5 (scale 1) carries planted ties and f32
 * denormals. */
static const float bscales[6] = {0.3f, 1.7f, 3.0f, 0.11f, 7.5f, 1.0f};
static const uint32_t planted[6] = {
    0x3f808000u, /* 1 + 2^-8: halfway between 1 and 1 + 2^-7, to even (1) */
    0x3f818000u, /* 1 + 3 * 2^-8: halfway, to even (1 + 2^-6) */
    0xbf808000u, /* -(1 + 2^-8): to -1 */
    0x00012345u, /* an f32 denormal: down */
    0x0001c000u, /* an f32 denormal: up */
    0x3f80ffffu, /* just below halfway up: 1 + 2^-7 */
};

/* x rounded to the nearest bf16 (returned as an f32), ties to the even
 * mantissa: the two bf16 neighbours of x are its bits cut to the top 16
 * (towards zero) and the next bf16 away from zero; the distances are exact
 * in double. x finite and below bf16's largest value. */
static float bf16_rne(float x) {
    uint32_t u, lo, hi;
    memcpy(&u, &x, sizeof u);
    lo = u & 0xffff0000u;
    hi = lo + 0x10000u;
    float flo, fhi;
    memcpy(&flo, &lo, sizeof flo);
    memcpy(&fhi, &hi, sizeof fhi);
    double d = fabs((double)x), below = d - fabs((double)flo), above = fabs((double)fhi) - d;
    if (below != above) return below < above ? flo : fhi;
    return (lo >> 16) & 1 ? fhi : flo;
}

/* x (f32 nchw) -> bf16 in `tag` (dst scales per channel: q = bf16(f32(1 /
 * s_c) * x), the contract's (scale_src / scale_dst) * src in f32) -> f32
 * nchw (the same array as src scales: y = f32(s_c * q)) -> y; q is an
 * output too. The scales are a constant, or the input "s" when `bound`. */
static lg_graph *bf16_graph(const char *tag, bool bound) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_md xmd = md_tag(4, dims, "nchw"), q = md_type(4, dims, LG_BF16, tag);
    int64_t six = 6;
    lg_md smd = md_type(1, &six, LG_F32, "a");
    lg_value x, s, xq, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &x), LG_OK);
    if (bound)
        cr_assert_eq(lg_graph_add_input(g, "s", &smd, &s), LG_OK);
    else
        cr_assert_eq(lg_graph_add_constant(g, "s", &smd, bscales, &s), LG_OK, "%s",
                     lg_last_error());
    lg_attr *aq, *ad;
    cr_assert_eq(lg_attr_create(&aq), LG_OK);
    cr_assert_eq(lg_attr_create(&ad), LG_OK);
    cr_assert_eq(lg_attr_set_scales(aq, LG_ARG_DST, 1 << 1), LG_OK);
    cr_assert_eq(lg_attr_set_scales(ad, LG_ARG_SRC, 1 << 1), LG_OK);
    lg_reorder_operands oq = {LG_NO_VALUE, s, LG_NO_VALUE, LG_NO_VALUE, LG_NO_VALUE};
    lg_reorder_operands od = {s, LG_NO_VALUE, LG_NO_VALUE, LG_NO_VALUE, LG_NO_VALUE};
    cr_assert_eq(lg_graph_add_reorder_attr(g, x, &q, aq, &oq, &xq), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_reorder_attr(g, xq, &xmd, ad, &od, &y), LG_OK, "%s", lg_last_error());
    lg_attr_destroy(aq);
    lg_attr_destroy(ad);
    cr_assert_eq(lg_graph_add_output(g, xq, "q", tag), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_graph_add_output(g, y, "y", "nchw"), LG_OK);
    return g;
}

Test(graph_quant, bf16_round_trip_per_channel) {
    lg_rng r = {10};
    tensor x = t_rand(4, dims, &r, -40, 40), wq = t_new(4, dims), wy = t_new(4, dims);
    for (int i = 0; i < 6; i++)
        memcpy(&x.d[75 + i], &planted[i], sizeof(float)); /* [0, 5, 0..1, *] */
    int64_t idx[LG_MAX_NDIMS];
    for (int64_t i = 0; i < t_count(&x); i++) {
        t_index(&x, i, idx);
        const float sc = bscales[idx[1]], f = 1.0f / sc;
        wq.d[i] = bf16_rne(f * x.d[i]);
        wy.d[i] = sc * wq.d[i];
    }
    const char *tags[2] = {"nchw", "nhwc"};
    for (int b = 0; b < 2; b++)
        for (int t = 0; t < 2; t++)
            for (int st = 0; st < 3; st++)
                for (int fold = 0; fold < 2; fold++) {
                    char what[96];
                    snprintf(what, sizeof what, "bound %d, bf16 %s, %s, fold %d", b, tags[t],
                             strategy_name((lg_strategy)st), fold);
                    lg_graph *g = bf16_graph(tags[t], b);
                    lg_plan *p = compile_with(g, (lg_strategy)st, fold ? NULL : "fold_constants");
                    lg_md xmd, qmd, ymd;
                    cr_assert_eq(lg_plan_query_md(p, "x", &xmd), LG_OK, "%s", lg_last_error());
                    cr_assert_eq(lg_plan_query_md(p, "q", &qmd), LG_OK, "%s", lg_last_error());
                    cr_assert_eq(lg_plan_query_md(p, "y", &ymd), LG_OK, "%s", lg_last_error());
                    cr_assert_eq(qmd.dtype, LG_BF16);
                    void *xb = t_pack(&x, &xmd), *qb = t_garbage(&qmd), *yb = t_garbage(&ymd);
                    float s[6];
                    memcpy(s, bscales, sizeof s);
                    lg_binding in[2] = {{"x", xb}, {"s", s}}, out[2] = {{"q", qb}, {"y", yb}};
                    cr_assert_eq(lg_plan_execute(p, b ? 2 : 1, in, 2, out), LG_OK, "%s: %s", what,
                                 lg_last_error());
                    tensor y = t_unpack(&ymd, yb);
                    for (int64_t i = 0; i < t_count(&x); i++) {
                        t_index(&x, i, idx);
                        uint16_t got = ((const uint16_t *)qb)[lg_md_offset(&qmd, idx)];
                        uint32_t want;
                        memcpy(&want, &wq.d[i], sizeof want);
                        cr_expect_eq(got, want >> 16, "%s: q[%lld] = 0x%04x, want 0x%04x", what,
                                     (long long)i, got, want >> 16);
                    }
                    cr_expect_eq(memcmp(y.d, wy.d, (size_t)t_count(&y) * sizeof(float)), 0,
                                 "%s: y differs from s_c * q", what);
                    /* Both conversions run (nothing merges them). */
                    lg_plan_stats ps;
                    cr_assert_eq(lg_plan_stats_get(p, &ps), LG_OK);
                    cr_expect_geq(ps.runtime_reorders, 2, "%s", what);
                    t_free(&y);
                    free(xb);
                    free(qb);
                    free(yb);
                    lg_plan_destroy(p);
                    lg_graph_destroy(g);
                }
    t_free(&x);
    t_free(&wq);
    t_free(&wy);
}

/* A constant quantised and dequantised at compile time, then added to x:
 * both reorders fold with their attributes. */
Test(graph_quant, constant_reorders_fold_with_attributes) {
    lg_rng r = {8};
    tensor w = t_rand(4, dims, &r, -40, 40), x = t_rand(4, dims, &r, -1, 1);
    tensor dq = ref_quant_dequant(&w), want = ref_binary(0, &x, &dq);
    for (int st = 0; st < 3; st++)
        for (int fold = 0; fold < 2; fold++) {
            lg_graph *g;
            cr_assert_eq(lg_graph_create(&g), LG_OK);
            lg_md xmd = md_tag(4, dims, "nchw"), q = md_type(4, dims, LG_S8, "nchw");
            int64_t six = 6, one = 1;
            lg_md smd = md_type(1, &six, LG_F32, "a"), zmd = md_type(1, &one, LG_S32, "a");
            lg_value vx, vw, s, z, wq, wd, y;
            cr_assert_eq(lg_graph_add_input(g, "x", &xmd, &vx), LG_OK);
            cr_assert_eq(lg_graph_add_constant(g, "w", &xmd, w.d, &vw), LG_OK);
            cr_assert_eq(lg_graph_add_constant(g, "s", &smd, scales, &s), LG_OK);
            cr_assert_eq(lg_graph_add_constant(g, "z", &zmd, &zp, &z), LG_OK);
            lg_attr *aq, *ad;
            cr_assert_eq(lg_attr_create(&aq), LG_OK);
            cr_assert_eq(lg_attr_create(&ad), LG_OK);
            cr_assert_eq(lg_attr_set_scales(aq, LG_ARG_DST, 2), LG_OK);
            cr_assert_eq(lg_attr_set_zero_points(aq, LG_ARG_DST, 0), LG_OK);
            cr_assert_eq(lg_attr_set_scales(ad, LG_ARG_SRC, 2), LG_OK);
            cr_assert_eq(lg_attr_set_zero_points(ad, LG_ARG_SRC, 0), LG_OK);
            lg_reorder_operands oq = {LG_NO_VALUE, s, LG_NO_VALUE, z, LG_NO_VALUE};
            lg_reorder_operands od = {s, LG_NO_VALUE, z, LG_NO_VALUE, LG_NO_VALUE};
            cr_assert_eq(lg_graph_add_reorder_attr(g, vw, &q, aq, &oq, &wq), LG_OK);
            cr_assert_eq(lg_graph_add_reorder_attr(g, wq, &xmd, ad, &od, &wd), LG_OK);
            cr_assert_eq(lg_graph_add_binary(g, LG_BINARY_ADD, vx, wd, &y), LG_OK);
            cr_assert_eq(lg_graph_add_output(g, y, "y", "nchw"), LG_OK);
            lg_attr_destroy(aq);
            lg_attr_destroy(ad);
            lg_plan *p = compile_with(g, (lg_strategy)st, fold ? NULL : "fold_constants");
            const char *in = "x", *out = "y";
            tensor got;
            run_plan(p, 1, &in, &x, 1, &out, &got);
            t_expect_near(&got, &want, 0, 0, "y");
            lg_plan_stats ps;
            cr_assert_eq(lg_plan_stats_get(p, &ps), LG_OK);
            if (fold)
                cr_expect_geq(ps.folded_reorders, 2, "%s", strategy_name((lg_strategy)st));
            else
                cr_expect_geq(ps.runtime_reorders, 2, "%s", strategy_name((lg_strategy)st));
            t_free(&got);
            lg_plan_destroy(p);
            lg_graph_destroy(g);
        }
    t_free(&w);
    t_free(&x);
    t_free(&dq);
    t_free(&want);
}

/* y = reorder(x -> nhwc) + 0.5 * relu(b): a sum reorder whose operand is a
 * node result (the plan copies it or computes in its buffer) or an input. */
Test(graph_quant, sum_reorder) {
    lg_rng r = {9};
    tensor x = t_rand(4, dims, &r, -1, 1), b = t_rand(4, dims, &r, -1, 1);
    tensor rb = ref_relu(&b, 0);
    for (int from_input = 0; from_input < 2; from_input++) {
        const tensor *addend = from_input ? &b : &rb;
        tensor want = t_new(4, dims);
        for (int64_t i = 0; i < t_count(&x); i++) want.d[i] = x.d[i] + 0.5f * addend->d[i];
        for (int st = 0; st < 3; st++)
            for (int mem = 0; mem < 2; mem++) {
                lg_graph *g;
                cr_assert_eq(lg_graph_create(&g), LG_OK);
                lg_md nchw = md_tag(4, dims, "nchw"), nhwc = md_tag(4, dims, "nhwc");
                lg_value vx, vb, rbv, y;
                cr_assert_eq(lg_graph_add_input(g, "x", &nchw, &vx), LG_OK);
                cr_assert_eq(lg_graph_add_input(g, "b", &nchw, &vb), LG_OK);
                if (from_input)
                    rbv = vb;
                else
                    cr_assert_eq(lg_graph_add_eltwise(g, vb, LG_ELTWISE_RELU, 0, 0, &rbv), LG_OK);
                lg_attr *a;
                cr_assert_eq(lg_attr_create(&a), LG_OK);
                cr_assert_eq(lg_attr_append_sum(a, 0.5f), LG_OK);
                lg_reorder_operands o = {LG_NO_VALUE, LG_NO_VALUE, LG_NO_VALUE, LG_NO_VALUE, rbv};
                cr_assert_eq(lg_graph_add_reorder_attr(g, vx, &nhwc, a, &o, &y), LG_OK, "%s",
                             lg_last_error());
                lg_attr_destroy(a);
                cr_assert_eq(lg_graph_add_output(g, y, "y", "nhwc"), LG_OK);
                lg_plan *p = compile_with(g, (lg_strategy)st, mem ? "plan_memory" : NULL);
                const char *in[2] = {"x", "b"}, *out = "y";
                tensor ins[2] = {x, b}, got;
                run_plan(p, 2, in, ins, 1, &out, &got);
                t_expect_near(&got, &want, 1e-6f, 1e-6f, "y");
                t_free(&got);
                lg_plan_destroy(p);
                lg_graph_destroy(g);
            }
        t_free(&want);
    }
    t_free(&x);
    t_free(&b);
    t_free(&rb);
}

#define EXPECT_ERR(call, status, text)                                                             \
    do {                                                                                           \
        cr_expect_eq((call), (status), "%s", #call);                                               \
        cr_expect(strstr(lg_last_error(), "lg_graph_add_reorder") != NULL, "%s", lg_last_error()); \
        cr_expect(strstr(lg_last_error(), (text)) != NULL, "want '%s' in: %s", (text),             \
                  lg_last_error());                                                                \
    } while (0)

Test(graph_quant, builder_refusals) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    lg_md x4 = md_tag(4, dims, "nchw"), q = md_type(4, dims, LG_S8, "nchw");
    int64_t six = 6, five = 5, one = 1;
    lg_md s6 = md_type(1, &six, LG_F32, "a"), s5 = md_type(1, &five, LG_F32, "a"),
          z1 = md_type(1, &one, LG_S32, "a"), f1 = md_type(1, &one, LG_F32, "a");
    lg_value x, s, sbad, z, zf, v;
    float buf[6] = {1, 1, 1, 1, 1, 1};
    int32_t zb = 0;
    cr_assert_eq(lg_graph_add_input(g, "x", &x4, &x), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "s", &s6, buf, &s), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "s5", &s5, buf, &sbad), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "z", &z1, &zb, &z), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "zf", &f1, buf, &zf), LG_OK);
    lg_attr *a;
    cr_assert_eq(lg_attr_create(&a), LG_OK);
    cr_assert_eq(lg_attr_set_scales(a, LG_ARG_DST, 2), LG_OK);
    lg_reorder_operands o = {LG_NO_VALUE, LG_NO_VALUE, LG_NO_VALUE, LG_NO_VALUE, LG_NO_VALUE};
    /* An array attr asks for, missing (also through lg_graph_add_reorder). */
    EXPECT_ERR(lg_graph_add_reorder(g, x, &q, a, &v), LG_INVALID_ARGUMENT, "dst_scales");
    EXPECT_ERR(lg_graph_add_reorder_attr(g, x, &q, a, &o, &v), LG_INVALID_ARGUMENT,
               "operands->dst_scales is LG_NO_VALUE");
    /* Of the wrong length, then the wrong type. */
    o.dst_scales = sbad;
    EXPECT_ERR(lg_graph_add_reorder_attr(g, x, &q, a, &o, &v), LG_INVALID_ARGUMENT,
               "dst_scales must be a 1D f32 tensor of 6 values");
    o.dst_scales = s;
    /* One given that attr does not ask for. */
    o.src_zero_points = z;
    EXPECT_ERR(lg_graph_add_reorder_attr(g, x, &q, a, &o, &v), LG_INVALID_ARGUMENT,
               "src_zero_points is given");
    o.src_zero_points = LG_NO_VALUE;
    cr_assert_eq(lg_attr_set_zero_points(a, LG_ARG_SRC, 0), LG_OK);
    o.src_zero_points = zf;
    EXPECT_ERR(lg_graph_add_reorder_attr(g, x, &q, a, &o, &v), LG_INVALID_ARGUMENT,
               "src_zero_points must be a 1D s32");
    o.src_zero_points = 999;
    EXPECT_ERR(lg_graph_add_reorder_attr(g, x, &q, a, &o, &v), LG_INVALID_ARGUMENT,
               "does not exist");
    o.src_zero_points = z;
    /* A mask naming a dim beyond ndims: the kernel's own check. */
    lg_attr *m;
    cr_assert_eq(lg_attr_create(&m), LG_OK);
    cr_assert_eq(lg_attr_set_scales(m, LG_ARG_SRC, 1 << 5), LG_OK);
    lg_reorder_operands om = {s, LG_NO_VALUE, LG_NO_VALUE, LG_NO_VALUE, LG_NO_VALUE};
    EXPECT_ERR(lg_graph_add_reorder_attr(g, x, &q, m, &om, &v), LG_INVALID_ARGUMENT,
               "src scale mask 0x20");
    lg_attr_destroy(m);
    /* Post-ops: only one sum, with an operand of dst's dims and type. */
    lg_attr *e;
    cr_assert_eq(lg_attr_create(&e), LG_OK);
    cr_assert_eq(lg_attr_append_eltwise(e, LG_ELTWISE_RELU, 0, 0), LG_OK);
    EXPECT_ERR(lg_graph_add_reorder_attr(g, x, &q, e, NULL, &v), LG_UNIMPLEMENTED, "sum");
    lg_attr_destroy(e);
    lg_attr *sm;
    cr_assert_eq(lg_attr_create(&sm), LG_OK);
    cr_assert_eq(lg_attr_append_sum(sm, 1), LG_OK);
    lg_reorder_operands os = {LG_NO_VALUE, LG_NO_VALUE, LG_NO_VALUE, LG_NO_VALUE, x};
    EXPECT_ERR(lg_graph_add_reorder_attr(g, x, &q, sm, &os, &v), LG_INVALID_ARGUMENT,
               "sum operand");
    EXPECT_ERR(lg_graph_add_reorder_attr(g, x, &q, sm, NULL, &v), LG_INVALID_ARGUMENT,
               "operands->sum is LG_NO_VALUE");
    lg_attr_destroy(sm);
    /* The valid one is accepted; the failures left the graph unchanged. */
    cr_expect_eq(lg_graph_add_reorder_attr(g, x, &q, a, &o, &v), LG_OK, "%s", lg_last_error());
    cr_expect_eq(v, 5u);
    lg_attr_destroy(a);
    lg_graph_destroy(g);
}
