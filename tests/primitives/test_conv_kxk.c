/* The kxk direct convolution and the depthwise convolution's fast paths
 * (direct.h) against the double-precision truth of test_conv_util.h (its
 * tolerance is stated there), under every ISA cap the CPU has: stride-2
 * blocked tiles (with and without the padded-row ring), the rows-inside-
 * chunks order of convs whose weights exceed L2, the dense depthwise tiles
 * (3x3 and 5x5, stride 1 and 2, interior and border tiles), channels-last
 * (nhwc) activations for both, channels that are not a multiple of the
 * block, N 1..3, every epilogue kind (none, bias, relu, sum, sum + relu, a
 * general chain); the padding lanes of a blocked dst read back as zero
 * (cp_run checks them, and that nothing is written outside the buffers).
 * Each family names the path it must take on AVX2 and AVX-512, so a test
 * that silently fell back to the reference would fail. */
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

/* A layout family: src, dst, weights (dense, depthwise) patterns (NULL:
 * "any"), the vector length its blocked layouts need (0: any ISA's), and
 * whether the fast path must take it. */
typedef struct family {
    const char *name;
    const char *src, *dst, *wei, *dwei;
    int vl;
} family;

static const family families[] = {
    {"any", NULL, NULL, NULL, NULL, 0},
    {"nhwc, weights any", "aXb", "aXb", NULL, NULL, 0},
    {"nhwc src, blocked8 dst", "aXb", "aBX8b", "ABX8b8a", "AbcX8a", 8},
    {"blocked8", "aBX8b", "aBX8b", "ABX8b8a", "AbcX8a", 8},
    {"blocked16", "aBX16b", "aBX16b", "ABX16b16a", "AbcX16a", 16},
    {"blocked8 src, nhwc dst", "aBX8b", "aXb", "ABX8b8a", "AbcX8a", 8},
};
#define NFAM (int)(sizeof families / sizeof families[0])

/* The ISA whose kernels a family's layouts run on under cap isa, or -1
 * (the reference). */
static int fam_isa(const family *f, int isa) {
    if (isa < LG_ISA_AVX2) return -1;
    if (f->vl == 16) return isa >= LG_ISA_AVX512 ? LG_ISA_AVX512 : -1;
    if (f->vl == 8) return LG_ISA_AVX2;
    return isa;
}

/* Run p in every family under every ISA cap; where the layouts fit a
 * vector path, the impl must be `path` on that ISA ("direct", "dw"). */
static void run_all(const cprob *p, const char *what, const char *path, uint64_t seed) {
    lg_rng r = {seed};
    cdata d;
    cp_data(p, &r, &d);
    for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        for (int fi = 0; fi < NFAM; fi++) {
            const family *f = &families[fi];
            char s[64], w[64], o[64], msg[256];
            const char *st = f->src ? tagx(s, f->src, p->nsp, 'c') : NULL;
            const char *dt = f->dst ? tagx(o, f->dst, p->nsp, 'c') : NULL;
            const char *wp = p->g > 1 ? f->dwei : f->wei;
            const char *wt = wp ? tagx(w, wp, p->nsp, p->g > 1 ? 'd' : 'c') : NULL;
            snprintf(msg, sizeof msg, "%s [%s, isa %s]", what, f->name,
                     lg__isa_name(lg__cpu_isa()));
            const char *impl = cp_run(p, &d, st, wt, dt, msg);
            int want = fam_isa(f, isa);
            if (want < 0) continue;
            char wimpl[64];
            snprintf(wimpl, sizeof wimpl, "conv:%s:%s", want == LG_ISA_AVX512 ? "avx512" : "avx2",
                     path);
            cr_assert_str_eq(impl, wimpl, "%s: impl %s, want %s", msg, impl, wimpl);
        }
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

/* The epilogue kinds: 0 bias only, 1 no bias, 2 relu, 3 sum, 4 sum + relu,
 * 5 a general chain (sum, tanh, linear). */
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
        p->post[0] = (cpost){LG_POST_SUM, 0, -1.5f, 0};
        p->post[1] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_TANH, 0, 0};
        p->post[2] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_LINEAR, 0.5f, 0.25f};
    }
}

static const char *epi_name[6] = {"bias", "no bias", "relu", "sum", "sum+relu", "chain"};

Test(conv_kxk, stride2_blocked_tiles) {
    /* 3x3 / 5x5 / 7x7 at stride 2, pads 0..3, channels on and off the
     * block, with the padded-row ring and without (border kernel). */
    static const int64_t shp[][6] = {
        /* ic, oc, hw, k, pad, n */
        {16, 32, 14, 3, 1, 1}, {20, 36, 15, 3, 1, 2}, {24, 40, 28, 3, 1, 1},
        {17, 9, 9, 5, 2, 3},   {32, 16, 11, 7, 3, 1}, {40, 24, 8, 3, 0, 1},
    };
    uint64_t seed = 300;
    for (int fail = 0; fail < 2; fail++) {
        lg__conv_rings_off = fail;
        for (size_t i = 0; i < sizeof shp / sizeof shp[0]; i++) {
            const int64_t *q = shp[i];
            cprob p = p2d(q[5], 1, q[0], q[1], q[2], q[3], 2, q[4]);
            set_epi(&p, (int)(i + fail) % 6);
            char what[128];
            snprintf(what, sizeof what, "%lldx%lld s2 %lld->%lld at %lld pad %lld N %lld %s%s",
                     (long long)q[3], (long long)q[3], (long long)q[0], (long long)q[1],
                     (long long)q[2], (long long)q[4], (long long)q[5], epi_name[(i + fail) % 6],
                     fail ? ", no ring" : "");
            run_all(&p, what, "direct", seed++);
        }
    }
    lg__conv_rings_off = 0;
}

Test(conv_kxk, ring_tap_table) {
    /* Whole channel blocks (32 -> 48: 2 and 3 blocks of 16, 4 and 6 of 8)
     * take the padded rows' tap table: dilation 1 and 2, stride 1 and 2,
     * pads 1..2, N 3 (the granules the threads take cross images, and the
     * next row's source prefetch reaches into the next image). */
    static const int64_t shp[][5] = {
        /* hw, stride, dilation (dl: 1 is 2), pad, n */
        {13, 1, 0, 1, 3},
        {12, 2, 0, 1, 3},
        {11, 1, 1, 2, 3},
        {16, 2, 1, 2, 2},
    };
    uint64_t seed = 350;
    for (size_t i = 0; i < sizeof shp / sizeof shp[0]; i++) {
        const int64_t *q = shp[i];
        cprob p = p2d(q[4], 1, 32, 48, q[0], 3, q[1], q[3]);
        p.dl[0] = p.dl[1] = q[2];
        set_epi(&p, (int)i % 6);
        char what[128];
        snprintf(what, sizeof what, "3x3 s%lld dil %lld 32->48 at %lld pad %lld N %lld %s",
                 (long long)q[1], (long long)q[2] + 1, (long long)q[0], (long long)q[3],
                 (long long)q[4], epi_name[i % 6]);
        run_all(&p, what, "direct", seed++);
    }
}

Test(conv_kxk, ring_l1_prefetch) {
    /* The ring's steps with and without the L1 prefetches (direct.h
     * ring_l1pf: a chunk's weights past 48 KB; the edge sections prefetch
     * either way). 3x3 16 -> 16 (9 KB of weights) walks its middle
     * sections without them; 3x3 256 -> 64 (576 KB: a chunk of one 8-wide
     * block is 72 KB) with them, its prefetches reaching across the taps'
     * boundaries and, at a tile's last step, past its data. */
    static const int64_t shp[][5] = {
        /* ic, oc, hw, n, prefetching plans */
        {16, 16, 14, 2, 0},
        {256, 64, 14, 2, 1},
        {256, 64, 9, 1, 1},
    };
    uint64_t seed = 370;
    for (size_t i = 0; i < sizeof shp / sizeof shp[0]; i++) {
        const int64_t *q = shp[i];
        cprob p = p2d(q[3], 1, q[0], q[1], q[2], 3, 1, 1);
        set_epi(&p, (int)i % 6);
        char what[128];
        snprintf(what, sizeof what, "3x3 %lld->%lld at %lld N %lld %s", (long long)q[0],
                 (long long)q[1], (long long)q[2], (long long)q[3], epi_name[i % 6]);
        long before = atomic_load(&lg__conv_l1pf_plans);
        run_all(&p, what, "direct", seed++);
        long built = atomic_load(&lg__conv_l1pf_plans) - before;
        if (q[4])
            cr_assert_gt(built, 0, "%s: no plan prefetched the ring's steps", what);
        else
            cr_assert_eq(built, 0, "%s: %ld plans prefetched the ring's steps", what, built);
    }
}

Test(conv_kxk, ring_edge_sections) {
    /* The ring's tap table in edge sections (direct.h ring_edge): the
     * row's first pixel skips the kw = 0 column, its last the kw = KW - 1
     * one. Rows of 2 tiles (28) and of one tile holding both pixels (5),
     * a 2-wide kernel (both sections, no middle), stride 2 on an odd width
     * (right section) and an even one (left only), dilation 2
     * and pads 1 and 2, pad 1 on the left only (no right section), 5x5
     * pad 2 (sections; the second pixel still multiplies the ring's
     * zeros). Where only the sections' skipped taps read padding, the
     * blocked layouts' plans read the source's own rows (direct.h
     * src_rows, counted); pad 2 at stride 1, on either side, needs the
     * ring's zeros. */
    static const int64_t shp[][9] = {
        /* hw, k, stride, dilation (dl: 1 is 2), pad left, pad right, n, oc, src_rows */
        {28, 3, 1, 0, 1, 1, 2, 32, 1}, {5, 3, 1, 0, 1, 1, 1, 48, 1},  {5, 2, 1, 0, 1, 1, 2, 32, 1},
        {13, 3, 2, 0, 1, 1, 1, 32, 1}, {12, 3, 2, 0, 1, 1, 2, 48, 1}, {10, 3, 1, 1, 1, 1, 1, 32, 1},
        {10, 3, 1, 1, 2, 2, 1, 32, 0}, {9, 3, 1, 0, 1, 0, 2, 48, 1},  {11, 5, 1, 0, 2, 2, 1, 32, 0},
        {9, 3, 1, 0, 1, 2, 1, 32, 0},
    };
    uint64_t seed = 380;
    for (size_t i = 0; i < sizeof shp / sizeof shp[0]; i++) {
        const int64_t *q = shp[i];
        cprob p = p2d(q[6], 1, 32, q[7], q[0], q[1], q[2], q[4]);
        p.dl[0] = p.dl[1] = q[3];
        p.pr[1] = q[5];
        set_epi(&p, (int)i % 6);
        char what[160];
        snprintf(
            what, sizeof what, "%lldx%lld s%lld dil %lld 32->%lld at %lld pad %lld,%lld N %lld %s",
            (long long)q[1], (long long)q[1], (long long)q[2], (long long)q[3] + 1, (long long)q[7],
            (long long)q[0], (long long)q[4], (long long)q[5], (long long)q[6], epi_name[i % 6]);
        long before = atomic_load(&lg__conv_src_row_plans);
        run_all(&p, what, "direct", seed++);
        long built = atomic_load(&lg__conv_src_row_plans) - before;
        if (q[8])
            cr_assert_gt(built, 0, "%s: no plan read the source's rows", what);
        else
            cr_assert_eq(built, 0, "%s: %ld plans read the source's rows", what, built);
    }
}

/* Run p on its nchw source under the current ISA cap against the
 * reference (cp_run), and require the direct path of that ISA. */
static void run_nchw_direct(const cprob *p, const cdata *d, const char *what) {
    const char *impl = cp_run(p, d, "abcd", NULL, NULL, what);
    char want[64];
    snprintf(want, sizeof want, "conv:%s:direct", lg__isa_name(lg__cpu_isa()));
    cr_assert_str_eq(impl, want, "%s: impl %s, want %s", what, impl, want);
}

Test(conv_kxk, tap_table_remainders) {
    /* A plain (nchw) stride-2 source walks its (kh, kw, channel) taps
     * three a loop: tap counts of every remainder mod 3 (7x7 with 1 or 2
     * channels, 5x5 with 4, 3x3 with 3), kernel rows clipped at the top and
     * bottom borders (the first tap past 0), N 1..2, every ISA path. */
    static const int64_t shp[][6] = {
        /* ic, oc, hw, k, pad, n */
        {1, 16, 19, 7, 3, 1},
        {2, 24, 17, 7, 3, 2},
        {4, 32, 13, 5, 2, 1},
        {3, 20, 15, 3, 1, 2},
    };
    for (size_t i = 0; i < sizeof shp / sizeof shp[0]; i++) {
        const int64_t *q = shp[i];
        cprob p = p2d(q[5], 1, q[0], q[1], q[2], q[3], 2, q[4]);
        set_epi(&p, (int)i % 6);
        lg_rng r = {400 + (uint64_t)i};
        cdata d;
        cp_data(&p, &r, &d);
        for (int isa = LG_ISA_AVX2; isa <= (int)lg__cpu_isa_hw(); isa++) {
            lg__cpu_set_isa_cap(isa);
            char what[128];
            snprintf(what, sizeof what, "%lldx%lld s2 %lld->%lld at %lld N %lld nchw [isa %s]",
                     (long long)q[3], (long long)q[3], (long long)q[0], (long long)q[1],
                     (long long)q[2], (long long)q[5], lg__isa_name(lg__cpu_isa()));
            run_nchw_direct(&p, &d, what);
        }
        lg__cpu_set_isa_cap(-1);
        cp_data_free(&d);
    }
}

Test(conv_kxk, tap_edge_tiles) {
    /* A plain (nchw) stride-2 source runs whole rows in tiles, the first
     * and the last skipping the pixels whose kernel column reads padding
     * (direct.h tap_ecase): 7x7 pad 3 (first tile: 2, 1 and 0 pixels
     * skipped; last: 1 or 2, by the row's parity), 5x5 pad 2, 3x3 pad 1
     * (left only), asymmetric pads, dilation 2, 1..4 channels, rows of 2
     * and 3 tiles with a shorter last one, N 1..2, every epilogue. The plan
     * must take the edge tiles (counted), on every ISA path. */
    static const int64_t shp[][9] = {
        /* ic, oc, hw, k, pad left, pad right, dilation, n, epilogue */
        {3, 64, 56, 7, 3, 3, 1, 1, 0}, {3, 32, 69, 7, 3, 3, 1, 2, 2}, {1, 32, 45, 7, 3, 3, 1, 1, 3},
        {4, 64, 40, 5, 2, 2, 1, 2, 4}, {3, 32, 45, 3, 1, 1, 1, 1, 5}, {2, 32, 50, 7, 2, 3, 1, 1, 1},
        {3, 32, 47, 3, 2, 2, 2, 2, 2}, {3, 64, 66, 7, 3, 2, 1, 1, 3},
    };
    for (size_t i = 0; i < sizeof shp / sizeof shp[0]; i++) {
        const int64_t *q = shp[i];
        cprob p = p2d(q[7], 1, q[0], q[1], q[2], q[3], 2, q[4]);
        p.pr[0] = p.pr[1] = q[5];
        p.dl[0] = p.dl[1] = q[6] - 1;
        set_epi(&p, (int)q[8]);
        lg_rng r = {1000 + (uint64_t)i};
        cdata d;
        cp_data(&p, &r, &d);
        for (int isa = LG_ISA_AVX2; isa <= (int)lg__cpu_isa_hw(); isa++) {
            lg__cpu_set_isa_cap(isa);
            char what[160];
            snprintf(what, sizeof what,
                     "%lldx%lld s2 dil %lld %lld->%lld at %lld pads %lld,%lld N %lld %s [isa %s]",
                     (long long)q[3], (long long)q[3], (long long)q[6], (long long)q[0],
                     (long long)q[1], (long long)q[2], (long long)q[4], (long long)q[5],
                     (long long)q[7], epi_name[q[8]], lg__isa_name(lg__cpu_isa()));
            long before = atomic_load(&lg__conv_edge_plans);
            run_nchw_direct(&p, &d, what);
            cr_assert_gt(atomic_load(&lg__conv_edge_plans), before, "%s: no edge tiles", what);
        }
        lg__cpu_set_isa_cap(-1);
        cp_data_free(&d);
    }
}

Test(conv_kxk, epilogues_small_spatial) {
    /* Every epilogue on 3x3 stride 1 and 2 at 7x7 and 14x14 spatial. */
    uint64_t seed = 400;
    for (int e = 0; e < 6; e++)
        for (int st = 1; st <= 2; st++) {
            cprob p = p2d(1 + e % 3, 1, 24 + 4 * e, 20 + 8 * st, st == 1 ? 7 : 14, 3, st, 1);
            set_epi(&p, e);
            char what[128];
            snprintf(what, sizeof what, "3x3 s%d %lld->%lld %s", st, (long long)p.icg,
                     (long long)p.ocg, epi_name[e]);
            run_all(&p, what, "direct", seed++);
        }
}

Test(conv_kxk, weights_beyond_l2_rows_inside_chunks) {
    /* 3x3 with weights over 1 MB: the rows of a chunk run in turn
     * (rows_inner), stride 1 and 2, N 2 (items cross images), a partial
     * last channel block (180 = 22.5 blocks of 8). */
    cprob p = p2d(2, 1, 192, 180, 5, 3, 1, 1);
    set_epi(&p, 4);
    run_all(&p, "3x3 192->180 at 5 sum+relu", "direct", 500);
    p = p2d(1, 1, 180, 192, 7, 3, 2, 1);
    set_epi(&p, 2);
    run_all(&p, "3x3 s2 180->192 at 7 relu", "direct", 501);
}

Test(conv_kxk, depthwise_dense_tiles) {
    /* 3x3 and 5x5 depthwise at stride 1 and 2: rows wider than one tile
     * (interior tiles and both borders), pads 0..2, channels 8, 20, 64
     * (partial last block: in nhwc its loads are masked), N 1..3. */
    static const int64_t shp[][5] = {
        /* channels, hw, k, stride, pad */
        {20, 29, 3, 1, 1}, {64, 30, 3, 2, 1}, {8, 13, 3, 2, 0}, {20, 27, 5, 1, 2},
        {40, 31, 5, 2, 2}, {20, 7, 5, 2, 1},  {24, 1, 3, 1, 1}, {12, 9, 7, 1, 3},
    };
    uint64_t seed = 600;
    for (size_t i = 0; i < sizeof shp / sizeof shp[0]; i++) {
        const int64_t *q = shp[i];
        cprob p = p2d(1 + (int64_t)i % 3, q[0], 1, 1, q[1], q[2], q[3], q[4]);
        set_epi(&p, (int)i % 6);
        char what[128];
        snprintf(what, sizeof what, "dw %lldx%lld s%lld on %lld at %lld pad %lld %s",
                 (long long)q[2], (long long)q[2], (long long)q[3], (long long)q[0],
                 (long long)q[1], (long long)q[4], epi_name[i % 6]);
        run_all(&p, what, "dw", seed++);
    }
    /* asymmetric padding (TF "same" at stride 2) and every epilogue on one */
    for (int e = 0; e < 6; e++) {
        cprob p = p2d(1, 24, 1, 1, 12, 3, 2, 0);
        p.pr[0] = p.pr[1] = 1;
        set_epi(&p, e);
        char what[128];
        snprintf(what, sizeof what, "dw 3x3 s2 pads 0/1 %s", epi_name[e]);
        run_all(&p, what, "dw", seed++);
    }
}

Test(conv_kxk, random_problems) {
    /* Seeded random kxk and depthwise problems over the fast paths'
     * parameters. */
    lg_rng r = {77};
    for (int t = 0; t < 24; t++) {
        bool dw = t % 2;
        int64_t k = (int64_t[]){3, 5, 7}[lg_rng_int(&r, 0, 2)], st = lg_rng_int(&r, 1, 2);
        int64_t c = lg_rng_int(&r, 2, 40), hw = lg_rng_int(&r, k > 3 ? 4 : 2, 20);
        cprob p = dw ? p2d(lg_rng_int(&r, 1, 3), c, 1, 1, hw, k, st, lg_rng_int(&r, 0, k / 2))
                     : p2d(lg_rng_int(&r, 1, 2), 1, c, lg_rng_int(&r, 1, 40), hw, k, st,
                           lg_rng_int(&r, 0, k / 2));
        if (p.in[0] + 2 * p.pl[0] < k) p.in[0] = p.in[1] = k;
        set_epi(&p, (int)lg_rng_int(&r, 0, 5));
        char what[128];
        snprintf(what, sizeof what, "random %s %d", dw ? "depthwise" : "kxk", t);
        run_all(&p, what, dw ? "dw" : "direct", 700 + (uint64_t)t);
    }
}

Test(conv_kxk, depthwise_clip_in_registers) {
    /* A lone clip (relu6 in MobileNets) runs in the
     * depthwise tiles' registers: bounds the data crosses on both sides,
     * 3x3 / 5x5 at stride 1 and 2, channels on and off the block (a
     * blocked dst's padding lanes stay zero; an nhwc partial block takes the
     * general epilogue), N 1..2, with and without bias. */
    static const int64_t shp[][5] = {
        /* channels, hw, k, stride, pad */
        {20, 29, 3, 1, 1}, {64, 30, 3, 2, 1}, {16, 7, 3, 1, 1}, {12, 15, 5, 2, 2}, {9, 6, 5, 1, 2},
    };
    for (size_t i = 0; i < sizeof shp / sizeof shp[0]; i++) {
        const int64_t *q = shp[i];
        cprob p = p2d(1 + (int64_t)i % 2, q[0], 1, 1, q[1], q[2], q[3], q[4]);
        p.bias = i % 2 == 0;
        p.npost = 1;
        p.post[0] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_CLIP, -0.25f, 0.375f};
        char what[128];
        snprintf(what, sizeof what, "dw %lldx%lld s%lld on %lld at %lld clip", (long long)q[2],
                 (long long)q[2], (long long)q[3], (long long)q[0], (long long)q[1]);
        run_all(&p, what, "dw", 900 + (uint64_t)i);
    }
}

Test(conv_kxk, direct_clip_in_registers) {
    /* A lone clip (relu6: MobileNetV2's first layer) runs in the direct
     * tiles' registers: the first-layer form (3 input channels, a plain
     * source under "any", stride 2), dense 3x3 at stride 2 and 5x5 at
     * stride 1 (3x3 stride 1 may take the Winograd path), output channels
     * on and off the block (a blocked dst's padding lanes stay zero; an
     * nhwc partial block takes the general epilogue), with and without
     * bias, bounds the data crosses on both sides. */
    static const int64_t shp[][6] = {
        /* in channels, out channels, hw, k, stride, pad */
        {3, 32, 23, 3, 2, 1},  {3, 20, 17, 7, 2, 3}, {24, 20, 9, 3, 2, 1},
        {16, 40, 12, 3, 2, 1}, {8, 12, 11, 5, 1, 2},
    };
    for (size_t i = 0; i < sizeof shp / sizeof shp[0]; i++) {
        const int64_t *q = shp[i];
        cprob p = p2d(1 + (int64_t)i % 2, 1, q[0], q[1], q[2], q[3], q[4], q[5]);
        p.bias = i % 2 == 0;
        p.npost = 1;
        p.post[0] = (cpost){LG_POST_ELTWISE, LG_ELTWISE_CLIP, -0.25f, 0.375f};
        char what[128];
        snprintf(what, sizeof what, "%lldx%lld s%lld %lld->%lld at %lld clip", (long long)q[3],
                 (long long)q[3], (long long)q[4], (long long)q[0], (long long)q[1],
                 (long long)q[2]);
        run_all(&p, what, "direct", 950 + (uint64_t)i);
    }
}
