/* lg_pool_create through the public API: every path against the scalar
 * reference (lg__pool_ref) on seeded random problems over the layout
 * families, data types, algorithms, 1D/2D/3D geometry and every ISA cap the
 * CPU has; dst over garbage, so the padding must come back zero. All paths
 * match the reference bit for bit except global average pooling on plain
 * layouts (vector plane sums: a different summation order). Hand-computed
 * cases and every bad input. */
#include "memory/convert.h"
#include "primitives/layout.h"
#include "primitives/pool/pool.h"
#include "test_layers_util.h"
#include "test_util.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Random logical elements of md into a zeroed buffer. */
static void *fill(const lg_md *md, lg_rng *r, bool specials) {
    size_t sz = lg_md_size(md);
    void *b = calloc(1, sz + 64);
    int64_t idx[LG_MAX_NDIMS] = {0};
    lg_dtype dt = md->dtype;
    do {
        int64_t off = lg_md_offset(md, idx);
        if (dt == LG_S32)
            ((int32_t *)b)[off] = (int32_t)lg_rng_int(r, -(1 << 30), 1 << 30);
        else if (dt == LG_S8)
            ((int8_t *)b)[off] = (int8_t)lg_rng_int(r, -128, 127);
        else if (dt == LG_U8)
            ((uint8_t *)b)[off] = (uint8_t)lg_rng_int(r, 0, 255);
        else {
            float v = lg_rng_float(r, -10.0f, 10.0f);
            int64_t z = lg_rng_int(r, 0, 199);
            if (specials && z == 0) v = NAN;
            if (specials && z == 1) v = INFINITY;
            if (specials && z == 2) v = -INFINITY;
            lg__store_f32(b, dt, off, v);
        }
    } while (next_idx(idx, md->dims, md->ndims));
    return b;
}

typedef struct problem {
    int nd, alg, sfam, dfam;
    lg_dtype dt;
    int64_t n, c, in[3];
    lg_pool_params p;
} problem;

/* Check one problem at every ISA cap against the reference. */
static void check(const problem *pr, lg_rng *r, const char *expect_path) {
    int64_t sd[5] = {pr->n, pr->c}, dd[5] = {pr->n, pr->c};
    for (int i = 0; i < pr->nd - 2; i++) {
        const lg_pool_params *p = &pr->p;
        sd[2 + i] = pr->in[i];
        dd[2 + i] = (pr->in[i] + p->pad_l[i] + p->pad_r[i] -
                     ((p->kernel[i] - 1) * (p->dilates[i] + 1) + 1)) /
                        p->strides[i] +
                    1;
    }
    char st[32], dtg[32];
    family_tag(pr->sfam, pr->nd, st);
    family_tag(pr->dfam, pr->nd, dtg);
    lg_md sm, dm;
    cr_assert_eq(lg_md_init_tag(&sm, pr->nd, sd, pr->dt, st), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_md_init_tag(&dm, pr->nd, dd, pr->dt, dtg), LG_OK, "%s", lg_last_error());
    void *src = fill(&sm, r, lg_rng_int(r, 0, 3) == 0);
    size_t dsz = lg_md_size(&dm);
    unsigned char *want = malloc(dsz + 64), *got = malloc(dsz + 64);
    char what[256];
    snprintf(what, sizeof what, "%s alg %d %s -> %s nd %d n %lld c %lld", lg_dtype_str(pr->dt),
             pr->alg, st, dtg, pr->nd, (long long)pr->n, (long long)pr->c);
    /* The truth. */
    lg__pool_pd pd;
    memset(&pd, 0, sizeof pd);
    pd.src = sm;
    pd.dst = dm;
    pd.alg = pr->alg;
    pd.nsp = pr->nd - 2;
    for (int i = 0; i < 3; i++) pd.k[i] = pd.s[i] = 1;
    for (int i = 0; i < pd.nsp; i++) {
        int j = 3 - pd.nsp + i;
        pd.k[j] = pr->p.kernel[i];
        pd.s[j] = pr->p.strides[i];
        pd.dil[j] = pr->p.dilates[i];
        pd.pl[j] = pr->p.pad_l[i];
        pd.cpr[j] = pr->alg == 1 ? pr->p.pad_r[i] - pr->p.pad_r_ceil[i] : 0;
    }
    lg__pool_geom g;
    cr_assert(lg__pool_geom_init(&pd, &g));
    int64_t *tab = lg__md_has_padding(&dm) ? lg__offtab_new(&dm, dm.padded_dims, false) : NULL;
    memset(want, 0xa5, dsz + 64);
    lg__pool_ref(&pd, &g, tab, src, want);
    lg__free(tab);
    lg__free(g.mem);
    for (int isa = 0; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        lg_kernel *k = NULL;
        cr_assert_eq(lg_pool_create(&k, &pr->p, &sm, &dm), LG_OK, "%s: %s", what, lg_last_error());
        const char *impl = lg_kernel_impl(k);
        if (expect_path) cr_assert(strstr(impl, expect_path), "%s: impl %s", what, impl);
        if (pr->sfam == pr->dfam) cr_assert(!strstr(impl, "ref"), "%s: impl %s", what, impl);
        memset(got, 0xa5, dsz + 64);
        lg_arg args[2] = {{LG_ARG_SRC, src}, {LG_ARG_DST, got}};
        cr_assert_eq(lg_kernel_execute(k, 2, args), LG_OK, "%s", lg_last_error());
        bool approx = strstr(impl, "global") && pr->sfam == 0 && isa > 0 && pr->dt != LG_S32 &&
                      pr->dt != LG_S8 && pr->dt != LG_U8;
        if (!approx) {
            /* NaN payloads may differ (operand order of commutative ops): equal
             * the NaN pairs, then compare every byte. */
            int64_t idx[LG_MAX_NDIMS] = {0};
            size_t esz = lg_dtype_size(pr->dt);
            do {
                int64_t off = lg_md_offset(&dm, idx);
                if (isnan(lg__load_f32(want, pr->dt, off)) && isnan(lg__load_f32(got, pr->dt, off)))
                    memcpy(got + off * (int64_t)esz, want + off * (int64_t)esz, esz);
            } while (next_idx(idx, dm.dims, dm.ndims));
            size_t at = 0;
            while (at < dsz + 64 && want[at] == got[at]) at++;
            cr_assert(at == dsz + 64, "%s isa %d (%s): byte %zu of %zu differs from ref", what, isa,
                      impl, at, dsz);
        } else {
            int64_t idx[LG_MAX_NDIMS] = {0};
            double tol = pr->dt == LG_F32 ? 1e-5 : pr->dt == LG_F16 ? 2e-3 : 1.6e-2;
            do {
                int64_t off = lg_md_offset(&dm, idx);
                float a = lg__load_f32(want, pr->dt, off), b = lg__load_f32(got, pr->dt, off);
                cr_assert(fabsf(a - b) <= tol * (1 + fabsf(a)) || (isnan(a) && isnan(b)) || a == b,
                          "%s isa %d: %g vs %g", what, isa, (double)a, (double)b);
            } while (next_idx(idx, dm.dims, dm.ndims));
            cr_assert(memcmp(want + dsz, got + dsz, 64) == 0, "%s: wrote past dst", what);
        }
        lg_kernel_destroy(k);
    }
    lg__cpu_set_isa_cap(-1);
    free(src);
    free(want);
    free(got);
}

static const lg_dtype dts[] = {LG_F32, LG_BF16, LG_F16, LG_S32, LG_S8, LG_U8};

/* A random valid geometry. */
static void random_problem(lg_rng *r, problem *pr, bool global) {
    memset(pr, 0, sizeof *pr);
    pr->nd = (int)lg_rng_int(r, 3, 5);
    pr->alg = (int)lg_rng_int(r, global ? 1 : 0, 2);
    pr->sfam = (int)lg_rng_int(r, 0, 3);
    pr->dfam = pr->sfam;
    pr->dt = dts[lg_rng_int(r, 0, 5)];
    pr->n = lg_rng_int(r, 1, 2);
    pr->c = lg_rng_int(r, 1, 40);
    for (int i = 0; i < pr->nd - 2; i++) {
        lg_pool_params *p = &pr->p;
        int64_t I = lg_rng_int(r, 1, pr->nd == 5 ? 6 : 13);
        pr->in[i] = I;
        if (global) {
            p->kernel[i] = I;
            p->strides[i] = 1;
            continue;
        }
        p->kernel[i] = lg_rng_int(r, 1, 4);
        p->strides[i] = lg_rng_int(r, 1, 3);
        p->dilates[i] = lg_rng_int(r, 0, 3) == 0 ? 1 : 0;
        p->pad_l[i] = lg_rng_int(r, 0, 2);
        p->pad_r[i] = lg_rng_int(r, 0, 2);
        /* Part of pad_r only there for ceil_mode (avg_p divides by less). */
        if (lg_rng_int(r, 0, 2) == 0) p->pad_r_ceil[i] = lg_rng_int(r, 0, p->pad_r[i]);
        while ((p->kernel[i] - 1) * (p->dilates[i] + 1) + 1 > I + p->pad_l[i] + p->pad_r[i])
            p->kernel[i]--;
    }
    pr->p.alg = (lg_pool_alg)pr->alg;
}

Test(pool, random_every_layout_type_isa) {
    lg_rng r = {0x5eed01};
    for (int t = 0; t < 300; t++) {
        problem pr;
        random_problem(&r, &pr, false);
        check(&pr, &r, NULL);
    }
}

Test(pool, random_global) {
    lg_rng r = {0x5eed02};
    for (int t = 0; t < 120; t++) {
        problem pr;
        random_problem(&r, &pr, true);
        check(&pr, &r, "global");
    }
}

/* Long rows, many channels: the 4-vector steps, the gathers, thread splits. */
Test(pool, larger_problems) {
    lg_rng r = {0x5eed03};
    const lg_dtype ds[] = {LG_F32, LG_BF16, LG_F16, LG_S8};
    for (int f = 0; f < 4; f++)
        for (int t = 0; t < 4; t++) {
            problem pr = {.nd = 4,
                          .alg = t % 3,
                          .sfam = f,
                          .dfam = f,
                          .dt = ds[t],
                          .n = 2,
                          .c = 70,
                          .in = {37, 41}};
            pr.p = (lg_pool_params){(lg_pool_alg)pr.alg, {3, 3}, {2, 2}, {0}, {1, 1}, {1, 1}, {0}};
            check(&pr, &r, pr.sfam == 0 ? "plain" : "inner");
            pr.p = (lg_pool_params){(lg_pool_alg)pr.alg, {2, 3}, {1, 1}, {0, 1}, {0}, {1, 2}, {0}};
            check(&pr, &r, NULL);
        }
    problem gp = {
        .nd = 4, .alg = 1, .sfam = 1, .dfam = 1, .dt = LG_F32, .n = 3, .c = 600, .in = {7, 7}};
    gp.p = (lg_pool_params){LG_POOL_AVG_INCLUDE_PADDING, {7, 7}, {1, 1}, {0}, {0}, {0}, {0}};
    check(&gp, &r, "global");
}

/* Mixed layouts run the reference; dst "any" takes src's family. */
Test(pool, mixed_layouts_and_any) {
    lg_rng r = {0x5eed04};
    for (int s = 0; s < 4; s++)
        for (int d = 0; d < 4; d++) {
            if (s == d) continue;
            problem pr = {.nd = 4,
                          .alg = (s + d) % 3,
                          .sfam = s,
                          .dfam = d,
                          .dt = LG_F32,
                          .n = 1,
                          .c = 19,
                          .in = {6, 7}};
            pr.p = (lg_pool_params){(lg_pool_alg)pr.alg, {2, 2}, {2, 2}, {0}, {1, 0}, {1, 1}, {0}};
            check(&pr, &r, NULL);
        }
    const char *fams[] = {"nchw", "nhwc", "nChw8c", "nChw16c"};
    const char *want[] = {"abcd", "acdb", "aBcd8b", "aBcd16b"};
    for (int f = 0; f < 4; f++) {
        int64_t sd[4] = {2, 19, 8, 8}, dd[4] = {2, 19, 4, 4};
        lg_md sm, dm;
        cr_assert_eq(lg_md_init_tag(&sm, 4, sd, LG_F32, fams[f]), LG_OK);
        cr_assert_eq(lg_md_init_tag(&dm, 4, dd, LG_F32, "any"), LG_OK);
        lg_pool_params p = {LG_POOL_MAX, {2, 2}, {2, 2}, {0}, {0}, {0}, {0}};
        lg_kernel *k;
        cr_assert_eq(lg_pool_create(&k, &p, &sm, &dm), LG_OK, "%s", lg_last_error());
        lg_md q;
        cr_assert_eq(lg_kernel_query_md(k, LG_ARG_DST, &q), LG_OK);
        char tag[64];
        cr_assert_eq(lg_md_tag(&q, tag, sizeof tag), LG_OK);
        cr_assert_str_eq(tag, want[f]);
        cr_assert(!strstr(lg_kernel_impl(k), "ref"), "%s", lg_kernel_impl(k));
        lg_kernel_destroy(k);
    }
}

/* Hand-computed: 1x1x4x4, values 0..15. */
Test(pool, hand_values) {
    float src[16], dst[9];
    for (int i = 0; i < 16; i++) src[i] = (float)i;
    int64_t sd[4] = {1, 1, 4, 4}, d2[4] = {1, 1, 2, 2}, d3[4] = {1, 1, 3, 3};
    lg_md sm, dm;
    lg_md_init_tag(&sm, 4, sd, LG_F32, "nchw");
    lg_md_init_tag(&dm, 4, d2, LG_F32, "nchw");
    lg_kernel *k;
    lg_pool_params p = {LG_POOL_MAX, {2, 2}, {2, 2}, {0}, {0}, {0}, {0}};
    cr_assert_eq(lg_pool_create(&k, &p, &sm, &dm), LG_OK);
    lg_arg a[2] = {{LG_ARG_SRC, src}, {LG_ARG_DST, dst}};
    cr_assert_eq(lg_kernel_execute(k, 2, a), LG_OK);
    cr_assert(dst[0] == 5 && dst[1] == 7 && dst[2] == 13 && dst[3] == 15);
    lg_kernel_destroy(k);
    /* 2x2 stride 2, pad 1 both sides: 3x3 outputs; corner (0,0) sees only src[0]. */
    lg_md_init_tag(&dm, 4, d3, LG_F32, "nchw");
    p = (lg_pool_params){LG_POOL_AVG_EXCLUDE_PADDING, {2, 2}, {2, 2}, {0}, {1, 1}, {1, 1}, {0}};
    cr_assert_eq(lg_pool_create(&k, &p, &sm, &dm), LG_OK);
    cr_assert_eq(lg_kernel_execute(k, 2, a), LG_OK);
    cr_assert(dst[0] == 0.0f && dst[1] == 1.5f && dst[4] == 7.5f && dst[8] == 15.0f);
    lg_kernel_destroy(k);
    p.alg = LG_POOL_AVG_INCLUDE_PADDING;
    cr_assert_eq(lg_pool_create(&k, &p, &sm, &dm), LG_OK);
    cr_assert_eq(lg_kernel_execute(k, 2, a), LG_OK);
    cr_assert(dst[0] == 0.0f && dst[1] == 0.75f && dst[4] == 7.5f && dst[8] == 3.75f);
    lg_kernel_destroy(k);
    /* Integer average rounds to nearest even: (1 + 2) / 2 = 1.5 -> 2, (2 + 3) / 2 = 2.5 -> 2. */
    int8_t is[4] = {1, 2, 3, -128}, id[3];
    int64_t s1[3] = {1, 1, 4}, o1[3] = {1, 1, 3};
    lg_md_init_tag(&sm, 3, s1, LG_S8, "ncw");
    lg_md_init_tag(&dm, 3, o1, LG_S8, "ncw");
    p = (lg_pool_params){LG_POOL_AVG_INCLUDE_PADDING, {2}, {1}, {0}, {0}, {0}, {0}};
    cr_assert_eq(lg_pool_create(&k, &p, &sm, &dm), LG_OK);
    lg_arg b[2] = {{LG_ARG_SRC, is}, {LG_ARG_DST, id}};
    cr_assert_eq(lg_kernel_execute(k, 2, b), LG_OK);
    cr_assert(id[0] == 2 && id[1] == 2 && id[2] == -62, "%d %d %d", id[0], id[1], id[2]);
    lg_kernel_destroy(k);
    /* ceil_mode with count_include_pad (PyTorch's avg_pool1d(1..6, 3, 2, 1,
     * ceil_mode=True, count_include_pad=True) = 1 3 5 3): the last window
     * [5, 8) holds 6, one explicit pad and one ceil pad, divided by 2. */
    float c6[6] = {1, 2, 3, 4, 5, 6}, c4[4];
    int64_t s6[3] = {1, 1, 6}, o4[3] = {1, 1, 4};
    lg_md_init_tag(&sm, 3, s6, LG_F32, "ncw");
    lg_md_init_tag(&dm, 3, o4, LG_F32, "ncw");
    p = (lg_pool_params){LG_POOL_AVG_INCLUDE_PADDING, {3}, {2}, {0}, {1}, {2}, {1}};
    cr_assert_eq(lg_pool_create(&k, &p, &sm, &dm), LG_OK, "%s", lg_last_error());
    lg_arg c[2] = {{LG_ARG_SRC, c6}, {LG_ARG_DST, c4}};
    cr_assert_eq(lg_kernel_execute(k, 2, c), LG_OK);
    cr_assert(c4[0] == 1 && c4[1] == 3 && c4[2] == 5 && c4[3] == 3, "%g %g %g %g", (double)c4[0],
              (double)c4[1], (double)c4[2], (double)c4[3]);
    lg_kernel_destroy(k);
    /* Without pad_r_ceil the last window divides by 3; max ignores it. */
    p.pad_r_ceil[0] = 0;
    cr_assert_eq(lg_pool_create(&k, &p, &sm, &dm), LG_OK);
    cr_assert_eq(lg_kernel_execute(k, 2, c), LG_OK);
    cr_assert(c4[3] == 2, "%g", (double)c4[3]);
    lg_kernel_destroy(k);
    p = (lg_pool_params){LG_POOL_MAX, {3}, {2}, {0}, {1}, {2}, {1}};
    cr_assert_eq(lg_pool_create(&k, &p, &sm, &dm), LG_OK);
    cr_assert_eq(lg_kernel_execute(k, 2, c), LG_OK);
    cr_assert(c4[0] == 2 && c4[1] == 4 && c4[2] == 6 && c4[3] == 6);
    lg_kernel_destroy(k);
}

static void bad(lg_status want, const lg_pool_params *p, const lg_md *s, const lg_md *d,
                const char *needle) {
    lg_kernel *k = (lg_kernel *)(uintptr_t)1;
    cr_assert_eq(lg_pool_create(&k, p, s, d), want, "%s", lg_last_error());
    cr_assert(strstr(lg_last_error(), "lg_pool_create"), "%s", lg_last_error());
    cr_assert(strstr(lg_last_error(), needle), "'%s' lacks '%s'", lg_last_error(), needle);
}

Test(pool, bad_input) {
    int64_t sd[4] = {2, 8, 6, 6}, dd[4] = {2, 8, 3, 3};
    lg_md sm, dm, x;
    lg_md_init_tag(&sm, 4, sd, LG_F32, "nchw");
    lg_md_init_tag(&dm, 4, dd, LG_F32, "nchw");
    lg_pool_params p = {LG_POOL_MAX, {2, 2}, {2, 2}, {0}, {0}, {0}, {0}};
    cr_assert_eq(lg_pool_create(NULL, &p, &sm, &dm), LG_INVALID_ARGUMENT);
    bad(LG_INVALID_ARGUMENT, NULL, &sm, &dm, "params");
    bad(LG_INVALID_ARGUMENT, &p, NULL, &dm, "src");
    bad(LG_INVALID_ARGUMENT, &p, &sm, NULL, "dst");
    lg_md_init_tag(&x, 4, dd, LG_BF16, "nchw");
    bad(LG_INVALID_ARGUMENT, &p, &sm, &x, "dst md is bf16");
    int64_t wrong[4] = {2, 9, 3, 3};
    lg_md_init_tag(&x, 4, wrong, LG_F32, "nchw");
    bad(LG_INVALID_ARGUMENT, &p, &sm, &x, "dim 1");
    int64_t wrongsp[4] = {2, 8, 4, 3};
    lg_md_init_tag(&x, 4, wrongsp, LG_F32, "nchw");
    bad(LG_INVALID_ARGUMENT, &p, &sm, &x, "spatial dim 0");
    lg_pool_params q = p;
    q.kernel[1] = 9;
    bad(LG_INVALID_ARGUMENT, &q, &sm, &dm, "kernel[1]");
    q = p;
    q.kernel[0] = 0;
    bad(LG_INVALID_ARGUMENT, &q, &sm, &dm, "kernel[0]");
    q = p;
    q.strides[1] = -1;
    bad(LG_INVALID_ARGUMENT, &q, &sm, &dm, "strides[1]");
    q = p;
    q.pad_r[0] = -1;
    bad(LG_INVALID_ARGUMENT, &q, &sm, &dm, "pad_r[0]");
    q = p;
    q.pad_r_ceil[1] = 1; /* more than pad_r (0) */
    bad(LG_INVALID_ARGUMENT, &q, &sm, &dm, "pad_r_ceil[1]");
    q = p;
    q.dilates[0] = -2;
    bad(LG_INVALID_ARGUMENT, &q, &sm, &dm, "dilates[0]");
    q = p;
    q.alg = (lg_pool_alg)7;
    bad(LG_INVALID_ARGUMENT, &q, &sm, &dm, "alg");
    int64_t z[4] = {2, 8, 0, 6};
    lg_md_init_tag(&x, 4, z, LG_F32, "nchw");
    if (lg__md_ok(&x)) bad(LG_INVALID_ARGUMENT, &p, &x, &dm, "dim 2");
    int64_t s2[2] = {2, 8};
    lg_md_init_tag(&x, 2, s2, LG_F32, "ab");
    bad(LG_UNIMPLEMENTED, &p, &x, &x, "dims");
    lg_md_init_tag(&x, 4, dd, LG_F32, "any");
    bad(LG_INVALID_ARGUMENT, &p, &x, &dm, "src md is 'any'");
    lg_md undef;
    memset(&undef, 0, sizeof undef);
    bad(LG_INVALID_ARGUMENT, &p, &sm, &undef, "dst md");
}
