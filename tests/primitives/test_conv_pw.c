/* The pointwise (1x1) path, conv:<isa>:pw, against the double-precision
 * truth of test_conv_util.h (its tolerance is stated there) on seeded
 * random problems: channel-blocked 8 / 16 and channels-last src and dst
 * (mixed too), strides 1 and 2, N 1..3, channel counts off the block,
 * spatial 1x1 .. 30x30, 1D / 3D, every epilogue kind (none, relu, sum,
 * sum + relu, clip in registers; other chains through the buffer), reduction
 * blocks (more input channels than one weight panel), the stack fallback
 * when no pack buffer is free, under every ISA cap this CPU has; and that
 * the pw path is the one taken where it applies. Padding lanes of a blocked
 * dst stay zero and nothing past any buffer is written (cp_run checks). */
#include "test_conv_util.h"

#include "primitives/conv/pw.h"

/* Layout combinations: src, weights, dst patterns ('X' the spatial dims);
 * vl: the channel block of the weights (the pw kernel that runs them). */
typedef struct combo {
    const char *src, *wei, *dst;
    int vl;
} combo;

static const combo combos[] = {
    {"aBX8b", "ABX8b8a", "aBX8b", 8},      {"aXb", "ABX8b8a", "aXb", 8},
    {"aBX8b", "AXb8a", "aXb", 8},          {"aXb", "ABX8b8a", "aBX8b", 8},
    {"aBX16b", "ABX16b16a", "aBX16b", 16}, {"aXb", "AXb16a", "aXb", 16},
    {"aBX16b", "ABX16b16a", "aXb", 16},
};
#define NCOMBO (int)(sizeof combos / sizeof combos[0])

static const char *tagx(char *buf, const char *pattern, int nsp) {
    size_t n = 0;
    for (const char *c = pattern; *c; c++) {
        if (*c == 'X')
            for (int i = 0; i < nsp; i++) buf[n++] = (char)('c' + i);
        else
            buf[n++] = *c;
    }
    buf[n] = 0;
    return buf;
}

/* Post-op chains: in registers (0..5), through the buffer (6..9). */
static int set_chain(cprob *p, int which) {
    static const cpost chains[][3] = {
        {{0}},
        {{LG_POST_ELTWISE, LG_ELTWISE_RELU, 0, 0}},
        {{LG_POST_SUM, 0, 1.0f, 0}},
        {{LG_POST_SUM, 0, 1.0f, 0}, {LG_POST_ELTWISE, LG_ELTWISE_RELU, 0, 0}},
        {{LG_POST_SUM, 0, 0.5f, 0}, {LG_POST_ELTWISE, LG_ELTWISE_RELU, 0, 0}},
        {{LG_POST_ELTWISE, LG_ELTWISE_CLIP, 0, 6}},
        {{LG_POST_ELTWISE, LG_ELTWISE_HARDSWISH, 1.0f / 6, 0.5f}},
        {{LG_POST_SUM, 0, 1.0f, 0}, {LG_POST_ELTWISE, LG_ELTWISE_SWISH, 1, 0}},
        {{LG_POST_ELTWISE, LG_ELTWISE_RELU, 0.1f, 0}, {LG_POST_SUM, 0, 2.0f, 0}},
        {{LG_POST_ELTWISE, LG_ELTWISE_LINEAR, 0.5f, 1}, {LG_POST_ELTWISE, LG_ELTWISE_RELU, 0, 0}},
    };
    static const int len[] = {0, 1, 1, 2, 2, 1, 1, 2, 2, 2};
    p->npost = len[which];
    for (int i = 0; i < p->npost; i++) p->post[i] = chains[which][i];
    return which;
}

/* Run p in combo c under the current cap; check the impl when the pw path
 * must take it. */
static void run_combo(const cprob *p, const cdata *d, const combo *c, bool want_pw,
                      const char *what) {
    char s[32], w[32], o[32], msg[256];
    lg__isa isa = lg__cpu_isa();
    snprintf(msg, sizeof msg, "%s [%s %s %s, isa %s]", what, c->src, c->wei, c->dst,
             lg__isa_name(isa));
    const char *impl = cp_run(p, d, tagx(s, c->src, p->nsp), tagx(w, c->wei, p->nsp),
                              tagx(o, c->dst, p->nsp), msg);
    bool vec = (c->vl == 8 && isa >= LG_ISA_AVX2) || (c->vl == 16 && isa >= LG_ISA_AVX512);
    if (want_pw && vec) {
        char want[32];
        snprintf(want, sizeof want, "conv:%s:pw", c->vl == 16 ? "avx512" : "avx2");
        cr_assert_str_eq(impl, want, "%s: impl %s", msg, impl);
    }
}

/* Every combo under every ISA cap. */
static void run_all(const cprob *p, bool want_pw, const char *what, uint64_t seed) {
    lg_rng r = {seed};
    cdata d;
    cp_data(p, &r, &d);
    for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        for (int c = 0; c < NCOMBO; c++) run_combo(p, &d, &combos[c], want_pw, what);
    }
    lg__cpu_set_isa_cap(-1);
    cp_data_free(&d);
}

static cprob pw2d(int64_t n, int64_t ic, int64_t oc, int64_t h, int64_t w, int64_t st) {
    cprob p = {.nsp = 2, .n = n, .g = 1, .icg = ic, .ocg = oc, .bias = true};
    p.in[0] = h, p.in[1] = w;
    for (int i = 0; i < 2; i++) p.k[i] = 1, p.st[i] = st;
    return p;
}

Test(conv_pw, random_problems_every_epilogue) {
    static const int64_t ics[] = {1, 3, 8, 13, 16, 24, 37, 64};
    static const int64_t ocs[] = {1, 5, 8, 16, 20, 24, 40, 57};
    lg_rng r = {2024};
    for (int t = 0; t < 40; t++) {
        int64_t n = lg_rng_int(&r, 1, 3), st = lg_rng_int(&r, 1, 2);
        int64_t h = lg_rng_int(&r, 1, 30), w = lg_rng_int(&r, 1, 30);
        if (t < 4) h = w = 1 + t * 9; /* 1x1, 10x10, 19x19, 28x28 */
        cprob p = pw2d(n, ics[lg_rng_int(&r, 0, 7)], ocs[lg_rng_int(&r, 0, 7)], h, w, st);
        p.bias = t % 5 != 0;
        set_chain(&p, t % 10);
        char what[128];
        snprintf(what, sizeof what, "pw N%lld %lld->%lld %lldx%lld s%lld chain %d", (long long)n,
                 (long long)p.icg, (long long)p.ocg, (long long)h, (long long)w, (long long)st,
                 t % 10);
        run_all(&p, true, what, 100 + (uint64_t)t);
    }
}

/* More input channels than one weight panel: several reduction blocks, the
 * partial sums kept in dst, a leading sum entering with the first block. */
Test(conv_pw, reduction_blocks) {
    for (int e = 0; e < 10; e++) {
        cprob p = pw2d(e % 2 + 1, 300 + e, 20 + 3 * e, 5, 7, 1 + e % 2);
        set_chain(&p, e);
        char what[64];
        snprintf(what, sizeof what, "pw 300+ channels, chain %d", e);
        /* a sum after the first op needs a single reduction block: another path */
        run_all(&p, e != 8, what, 7 + (uint64_t)e);
    }
}

/* Every pack buffer taken: the tiles pack their pixels on the stack. */
Test(conv_pw, stack_fallback) {
    lg__conv_pw_nobuf = 1;
    for (int e = 0; e < 4; e++) {
        cprob p = pw2d(2, 40 + 300 * (e % 2), 33, 9, 13, 2);
        set_chain(&p, e * 2);
        run_all(&p, true, "pw stack fallback", 40 + (uint64_t)e);
    }
    cprob p = pw2d(1, 24, 16, 6, 6, 1); /* stride 1: read in place, no buffer needed */
    run_all(&p, true, "pw stack fallback s1", 50);
    lg__conv_pw_nobuf = 0;
}

/* 1D and 3D, and a 2D problem with stride 2 along h only. */
Test(conv_pw, ranks_and_mixed_strides) {
    cprob p1 = {.nsp = 1,
                .n = 2,
                .g = 1,
                .icg = 19,
                .ocg = 26,
                .in = {17},
                .k = {1},
                .st = {2},
                .bias = true};
    run_all(&p1, true, "pw 1D", 1);
    cprob p3 = {.nsp = 3, .n = 1, .g = 1, .icg = 12, .ocg = 18, .bias = true};
    for (int i = 0; i < 3; i++) p3.in[i] = 5, p3.k[i] = 1, p3.st[i] = 1 + (i == 1);
    set_chain(&p3, 3);
    run_all(&p3, true, "pw 3D", 2);
    cprob p2 = pw2d(3, 17, 9, 11, 8, 1);
    p2.st[0] = 2;
    set_chain(&p2, 6);
    run_all(&p2, true, "pw 2D s(2,1)", 3);
}

/* Where the pw path does not apply, another one runs: padding, a 3x3
 * kernel, groups. */
Test(conv_pw, declined_problems_still_correct) {
    cprob pad = pw2d(1, 16, 16, 6, 6, 1);
    pad.pl[0] = pad.pr[0] = 1;
    run_all(&pad, false, "1x1 padded", 4);
    cprob grp = pw2d(1, 16, 16, 6, 6, 1);
    grp.g = 2, grp.icg = grp.ocg = 8;
    lg_rng r = {5};
    cdata d;
    cp_data(&grp, &r, &d);
    for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        const char *impl = cp_run(&grp, &d, "aBcd8b", "aBCde8c8b", "aBcd8b", "1x1 grouped");
        cr_assert(strstr(impl, ":pw") == NULL, "grouped 1x1 ran %s", impl);
    }
    lg__cpu_set_isa_cap(-1);
    cp_data_free(&d);
}

/* A lone clip (relu6 in MobileNets) runs in registers: bounds the data
 * crosses on both sides, channels off the block, one and several reduction
 * blocks, channels-last src read in place (N 1..2, a 1x1 image). */
Test(conv_pw, clip_in_registers) {
    static const int64_t shp[][6] = {
        /* n, ic, oc, h, w, stride */
        {1, 16, 20, 9, 11, 1}, {2, 37, 57, 6, 5, 1}, {1, 300, 24, 4, 7, 1},
        {2, 24, 13, 1, 1, 1},  {1, 19, 40, 7, 9, 2},
    };
    for (size_t i = 0; i < sizeof shp / sizeof shp[0]; i++) {
        const int64_t *q = shp[i];
        cprob p = pw2d(q[0], q[1], q[2], q[3], q[4], q[5]);
        p.bias = i % 2 == 0;
        p.npost = 1;
        p.post[0] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_CLIP, -0.25f, 0.375f};
        char what[96];
        snprintf(what, sizeof what, "pw clip N%lld %lld->%lld %lldx%lld s%lld", (long long)q[0],
                 (long long)q[1], (long long)q[2], (long long)q[3], (long long)q[4],
                 (long long)q[5]);
        run_all(&p, true, what, 300 + (uint64_t)i);
    }
}
