/* lg_conv_create through the public API: hand-computed values; every feature
 * (1D/2D/3D, strides, dilation, asymmetric padding, groups, depthwise,
 * ShuffleNet-style groups, bias, post-op chains) on seeded random data in
 * every layout family (any, plain, channels-last, blocked 8 and 16, mixed,
 * strided with gaps) under every ISA cap, against the double-precision
 * truth of test_conv_util.h (its tolerance is stated there); the layout
 * choice for "any"; the kernel cache; every bad input; allocation failures. */
#include "test_conv_util.h"

#include "common/common.h"
#include "primitives/conv/direct.h"

/* Expand 'X' in pattern into the nsp spatial letters starting at first. */
static const char *tagx(char *buf, const char *pattern, int nsp, char first) {
    size_t n = 0;
    for (const char *c = pattern; *c; c++) {
        if (*c == 'X')
            for (int i = 0; i < nsp; i++) buf[n++] = (char)(first + i);
        else
            buf[n++] = *c;
    }
    buf[n] = 0;
    return buf;
}

/* One layout family: patterns for activations (src, dst) and weights
 * (non-grouped, grouped). NULL: "any". */
typedef struct family {
    const char *name;
    const char *src, *dst, *wei, *gwei;
} family;

static const family families[] = {
    {"any", NULL, NULL, NULL, NULL},
    {"plain", "abX", "abX", "abX", "abcX"},
    {"channels-last", "aXb", "aXb", "Xba", "Xcab"},
    {"blocked8", "aBX8b", "aBX8b", "ABX8b8a", "aBCX8c8b"},
    {"blocked16 o16i", "aBX16b", "aBX16b", "ABX16a16b", "aBCX16b16c"},
    {"mixed", "abX", "aXb", NULL, NULL},
    {"mixed2", "aBX16b", "abX", "ABX8b8a", "aBCX8c8b"},
};
#define NFAM (int)(sizeof families / sizeof families[0])

static void run_family(const cprob *p, const cdata *d, const family *f, const char *what) {
    char s[64], w[64], o[64], msg[256];
    const char *st = f->src ? tagx(s, f->src, p->nsp, 'c') : NULL;
    const char *dt = f->dst ? tagx(o, f->dst, p->nsp, 'c') : NULL;
    const char *wp = p->g > 1 ? f->gwei : f->wei;
    const char *wt = wp ? tagx(w, wp, p->nsp, p->g > 1 ? 'd' : 'c') : NULL;
    snprintf(msg, sizeof msg, "%s [%s, isa %s]", what, f->name, lg__isa_name(lg__cpu_isa()));
    cp_run(p, d, st, wt, dt, msg);
}

/* Run p in every family under every ISA cap. */
static void run_everywhere(const cprob *p, const char *what, uint64_t seed) {
    lg_rng r = {seed};
    cdata d;
    cp_data(p, &r, &d);
    for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        for (int f = 0; f < NFAM; f++) run_family(p, &d, &families[f], what);
    }
    lg__cpu_set_isa_cap(-1);
    cp_data_free(&d);
}

/* A 2D problem with square geometry. */
static cprob p2d(int64_t n, int64_t g, int64_t icg, int64_t ocg, int64_t hw, int64_t k, int64_t st,
                 int64_t pad) {
    cprob p = {.nsp = 2, .n = n, .g = g, .icg = icg, .ocg = ocg, .bias = true};
    for (int i = 0; i < 2; i++) {
        p.in[i] = hw;
        p.k[i] = k;
        p.st[i] = st;
        p.pl[i] = p.pr[i] = pad;
    }
    return p;
}

Test(conv, hand_values) {
    /* src 3x3 = 1..9, weights 2x2 = [[1,2],[3,4]], bias 1.
     * stride 1, no padding: 1+4+12+20, 2+6+15+24, 4+10+21+32, 5+12+24+36 (+1).
     * stride 2, padding 1: 4*1, 3*2+4*3, 2*4+4*7, 5+12+24+36 (+1). */
    float src[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, wei[4] = {1, 2, 3, 4}, bias[1] = {1};
    const float want1[4] = {38, 48, 68, 78}, want2[4] = {5, 19, 37, 78};
    for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        for (int v = 0; v < 2; v++) {
            cprob p = {.nsp = 2, .n = 1, .g = 1, .icg = 1, .ocg = 1, .bias = true};
            for (int i = 0; i < 2; i++) {
                p.in[i] = 3, p.k[i] = 2, p.st[i] = v ? 2 : 1;
                p.pl[i] = p.pr[i] = v;
            }
            cdata d = {src, wei, bias, NULL, 9, 4, 1, 4, NULL, NULL};
            float old[4] = {0};
            d.old = old;
            cp_truth(&p, &d);
            for (int f = 0; f < 2; f++) {
                /* cp_run checks within the tolerance; integers must be exact,
                 * so check the values directly too. */
                int64_t sd[4] = {1, 1, 3, 3}, wd[4] = {1, 1, 2, 2}, dd[4] = {1, 1, 2, 2}, one = 1;
                lg_md sm, wm, dm, bm;
                const char *t = f ? "nchw" : "any";
                lg_md_init_tag(&sm, 4, sd, LG_F32, t);
                lg_md_init_tag(&wm, 4, wd, LG_F32, f ? "oihw" : "any");
                lg_md_init_tag(&dm, 4, dd, LG_F32, t);
                lg_md_init_tag(&bm, 1, &one, LG_F32, "a");
                lg_conv_params cp;
                cp_params(&p, &cp);
                lg_kernel *k;
                cr_assert_eq(lg_conv_create(&k, &cp, &sm, &wm, &bm, &dm, NULL), LG_OK, "%s",
                             lg_last_error());
                lg_md qs, qw, qd;
                lg_kernel_query_md(k, LG_ARG_SRC, &qs);
                lg_kernel_query_md(k, LG_ARG_WEIGHTS, &qw);
                lg_kernel_query_md(k, LG_ARG_DST, &qd);
                float *sb = cp_alloc(&qs, 0), *wb = cp_alloc(&qw, 0), *db = cp_alloc(&qd, 0);
                cp_scatter(&qs, src, sb);
                cp_scatter(&qw, wei, wb);
                lg_arg a[4] = {
                    {LG_ARG_SRC, sb}, {LG_ARG_WEIGHTS, wb}, {LG_ARG_BIAS, bias}, {LG_ARG_DST, db}};
                cr_assert_eq(lg_kernel_execute(k, 4, a), LG_OK, "%s", lg_last_error());
                int64_t idx[4] = {0, 0, 0, 0};
                for (int i = 0; i < 4; i++) {
                    idx[2] = i / 2, idx[3] = i % 2;
                    float got = db[lg_md_offset(&qd, idx)];
                    cr_assert_eq(got, (v ? want2 : want1)[i],
                                 "isa %d v %d f %d: [%d] = %g, want %g", isa, v, f, i, (double)got,
                                 (double)(v ? want2 : want1)[i]);
                }
                free(sb);
                free(wb);
                free(db);
                lg_kernel_destroy(k);
                cp_run(&p, &d, NULL, NULL, NULL, "hand values through cp_run");
            }
            free(d.want);
            free(d.tol);
        }
    }
    lg__cpu_set_isa_cap(-1);
}

Test(conv, conv2d_basic_and_post_ops) {
    cprob p = p2d(2, 1, 17, 20, 7, 3, 1, 1);
    run_everywhere(&p, "3x3 pad 1, 17->20", 1);
    p.npost = 1;
    p.post[0] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_RELU, 0.0f, 0.0f};
    run_everywhere(&p, "relu", 2);
    p.npost = 2;
    p.post[0] = (cpost){LG_POST_SUM, 0, 0.5f, 0};
    p.post[1] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_RELU, 0.0f, 0.0f};
    run_everywhere(&p, "sum 0.5 + relu (residual)", 3);
    p.npost = 4;
    p.post[0] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_TANH, 0, 0};
    p.post[1] = (cpost){LG_POST_SUM, 0, -1.5f, 0};
    p.post[2] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_LINEAR, 0.5f, -0.25f};
    p.post[3] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_GELU_ERF, 0, 0};
    run_everywhere(&p, "tanh, sum -1.5, linear, gelu_erf", 4);
    p.bias = false;
    p.npost = 2;
    p.post[0] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_RELU, 0.1f, 0};
    p.post[1] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_LOGISTIC, 0, 0};
    run_everywhere(&p, "no bias, leaky relu, logistic", 5);
    p.npost = 3;
    p.post[0] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_CLIP, -0.5f, 2.0f};
    p.post[1] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_SWISH, 1.5f, 0};
    p.post[2] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_HARDSWISH, 1.0f / 6, 0.5f};
    run_everywhere(&p, "clip, swish, hardswish", 6);
    p.npost = 2;
    p.post[0] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_ELU, 0.7f, 0};
    p.post[1] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_EXP, 0, 0};
    run_everywhere(&p, "elu, exp (f(0) != 0 in the padding)", 7);
}

Test(conv, strides_dilation_asymmetric_padding) {
    cprob p = p2d(2, 1, 5, 19, 11, 3, 2, 1);
    p.pr[1] = 0;
    p.pl[0] = 2;
    run_everywhere(&p, "stride 2, pads 2/1 and 1/0", 10);
    p = p2d(1, 1, 16, 16, 13, 3, 1, 0);
    p.dl[0] = 1;
    p.dl[1] = 2;
    p.pl[0] = 2, p.pr[0] = 2, p.pl[1] = 3, p.pr[1] = 1;
    run_everywhere(&p, "dilation 1 and 2, asymmetric pads", 11);
    p = p2d(1, 1, 8, 24, 9, 1, 3, 0);
    p.k[1] = 5;
    p.st[1] = 1;
    p.pl[1] = 4;
    p.pr[1] = 0;
    run_everywhere(&p, "1x5 kernel, strides 3/1, pad left 4", 12);
    p = p2d(1, 1, 4, 8, 2, 5, 1, 3);
    run_everywhere(&p, "kernel larger than the input", 13);
}

Test(conv, conv1d_and_conv3d) {
    cprob p = {.nsp = 1, .n = 2, .g = 1, .icg = 10, .ocg = 33, .bias = true};
    p.in[0] = 27, p.k[0] = 5, p.st[0] = 2, p.pl[0] = 2, p.pr[0] = 1, p.dl[0] = 1;
    run_everywhere(&p, "1D 10->33 k5 s2 d1", 20);
    cprob q = {.nsp = 3, .n = 1, .g = 1, .icg = 6, .ocg = 18, .bias = true};
    for (int i = 0; i < 3; i++) q.in[i] = 5 + i, q.k[i] = 3, q.st[i] = 1, q.pl[i] = q.pr[i] = 1;
    q.st[0] = 2;
    q.pr[2] = 0;
    q.npost = 1;
    q.post[0] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_RELU, 0, 0};
    run_everywhere(&q, "3D 6->18 3x3x3", 21);
    cprob r = q;
    r.g = 2;
    r.icg = 8, r.ocg = 16;
    run_everywhere(&r, "3D grouped", 22);
    cprob s = q;
    s.g = 24;
    s.icg = s.ocg = 1;
    run_everywhere(&s, "3D depthwise", 23);
}

Test(conv, groups_depthwise_shufflenet) {
    cprob p = p2d(2, 4, 16, 16, 9, 3, 1, 1);
    run_everywhere(&p, "4 groups of 16", 30);
    p = p2d(1, 3, 80, 20, 8, 1, 1, 0);
    run_everywhere(&p, "W1 conv1x1 g3 240->60", 31);
    p = p2d(1, 3, 20, 80, 8, 1, 1, 0);
    p.npost = 2;
    p.post[0] = (cpost){LG_POST_SUM, 0, 1.0f, 0};
    p.post[1] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_RELU, 0, 0};
    run_everywhere(&p, "W1 conv1x1 g3 60->240 + add + relu", 32);
    p = p2d(2, 60, 1, 1, 9, 3, 1, 1);
    p.bias = false;
    run_everywhere(&p, "W1 depthwise 3x3 on 60", 33);
    p = p2d(1, 116, 1, 1, 7, 3, 2, 1);
    run_everywhere(&p, "depthwise 116 stride 2", 34);
    p = p2d(1, 5, 3, 7, 6, 3, 1, 1);
    run_everywhere(&p, "5 groups 3->7", 35);
    p = p2d(1, 6, 1, 3, 6, 3, 1, 1);
    run_everywhere(&p, "channel multiplier 3 (groups == IC < OC)", 36);
    p = p2d(1, 2, 24, 40, 5, 3, 1, 1);
    run_everywhere(&p, "2 groups 24->40 (block multiples on 8 only)", 37);
}

Test(conv, long_reductions) {
    /* 1x1 reductions long enough to run in blocks (partial sums kept in dst
     * between them), with a partial last channel block in and out. */
    cprob p = p2d(2, 1, 408, 40, 9, 1, 1, 0);
    run_everywhere(&p, "1x1 408->40", 40);
    p.npost = 1;
    p.post[0] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_RELU, 0, 0};
    run_everywhere(&p, "1x1 408->40 + relu", 41);
    p.post[0] = (cpost){LG_POST_SUM, 0, 0.5f, 0};
    run_everywhere(&p, "1x1 408->40 + sum (one block)", 42);
    p = p2d(1, 1, 520, 72, 5, 1, 1, 0);
    p.bias = false;
    run_everywhere(&p, "1x1 520->72 no bias", 43);
    p = p2d(1, 1, 408, 72, 7, 1, 1, 0); /* several chunks on AVX-512 too */
    p.npost = 1;
    p.post[0] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_RELU, 0, 0};
    run_everywhere(&p, "1x1 408->72 + relu", 44);
}

Test(conv, padded_rows_and_their_fallback) {
    /* Blocked sources with pixels whose window leaves the input along W
     * run every pixel in full tiles over zero-padded copies of the rows;
     * without a free ring for them, the border pixels run one at a time.
     * Pads wider than the kernel's reach, dilation, stride 2. */
    for (int fail = 0; fail < 2; fail++) {
        lg__conv_rings_off = fail;
        cprob p = p2d(2, 1, 24, 40, 11, 3, 1, 1);
        run_everywhere(&p, fail ? "3x3 pad 1, no ring" : "3x3 pad 1", 50);
        p = p2d(1, 1, 16, 16, 9, 3, 1, 2);
        p.dl[0] = p.dl[1] = 2;
        p.pr[1] = 0;
        run_everywhere(&p, fail ? "dilated, no ring" : "dilated 3x3, pads 2/0", 51);
        p = p2d(1, 1, 20, 17, 13, 5, 2, 3);
        run_everywhere(&p, fail ? "5x5 s2, no ring" : "5x5 s2 pad 3", 52);
    }
    lg__conv_rings_off = 0;
}

Test(conv, odd_shapes) {
    /* Channels 3, 17, 58, 116, 232 in and out at spatial 1 and 7 (3x3 where
     * the input allows), and the larger spatial 27 on smaller channels. */
    static const int64_t chans[] = {3, 17, 58, 116, 232};
    uint64_t seed = 100;
    for (int c = 0; c < 5; c++)
        for (int s = 0; s < 2; s++) {
            int64_t sp = s ? 7 : 1, ic = chans[c], oc = chans[(c + 2 + s) % 5];
            cprob p = p2d(1, 1, ic, oc, sp, s ? 3 : 1, 1, s);
            char what[64];
            snprintf(what, sizeof what, "%lld->%lld at %lldx%lld", (long long)ic, (long long)oc,
                     (long long)sp, (long long)sp);
            run_everywhere(&p, what, seed++);
        }
    cprob p = p2d(1, 1, 17, 58, 27, 3, 1, 1);
    run_everywhere(&p, "3x3 17->58 at 27", seed++);
    p = p2d(1, 1, 58, 58, 27, 1, 1, 0);
    run_everywhere(&p, "1x1 58->58 at 27", seed++);
    p = p2d(1, 116, 1, 1, 27, 3, 1, 1);
    run_everywhere(&p, "depthwise 116 at 27", seed++);
    p = p2d(1, 1, 3, 17, 27, 7, 2, 3);
    run_everywhere(&p, "first layer 3->17 7x7 s2 at 27", seed++);
}

/* Random problems: every feature drawn at random, seeded. */
Test(conv, random_problems) {
    lg_rng r = {2024};
    for (int t = 0; t < 40; t++) {
        cprob p = {.nsp = (int)lg_rng_int(&r, 1, 3), .n = lg_rng_int(&r, 1, 2)};
        int kind = (int)lg_rng_int(&r, 0, 3);
        p.g = kind == 0 ? 1 : lg_rng_int(&r, 2, 5);
        p.icg = kind == 2 ? 1 : lg_rng_int(&r, 1, 24);
        p.ocg = kind == 2 ? 1 : lg_rng_int(&r, 1, 24);
        for (int i = 0; i < p.nsp; i++) {
            p.k[i] = lg_rng_int(&r, 1, 4);
            p.st[i] = lg_rng_int(&r, 1, 3);
            p.dl[i] = lg_rng_int(&r, 0, 2) == 2 ? 1 : 0;
            p.pl[i] = lg_rng_int(&r, 0, 2);
            p.pr[i] = lg_rng_int(&r, 0, 2);
            p.in[i] = lg_rng_int(&r, p.nsp == 3 ? 3 : 5, p.nsp == 1 ? 40 : (p.nsp == 2 ? 14 : 6));
            int64_t ext = (p.k[i] - 1) * (p.dl[i] + 1) + 1;
            if (p.in[i] + p.pl[i] + p.pr[i] < ext) p.in[i] = ext;
        }
        p.bias = lg_rng_int(&r, 0, 1);
        p.npost = (int)lg_rng_int(&r, 0, 3);
        for (int q = 0; q < p.npost; q++) {
            static const lg_eltwise_alg algs[] = {LG_ELTWISE_RELU, LG_ELTWISE_TANH,
                                                  LG_ELTWISE_LINEAR, LG_ELTWISE_CLIP,
                                                  LG_ELTWISE_ELU};
            if (lg_rng_int(&r, 0, 2) == 0)
                p.post[q] = (cpost){LG_POST_SUM, 0, lg_rng_float(&r, -2, 2), 0};
            else
                p.post[q] = (cpost){LG_POST_ELTWISE, algs[lg_rng_int(&r, 0, 4)],
                                    lg_rng_float(&r, -1, 1), lg_rng_float(&r, 1, 2)};
        }
        char what[64];
        snprintf(what, sizeof what, "random problem %d", t);
        run_everywhere(&p, what, 1000 + (uint64_t)t);
    }
}

/* Strided buffers with gaps (lg_md_init_strides) for every tensor. */
Test(conv, strided_with_gaps) {
    cprob p = p2d(2, 2, 5, 6, 6, 3, 1, 1);
    p.npost = 1;
    p.post[0] = (cpost){LG_POST_SUM, 0, 1.0f, 0};
    lg_rng r = {77};
    cdata d;
    cp_data(&p, &r, &d);
    int64_t sd[4], wd[5], dd[4], oc = 12;
    cp_src_dims(&p, sd);
    cp_wei_dims(&p, wd);
    cp_dst_dims(&p, dd);
    int64_t ss[4] = {10 * 6 * 8, 6 * 8, 8, 1}, dst_[4] = {12 * 7 * 6, 7 * 6, 6, 1};
    dst_[2] = 7, dst_[1] = 6 * 7 + 3, dst_[0] = 12 * (6 * 7 + 3);
    int64_t ws[5] = {6 * 5 * 9 * 2, 5 * 9 * 2, 9 * 2, 3 * 2, 2}, bs[1] = {3};
    lg_md sm, wm, dm, bm;
    cr_assert_eq(lg_md_init_strides(&sm, 4, sd, LG_F32, ss), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_md_init_strides(&wm, 5, wd, LG_F32, ws), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_md_init_strides(&dm, 4, dd, LG_F32, dst_), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_md_init_strides(&bm, 1, &oc, LG_F32, bs), LG_OK, "%s", lg_last_error());
    for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        lg_conv_params cp;
        cp_params(&p, &cp);
        lg_attr *a = cp_attr(&p);
        lg_kernel *k;
        cr_assert_eq(lg_conv_create(&k, &cp, &sm, &wm, &bm, &dm, a), LG_OK, "%s", lg_last_error());
        lg_attr_destroy(a);
        float *sb = cp_alloc(&sm, 0x7F), *wb = cp_alloc(&wm, 0x7F), *db = cp_alloc(&dm, 0x7F);
        float *bb = cp_alloc(&bm, 0x7F);
        cp_scatter(&sm, d.src, sb);
        cp_scatter(&wm, d.wei, wb);
        cp_scatter(&dm, d.old, db);
        cp_scatter(&bm, d.bias, bb);
        lg_arg args[4] = {
            {LG_ARG_SRC, sb}, {LG_ARG_WEIGHTS, wb}, {LG_ARG_BIAS, bb}, {LG_ARG_DST, db}};
        cr_assert_eq(lg_kernel_execute(k, 4, args), LG_OK, "%s", lg_last_error());
        int64_t idx[4] = {0};
        int64_t i = 0;
        do {
            double want = d.want[i], tol = d.tol[i];
            i++;
            float got = db[lg_md_offset(&dm, idx)];
            cr_assert(fabs(got - want) <= tol, "isa %d: got %g want %g", isa, (double)got, want);
        } while (cp_next(idx, dd, 4));
        /* Gaps untouched: count elements still holding the fill pattern. */
        size_t n = lg_md_size(&dm) / 4, gaps = 0;
        uint32_t fill = 0x7F7F7F7Fu;
        for (size_t e = 0; e < n; e++) gaps += memcmp(&db[e], &fill, 4) == 0;
        cr_assert_eq(gaps, n - (size_t)cp_prod(dd, 4), "isa %d: gaps were written", isa);
        cp_check_guard(&dm, db, "gaps");
        free(sb);
        free(wb);
        free(db);
        free(bb);
        lg_kernel_destroy(k);
    }
    lg__cpu_set_isa_cap(-1);
    cp_data_free(&d);
}

/* The layouts "any" resolves to (conv.h's table). */
static void expect_choice(const cprob *p, const char *ws, const char *ww, const char *wd) {
    int64_t sd[6], wd_[6], dd[6];
    int ns = cp_src_dims(p, sd), nw = cp_wei_dims(p, wd_), nd = cp_dst_dims(p, dd);
    lg_md sm, wm, dm, q;
    lg_md_init_tag(&sm, ns, sd, LG_F32, "any");
    lg_md_init_tag(&wm, nw, wd_, LG_F32, "any");
    lg_md_init_tag(&dm, nd, dd, LG_F32, "any");
    lg_conv_params cp;
    cp_params(p, &cp);
    lg_kernel *k;
    cr_assert_eq(lg_conv_create(&k, &cp, &sm, &wm, NULL, &dm, NULL), LG_OK, "%s", lg_last_error());
    char tag[128];
    const char *want[3] = {ws, ww, wd};
    int args[3] = {LG_ARG_SRC, LG_ARG_WEIGHTS, LG_ARG_DST};
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(lg_kernel_query_md(k, args[i], &q), LG_OK);
        cr_assert_eq(lg_md_tag(&q, tag, sizeof tag), LG_OK);
        cr_assert_str_eq(tag, want[i], "isa %s arg %d: %s, want %s", lg__isa_name(lg__cpu_isa()),
                         args[i], tag, want[i]);
    }
    cr_assert_eq(lg_kernel_query_md(k, LG_ARG_BIAS, &q), LG_INVALID_ARGUMENT);
    lg_kernel_destroy(k);
}

Test(conv, layout_choice_for_any) {
    cprob plain = p2d(1, 1, 64, 64, 8, 3, 1, 1);
    cprob first = p2d(1, 1, 3, 32, 8, 3, 2, 1);
    cprob dw = p2d(1, 60, 1, 1, 8, 3, 1, 1);
    cprob grp = p2d(1, 3, 80, 20, 8, 1, 1, 0);
    cprob c1 = {.nsp = 1, .n = 1, .g = 1, .icg = 16, .ocg = 16, .in = {9}, .k = {3}, .st = {1}};
    cprob c3 = {.nsp = 3, .n = 1, .g = 1, .icg = 16, .ocg = 16};
    for (int i = 0; i < 3; i++) c3.in[i] = 4, c3.k[i] = 1, c3.st[i] = 1;
    cprob dw3 = c3;
    dw3.g = 16, dw3.icg = dw3.ocg = 1;
    if (lg__cpu_isa_hw() >= LG_ISA_AVX512) {
        lg__cpu_set_isa_cap(LG_ISA_AVX512);
        expect_choice(&plain, "aBcd16b", "ABcd16b16a", "aBcd16b");
        expect_choice(&first, "abcd", "Acdb16a", "aBcd16b");
        expect_choice(&dw, "aBcd16b", "Abcde16a", "aBcd16b");
        expect_choice(&grp, "aBcd16b", "aBCde16c16b", "aBcd16b");
        expect_choice(&c1, "aBc16b", "ABc16b16a", "aBc16b");
        expect_choice(&c3, "aBcde16b", "ABcde16b16a", "aBcde16b");
        expect_choice(&dw3, "aBcde16b", "Abcdef16a", "aBcde16b");
    }
    if (lg__cpu_isa_hw() >= LG_ISA_AVX2) {
        lg__cpu_set_isa_cap(LG_ISA_AVX2);
        expect_choice(&plain, "aBcd8b", "ABcd8b8a", "aBcd8b");
        expect_choice(&first, "abcd", "Acdb8a", "aBcd8b");
        expect_choice(&dw, "aBcd8b", "Abcde8a", "aBcd8b");
        expect_choice(&grp, "aBcd8b", "aBCde8c8b", "aBcd8b");
    }
    lg__cpu_set_isa_cap(LG_ISA_SCALAR);
    expect_choice(&plain, "abcd", "abcd", "abcd");
    expect_choice(&grp, "abcd", "abcde", "abcd");
    expect_choice(&c1, "abc", "abc", "abc");
    lg__cpu_set_isa_cap(-1);
}

/* The vector paths are the ones taken (so the comparisons above test them):
 * the impl of each kind of problem under each ISA cap. */
static void expect_impl(const cprob *p, const family *f, const char *want) {
    lg_rng r = {5};
    cdata d;
    cp_data(p, &r, &d);
    char s[64], w[64], o[64];
    const char *st = f->src ? tagx(s, f->src, p->nsp, 'c') : NULL;
    const char *dt = f->dst ? tagx(o, f->dst, p->nsp, 'c') : NULL;
    const char *wp = p->g > 1 ? f->gwei : f->wei;
    const char *wt = wp ? tagx(w, wp, p->nsp, p->g > 1 ? 'd' : 'c') : NULL;
    const char *impl = cp_run(p, &d, st, wt, dt, want);
    cr_assert_str_eq(impl, want, "%s layouts: impl %s, want %s", f->name, impl, want);
    cp_data_free(&d);
}

Test(conv, vector_paths_taken) {
    cprob c3 = p2d(1, 1, 32, 48, 9, 3, 1, 1), c1 = p2d(1, 1, 32, 48, 9, 1, 1, 0);
    cprob dw = p2d(1, 40, 1, 1, 9, 3, 1, 1), first = p2d(1, 1, 3, 32, 15, 7, 2, 3);
    cprob shuf = p2d(1, 3, 20, 80, 6, 1, 1, 0), s2 = p2d(1, 1, 32, 32, 9, 3, 2, 1);
    cprob c58 = p2d(1, 1, 58, 58, 7, 1, 1, 0); /* a partial last channel block */
    const family *any = &families[0], *b8 = &families[3];
    static const family cl = {"nhwc src and dst, blocked weights", "aXb", "aXb", "ABX16b16a",
                              "aBCX16c16b"};
    if (lg__cpu_isa_hw() >= LG_ISA_AVX512) {
        lg__cpu_set_isa_cap(LG_ISA_AVX512);
        expect_impl(&c3, any, "conv:avx512:direct");
        expect_impl(&c1, any, "conv:avx512:pw");
        expect_impl(&dw, any, "conv:avx512:dw");
        expect_impl(&first, any, "conv:avx512:direct");
        expect_impl(&shuf, any, "conv:avx512:1x1"); /* groups start inside a block */
        expect_impl(&c58, any, "conv:avx512:pw");
        expect_impl(&s2, any, "conv:avx512:direct");
        expect_impl(&c3, b8, "conv:avx2:direct");
        expect_impl(&dw, b8, "conv:avx2:direct"); /* gOIx8i8o weights: the grouped path */
        expect_impl(&c3, &cl, "conv:avx512:direct");
        expect_impl(&c1, &cl, "conv:avx512:pw");
    }
    if (lg__cpu_isa_hw() >= LG_ISA_AVX2) {
        lg__cpu_set_isa_cap(LG_ISA_AVX2);
        expect_impl(&c3, any, "conv:avx2:direct");
        expect_impl(&c1, any, "conv:avx2:pw");
        expect_impl(&dw, any, "conv:avx2:dw");
        expect_impl(&first, any, "conv:avx2:direct");
        expect_impl(&shuf, any, "conv:avx2:1x1");
        expect_impl(&c58, any, "conv:avx2:pw");
    }
    lg__cpu_set_isa_cap(LG_ISA_SCALAR);
    expect_impl(&c3, any, "conv:ref");
    lg__cpu_set_isa_cap(-1);
}

Test(conv, cache_shares_kernels) {
    cprob p = p2d(1, 1, 8, 8, 5, 3, 1, 1);
    int64_t sd[4], wd[4], dd[4];
    cp_src_dims(&p, sd), cp_wei_dims(&p, wd), cp_dst_dims(&p, dd);
    lg_md sm, wm, dm;
    lg_md_init_tag(&sm, 4, sd, LG_F32, "any");
    lg_md_init_tag(&wm, 4, wd, LG_F32, "any");
    lg_md_init_tag(&dm, 4, dd, LG_F32, "any");
    lg_conv_params cp;
    cp_params(&p, &cp);
    lg_kernel *a, *b, *c;
    cr_assert_eq(lg_conv_create(&a, &cp, &sm, &wm, NULL, &dm, NULL), LG_OK);
    cr_assert_eq(lg_conv_create(&b, &cp, &sm, &wm, NULL, &dm, NULL), LG_OK);
    cr_assert_eq(a, b, "the same problem gives the cached kernel");
    /* The concrete layouts "any" chose make the same problem. */
    lg_md qs, qw, qd;
    lg_kernel_query_md(a, LG_ARG_SRC, &qs);
    lg_kernel_query_md(a, LG_ARG_WEIGHTS, &qw);
    lg_kernel_query_md(a, LG_ARG_DST, &qd);
    cr_assert_eq(lg_conv_create(&c, &cp, &qs, &qw, NULL, &qd, NULL), LG_OK);
    cr_assert_eq(a, c);
    lg_kernel_destroy(c);
    /* A different post-op chain is a different kernel. */
    lg_attr *at;
    lg_attr_create(&at);
    lg_attr_append_eltwise(at, LG_ELTWISE_RELU, 0, 0);
    cr_assert_eq(lg_conv_create(&c, &cp, &sm, &wm, NULL, &dm, at), LG_OK);
    cr_assert_neq(a, c);
    lg_attr_destroy(at);
    lg_kernel_destroy(a);
    lg_kernel_destroy(b);
    lg_kernel_destroy(c);
}

Test(conv, empty_batch_and_execute_argument_errors) {
    cprob p = p2d(0, 1, 4, 4, 5, 3, 1, 1);
    int64_t sd[4], wd[4], dd[4], oc = 4;
    cp_src_dims(&p, sd), cp_wei_dims(&p, wd), cp_dst_dims(&p, dd);
    lg_md sm, wm, dm, bm;
    lg_md_init_tag(&sm, 4, sd, LG_F32, "nchw");
    lg_md_init_tag(&wm, 4, wd, LG_F32, "oihw");
    lg_md_init_tag(&dm, 4, dd, LG_F32, "nchw");
    lg_md_init_tag(&bm, 1, &oc, LG_F32, "a");
    lg_conv_params cp;
    cp_params(&p, &cp);
    lg_kernel *k;
    cr_assert_eq(lg_conv_create(&k, &cp, &sm, &wm, &bm, &dm, NULL), LG_OK, "%s", lg_last_error());
    float w[4 * 4 * 9] = {0}, b[4] = {0};
    lg_arg args[4] = {
        {LG_ARG_SRC, NULL}, {LG_ARG_WEIGHTS, w}, {LG_ARG_BIAS, b}, {LG_ARG_DST, NULL}};
    cr_assert_eq(lg_kernel_execute(k, 4, args), LG_OK, "%s", lg_last_error());
    lg_kernel_destroy(k);
    /* N = 1: a missing bias is an error; an unknown argument too. */
    sd[0] = dd[0] = 1;
    lg_md_init_tag(&sm, 4, sd, LG_F32, "nchw");
    lg_md_init_tag(&dm, 4, dd, LG_F32, "nchw");
    cr_assert_eq(lg_conv_create(&k, &cp, &sm, &wm, &bm, &dm, NULL), LG_OK);
    float s[4 * 25] = {0}, d[4 * 25] = {0};
    lg_arg a3[3] = {{LG_ARG_SRC, s}, {LG_ARG_WEIGHTS, w}, {LG_ARG_DST, d}};
    cr_assert_eq(lg_kernel_execute(k, 3, a3), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "41"), "%s", lg_last_error());
    lg_arg a5[4] = {{LG_ARG_SRC, s}, {LG_ARG_WEIGHTS, w}, {LG_ARG_DST, d}, {LG_ARG_SRC + 1, b}};
    cr_assert_eq(lg_kernel_execute(k, 4, a5), LG_INVALID_ARGUMENT);
    lg_arg a4[4] = {{LG_ARG_SRC, s}, {LG_ARG_WEIGHTS, w}, {LG_ARG_DST, s}, {LG_ARG_BIAS, b}};
    cr_assert_eq(lg_kernel_execute(k, 4, a4), LG_INVALID_ARGUMENT, "src and dst overlap");
    lg_kernel_destroy(k);
}

/* One bad call: status and a message containing `needle`. */
static void expect_bad(lg_status want, const char *needle, const lg_conv_params *p, const lg_md *s,
                       const lg_md *w, const lg_md *b, const lg_md *d, const lg_attr *a) {
    lg_kernel *k = (lg_kernel *)0x1;
    lg_status st = lg_conv_create(&k, p, s, w, b, d, a);
    cr_assert_eq(st, want, "want %s for '%s', got %s (%s)", lg_status_str(want), needle,
                 lg_status_str(st), lg_last_error());
    cr_assert(strstr(lg_last_error(), needle), "message '%s' lacks '%s'", lg_last_error(), needle);
    cr_assert(strstr(lg_last_error(), "lg_conv_create"), "message '%s' names no function",
              lg_last_error());
}

Test(conv, bad_inputs) {
    int64_t sd[4] = {2, 8, 10, 10}, wd[4] = {16, 8, 3, 3}, dd[4] = {2, 16, 8, 8}, oc = 16;
    lg_md s, w, d, b, x;
    lg_md_init_tag(&s, 4, sd, LG_F32, "nchw");
    lg_md_init_tag(&w, 4, wd, LG_F32, "oihw");
    lg_md_init_tag(&d, 4, dd, LG_F32, "nchw");
    lg_md_init_tag(&b, 1, &oc, LG_F32, "a");
    lg_conv_params p;
    memset(&p, 0, sizeof p);
    p.strides[0] = p.strides[1] = 1;
    p.groups = 1;
    lg_kernel *k;
    cr_assert_eq(lg_conv_create(&k, &p, &s, &w, &b, &d, NULL), LG_OK, "%s", lg_last_error());
    lg_kernel_destroy(k);

    cr_assert_eq(lg_conv_create(NULL, &p, &s, &w, &b, &d, NULL), LG_INVALID_ARGUMENT);
    expect_bad(LG_INVALID_ARGUMENT, "params", NULL, &s, &w, &b, &d, NULL);
    expect_bad(LG_INVALID_ARGUMENT, "src md is NULL", &p, NULL, &w, &b, &d, NULL);
    expect_bad(LG_INVALID_ARGUMENT, "weights md is NULL", &p, &s, NULL, &b, &d, NULL);
    expect_bad(LG_INVALID_ARGUMENT, "dst md is NULL", &p, &s, &w, &b, NULL, NULL);
    memset(&x, 0, sizeof x);
    expect_bad(LG_INVALID_ARGUMENT, "not initialised", &p, &x, &w, &b, &d, NULL);
    expect_bad(LG_INVALID_ARGUMENT, "bias md is not initialised", &p, &s, &w, &x, &d, NULL);
    /* Data types (the typed path, quant.h, takes bf16 / f16 / int8). */
    lg_md_init_tag(&x, 4, sd, LG_F8_E4M3, "nchw");
    expect_bad(LG_UNIMPLEMENTED, "f8_e4m3", &p, &x, &w, &b, &d, NULL);
    lg_md_init_tag(&x, 4, wd, LG_S8, "oihw");
    expect_bad(LG_UNIMPLEMENTED, "weights s8", &p, &s, &x, &b, &d, NULL);
    lg_md_init_tag(&x, 1, &oc, LG_S8, "a");
    expect_bad(LG_UNIMPLEMENTED, "bias data type", &p, &s, &w, &x, &d, NULL);
    /* Ranks. */
    lg_md_init_tag(&x, 2, sd, LG_F32, "ab");
    expect_bad(LG_INVALID_ARGUMENT, "src has 2 dims", &p, &x, &w, &b, &d, NULL);
    int64_t d6[6] = {1, 8, 2, 2, 2, 2};
    lg_md_init_tag(&x, 6, d6, LG_F32, "abcdef");
    expect_bad(LG_INVALID_ARGUMENT, "src has 6 dims", &p, &x, &w, &b, &d, NULL);
    lg_md_init_tag(&x, 3, dd, LG_F32, "abc");
    expect_bad(LG_INVALID_ARGUMENT, "dst has 3 dims", &p, &s, &w, &b, &x, NULL);
    lg_md_init_tag(&x, 3, wd, LG_F32, "abc");
    expect_bad(LG_INVALID_ARGUMENT, "weights have 3 dims", &p, &s, &x, &b, &d, NULL);
    /* Channels and groups. */
    int64_t wbad[4] = {16, 4, 3, 3};
    lg_md_init_tag(&x, 4, wbad, LG_F32, "oihw");
    expect_bad(LG_INVALID_ARGUMENT, "src channels 8 differ from weights I 4", &p, &s, &x, &b, &d,
               NULL);
    int64_t wbad2[4] = {12, 8, 3, 3};
    lg_md_init_tag(&x, 4, wbad2, LG_F32, "oihw");
    expect_bad(LG_INVALID_ARGUMENT, "dst channels 16 differ from weights O 12", &p, &s, &x, &b, &d,
               NULL);
    lg_conv_params q = p;
    q.groups = 0;
    expect_bad(LG_INVALID_ARGUMENT, "groups 0", &q, &s, &w, &b, &d, NULL);
    q.groups = 3;
    int64_t wg[5] = {3, 5, 2, 3, 3};
    lg_md_init_tag(&x, 5, wg, LG_F32, "goihw");
    expect_bad(LG_INVALID_ARGUMENT, "groups 3 do not divide src channels 8", &q, &s, &x, &b, &d,
               NULL);
    q.groups = 2;
    int64_t wg2[5] = {3, 8, 4, 3, 3};
    lg_md_init_tag(&x, 5, wg2, LG_F32, "goihw");
    expect_bad(LG_INVALID_ARGUMENT, "weights G dim 3 differs from groups 2", &q, &s, &x, &b, &d,
               NULL);
    expect_bad(LG_INVALID_ARGUMENT, "weights have 4 dims", &q, &s, &w, &b, &d, NULL);
    int64_t dd2[4] = {2, 18, 8, 8};
    q.groups = 4;
    int64_t wg3[5] = {4, 4, 2, 3, 3};
    lg_md_init_tag(&x, 5, wg3, LG_F32, "goihw");
    lg_md y;
    lg_md_init_tag(&y, 4, dd2, LG_F32, "nchw");
    expect_bad(LG_INVALID_ARGUMENT, "groups 4 do not divide dst channels 18", &q, &s, &x, NULL, &y,
               NULL);
    int64_t dd3[4] = {3, 16, 8, 8};
    lg_md_init_tag(&x, 4, dd3, LG_F32, "nchw");
    expect_bad(LG_INVALID_ARGUMENT, "dst batch 3 differs from src batch 2", &p, &s, &w, &b, &x,
               NULL);
    /* Geometry. */
    int64_t dd4[4] = {2, 16, 9, 8};
    lg_md_init_tag(&x, 4, dd4, LG_F32, "nchw");
    expect_bad(LG_INVALID_ARGUMENT, "dst size 9 along h", &p, &s, &w, &b, &x, NULL);
    q = p;
    q.pad_l[1] = -1;
    expect_bad(LG_INVALID_ARGUMENT, "padding -1/0 along w", &q, &s, &w, &b, &d, NULL);
    q = p;
    q.pad_r[0] = -2;
    expect_bad(LG_INVALID_ARGUMENT, "negative", &q, &s, &w, &b, &d, NULL);
    q = p;
    q.strides[1] = 0;
    expect_bad(LG_INVALID_ARGUMENT, "stride 0 along w", &q, &s, &w, &b, &d, NULL);
    q = p;
    q.dilates[0] = -1;
    expect_bad(LG_INVALID_ARGUMENT, "dilate -1 along h", &q, &s, &w, &b, &d, NULL);
    q = p;
    q.pad_l[0] = INT64_MAX;
    expect_bad(LG_INVALID_ARGUMENT, "overflows", &q, &s, &w, &b, &d, NULL);
    int64_t wbig[4] = {16, 8, 13, 3};
    lg_md_init_tag(&x, 4, wbig, LG_F32, "oihw");
    expect_bad(LG_INVALID_ARGUMENT, "exceeds the padded input", &p, &s, &x, &b, &d, NULL);
    int64_t wzero[4] = {16, 8, 0, 3};
    lg_md_init_tag(&x, 4, wzero, LG_F32, "oihw");
    expect_bad(LG_INVALID_ARGUMENT, "kernel size 0 along h", &p, &s, &x, &b, &d, NULL);
    /* Bias. */
    int64_t ob = 15;
    lg_md_init_tag(&x, 1, &ob, LG_F32, "a");
    expect_bad(LG_INVALID_ARGUMENT, "bias must be 1D with 16 elements", &p, &s, &w, &x, &d, NULL);
    int64_t b2[2] = {16, 1};
    lg_md_init_tag(&x, 2, b2, LG_F32, "ab");
    expect_bad(LG_INVALID_ARGUMENT, "it has 2 dims", &p, &s, &w, &x, &d, NULL);
    /* Attributes. */
    lg_attr *a;
    lg_attr_create(&a);
    lg_attr_set_scales(a, LG_ARG_SRC, 2); /* per-channel src scales */
    expect_bad(LG_UNIMPLEMENTED, "scale", &p, &s, &w, &b, &d, a);
    lg_attr_destroy(a);
    lg_attr_create(&a);
    lg_attr_set_zero_points(a, LG_ARG_DST, 0);
    expect_bad(LG_UNIMPLEMENTED, "zero points", &p, &s, &w, &b, &d, a);
    lg_attr_destroy(a);
}

Test(conv, out_of_memory_fails_cleanly) {
    cprob p = p2d(1, 2, 8, 8, 6, 3, 1, 1);
    p.npost = 1;
    p.post[0] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_RELU, 0, 0};
    int64_t sd[4], wd[5], dd[4];
    cp_src_dims(&p, sd), cp_wei_dims(&p, wd), cp_dst_dims(&p, dd);
    lg_md sm, wm, dm;
    lg_md_init_tag(&sm, 4, sd, LG_F32, "any");
    lg_md_init_tag(&wm, 5, wd, LG_F32, "any");
    lg_md_init_tag(&dm, 4, dd, LG_F32, "any");
    lg_conv_params cp;
    cp_params(&p, &cp);
    lg_kernel_cache_set_capacity(0); /* every create builds */
    int built = 0;
    for (int64_t n = 0; n < 64 && !built; n++) {
        lg__alloc_fail_after(n);
        lg_kernel *k = NULL;
        lg_status s = lg_conv_create(&k, &cp, &sm, &wm, NULL, &dm, NULL);
        lg__alloc_fail_after(-1);
        if (s == LG_OK) {
            built = 1;
            lg_kernel_destroy(k);
        } else {
            cr_assert_eq(s, LG_OUT_OF_MEMORY, "failing allocation %lld: %s", (long long)n,
                         lg_status_str(s));
        }
    }
    cr_assert(built, "never built with 64 allocations allowed");
}
