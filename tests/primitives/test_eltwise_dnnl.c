/* Cross-checks against oneDNN (2.6): eltwise f32 in nchw and nChw16c (with a
 * channel tail) for every algorithm oneDNN 2.6 has, binary add / mul with
 * per-channel and scalar broadcast, and the binary comparisons.
 *
 * Tolerance: ours is within LG_ELT_ULP_* of the exact function, oneDNN's
 * jit kernels have their own approximation error, so the comparison allows
 * tol_ulp ulps of oneDNN's value plus tol_abs * max(1, |x|) (oneDNN computes
 * gelu as 0.5 x (1 + erf or tanh), whose relative error grows where that sum
 * cancels; we do not). Algorithms without a transcendental call agree bit
 * for bit except linear (oneDNN fuses alpha x + beta into one fma) and
 * hardswish (oneDNN 2.6 takes no alpha / beta and computes x relu6(x+3) / 6;
 * ours is x * clamp(alpha x + beta, 0, 1), compared at alpha 1/6, beta 1/2).
 * oneDNN 2.6 has no hardsigmoid; lgraph follows the later oneDNN definition
 * (max(0, min(1, alpha x + beta))), checked against the reference only. */
#include "primitives/cpu.h"
#include "test_util.h"

#include <criterion/criterion.h>
#include <float.h>
#include <lgraph.h>
#include <math.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdlib.h>
#include <string.h>

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

typedef struct ecase {
    lg_eltwise_alg alg;
    dnnl_alg_kind_t dalg;
    float alpha, beta;
    float lo, hi;            /* input range */
    double tol_ulp, tol_abs; /* see the file comment */
} ecase;

/* Tolerances from oneDNN 2.6's own errors as measured here, each with a
 * margin of about 2x: its elu is e^x - 1 (cancels near 0), its gelus cancel
 * for negative x, and its jit log is off by up to 3.3e-6 absolute (log of
 * 0x1.acce64p-1: oneDNN -0.1773228, libm -0.1773195). */
static const ecase ecases[] = {
    {LG_ELTWISE_RELU, dnnl_eltwise_relu, 0.1f, 0, -10, 10, 0, 0},
    {LG_ELTWISE_ELU, dnnl_eltwise_elu, 1.5f, 0, -10, 10, 4, 0x1p-21},
    {LG_ELTWISE_TANH, dnnl_eltwise_tanh, 0, 0, -10, 10, 4, 0},
    {LG_ELTWISE_LOGISTIC, dnnl_eltwise_logistic, 0, 0, -20, 20, 6, 0},
    {LG_ELTWISE_GELU_TANH, dnnl_eltwise_gelu_tanh, 0, 0, -10, 10, 8, 0x1p-21},
    {LG_ELTWISE_GELU_ERF, dnnl_eltwise_gelu_erf, 0, 0, -10, 10, 8, 0x1p-21},
    {LG_ELTWISE_SWISH, dnnl_eltwise_swish, 1.25f, 0, -20, 20, 8, 0},
    {LG_ELTWISE_EXP, dnnl_eltwise_exp, 0, 0, -80, 80, 10, 0},
    {LG_ELTWISE_LOG, dnnl_eltwise_log, 0, 0, 1e-6f, 1e6f, 8, 0x1p-17},
    {LG_ELTWISE_ABS, dnnl_eltwise_abs, 0, 0, -10, 10, 0, 0},
    {LG_ELTWISE_SQRT, dnnl_eltwise_sqrt, 0, 0, 0, 100, 0, 0},
    {LG_ELTWISE_SQUARE, dnnl_eltwise_square, 0, 0, -10, 10, 0, 0},
    {LG_ELTWISE_LINEAR, dnnl_eltwise_linear, 2.5f, -0.75f, -10, 10, 1, 0},
    {LG_ELTWISE_CLIP, dnnl_eltwise_clip, -1.5f, 4.0f, -10, 10, 0, 0},
    {LG_ELTWISE_HARDSWISH, dnnl_eltwise_hardswish, 1.0f / 6, 0.5f, -5, 5, 2, 0x1p-24},
    {LG_ELTWISE_POW, dnnl_eltwise_pow, 1.5f, 3.0f, -10, 10, 8, 0},
    {LG_ELTWISE_POW, dnnl_eltwise_pow, -0.25f, 0.5f, 0, 100, 8, 0},
    {LG_ELTWISE_CLIP_V2, dnnl_eltwise_clip_v2, -1.5f, 4.0f, -10, 10, 0, 0},
    {LG_ELTWISE_ROUND, dnnl_eltwise_round, 0, 0, -10, 10, 0, 0},
    {LG_ELTWISE_MISH, dnnl_eltwise_mish, 0, 0, -20, 20, 8, 0x1p-21},
    /* oneDNN 2.6's soft_relu has no alpha: lgraph's at alpha 1. */
    {LG_ELTWISE_SOFT_RELU, dnnl_eltwise_soft_relu, 1.0f, 0, -20, 20, 8, 0x1p-21},
};

static double ulp_of(float v) {
    float a = fabsf(v);
    if (a < FLT_MIN) return 0x1p-149;
    int e;
    frexpf(a, &e);
    return ldexp(1.0, e - 24);
}

static void run_eltwise(const ecase *c, const char *tag, dnnl_format_tag_t dtag, lg_rng *r) {
    int64_t dims[4] = {2, 40, 7, 7};
    lg_md md;
    cr_assert_eq(lg_md_init_tag(&md, 4, dims, LG_F32, tag), LG_OK);
    size_t sz = lg_md_size(&md);
    int64_t n = (int64_t)(sz / 4);
    float *src = calloc((size_t)n, 4), *ours = malloc(sz), *theirs = malloc(sz);
    int64_t idx[4];
    for (idx[0] = 0; idx[0] < 2; idx[0]++)
        for (idx[1] = 0; idx[1] < 40; idx[1]++)
            for (idx[2] = 0; idx[2] < 7; idx[2]++)
                for (idx[3] = 0; idx[3] < 7; idx[3]++)
                    src[lg_md_offset(&md, idx)] =
                        c->alg == LG_ELTWISE_LOG ? expf(lg_rng_float(r, logf(c->lo), logf(c->hi)))
                                                 : lg_rng_float(r, c->lo, c->hi);
    dnnl_memory_desc_t dmd;
    dnnl_dims_t dd = {2, 40, 7, 7};
    DN(dnnl_memory_desc_init_by_tag(&dmd, 4, dd, dnnl_f32, dtag));
    cr_assert_eq(dnnl_memory_desc_get_size(&dmd), sz);
    dnnl_eltwise_desc_t ed;
    DN(dnnl_eltwise_forward_desc_init(&ed, dnnl_forward_inference, c->dalg, &dmd, c->alpha,
                                      c->beta));
    dnnl_primitive_desc_t pd;
    DN(dnnl_primitive_desc_create(&pd, &ed, NULL, engine, NULL));
    dnnl_primitive_t prim;
    DN(dnnl_primitive_create(&prim, pd));
    dnnl_memory_t ms, mdst;
    DN(dnnl_memory_create(&ms, &dmd, engine, src));
    DN(dnnl_memory_create(&mdst, &dmd, engine, theirs));
    dnnl_exec_arg_t dargs[2] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_DST, mdst}};
    DN(dnnl_primitive_execute(prim, stream, 2, dargs));
    DN(dnnl_stream_wait(stream));

    for (int isa = LG_ISA_SCALAR; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        lg_kernel *k;
        cr_assert_eq(lg_eltwise_create(&k, c->alg, c->alpha, c->beta, &md, NULL), LG_OK);
        memset(ours, 0xff, sz);
        lg_arg args[2] = {{LG_ARG_SRC, src}, {LG_ARG_DST, ours}};
        cr_assert_eq(lg_kernel_execute(k, 2, args), LG_OK);
        double worst = 0;
        for (int64_t i = 0; i < n; i++) {
            double diff = fabs((double)ours[i] - (double)theirs[i]);
            double tol = c->tol_ulp * ulp_of(theirs[i]) + c->tol_abs * fmax(1.0, fabs(src[i]));
            cr_assert(diff <= tol || (isnan(ours[i]) && isnan(theirs[i])),
                      "alg %d %s isa %d [%lld] x=%a: ours %a, oneDNN %a", c->alg, tag, isa,
                      (long long)i, (double)src[i], (double)ours[i], (double)theirs[i]);
            if (diff / ulp_of(theirs[i]) > worst) worst = diff / ulp_of(theirs[i]);
        }
        cr_log_info("alg %d %s isa %d: max %.1f ulp of oneDNN's value", c->alg, tag, isa, worst);
        lg_kernel_destroy(k);
    }
    lg__cpu_set_isa_cap(-1);
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_destroy(ms);
    dnnl_memory_destroy(mdst);
    free(src);
    free(ours);
    free(theirs);
}

Test(dnnl_eltwise, nchw_every_alg, .init = setup, .fini = teardown) {
    lg_rng r = {1};
    for (size_t i = 0; i < sizeof ecases / sizeof ecases[0]; i++)
        run_eltwise(&ecases[i], "nchw", dnnl_nchw, &r);
}

Test(dnnl_eltwise, nChw16c_every_alg, .init = setup, .fini = teardown) {
    lg_rng r = {2};
    for (size_t i = 0; i < sizeof ecases / sizeof ecases[0]; i++)
        run_eltwise(&ecases[i], "nChw16c", dnnl_nChw16c, &r);
}

/* Binary alg with src1 of dims s1 (nchw), src0 / dst in tag: bit for bit. */
static void run_binary(lg_binary_alg alg, dnnl_alg_kind_t dalg, const char *tag,
                       dnnl_format_tag_t dtag, const int64_t *s1, lg_rng *r) {
    int64_t dims[4] = {2, 40, 7, 7};
    lg_md m0, m1;
    cr_assert_eq(lg_md_init_tag(&m0, 4, dims, LG_F32, tag), LG_OK);
    cr_assert_eq(lg_md_init_tag(&m1, 4, s1, LG_F32, "nchw"), LG_OK);
    size_t sz = lg_md_size(&m0), sz1 = lg_md_size(&m1);
    float *a = calloc(sz / 4, 4), *b = malloc(sz1), *ours = malloc(sz), *theirs = malloc(sz);
    /* Comparisons on small integers, so that every outcome (ties too) occurs. */
    bool cmp = alg >= LG_BINARY_GE;
    int64_t idx[4];
    for (idx[0] = 0; idx[0] < 2; idx[0]++)
        for (idx[1] = 0; idx[1] < 40; idx[1]++)
            for (idx[2] = 0; idx[2] < 7; idx[2]++)
                for (idx[3] = 0; idx[3] < 7; idx[3]++)
                    a[lg_md_offset(&m0, idx)] =
                        cmp ? (float)lg_rng_int(r, -3, 3) : lg_rng_float(r, -10, 10);
    for (size_t i = 0; i < sz1 / 4; i++)
        b[i] = cmp ? (float)lg_rng_int(r, -3, 3) : lg_rng_float(r, -10, 10);
    dnnl_memory_desc_t d0, d1;
    dnnl_dims_t dd = {2, 40, 7, 7}, ds1 = {s1[0], s1[1], s1[2], s1[3]};
    DN(dnnl_memory_desc_init_by_tag(&d0, 4, dd, dnnl_f32, dtag));
    DN(dnnl_memory_desc_init_by_tag(&d1, 4, ds1, dnnl_f32, dnnl_nchw));
    dnnl_binary_desc_t bd;
    DN(dnnl_binary_desc_init(&bd, dalg, &d0, &d1, &d0));
    dnnl_primitive_desc_t pd;
    DN(dnnl_primitive_desc_create(&pd, &bd, NULL, engine, NULL));
    dnnl_primitive_t prim;
    DN(dnnl_primitive_create(&prim, pd));
    dnnl_memory_t ma, mb, mc;
    DN(dnnl_memory_create(&ma, &d0, engine, a));
    DN(dnnl_memory_create(&mb, &d1, engine, b));
    DN(dnnl_memory_create(&mc, &d0, engine, theirs));
    memset(theirs, 0, sz);
    dnnl_exec_arg_t dargs[3] = {{DNNL_ARG_SRC_0, ma}, {DNNL_ARG_SRC_1, mb}, {DNNL_ARG_DST, mc}};
    DN(dnnl_primitive_execute(prim, stream, 3, dargs));
    DN(dnnl_stream_wait(stream));
    for (int isa = LG_ISA_SCALAR; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        lg_kernel *k;
        cr_assert_eq(lg_binary_create(&k, alg, &m0, &m1, &m0), LG_OK);
        memset(ours, 0xff, sz);
        lg_arg args[3] = {{LG_ARG_SRC, a}, {LG_ARG_SRC + 1, b}, {LG_ARG_DST, ours}};
        cr_assert_eq(lg_kernel_execute(k, 3, args), LG_OK);
        /* oneDNN may leave dst's padding alone (we zeroed it first), or
         * compute it (a comparison of zeros gives 1 there); ours zeroes it:
         * the logical elements are compared. */
        for (idx[0] = 0; idx[0] < 2; idx[0]++)
            for (idx[1] = 0; idx[1] < 40; idx[1]++)
                for (idx[2] = 0; idx[2] < 7; idx[2]++)
                    for (idx[3] = 0; idx[3] < 7; idx[3]++) {
                        int64_t o = lg_md_offset(&m0, idx);
                        cr_assert(memcmp(&ours[o], &theirs[o], 4) == 0,
                                  "binary alg %d %s isa %d (%s) [%lld]: ours %g, oneDNN %g", alg,
                                  tag, isa, lg_kernel_impl(k), (long long)o, (double)ours[o],
                                  (double)theirs[o]);
                    }
        lg_kernel_destroy(k);
    }
    lg__cpu_set_isa_cap(-1);
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_destroy(ma);
    dnnl_memory_destroy(mb);
    dnnl_memory_destroy(mc);
    free(a);
    free(b);
    free(ours);
    free(theirs);
}

Test(dnnl_binary, comparisons, .init = setup, .fini = teardown) {
    lg_rng r = {4};
    const int64_t pc[4] = {1, 40, 1, 1}, full[4] = {2, 40, 7, 7};
    const lg_binary_alg algs[6] = {LG_BINARY_GE, LG_BINARY_GT, LG_BINARY_LE,
                                   LG_BINARY_LT, LG_BINARY_EQ, LG_BINARY_NE};
    const dnnl_alg_kind_t dalgs[6] = {dnnl_binary_ge, dnnl_binary_gt, dnnl_binary_le,
                                      dnnl_binary_lt, dnnl_binary_eq, dnnl_binary_ne};
    for (int i = 0; i < 6; i++) {
        run_binary(algs[i], dalgs[i], "nchw", dnnl_nchw, full, &r);
        run_binary(algs[i], dalgs[i], "nChw16c", dnnl_nChw16c, pc, &r);
    }
}

Test(dnnl_binary, add_mul_broadcast, .init = setup, .fini = teardown) {
    lg_rng r = {3};
    const int64_t pc[4] = {1, 40, 1, 1}, sc[4] = {1, 1, 1, 1}, full[4] = {2, 40, 7, 7};
    const int64_t *shapes[3] = {pc, sc, full};
    for (int s = 0; s < 3; s++) {
        run_binary(LG_BINARY_ADD, dnnl_binary_add, "nchw", dnnl_nchw, shapes[s], &r);
        run_binary(LG_BINARY_MUL, dnnl_binary_mul, "nchw", dnnl_nchw, shapes[s], &r);
        run_binary(LG_BINARY_ADD, dnnl_binary_add, "nChw16c", dnnl_nChw16c, shapes[s], &r);
        run_binary(LG_BINARY_MUL, dnnl_binary_mul, "nChw16c", dnnl_nChw16c, shapes[s], &r);
    }
}
