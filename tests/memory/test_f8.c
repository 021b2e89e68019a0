/* The f8 types (OCP e4m3 and e5m2) against an independent scalar truth:
 * every one of the 256 codes of each decoded by the format's definition (in
 * double), and f32 -> f8 by brute force (the nearest finite code, ties to
 * the even code, then the overflow rules the reorder contract states) on
 * every code's value, every midpoint between neighbours (the rounding
 * boundaries) and the floats just either side of it, the overflow
 * thresholds, infinities, NaNs, f32 denormals and random floats. Checked
 * for convert.h's scalar conversions and through lg_reorder_create at every
 * ISA level the CPU has, in a plain copy layout and in a transposing one
 * (nchw <-> nChw16c), so every vector path is covered. */
#include "memory/convert.h"
#include "primitives/cpu.h"
#include "primitives/simd/cvt.h"
#include "test_util.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct f8fmt {
    lg_dtype dt;
    int ebits, mbits, bias;
    bool ieee; /* e5m2: infinities and NaNs at the top exponent */
} f8fmt;

static const f8fmt E4M3 = {LG_F8_E4M3, 4, 3, 7, false};
static const f8fmt E5M2 = {LG_F8_E5M2, 5, 2, 15, true};

/* The format's definition: NaN for NaN codes. */
static double decode(const f8fmt *f, int code) {
    int s = code >> 7, e = (code >> f->mbits) & ((1 << f->ebits) - 1),
        m = code & ((1 << f->mbits) - 1);
    int emax = (1 << f->ebits) - 1;
    double v;
    if (f->ieee && e == emax)
        v = m == 0 ? INFINITY : NAN;
    else if (!f->ieee && e == emax && m == (1 << f->mbits) - 1)
        v = NAN;
    else if (e == 0)
        v = ldexp((double)m, 1 - f->bias - f->mbits);
    else
        v = ldexp(1.0 + ldexp((double)m, -f->mbits), e - f->bias);
    return s ? -v : v;
}

/* Largest finite positive code. */
static int max_code(const f8fmt *f) {
    return f->ieee ? 0x7b : 0x7e;
}

/* f32 -> f8 by brute force. */
static int encode(const f8fmt *f, float x) {
    int sign = signbit(x) ? 0x80 : 0;
    if (isnan(x)) return sign | (f->ieee ? 0x7e : 0x7f);
    double a = fabs((double)x);
    if (isinf(x)) return sign | (f->ieee ? 0x7c : 0x7e);
    int best = 0;
    double bd = INFINITY;
    for (int c = 0; c <= max_code(f); c++) {
        double d = fabs(a - decode(f, c));
        if (d < bd || (d == bd && (c & 1) == 0)) {
            bd = d;
            best = c;
        }
    }
    if (f->ieee) {
        /* Beyond the largest finite value, RNE continues to 2^16 (inf): the
         * tie at the midpoint goes up (57344's mantissa is odd). */
        double top = decode(f, max_code(f)), next = ldexp(1.0, 16);
        if (a >= (top + next) / 2) return sign | 0x7c;
    }
    return sign | best; /* e4m3: anything beyond 448 is nearest to 448 */
}

static bool same_f32(float a, float b) {
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, 4) == 0;
}

static float to_f32(const f8fmt *f, uint8_t c) {
    return f->ieee ? lg__f8_e5m2_to_f32(c) : lg__f8_e4m3_to_f32(c);
}

static uint8_t from_f32(const f8fmt *f, float x) {
    return f->ieee ? lg__f32_to_f8_e5m2(x) : lg__f32_to_f8_e4m3(x);
}

/* The test inputs of f32 -> f8: about 1500 floats. */
static int inputs(const f8fmt *f, float *x) {
    int n = 0;
    for (int c = 0; c < 256; c++) {
        double v = decode(f, c);
        if (!isnan(v)) x[n++] = (float)v;
        int nc = (c & 0x7f) + 1;
        if ((c & 0x7f) >= max_code(f)) continue;
        double mid = (v + decode(f, (c & 0x80) | nc)) / 2; /* exact in f32 */
        float fm = (float)mid;
        x[n++] = fm;
        x[n++] = nextafterf(fm, 0.0f);
        x[n++] = nextafterf(fm, fm > 0 ? INFINITY : -INFINITY);
    }
    static const float special[] = {448.0f, 449.0f,   463.99f,  464.0f,    464.01f,  480.0f,
                                    1e6f,   57344.0f, 61439.0f, 61440.0f,  61441.0f, 65536.0f,
                                    1e30f,  3e38f,    1e-30f,   0x1p-149f, 0x1p-126f};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) {
        x[n++] = special[i];
        x[n++] = -special[i];
    }
    x[n++] = INFINITY;
    x[n++] = -INFINITY;
    x[n++] = NAN;
    x[n++] = -NAN;
    x[n++] = 0.0f;
    x[n++] = -0.0f;
    lg_rng r = {(uint64_t)f->dt};
    for (int i = 0; i < 400; i++) {
        float v = ldexpf(lg_rng_float(&r, 1.0f, 2.0f), (int)lg_rng_int(&r, -20, 17));
        x[n++] = lg_rng_int(&r, 0, 1) ? v : -v;
    }
    return n;
}

static void scalar_case(const f8fmt *f) {
    for (int c = 0; c < 256; c++) {
        float got = to_f32(f, (uint8_t)c), want = (float)decode(f, c);
        cr_assert(same_f32(got, want), "%s code 0x%02x: %g, want %g", lg_dtype_str(f->dt), c, got,
                  want);
        if (!isnan(want))
            cr_assert_eq(from_f32(f, got), c, "%s code 0x%02x does not round-trip",
                         lg_dtype_str(f->dt), c);
    }
    float x[2048];
    int n = inputs(f, x);
    for (int i = 0; i < n; i++)
        cr_assert_eq(from_f32(f, x[i]), encode(f, x[i]), "%s: %a gives 0x%02x, want 0x%02x",
                     lg_dtype_str(f->dt), x[i], from_f32(f, x[i]), encode(f, x[i]));
}

Test(f8, e4m3_scalar) {
    scalar_case(&E4M3);
    cr_assert_eq(lg__f32_to_f8_e4m3(1e9f), 0x7e);
    cr_assert_eq(lg__f32_to_f8_e4m3(-INFINITY), 0xfe);
    cr_assert_eq(lg__f8_e4m3_to_f32(0x7e), 448.0f);
    cr_assert_eq(lg__f8_e4m3_to_f32(0x01), 0x1p-9f);
}

Test(f8, e5m2_scalar) {
    scalar_case(&E5M2);
    cr_assert_eq(lg__f32_to_f8_e5m2(61440.0f), 0x7c);
    cr_assert_eq(lg__f32_to_f8_e5m2(61439.0f), 0x7b);
    cr_assert_eq(lg__f8_e5m2_to_f32(0x7b), 57344.0f);
    cr_assert_eq(lg__f8_e5m2_to_f32(0x01), 0x1p-16f);
}

/* Run a reorder of n elements laid out as a 4D 1 x C x 1 x W tensor (C * W
 * = n padded), src tag stag, dst tag dtag; returns dst in logical order. */
static void reorder_run(lg_dtype sdt, const void *src, lg_dtype ddt, void *dst, int64_t n,
                        const char *stag, const char *dtag) {
    const int64_t C = 32, W = (n + C - 1) / C;
    int64_t dims[4] = {1, C, 1, W};
    lg_md sm, dm, sl, dl;
    cr_assert_eq(lg_md_init_tag(&sm, 4, dims, sdt, stag), LG_OK);
    cr_assert_eq(lg_md_init_tag(&dm, 4, dims, ddt, dtag), LG_OK);
    cr_assert_eq(lg_md_init_tag(&sl, 4, dims, sdt, "nchw"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&dl, 4, dims, ddt, "nchw"), LG_OK);
    size_t ssz = lg_dtype_size(sdt), dsz = lg_dtype_size(ddt);
    char *sbuf = calloc((size_t)(C * W), ssz), *s2 = calloc((size_t)(C * W), ssz);
    char *dbuf = calloc((size_t)(C * W), dsz), *d2 = calloc((size_t)(C * W), dsz);
    memcpy(sbuf, src, (size_t)n * ssz);
    lg_kernel *k;
    /* logical nchw -> stag (bits), stag -> dtag (the conversion), dtag -> nchw */
    cr_assert_eq(lg_reorder_create(&k, &sl, &sm, NULL), LG_OK);
    lg_arg a1[2] = {{LG_ARG_SRC, sbuf}, {LG_ARG_DST, s2}};
    cr_assert_eq(lg_kernel_execute(k, 2, a1), LG_OK);
    lg_kernel_destroy(k);
    cr_assert_eq(lg_reorder_create(&k, &sm, &dm, NULL), LG_OK, "%s", lg_last_error());
    lg_arg a2[2] = {{LG_ARG_SRC, s2}, {LG_ARG_DST, d2}};
    cr_assert_eq(lg_kernel_execute(k, 2, a2), LG_OK);
    lg_kernel_destroy(k);
    cr_assert_eq(lg_reorder_create(&k, &dm, &dl, NULL), LG_OK);
    lg_arg a3[2] = {{LG_ARG_SRC, d2}, {LG_ARG_DST, dbuf}};
    cr_assert_eq(lg_kernel_execute(k, 2, a3), LG_OK);
    lg_kernel_destroy(k);
    memcpy(dst, dbuf, (size_t)n * dsz);
    free(sbuf);
    free(s2);
    free(dbuf);
    free(d2);
}

static void kernel_case(const f8fmt *f) {
    static const char *const layouts[][2] = {
        {"nchw", "nchw"}, {"nchw", "nChw16c"}, {"nhwc", "nchw"}, {"nChw8c", "nchw"}};
    float x[2048], back[256];
    uint8_t codes[256], got[2048];
    int n = inputs(f, x);
    for (int c = 0; c < 256; c++) codes[c] = (uint8_t)c;
    for (int isa = LG_ISA_SCALAR; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
            const char *st = layouts[l][0], *dt = layouts[l][1];
            reorder_run(LG_F32, x, f->dt, got, n, st, dt);
            for (int i = 0; i < n; i++)
                cr_assert_eq(got[i], encode(f, x[i]), "%s %s %s->%s: %a gives 0x%02x, want 0x%02x",
                             lg__isa_name((lg__isa)isa), lg_dtype_str(f->dt), st, dt, x[i], got[i],
                             encode(f, x[i]));
            reorder_run(f->dt, codes, LG_F32, back, 256, st, dt);
            for (int c = 0; c < 256; c++)
                cr_assert(same_f32(back[c], (float)decode(f, c)), "%s %s %s->%s: 0x%02x gives %g",
                          lg__isa_name((lg__isa)isa), lg_dtype_str(f->dt), st, dt, c, back[c]);
        }
    }
    lg__cpu_set_isa_cap(LG_ISA_AVX512);
}

Test(f8, e4m3_reorder_every_isa) {
    kernel_case(&E4M3);
}

Test(f8, e5m2_reorder_every_isa) {
    kernel_case(&E5M2);
}

/* f8 <-> the other types through f32: the reference's composition. */
Test(f8, other_types) {
    const f8fmt *fs[2] = {&E4M3, &E5M2};
    for (int k = 0; k < 2; k++) {
        const f8fmt *f = fs[k];
        uint8_t codes[256], got[256];
        for (int c = 0; c < 256; c++) codes[c] = (uint8_t)c;
        /* f8 -> f16 is exact (both decode alike); f16 -> f8 rounds once */
        uint16_t h[256];
        reorder_run(f->dt, codes, LG_F16, h, 256, "nchw", "nChw16c");
        for (int c = 0; c < 256; c++)
            cr_assert(same_f32(lg__f16_to_f32(h[c]), (float)decode(f, c)), "%s 0x%02x -> f16",
                      lg_dtype_str(f->dt), c);
        reorder_run(LG_F16, h, f->dt, got, 256, "nchw", "nchw");
        for (int c = 0; c < 256; c++)
            if (!isnan(decode(f, c)))
                cr_assert_eq(got[c], c, "%s 0x%02x via f16", lg_dtype_str(f->dt), c);
        /* f8 -> s8 rounds the value to nearest even and saturates */
        int8_t s8[256];
        reorder_run(f->dt, codes, LG_S8, s8, 256, "nchw", "nhwc");
        for (int c = 0; c < 256; c++) {
            double v = decode(f, c);
            int want = isnan(v) ? 0 : v > 127 ? 127 : v < -128 ? -128 : (int)nearbyint(v);
            cr_assert_eq(s8[c], want, "%s 0x%02x -> s8: %d", lg_dtype_str(f->dt), c, s8[c]);
        }
        /* e4m3 <-> e5m2: one rounding */
        const f8fmt *o = k ? &E4M3 : &E5M2;
        reorder_run(f->dt, codes, o->dt, got, 256, "nchw", "nChw16c");
        for (int c = 0; c < 256; c++)
            cr_assert_eq(got[c], encode(o, (float)decode(f, c)), "%s 0x%02x -> %s",
                         lg_dtype_str(f->dt), c, lg_dtype_str(o->dt));
    }
}

/* Kinds that compute cannot take f8 and say so; the shuffle moves its bytes. */
Test(f8, other_kinds) {
    int64_t dims[4] = {2, 16, 3, 3};
    for (int k = 0; k < 2; k++) {
        lg_dtype dt = k ? LG_F8_E5M2 : LG_F8_E4M3;
        lg_md md, f32;
        cr_assert_eq(lg_md_init_tag(&md, 4, dims, dt, "nChw8c"), LG_OK);
        cr_assert_eq(lg_md_init_tag(&f32, 4, dims, LG_F32, "nChw8c"), LG_OK);
        lg_kernel *kr = NULL;
        cr_assert_eq(lg_eltwise_create(&kr, LG_ELTWISE_RELU, 0, 0, &md, NULL), LG_UNIMPLEMENTED);
        cr_assert(strstr(lg_last_error(), lg_dtype_str(dt)) != NULL, "%s", lg_last_error());
        cr_assert_eq(lg_binary_create(&kr, LG_BINARY_ADD, &md, &md, &md), LG_UNIMPLEMENTED);
        cr_assert(strstr(lg_last_error(), lg_dtype_str(dt)) != NULL, "%s", lg_last_error());
        lg_conv_params p;
        memset(&p, 0, sizeof p);
        p.strides[0] = p.strides[1] = 1;
        p.groups = 1;
        int64_t wd[4] = {16, 16, 1, 1};
        lg_md w;
        cr_assert_eq(lg_md_init_tag(&w, 4, wd, LG_F32, "oihw"), LG_OK);
        cr_assert_eq(lg_conv_create(&kr, &p, &md, &w, NULL, &f32, NULL), LG_UNIMPLEMENTED);
        cr_assert(strstr(lg_last_error(), lg_dtype_str(dt)) != NULL, "%s", lg_last_error());
        /* shuffle: the same bytes as a u8 shuffle */
        lg_md u8;
        cr_assert_eq(lg_md_init_tag(&u8, 4, dims, LG_U8, "nChw8c"), LG_OK);
        size_t n = lg_md_size(&md);
        uint8_t *src = malloc(n), *a = malloc(n), *b = malloc(n);
        for (size_t i = 0; i < n; i++) src[i] = (uint8_t)(i * 37 + 11);
        lg_kernel *k1, *k2;
        cr_assert_eq(lg_shuffle_create(&k1, LG_FORWARD, &md, 1, 4), LG_OK, "%s", lg_last_error());
        cr_assert_eq(lg_shuffle_create(&k2, LG_FORWARD, &u8, 1, 4), LG_OK);
        lg_arg x1[2] = {{LG_ARG_SRC, src}, {LG_ARG_DST, a}},
               x2[2] = {{LG_ARG_SRC, src}, {LG_ARG_DST, b}};
        cr_assert_eq(lg_kernel_execute(k1, 2, x1), LG_OK);
        cr_assert_eq(lg_kernel_execute(k2, 2, x2), LG_OK);
        cr_assert(memcmp(a, b, n) == 0, "%s shuffle differs from u8's", lg_dtype_str(dt));
        lg_kernel_destroy(k1);
        lg_kernel_destroy(k2);
        free(src);
        free(a);
        free(b);
    }
}

/* Every class of f32 bit pattern through the vector conversions: all 2^20
 * combinations of sign, exponent and the top 11 mantissa bits, each with
 * the low 12 bits 0, 1, 0x7ff, 0x800, 0x801 or 0xfff. Every rounding
 * position of both f8 formats (and of s8 / u8) lies at mantissa bit 12 or
 * above, so these are every boundary case (exact, just below, at and just
 * above each tie, with and without sticky bits) for every exponent, the
 * infinities and NaNs of every payload class included. Checked, at every
 * ISA level the CPU has, against convert.h's scalar conversion (itself
 * checked against brute force above): the row conversion of cvt.h, and
 * nchw -> nChw16c reorders (the 16 x VL tiles that convert before they
 * transpose, and their tails), with 32 channels and with 20 (padding). */
static float *pattern_classes(int64_t *count) {
    static const uint32_t low[6] = {0, 1, 0x7ff, 0x800, 0x801, 0xfff};
    int64_t n = (int64_t)6 << 20;
    float *x = malloc((size_t)n * sizeof *x);
    for (int64_t i = 0; i < n; i++) {
        uint32_t u = ((uint32_t)(i / 6) << 12) | low[i % 6];
        memcpy(&x[i], &u, 4);
    }
    *count = n;
    return x;
}

static uint8_t scalar_code(lg_dtype dt, float x) {
    uint8_t c;
    lg__store_f32(&c, dt, 0, x);
    return c;
}

static void pattern_case(lg_dtype dt) {
    int64_t n;
    float *x = pattern_classes(&n);
    uint8_t *want = malloc((size_t)n), *got = malloc((size_t)n * 2); /* C = 20 pads to 32 */
    for (int64_t i = 0; i < n; i++) want[i] = scalar_code(dt, x[i]);
    for (int isa = LG_ISA_SCALAR; isa <= (int)lg__cpu_isa_hw(); isa++) {
        lg__cpu_set_isa_cap(isa);
        lg__cvt_for_isa((lg__isa)isa)(LG_F32, x, dt, got, n);
        for (int64_t i = 0; i < n; i++)
            cr_assert_eq(got[i], want[i], "%s row %s: %a (0x%08x) gives 0x%02x, want 0x%02x",
                         lg__isa_name((lg__isa)isa), lg_dtype_str(dt), x[i],
                         (unsigned)lg__f32_bits(x[i]), got[i], want[i]);
        static const int64_t chans[2] = {32, 20};
        for (int k = 0; k < 2; k++) {
            const int64_t C = chans[k], W = n / C; /* W is not a multiple of 8 or 16 */
            int64_t dims[4] = {1, C, 1, W};
            lg_md sm, dm;
            cr_assert_eq(lg_md_init_tag(&sm, 4, dims, LG_F32, "nchw"), LG_OK);
            cr_assert_eq(lg_md_init_tag(&dm, 4, dims, dt, "nChw16c"), LG_OK);
            memset(got, 0xa5, lg_md_size(&dm));
            lg_kernel *kr;
            cr_assert_eq(lg_reorder_create(&kr, &sm, &dm, NULL), LG_OK, "%s", lg_last_error());
            lg_arg a[2] = {{LG_ARG_SRC, x}, {LG_ARG_DST, got}};
            cr_assert_eq(lg_kernel_execute(kr, 2, a), LG_OK);
            lg_kernel_destroy(kr);
            for (int64_t c = 0; c < 32; c++)
                for (int64_t w = 0; w < W; w++) {
                    uint8_t g = got[(c / 16) * W * 16 + w * 16 + c % 16];
                    uint8_t e = c < C ? want[c * W + w] : 0;
                    cr_assert_eq(g, e, "%s %s C=%lld c=%lld w=%lld: %a gives 0x%02x, want 0x%02x",
                                 lg__isa_name((lg__isa)isa), lg_dtype_str(dt), (long long)C,
                                 (long long)c, (long long)w, c < C ? x[c * W + w] : 0.0f, g, e);
                }
        }
    }
    lg__cpu_set_isa_cap(LG_ISA_AVX512);
    free(x);
    free(want);
    free(got);
}

Test(f8, e4m3_every_pattern_class_every_isa, .timeout = 120) {
    pattern_case(LG_F8_E4M3);
}

Test(f8, e5m2_every_pattern_class_every_isa, .timeout = 120) {
    pattern_case(LG_F8_E5M2);
}

Test(f8, s8_u8_every_pattern_class_every_isa, .timeout = 120) {
    pattern_case(LG_S8);
    pattern_case(LG_U8);
}
