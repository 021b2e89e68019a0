/* lg_inner_product_create through the public API: every path against an
 * exact result computed here in double (products summed in logical order),
 * within a relative bound, on seeded random problems: ranks 2-5, src plain,
 * channels-last and channel-blocked by 8 and 16 (channels not a multiple of
 * the block), N = 1, 3, 16, OC not a multiple of the block, with and
 * without bias, eltwise and sum post-ops, weights in the kernel's layout
 * and in the plain one (the reference), every ISA cap; dst bytes past the
 * tensor untouched; bad input. */
#include "primitives/cpu.h"
#include "test_layers_util.h"
#include "test_util.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct post {
    int n;
    int kind[3]; /* 0 eltwise, 1 sum */
    lg_eltwise_alg alg[3];
    float a[3], b[3];
} post;

static double post_exact(const post *p, double v, double old) {
    for (int i = 0; i < p->n; i++) {
        if (p->kind[i]) {
            v += p->a[i] * old;
        } else if (p->alg[i] == LG_ELTWISE_RELU) {
            v = v > 0 ? v : p->a[i] * v;
        } else if (p->alg[i] == LG_ELTWISE_CLIP) {
            v = v < p->a[i] ? p->a[i] : v > p->b[i] ? p->b[i] : v;
        } else {
            v = p->a[i] * v + p->b[i];
        }
    }
    return v;
}

/* The growth of an error through the chain (linear's |alpha|, sums). */
static double post_gain(const post *p) {
    double g = 1;
    for (int i = 0; i < p->n; i++)
        if (!p->kind[i] && p->alg[i] == LG_ELTWISE_LINEAR)
            g *= fabs(p->a[i]) > 1 ? fabs(p->a[i]) : 1;
    return g;
}

static void fill_logical(lg_rng *r, const lg_md *md, float *buf) {
    int64_t idx[LG_MAX_NDIMS] = {0};
    do {
        buf[lg_md_offset(md, idx)] = lg_rng_float(r, -1.0f, 1.0f);
    } while (next_idx(idx, md->dims, md->ndims));
}

typedef struct problem {
    int nd;
    int64_t sdims[5], oc;
    int fam;        /* src layout family (test_layers_util.h) */
    bool bias;      /* with a bias */
    bool plain_wei; /* weights given plain (oihw-like), else "any" */
    post p;
} problem;

static void run(lg_rng *r, const problem *pb) {
    int nd = pb->nd;
    char stag[32];
    family_tag(pb->fam, nd, stag);
    lg_md src, wei_any, dst, bias;
    cr_assert_eq(lg_md_init_tag(&src, nd, pb->sdims, LG_F32, stag), LG_OK, "%s", lg_last_error());
    int64_t wdims[5], ddims[2] = {pb->sdims[0], pb->oc}, bdims[1] = {pb->oc};
    memcpy(wdims, pb->sdims, sizeof wdims);
    wdims[0] = pb->oc;
    char ptag[8] = "abcde";
    ptag[nd] = 0;
    cr_assert_eq(lg_md_init_tag(&wei_any, nd, wdims, LG_F32, pb->plain_wei ? ptag : "any"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&dst, 2, ddims, LG_F32, "any"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&bias, 1, bdims, LG_F32, "a"), LG_OK);
    lg_attr *attr;
    cr_assert_eq(lg_attr_create(&attr), LG_OK);
    for (int i = 0; i < pb->p.n; i++) {
        if (pb->p.kind[i])
            cr_assert_eq(lg_attr_append_sum(attr, pb->p.a[i]), LG_OK);
        else
            cr_assert_eq(lg_attr_append_eltwise(attr, pb->p.alg[i], pb->p.a[i], pb->p.b[i]), LG_OK);
    }
    size_t ssz = lg_md_size(&src);
    float *s = calloc(1, ssz), *b = malloc((size_t)pb->oc * 4);
    fill_logical(r, &src, s);
    for (int64_t o = 0; o < pb->oc; o++) b[o] = lg_rng_float(r, -1.0f, 1.0f);
    int64_t n = pb->sdims[0], k = 1;
    for (int d = 1; d < nd; d++) k *= pb->sdims[d];
    /* Logical weights (oc, k) and the old dst (n, oc). */
    float *wl = malloc((size_t)(pb->oc * k) * 4), *old = malloc((size_t)(n * pb->oc) * 4);
    for (int64_t i = 0; i < pb->oc * k; i++) wl[i] = lg_rng_float(r, -1.0f, 1.0f);
    for (int64_t i = 0; i < n * pb->oc; i++) old[i] = lg_rng_float(r, -1.0f, 1.0f);
    char what[200];
    snprintf(what, sizeof what, "src %s %lldx%lldx.. (nd %d) oc %lld bias %d wei %s post %d", stag,
             (long long)pb->sdims[0], (long long)pb->sdims[1], nd, (long long)pb->oc, pb->bias,
             pb->plain_wei ? "plain" : "any", pb->p.n);
    for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        lg_kernel *kr;
        cr_assert_eq(
            lg_inner_product_create(&kr, &src, &wei_any, pb->bias ? &bias : NULL, &dst, attr),
            LG_OK, "%s: %s", what, lg_last_error());
        const char *impl = lg_kernel_impl(kr);
        if (isa > 0 && !pb->plain_wei) cr_assert(!strstr(impl, "ref"), "%s: %s", what, impl);
        lg_md wmd, dmd;
        cr_assert_eq(lg_kernel_query_md(kr, LG_ARG_WEIGHTS, &wmd), LG_OK);
        cr_assert_eq(lg_kernel_query_md(kr, LG_ARG_DST, &dmd), LG_OK);
        size_t wsz = lg_md_size(&wmd), dsz = lg_md_size(&dmd);
        float *w = calloc(1, wsz);
        unsigned char *d = malloc(dsz + 64);
        memset(d + dsz, 0xa5, 64);
        int64_t idx[5] = {0}, o2[2];
        do {
            int64_t kk = 0;
            for (int e = 1; e < nd; e++) kk = kk * wdims[e] + idx[e];
            w[lg_md_offset(&wmd, idx)] = wl[idx[0] * k + kk];
        } while (next_idx(idx, wdims, nd));
        for (o2[0] = 0; o2[0] < n; o2[0]++)
            for (o2[1] = 0; o2[1] < pb->oc; o2[1]++)
                ((float *)d)[lg_md_offset(&dmd, o2)] = old[o2[0] * pb->oc + o2[1]];
        lg_arg a[4] = {{LG_ARG_SRC, s}, {LG_ARG_WEIGHTS, w}, {LG_ARG_DST, d}, {LG_ARG_BIAS, b}};
        cr_assert_eq(lg_kernel_execute(kr, pb->bias ? 4 : 3, a), LG_OK, "%s", lg_last_error());
        double gain = post_gain(&pb->p);
        for (o2[0] = 0; o2[0] < n; o2[0]++)
            for (o2[1] = 0; o2[1] < pb->oc; o2[1]++) {
                double acc = 0, mag = 0;
                memset(idx, 0, sizeof idx);
                idx[0] = o2[0];
                int64_t kk = 0;
                int64_t sd1[5];
                memcpy(sd1, pb->sdims, sizeof sd1);
                sd1[0] = 1;
                int64_t id2[5] = {0};
                do {
                    id2[0] = o2[0];
                    double t = (double)s[lg_md_offset(&src, id2)] * wl[o2[1] * k + kk++];
                    id2[0] = 0;
                    acc += t;
                    mag += fabs(t);
                } while (next_idx(id2, sd1, nd));
                if (pb->bias) acc += b[o2[1]], mag += fabs(b[o2[1]]);
                double oldv = old[o2[0] * pb->oc + o2[1]];
                double want = post_exact(&pb->p, acc, oldv);
                double got = ((float *)d)[lg_md_offset(&dmd, o2)];
                double tol = ((double)k + 8) * 0x1p-23 * (mag + 2) * gain + 1e-6;
                cr_assert(fabs(got - want) <= tol, "%s isa %d (%s): (%lld, %lld) %.9g, exact %.9g",
                          what, isa, impl, (long long)o2[0], (long long)o2[1], got, want);
            }
        for (size_t i = dsz; i < dsz + 64; i++)
            cr_assert_eq(d[i], 0xa5, "%s: wrote past dst", what);
        free(w);
        free(d);
        lg_kernel_destroy(kr);
    }
    lg__cpu_set_isa_cap(-1);
    lg_attr_destroy(attr);
    free(s);
    free(b);
    free(wl);
    free(old);
}

static void random_post(lg_rng *r, post *p) {
    p->n = (int)lg_rng_int(r, 0, 3);
    for (int i = 0; i < p->n; i++) {
        p->kind[i] = lg_rng_int(r, 0, 3) == 0;
        p->a[i] = lg_rng_float(r, -1.5f, 1.5f);
        p->b[i] = lg_rng_float(r, 0.0f, 2.0f);
        int a = (int)lg_rng_int(r, 0, 2);
        p->alg[i] = a == 0 ? LG_ELTWISE_RELU : a == 1 ? LG_ELTWISE_CLIP : LG_ELTWISE_LINEAR;
        if (p->alg[i] == LG_ELTWISE_CLIP) p->a[i] = -p->b[i];
        if (p->alg[i] == LG_ELTWISE_RELU && lg_rng_int(r, 0, 1)) p->a[i] = 0;
    }
}

Test(inner_product, random_every_layout_isa) {
    lg_rng r = {0x1b01};
    const int64_t ns[3] = {1, 3, 16};
    for (int t = 0; t < 120; t++) {
        problem pb;
        memset(&pb, 0, sizeof pb);
        pb.nd = (int)lg_rng_int(&r, 2, 5);
        pb.sdims[0] = ns[lg_rng_int(&r, 0, 2)];
        pb.sdims[1] = lg_rng_int(&r, 1, pb.nd == 2 ? 70 : 21);
        for (int d = 2; d < pb.nd; d++) pb.sdims[d] = lg_rng_int(&r, 1, pb.nd > 3 ? 3 : 5);
        pb.oc = lg_rng_int(&r, 1, 70);
        pb.fam = pb.nd == 2 ? 0 : (int)lg_rng_int(&r, 0, 3);
        pb.bias = lg_rng_int(&r, 0, 1);
        pb.plain_wei = lg_rng_int(&r, 0, 5) == 0;
        random_post(&r, &pb.p);
        run(&r, &pb);
    }
}

/* Classifier heads: 2048 -> 1000 at N = 1 and 16, and a blocked 7x7 src. */
Test(inner_product, classifier_heads) {
    lg_rng r = {0x1b02};
    problem pb;
    memset(&pb, 0, sizeof pb);
    pb.nd = 2;
    pb.sdims[1] = 1280;
    pb.oc = 1000;
    pb.bias = true;
    for (int i = 0; i < 2; i++) {
        pb.sdims[0] = i ? 16 : 1;
        run(&r, &pb);
    }
    pb.nd = 4;
    pb.sdims[0] = 3;
    pb.sdims[1] = 36;
    pb.sdims[2] = pb.sdims[3] = 7;
    pb.oc = 21;
    pb.fam = 3;
    pb.p.n = 1;
    pb.p.alg[0] = LG_ELTWISE_RELU;
    run(&r, &pb);
}

/* The layouts "any" takes (ip.h's table) on this CPU. */
Test(inner_product, any_layouts) {
    int64_t sd[4] = {2, 19, 3, 3}, wd[4] = {10, 19, 3, 3}, dd[2] = {2, 10};
    lg_md src, wei, dst;
    cr_assert_eq(lg_md_init_tag(&src, 4, sd, LG_F32, "nChw8c"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&wei, 4, wd, LG_F32, "any"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&dst, 2, dd, LG_F32, "any"), LG_OK);
    for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        lg_kernel *k;
        cr_assert_eq(lg_inner_product_create(&k, &src, &wei, NULL, &dst, NULL), LG_OK);
        lg_md w, d;
        char tag[64];
        cr_assert_eq(lg_kernel_query_md(k, LG_ARG_WEIGHTS, &w), LG_OK);
        cr_assert_eq(lg_md_tag(&w, tag, sizeof tag), LG_OK);
        const char *want = isa == 0 ? "abcd" : isa == 1 ? "ABcd8b8a" : "ABcd8b16a";
        cr_assert_str_eq(tag, want, "isa %d", isa);
        cr_assert_eq(lg_kernel_query_md(k, LG_ARG_DST, &d), LG_OK);
        cr_assert_eq(lg_md_tag(&d, tag, sizeof tag), LG_OK);
        cr_assert_str_eq(tag, "ab");
        lg_kernel_destroy(k);
    }
    lg__cpu_set_isa_cap(-1);
}

static void expect_bad(lg_status want, lg_status got, const char *words) {
    cr_assert_eq(got, want, "status %d, want %d (%s)", got, want, lg_last_error());
    cr_assert(strstr(lg_last_error(), "lg_inner_product_create"), "%s", lg_last_error());
    cr_assert(strstr(lg_last_error(), words), "'%s' lacks '%s'", lg_last_error(), words);
}

Test(inner_product, bad_input) {
    int64_t sd[2] = {4, 8}, wd[2] = {5, 8}, dd[2] = {4, 5}, bd[1] = {5};
    lg_md src, wei, dst, bias, m;
    lg_md_init_tag(&src, 2, sd, LG_F32, "ab");
    lg_md_init_tag(&wei, 2, wd, LG_F32, "any");
    lg_md_init_tag(&dst, 2, dd, LG_F32, "ab");
    lg_md_init_tag(&bias, 1, bd, LG_F32, "a");
    lg_kernel *k = (lg_kernel *)&m;
    expect_bad(LG_INVALID_ARGUMENT, lg_inner_product_create(NULL, &src, &wei, NULL, &dst, NULL),
               "kernel");
    expect_bad(LG_INVALID_ARGUMENT, lg_inner_product_create(&k, NULL, &wei, NULL, &dst, NULL),
               "src");
    cr_assert_null(k);
    expect_bad(LG_INVALID_ARGUMENT, lg_inner_product_create(&k, &src, NULL, NULL, &dst, NULL),
               "weights");
    expect_bad(LG_INVALID_ARGUMENT, lg_inner_product_create(&k, &src, &wei, NULL, NULL, NULL),
               "dst");
    int64_t w2[2] = {5, 9};
    lg_md_init_tag(&m, 2, w2, LG_F32, "ab");
    expect_bad(LG_INVALID_ARGUMENT, lg_inner_product_create(&k, &src, &m, NULL, &dst, NULL),
               "weights md dim 1");
    int64_t d2[2] = {4, 6};
    lg_md_init_tag(&m, 2, d2, LG_F32, "ab");
    expect_bad(LG_INVALID_ARGUMENT, lg_inner_product_create(&k, &src, &wei, NULL, &m, NULL),
               "dst md");
    int64_t b2[1] = {4};
    lg_md_init_tag(&m, 1, b2, LG_F32, "a");
    expect_bad(LG_INVALID_ARGUMENT, lg_inner_product_create(&k, &src, &wei, &m, &dst, NULL),
               "bias md");
    int64_t w3[3] = {5, 8, 1};
    lg_md_init_tag(&m, 3, w3, LG_F32, "abc");
    expect_bad(LG_INVALID_ARGUMENT, lg_inner_product_create(&k, &src, &m, NULL, &dst, NULL),
               "weights md has 3 dims");
    lg_md_init_tag(&m, 2, sd, LG_BF16, "ab");
    expect_bad(LG_UNIMPLEMENTED, lg_inner_product_create(&k, &m, &wei, NULL, &dst, NULL),
               "src md data type is bf16");
    int64_t s0[2] = {0, 8};
    lg_md_init_tag(&m, 2, s0, LG_F32, "ab");
    expect_bad(LG_INVALID_ARGUMENT, lg_inner_product_create(&k, &m, &wei, NULL, &dst, NULL),
               "src md dim 0");
    int64_t s6[6] = {1, 1, 1, 1, 1, 1};
    lg_md_init_tag(&m, 6, s6, LG_F32, "abcdef");
    expect_bad(LG_INVALID_ARGUMENT, lg_inner_product_create(&k, &m, &wei, NULL, &dst, NULL),
               "src md has 6 dims");
    lg_attr *attr;
    lg_attr_create(&attr);
    lg_attr_set_scales(attr, LG_ARG_SRC, 0);
    expect_bad(LG_UNIMPLEMENTED, lg_inner_product_create(&k, &src, &wei, NULL, &dst, attr),
               "scales");
    lg_attr_destroy(attr);
    lg_md bad = src;
    bad.ndims = 0;
    expect_bad(LG_INVALID_ARGUMENT, lg_inner_product_create(&k, &bad, &wei, NULL, &dst, NULL),
               "src md");
    /* Execution without the weights is refused. */
    cr_assert_eq(lg_inner_product_create(&k, &src, &wei, &bias, &dst, NULL), LG_OK);
    float buf[64] = {0};
    lg_arg a[3] = {{LG_ARG_SRC, buf}, {LG_ARG_BIAS, buf + 32}, {LG_ARG_DST, buf + 40}};
    cr_assert_eq(lg_kernel_execute(k, 3, a), LG_INVALID_ARGUMENT);
    lg_kernel_destroy(k);
}
