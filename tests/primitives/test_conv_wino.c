/* The Winograd F(4x4, 3x3) convolution (wino.h) against the double-precision
 * truth of test_conv_util.h, under every ISA cap the CPU has: seeded random
 * problems (N, IC, OC off the block, H / W leaving partial tiles, padding 0
 * and 1 on each side independently, bias or none, relu, sum, a general
 * chain), nChw8c, nChw16c and nhwc src / dst in several mixes, weights
 * blocked, plain or "any", the padding lanes of dst zero and nothing written outside the
 * buffers, the transformed-weights cache refreshed when the weights change,
 * LG_CONV_AUTO's choice, and the errors.
 *
 * Tolerance. Winograd computes the same sum as the direct convolution but
 * through the transforms: the input transform B^T d B (entries of B up to
 * 5, row sums of |B^T| up to 10), the products accumulated over IC in f32,
 * and the output transform A^T m A (entries up to 8, row sums of |A^T| up
 * to 18). Each transformed value rounds relative to its own magnitude,
 * which the transforms inflate by at most 10 x 10 (input) and 18 x 18
 * (output) over the magnitudes of the direct sum's terms, and the G
 * transform's 1/6, 1/12, 1/24 round once more. With mag = |bias| +
 * sum |x w| over the 9 IC taps, the bound used is
 *     |y - exact| <= WINO_FACTOR x (9 IC + 1) x 2^-23 x mag
 * (WINO_FACTOR = 8: the direct path's bound of test_conv_util.h times 8;
 * the worst measured ratio of the error to the direct bound over these
 * problems, logged by conv_wino::seeded_random, was 0.82), carried through
 * the post-op chain exactly as test_conv_util.h carries the direct bound. */
#include "test_conv_util.h"

#include "common/common.h"
#include "primitives/conv/wino.h"

#define WINO_FACTOR 8.0

typedef struct wrun {
    const char *stag, *wtag, *dtag;
    lg_conv_alg alg;
} wrun;

static double worst_ratio;

/* Create, run, compare (tolerance scaled by WINO_FACTOR); the impl name. */
static const char *run(const cprob *p, const cdata *d, const wrun *w, const char *what) {
    static char impl[64];
    int64_t sd[6], wd[6], dd[6];
    int ns = cp_src_dims(p, sd), nw = cp_wei_dims(p, wd), nds = cp_dst_dims(p, dd);
    lg_md sm, wm, dm, bm;
    cr_assert_eq(lg_md_init_tag(&sm, ns, sd, LG_F32, w->stag ? w->stag : "any"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&wm, nw, wd, LG_F32, w->wtag ? w->wtag : "any"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&dm, nds, dd, LG_F32, w->dtag ? w->dtag : "any"), LG_OK);
    int64_t oc = p->g * p->ocg;
    cr_assert_eq(lg_md_init_tag(&bm, 1, &oc, LG_F32, "a"), LG_OK);
    lg_conv_params cp;
    cp_params(p, &cp);
    cp.alg = w->alg;
    lg_attr *attr = cp_attr(p);
    lg_kernel *k = NULL;
    lg_status s = lg_conv_create(&k, &cp, &sm, &wm, p->bias ? &bm : NULL, &dm, attr);
    lg_attr_destroy(attr);
    cr_assert_eq(s, LG_OK, "%s: create: %s", what, lg_last_error());
    snprintf(impl, sizeof impl, "%s", lg_kernel_impl(k));
    lg_md qs, qw, qd;
    cr_assert_eq(lg_kernel_query_md(k, LG_ARG_SRC, &qs), LG_OK);
    cr_assert_eq(lg_kernel_query_md(k, LG_ARG_WEIGHTS, &qw), LG_OK);
    cr_assert_eq(lg_kernel_query_md(k, LG_ARG_DST, &qd), LG_OK);
    float *sb = cp_alloc(&qs, 0x7F), *wb = cp_alloc(&qw, 0), *bb = cp_alloc(&bm, 0);
    float *db = cp_alloc(&qd, 0);
    /* src padding lanes hold a large finite garbage (0x7F7F7F7F): the
     * kernel must not let it reach the result. */
    cp_scatter(&qs, d->src, sb);
    cp_scatter(&qw, d->wei, wb);
    cp_scatter(&bm, d->bias, bb);
    memset(db, 0xFF, lg_md_size(&qd));
    cp_scatter(&qd, d->old, db);
    lg_arg args[4] = {{LG_ARG_SRC, sb}, {LG_ARG_WEIGHTS, wb}, {LG_ARG_DST, db}, {LG_ARG_BIAS, bb}};
    /* Twice: the second execution reuses the transformed weights. */
    for (int rep = 0; rep < 2; rep++) {
        if (rep) cp_scatter(&qd, d->old, db);
        cr_assert_eq(lg_kernel_execute(k, p->bias ? 4 : 3, args), LG_OK, "%s: %s", what,
                     lg_last_error());
        int64_t idx[LG_MAX_NDIMS] = {0}, i = 0;
        do {
            double want = d->want[i], tol = d->tol[i] * WINO_FACTOR;
            i++;
            float got = db[lg_md_offset(&qd, idx)];
            double err = fabs((double)got - want);
            if (d->tol[i - 1] > 0 && err / d->tol[i - 1] > worst_ratio)
                worst_ratio = err / d->tol[i - 1];
            cr_assert(err <= tol,
                      "%s (%s) rep %d: dst[%lld,%lld,%lld,%lld] = %.9g, want %.9g (tol %.3g)", what,
                      impl, rep, (long long)idx[0], (long long)idx[1], (long long)idx[2],
                      (long long)idx[3], (double)got, want, tol);
        } while (cp_next(idx, dd, nds));
        cp_check_padding(&qd, db, what);
    }
    cp_check_guard(&qd, db, what);
    cp_check_guard(&qs, sb, what);
    cp_check_guard(&qw, wb, what);
    free(sb);
    free(wb);
    free(bb);
    free(db);
    lg_kernel_destroy(k);
    return impl;
}

static cprob prob(int64_t n, int64_t ic, int64_t oc, int64_t h, int64_t w, int64_t pt, int64_t pb,
                  int64_t pl, int64_t pr) {
    cprob p = {.nsp = 2, .n = n, .g = 1, .icg = ic, .ocg = oc, .bias = true};
    p.in[0] = h, p.in[1] = w;
    p.k[0] = p.k[1] = 3;
    p.st[0] = p.st[1] = 1;
    p.pl[0] = pt, p.pr[0] = pb, p.pl[1] = pl, p.pr[1] = pr;
    return p;
}

/* Epilogues: 0 bias, 1 no bias, 2 relu, 3 sum, 4 sum + relu, 5 chain. */
static void set_epi(cprob *p, int e) {
    p->bias = e != 1;
    p->npost = 0;
    if (e == 2) {
        p->npost = 1;
        p->post[0] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_RELU, 0, 0};
    } else if (e == 3 || e == 4) {
        p->npost = e == 3 ? 1 : 2;
        p->post[0] = (cpost){LG_POST_SUM, 0, 0.75f, 0};
        p->post[1] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_RELU, 0, 0};
    } else if (e == 5) {
        p->npost = 3;
        p->post[0] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_TANH, 0, 0};
        p->post[1] = (cpost){LG_POST_SUM, 0, -1.5f, 0};
        p->post[2] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_LINEAR, 0.5f, 0.25f};
    }
}

/* Layout variants: src, weights (NULL: any), dst, and the vector length
 * they need (0: the ISA's). */
static const struct {
    const char *s, *w, *d;
    int vl;
} variants[] = {
    {"aBcd8b", "ABcd8b8a", "aBcd8b", 8}, {"aBcd8b", "abcd", "aBcd8b", 8},
    {"acdb", NULL, "acdb", 0},           {"acdb", "abcd", "aBcd8b", 8},
    {"aBcd8b", NULL, "acdb", 8},         {"aBcd16b", "ABcd16b16a", "aBcd16b", 16},
};

/* Every ISA cap with a vector unit, every layout variant it runs; the impl
 * must be wino4x4 on the ISA the layouts need. */
static void run_caps(const cprob *p, const char *what, uint64_t seed) {
    lg_rng r = {seed};
    cdata d;
    cp_data(p, &r, &d);
    for (int isa = LG_ISA_AVX2; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
            if (variants[v].vl == 16 && isa < LG_ISA_AVX512) continue;
            wrun w = {variants[v].s, variants[v].w, variants[v].d, LG_CONV_WINOGRAD};
            char msg[256];
            snprintf(msg, sizeof msg, "%s [src %s, wei %s, dst %s, isa %s]", what, w.stag,
                     w.wtag ? w.wtag : "any", w.dtag, lg__isa_name(lg__cpu_isa()));
            const char *impl = run(p, &d, &w, msg);
            bool wide = variants[v].vl == 16 || (variants[v].vl == 0 && isa == LG_ISA_AVX512);
            char want[64];
            snprintf(want, sizeof want, "conv:%s:wino4x4", wide ? "avx512" : "avx2");
            cr_assert_str_eq(impl, want, "%s: impl %s", msg, impl);
        }
    }
    lg__cpu_set_isa_cap(-1);
    cp_data_free(&d);
}

Test(conv_wino, shapes_and_epilogues) {
    /* n, ic, oc, h, w, pad top, bottom, left, right */
    static const int64_t shp[][9] = {
        {1, 8, 8, 4, 4, 1, 1, 1, 1},    {1, 16, 24, 8, 8, 1, 1, 1, 1},
        {2, 13, 21, 7, 9, 1, 1, 1, 1},  {1, 3, 5, 6, 6, 0, 0, 0, 0},
        {3, 20, 11, 5, 11, 0, 1, 1, 0}, {1, 33, 50, 14, 14, 1, 1, 1, 1},
        {2, 9, 40, 3, 3, 1, 1, 1, 1},   {1, 64, 64, 13, 10, 1, 1, 0, 1},
        {1, 1, 1, 3, 3, 0, 0, 0, 0},    {2, 17, 70, 9, 6, 0, 0, 1, 1},
    };
    for (size_t i = 0; i < sizeof shp / sizeof shp[0]; i++) {
        const int64_t *s = shp[i];
        for (int e = 0; e < 6; e++) {
            if ((i + (size_t)e) % 2 && e != 3) continue; /* half the pairs, every sum */
            cprob p = prob(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8]);
            set_epi(&p, e);
            char what[160];
            snprintf(what, sizeof what, "n%lld ic%lld oc%lld %lldx%lld pad %lld/%lld,%lld/%lld %s",
                     (long long)s[0], (long long)s[1], (long long)s[2], (long long)s[3],
                     (long long)s[4], (long long)s[5], (long long)s[6], (long long)s[7],
                     (long long)s[8],
                     (const char *[]){"bias", "no bias", "relu", "sum", "sum+relu", "chain"}[e]);
            run_caps(&p, what, 100 + i * 7 + (uint64_t)e);
        }
    }
}

Test(conv_wino, seeded_random) {
    lg_rng r = {2024};
    for (int t = 0; t < 12; t++) {
        int64_t n = 1 + lg_rng_int(&r, 0, 2), ic = 1 + lg_rng_int(&r, 0, 39),
                oc = 1 + lg_rng_int(&r, 0, 39), h = 3 + lg_rng_int(&r, 0, 13),
                w = 3 + lg_rng_int(&r, 0, 13);
        int64_t pads[4];
        for (int i = 0; i < 4; i++) pads[i] = lg_rng_int(&r, 0, 1);
        if (h + pads[0] + pads[1] < 3) pads[0] = 1;
        cprob p = prob(n, ic, oc, h, w, pads[0], pads[1], pads[2], pads[3]);
        set_epi(&p, (int)(lg_rng_int(&r, 0, 5)));
        char what[96];
        snprintf(what, sizeof what, "random #%d", t);
        run_caps(&p, what, 900 + (uint64_t)t);
    }
    cr_log_info("wino: worst |error| / direct bound = %.3g (allowed %g)", worst_ratio, WINO_FACTOR);
}

/* The weights change between two executions: the cached transform must
 * be redone. */
Test(conv_wino, weights_change) {
    if (lg__cpu_isa_hw() < LG_ISA_AVX2) cr_skip_test("no AVX2");
    cprob p = prob(1, 16, 16, 8, 8, 1, 1, 1, 1);
    lg_rng r = {77};
    cdata d1, d2;
    cp_data(&p, &r, &d1);
    cp_data(&p, &r, &d2);
    int64_t sd[4], wd[4], dd[4];
    cp_src_dims(&p, sd), cp_wei_dims(&p, wd), cp_dst_dims(&p, dd);
    lg_md sm, wm, dm;
    lg_md_init_tag(&sm, 4, sd, LG_F32, "aBcd8b");
    lg_md_init_tag(&wm, 4, wd, LG_F32, "ABcd8b8a");
    lg_md_init_tag(&dm, 4, dd, LG_F32, "aBcd8b");
    lg_conv_params cp;
    cp_params(&p, &cp);
    cp.alg = LG_CONV_WINOGRAD;
    lg_kernel *k;
    cr_assert_eq(lg_conv_create(&k, &cp, &sm, &wm, NULL, &dm, NULL), LG_OK, "%s", lg_last_error());
    float *sb = cp_alloc(&sm, 0), *wb = cp_alloc(&wm, 0), *db = cp_alloc(&dm, 0);
    cp_scatter(&sm, d1.src, sb);
    lg_arg args[3] = {{LG_ARG_SRC, sb}, {LG_ARG_WEIGHTS, wb}, {LG_ARG_DST, db}};
    for (int rep = 0; rep < 2; rep++) {
        cdata *dx = rep ? &d2 : &d1;
        cp_scatter(&wm, dx->wei, wb);
        cr_assert_eq(lg_kernel_execute(k, 3, args), LG_OK);
        int64_t idx[4] = {0};
        do {
            /* The truth with weights dx and src d1 (bias off). */
            double acc = 0, mag = 0;
            for (int64_t c = 0; c < 16; c++)
                for (int a = 0; a < 3; a++)
                    for (int b = 0; b < 3; b++) {
                        int64_t y = idx[2] - 1 + a, x = idx[3] - 1 + b;
                        if (y < 0 || y >= 8 || x < 0 || x >= 8) continue;
                        double t = (double)d1.src[(c * 8 + y) * 8 + x] *
                                   dx->wei[((idx[1] * 16 + c) * 3 + a) * 3 + b];
                        acc += t, mag += fabs(t);
                    }
            float got = db[lg_md_offset(&dm, idx)];
            cr_assert(fabs(got - acc) <= WINO_FACTOR * 145 * 0x1p-23 * mag + 1e-30,
                      "rep %d: %g, want %g", rep, (double)got, acc);
        } while (cp_next(idx, dd, 4));
    }
    free(sb);
    free(wb);
    free(db);
    lg_kernel_destroy(k);
    cp_data_free(&d1);
    cp_data_free(&d2);
}

/* LG_CONV_AUTO: Winograd for a large 3x3 layer, direct for a tiny one;
 * both correct. */
Test(conv_wino, auto_choice) {
    if (lg__cpu_isa_hw() < LG_ISA_AVX2) cr_skip_test("no AVX2");
    lg__cpu_set_isa_cap(LG_ISA_AVX2);
    cprob big = prob(1, 64, 64, 28, 28, 1, 1, 1, 1), tiny = prob(1, 8, 8, 4, 4, 1, 1, 1, 1);
    lg_rng r = {5};
    cdata d;
    cp_data(&big, &r, &d);
    wrun w = {NULL, NULL, NULL, LG_CONV_AUTO};
    cr_assert_str_eq(run(&big, &d, &w, "auto big"), "conv:avx2:wino4x4");
    cp_data_free(&d);
    cp_data(&tiny, &r, &d);
    const char *impl = run(&tiny, &d, &w, "auto tiny");
    cr_assert(strstr(impl, "wino") == NULL, "auto tiny took %s", impl);
    cp_data_free(&d);
    lg__cpu_set_isa_cap(-1);
}

/* The AUTO rule (lg__conv_wino_auto). 8 lanes: 8 output tiles of 4x4 and
 * 32 channels on each side, whatever the channel count beyond. 16 lanes:
 * 32 tiles and one per 4096 IC x OC (the break-evens measured on an
 * AVX-512 host, docs/performance.md). */
Test(conv_wino, auto_rule) {
    static const struct {
        int64_t n, ch, hw;
        bool wino8, wino16;
    } cases[] = {
        {1, 512, 7, false, false}, /* 4 tiles: U streamed for too little work */
        {2, 512, 7, true, false},  /* 8 tiles */
        {8, 512, 7, true, false},  /* 32 tiles: 16 lanes need 64 at 512 channels */
        {16, 512, 7, true, true},  /* 64 tiles */
        {1, 256, 14, true, false}, /* 16 tiles */
        {2, 256, 14, true, true},  /* 32 tiles */
        {1, 128, 28, true, true},  /* 49 tiles */
        {1, 64, 56, true, true},   {1, 2048, 8, false, false}, /* 4 tiles, whatever the channels */
        {1, 32, 12, true, false},                              /* 9 tiles */
        {1, 31, 16, false, false},                             /* channels below 32: not measured */
        {2, 64, 5, true, false},  /* 2 x 2 x 2 = 8 tiles, partial ones included */
        {8, 64, 5, true, true},   /* 32 */
        {1, 64, 5, false, false}, /* 4 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        lg__conv_shape s;
        memset(&s, 0, sizeof s);
        s.n = cases[i].n, s.ic = s.oc = cases[i].ch, s.oh = s.ow = cases[i].hw;
        s.kh = s.kw = 3, s.sh = s.sw = 1;
        cr_expect_eq(lg__conv_wino_auto(&s, 8), cases[i].wino8, "8 lanes: N %lld, %lld@%lldx%lld",
                     (long long)s.n, (long long)s.ic, (long long)s.oh, (long long)s.ow);
        cr_expect_eq(lg__conv_wino_auto(&s, 16), cases[i].wino16,
                     "16 lanes: N %lld, %lld@%lldx%lld", (long long)s.n, (long long)s.ic,
                     (long long)s.oh, (long long)s.ow);
    }
}

Test(conv_wino, errors) {
    int64_t sd[4] = {1, 16, 8, 8}, wd[4] = {16, 16, 3, 3}, dd[4] = {1, 16, 8, 8},
            dd2[4] = {1, 16, 4, 4}, w1[4] = {16, 16, 1, 1};
    lg_md sm, wm, dm, dm2, wm1, sp, dp;
    lg_md_init_tag(&sm, 4, sd, LG_F32, "any");
    lg_md_init_tag(&wm, 4, wd, LG_F32, "any");
    lg_md_init_tag(&dm, 4, dd, LG_F32, "any");
    lg_md_init_tag(&dm2, 4, dd2, LG_F32, "any");
    lg_md_init_tag(&wm1, 4, w1, LG_F32, "any");
    lg_md_init_tag(&sp, 4, sd, LG_F32, "abcd");
    lg_md_init_tag(&dp, 4, dd, LG_F32, "abcd");
    lg_conv_params p;
    memset(&p, 0, sizeof p);
    p.groups = 1;
    for (int i = 0; i < 2; i++) p.pad_l[i] = p.pad_r[i] = 1, p.strides[i] = 1;
    lg_kernel *k = NULL;
    p.alg = (lg_conv_alg)7;
    cr_assert_eq(lg_conv_create(&k, &p, &sm, &wm, NULL, &dm, NULL), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "lg_conv_create") && strstr(lg_last_error(), "alg"), "%s",
              lg_last_error());
    p.alg = LG_CONV_WINOGRAD;
    if (lg__cpu_isa_hw() < LG_ISA_AVX2) return;
    /* stride 2 */
    p.strides[0] = p.strides[1] = 2;
    p.pad_r[0] = p.pad_r[1] = 0;
    cr_assert_eq(lg_conv_create(&k, &p, &sm, &wm, NULL, &dm2, NULL), LG_UNIMPLEMENTED);
    cr_assert(strstr(lg_last_error(), "stride"), "%s", lg_last_error());
    /* 1x1 kernel */
    p.strides[0] = p.strides[1] = 1;
    p.pad_l[0] = p.pad_l[1] = 0;
    cr_assert_eq(lg_conv_create(&k, &p, &sm, &wm1, NULL, &dm, NULL), LG_UNIMPLEMENTED);
    cr_assert(strstr(lg_last_error(), "3x3"), "%s", lg_last_error());
    /* plain layouts */
    p.pad_l[0] = p.pad_l[1] = p.pad_r[0] = p.pad_r[1] = 1;
    cr_assert_eq(lg_conv_create(&k, &p, &sp, &wm, NULL, &dp, NULL), LG_UNIMPLEMENTED);
    cr_assert(strstr(lg_last_error(), "channel-blocked"), "%s", lg_last_error());
    /* the scalar cap */
    lg__cpu_set_isa_cap(LG_ISA_SCALAR);
    cr_assert_eq(lg_conv_create(&k, &p, &sm, &wm, NULL, &dm, NULL), LG_UNIMPLEMENTED);
    cr_assert(strstr(lg_last_error(), "AVX2"), "%s", lg_last_error());
    lg__cpu_set_isa_cap(-1);
    /* and it works with "any" */
    cr_assert_eq(lg_conv_create(&k, &p, &sm, &wm, NULL, &dm, NULL), LG_OK, "%s", lg_last_error());
    cr_assert(strstr(lg_kernel_impl(k), "wino4x4"), "%s", lg_kernel_impl(k));
    lg_kernel_destroy(k);
}
