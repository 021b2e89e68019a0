/* The cost model's Winograd entry and out-of-cache term (issue 20): the
 * conv path the cost model asks (lg__conv_path) is the one the kernel runs,
 * Winograd included; a conv the kernel runs with Winograd is priced from
 * the Winograd coefficients (hand-computed), from the direct ones under a
 * table calibrated before Winograd (such files still load: the shipped
 * table of 2026-11-25 is kept as tests/data/cost_model_2026-11-25.json);
 * the spill coefficient adds its term to steps with flops only and
 * survives the file's round trip. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "lgraph.h"
#include "passes/cost_coefs.h"
#include "primitives/conv/conv.h"
#include "primitives/cpu.h"

static void temp_path(char *buf, size_t len, const char *what) {
    snprintf(buf, len, "/tmp/lg_costw_%s_%d.json", what, (int)getpid());
}

static void hand_table(const char *path, const char *entries) {
    char text[2048];
    int n = snprintf(text, sizeof text, "{\"lgraph_cost_model\": 1, \"entries\": [%s]}", entries);
    cr_assert(n > 0 && n < (int)sizeof text);
    FILE *f = fopen(path, "wb");
    cr_assert(f != NULL, "cannot write %s", path);
    cr_assert_eq(fwrite(text, 1, (size_t)n, f), (size_t)n);
    cr_assert_eq(fclose(f), 0);
}

/* The path of a 3x3 conv (pad 1, `groups`, stride `st`) of n x c x h x h
 * into oc channels, src and dst in `tag`, with alg. */
static const char *path_of(int64_t n, int64_t c, int64_t oc, int64_t h, int64_t st, int64_t groups,
                           const char *tag, lg_conv_alg alg) {
    int64_t ho = (h + 2 - 3) / st + 1;
    int64_t sd[4] = {n, c, h, h}, dd[4] = {n, oc, ho, ho};
    int64_t wd[5] = {groups, oc / groups, c / groups, 3, 3};
    lg_md sm, dm, wm;
    cr_assert_eq(lg_md_init_tag(&sm, 4, sd, LG_F32, tag), LG_OK);
    cr_assert_eq(lg_md_init_tag(&dm, 4, dd, LG_F32, tag), LG_OK);
    cr_assert_eq(lg_md_init_tag(&wm, groups > 1 ? 5 : 4, groups > 1 ? wd : wd + 1, LG_F32, "any"),
                 LG_OK);
    lg_conv_params p;
    memset(&p, 0, sizeof p);
    p.strides[0] = p.strides[1] = st;
    p.pad_l[0] = p.pad_l[1] = p.pad_r[0] = p.pad_r[1] = 1;
    p.groups = groups;
    p.alg = alg;
    return lg__conv_path(&p, &sm, &wm, NULL, &dm);
}

/* The path named agrees with the kernel's impl (lg_conv_create) and with
 * the rule of LG_CONV_AUTO: >= 32 channels in and out, >= 8 tiles of 4x4
 * at 8 lanes (>= 32 and one per 4096 IC x OC at 16), one group, stride 1,
 * blocked or channels-last activations. */
Test(cost_wino, path_is_the_kernels) {
    if (lg__cpu_isa() < LG_ISA_AVX2) cr_skip_test("no AVX2: no Winograd path");
    const char *blk = lg__cpu_isa() >= LG_ISA_AVX512 ? "nChw16c" : "nChw8c";
    cr_expect_str_eq(path_of(1, 64, 64, 56, 1, 1, blk, LG_CONV_AUTO), "wino");
    cr_expect_str_eq(path_of(1, 64, 64, 56, 1, 1, "nhwc", LG_CONV_AUTO), "wino");
    cr_expect_str_eq(path_of(1, 64, 64, 56, 1, 1, blk, LG_CONV_DIRECT), "direct");
    cr_expect_str_eq(path_of(1, 64, 64, 56, 1, 1, blk, LG_CONV_WINOGRAD), "wino");
    /* 512 @ 7x7: 4 tiles at N = 1 (direct), 64 at N = 16 (Winograd, both
     * rules). */
    cr_expect_str_eq(path_of(1, 512, 512, 7, 1, 1, blk, LG_CONV_AUTO), "direct");
    cr_expect_str_eq(path_of(16, 512, 512, 7, 1, 1, blk, LG_CONV_AUTO), "wino");
    /* Stride 2, groups, few channels: direct; plain: not Winograd. */
    cr_expect_str_eq(path_of(1, 64, 64, 56, 2, 1, blk, LG_CONV_AUTO), "direct");
    cr_expect_str_neq(path_of(1, 64, 64, 56, 1, 2, blk, LG_CONV_AUTO), "wino");
    cr_expect_str_eq(path_of(1, 24, 24, 56, 1, 1, blk, LG_CONV_AUTO), "direct");
    cr_expect_str_neq(path_of(1, 64, 64, 56, 1, 1, "nchw", LG_CONV_AUTO), "wino");
    /* The kernel agrees. */
    int64_t sd[4] = {1, 64, 28, 28}, wd[4] = {64, 64, 3, 3};
    lg_md sm, wm, dm;
    cr_assert_eq(lg_md_init_tag(&sm, 4, sd, LG_F32, blk), LG_OK);
    cr_assert_eq(lg_md_init_tag(&dm, 4, sd, LG_F32, blk), LG_OK);
    cr_assert_eq(lg_md_init_tag(&wm, 4, wd, LG_F32, "any"), LG_OK);
    for (int alg = LG_CONV_DIRECT; alg <= LG_CONV_AUTO; alg++) {
        lg_conv_params p;
        memset(&p, 0, sizeof p);
        p.strides[0] = p.strides[1] = 1;
        p.pad_l[0] = p.pad_l[1] = p.pad_r[0] = p.pad_r[1] = 1;
        p.groups = 1;
        p.alg = (lg_conv_alg)alg;
        lg_kernel *k = NULL;
        cr_assert_eq(lg_conv_create(&k, &p, &sm, &wm, NULL, &dm, NULL), LG_OK, "%s",
                     lg_last_error());
        const char *impl = lg_kernel_impl(k), *last = strrchr(impl, ':') + 1;
        const char *path = lg__conv_path(&p, &sm, &wm, NULL, &dm);
        cr_expect(strncmp(last, path, strlen(path)) == 0, "alg %d: impl %s, path %s", alg, impl,
                  path);
        lg_kernel_destroy(k);
    }
}

/* x[n, 64, h, h] (tag) -> 3x3 conv 64, pad 1 -> y (any). */
static lg_graph *one_conv(int64_t n, int64_t h, float **w) {
    lg_graph *g;
    cr_assert_eq(lg_graph_create(&g), LG_OK);
    int64_t xd[4] = {n, 64, h, h}, wd[4] = {64, 64, 3, 3};
    lg_md xm, wm;
    cr_assert_eq(lg_md_init_tag(&xm, 4, xd, LG_F32, "any"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&wm, 4, wd, LG_F32, "oihw"), LG_OK);
    *w = calloc(64 * 64 * 9, sizeof **w);
    cr_assert(*w);
    for (int i = 0; i < 64 * 64 * 9; i++) (*w)[i] = (float)((i * 37) % 11 - 5) * 0.01f;
    lg_value x, wv, y;
    cr_assert_eq(lg_graph_add_input(g, "x", &xm, &x), LG_OK);
    cr_assert_eq(lg_graph_add_constant(g, "w", &wm, *w, &wv), LG_OK);
    lg_conv_params p;
    memset(&p, 0, sizeof p);
    p.strides[0] = p.strides[1] = 1;
    p.pad_l[0] = p.pad_l[1] = p.pad_r[0] = p.pad_r[1] = 1;
    p.groups = 1;
    cr_assert_eq(lg_graph_add_conv(g, x, wv, LG_NO_VALUE, &p, &y), LG_OK);
    cr_assert_eq(lg_graph_add_output(g, y, "y", "any"), LG_OK);
    return g;
}

/* The conv step of a compile of g under table `model` and conv_alg: its
 * impl, key and predicted ms, and its bytes. */
static void conv_step(lg_graph *g, const char *model, lg_conv_alg alg, char impl[64], char key[64],
                      double *ms, double *bytes) {
    lg_compile_options o;
    lg_compile_options_init(&o);
    o.strategy = LG_STRATEGY_GREEDY;
    o.cost_model = model;
    o.conv_alg = alg;
    o.num_threads = 1;
    lg_plan *p = NULL;
    cr_assert_eq(lg_graph_compile(g, &o, &p), LG_OK, "%s", lg_last_error());
    lg_plan_stats st;
    cr_assert_eq(lg_plan_stats_get(p, &st), LG_OK);
    lg_step_profile *steps = calloc((size_t)st.steps, sizeof *steps);
    lg_md xm, ym;
    cr_assert_eq(lg_plan_query_md(p, "x", &xm), LG_OK);
    cr_assert_eq(lg_plan_query_md(p, "y", &ym), LG_OK);
    float *x = calloc(lg_md_size(&xm) / 4 + 1, 4), *y = calloc(lg_md_size(&ym) / 4 + 1, 4);
    cr_assert(steps && x && y);
    lg_binding in = {"x", x}, out = {"y", y};
    cr_assert_eq(lg_plan_profile(p, 1, &in, 1, &out, 1, steps, st.steps), LG_OK);
    impl[0] = key[0] = 0;
    for (int i = 0; i < st.steps; i++)
        if (strcmp(steps[i].node_kind, "conv") == 0) {
            snprintf(impl, 64, "%s", steps[i].impl);
            snprintf(key, 64, "%s", steps[i].cost_key);
            *ms = steps[i].model_ms;
            *bytes = steps[i].cost_bytes;
        }
    free(steps);
    free(x);
    free(y);
    lg_plan_destroy(p);
}

#define WINO_ENTRY                                                                                 \
    "{\"key\": \"conv:conv_kxk.wino:*:*\", \"fixed_ns\": 0, \"ns_per_byte\": 0, "                  \
    "\"ns_per_flop\": 0.25}, "
#define REST_ENTRIES                                                                               \
    "{\"key\": \"conv:conv_kxk.direct:*:*\", \"fixed_ns\": 0, \"ns_per_byte\": 0, "                \
    "\"ns_per_flop\": 1}, {\"key\": \"conv:*:*:*\", \"fixed_ns\": 0, \"ns_per_byte\": 0, "         \
    "\"ns_per_flop\": 7}, {\"key\": \"*\", \"fixed_ns\": 0, \"ns_per_byte\": 0.001, "              \
    "\"ns_per_flop\": 0}"

/* A conv the kernel runs with Winograd is priced from the Winograd entry
 * (0.25 ns per direct flop here), with conv_alg direct from the direct one
 * (1 ns); under a table without Winograd entries, from the direct entry. */
Test(cost_wino, priced_by_the_path_that_runs) {
    if (lg__cpu_isa() < LG_ISA_AVX2) cr_skip_test("no AVX2: no Winograd path");
    char path[96];
    temp_path(path, sizeof path, "hand");
    float *w;
    lg_graph *g = one_conv(1, 28, &w);
    const double flops = 2.0 * 64 * 64 * 9 * 28 * 28;
    char impl[64], key[64];
    double ms = 0, bytes = 0;
    hand_table(path, WINO_ENTRY REST_ENTRIES);
    conv_step(g, path, LG_CONV_AUTO, impl, key, &ms, &bytes);
    cr_expect(strstr(impl, ":wino4x4") != NULL, "impl %s", impl);
    cr_expect(strncmp(key, "conv:conv_kxk.wino:", 19) == 0, "key %s", key);
    cr_expect(fabs(ms - 0.25 * flops * 1e-6) <= 1e-9 * ms, "%.9g ms, want %.9g", ms,
              0.25 * flops * 1e-6);
    conv_step(g, path, LG_CONV_DIRECT, impl, key, &ms, &bytes);
    cr_expect(strstr(impl, ":direct") != NULL, "impl %s", impl);
    cr_expect(strncmp(key, "conv:conv_kxk.direct:", 21) == 0, "key %s", key);
    cr_expect(fabs(ms - flops * 1e-6) <= 1e-9 * ms, "%.9g ms, want %.9g", ms, flops * 1e-6);
    /* A table made before Winograd: the direct entry, not the kind's (the
     * step's key stays the path's). */
    hand_table(path, REST_ENTRIES);
    conv_step(g, path, LG_CONV_AUTO, impl, key, &ms, &bytes);
    cr_expect(strstr(impl, ":wino4x4") != NULL, "impl %s", impl);
    cr_expect(strncmp(key, "conv:conv_kxk.wino:", 19) == 0, "key %s", key);
    cr_expect(fabs(ms - flops * 1e-6) <= 1e-9 * ms, "%.9g ms, want %.9g", ms, flops * 1e-6);
    lg_graph_destroy(g);
    free(w);
    remove(path);
}

/* The shipped table of 2026-11-25 (three coefficients, no Winograd entry,
 * no spill term) still loads and prices a Winograd conv as direct; the
 * built-in table has a Winograd entry of its own, cheaper per flop than
 * the direct path's. */
Test(cost_wino, older_file_and_shipped_table) {
    lg__cost_coefs old;
    cr_assert_eq(lg__cost_coefs_load(LG_OLD_MODEL, "test", &old), LG_OK, "%s", lg_last_error());
    cr_expect_gt(old.n, 20);
    for (int i = 0; i < old.n; i++) cr_expect_eq(old.e[i].ns_per_spill, 0, "%s", old.e[i].key);
    lg__cost_coefs_free(&old);
    if (lg__cpu_isa() < LG_ISA_AVX2) cr_skip_test("no AVX2: no Winograd path");
    float *w;
    lg_graph *g = one_conv(1, 28, &w);
    char impl[64], key[64];
    double ms = 0, bytes = 0;
    conv_step(g, LG_OLD_MODEL, LG_CONV_AUTO, impl, key, &ms, &bytes);
    lg__cost_coefs o;
    cr_assert_eq(lg__cost_coefs_load(LG_OLD_MODEL, "test", &o), LG_OK);
    const lg__cost_entry *oe = lg__cost_lookup(&o, "conv:conv_kxk.direct:b8:f32");
    cr_assert(oe != NULL);
    const double flops = 2.0 * 64 * 64 * 9 * 28 * 28;
    double want = lg__cost_eval(oe, bytes, flops, 0) * 1e-6;
    cr_expect(fabs(ms - want) <= 1e-9 * want, "%.9g ms, the direct entry's %.9g", ms, want);
    lg__cost_coefs_free(&o);
    conv_step(g, NULL, LG_CONV_AUTO, impl, key, &ms, &bytes);
    cr_expect(strncmp(key, "conv:conv_kxk.wino:", 19) == 0, "key %s", key);
    const lg__cost_coefs *d = lg__cost_coefs_default();
    const lg__cost_entry *we = lg__cost_lookup(d, key);
    cr_assert(we && strncmp(we->key, "conv:conv_kxk.wino:", 19) == 0, "entry %s",
              we ? we->key : "-");
    const lg__cost_entry *de = lg__cost_lookup(d, "conv:conv_kxk.direct:b8:f32");
    cr_assert(de && strncmp(de->key, "conv:conv_kxk.direct:", 21) == 0);
    cr_expect_lt(we->ns_per_flop, de->ns_per_flop, "wino %g, direct %g ns/flop", we->ns_per_flop,
                 de->ns_per_flop);
    lg_graph_destroy(g);
    free(w);
}

/* ns_per_spill_byte prices the bytes beyond LG_COST_CACHE_BYTES of a step
 * with flops (a conv at N = 16: its tensors hold 2 x 16 x 64 x 56 x 56 x 4
 * bytes, 25.7 MB, and the weights), not those of a memory-bound step (whose
 * third term already is the spill); the coefficient round-trips through the
 * file and a negative one is refused. */
Test(cost_wino, spill_term) {
    char path[96], again[96];
    temp_path(path, sizeof path, "spill");
    temp_path(again, sizeof again, "spill2");
    hand_table(path, "{\"key\": \"conv:*:*:*\", \"fixed_ns\": 0, \"ns_per_byte\": 0, "
                     "\"ns_per_flop\": 0, \"ns_per_spill_byte\": 2}, {\"key\": \"*\", "
                     "\"fixed_ns\": 0, \"ns_per_byte\": 0, \"ns_per_flop\": 1, "
                     "\"ns_per_spill_byte\": 1000}");
    float *w;
    lg_graph *g = one_conv(16, 56, &w);
    char impl[64], key[64];
    double ms = 0, bytes = 0;
    conv_step(g, path, LG_CONV_AUTO, impl, key, &ms, &bytes);
    double want = 2 * (bytes - LG_COST_CACHE_BYTES) * 1e-6;
    cr_assert_gt(bytes, 2.0 * 16 * 64 * 56 * 56 * 4);
    cr_expect(fabs(ms - want) <= 1e-9 * want, "%.9g ms, want %.9g", ms, want);
    /* A reorder (memory-bound) of the same table: bytes beyond the caches
     * at 1 ns (the third term), the spill coefficient unused. */
    lg__cost_coefs c;
    cr_assert_eq(lg__cost_coefs_load(path, "test", &c), LG_OK, "%s", lg_last_error());
    const lg__cost_entry *star = lg__cost_lookup(&c, "reorder:reorder:plain>b8:f32");
    cr_assert(star && strcmp(star->key, "*") == 0);
    cr_expect_eq(lg__cost_eval(star, 3e7, lg__cost_spill(3e7), 0), 3e7 - LG_COST_CACHE_BYTES);
    cr_expect_eq(lg__cost_eval(star, 3e6, lg__cost_spill(3e6), 0), 0);
    FILE *f = fopen(again, "w");
    cr_assert(f != NULL);
    cr_assert_eq(lg__cost_coefs_write(&c, f), LG_OK);
    fclose(f);
    lg__cost_coefs b;
    cr_assert_eq(lg__cost_coefs_load(again, "test", &b), LG_OK, "%s", lg_last_error());
    cr_assert_eq(b.n, c.n);
    for (int i = 0; i < b.n; i++)
        cr_expect_eq(b.e[i].ns_per_spill, c.e[i].ns_per_spill, "%s", b.e[i].key);
    lg__cost_coefs_free(&b);
    lg__cost_coefs_free(&c);
    hand_table(path, "{\"key\": \"*\", \"fixed_ns\": 0, \"ns_per_byte\": 0, \"ns_per_flop\": 1, "
                     "\"ns_per_spill_byte\": -1}");
    lg__cost_coefs bad;
    cr_expect_eq(lg__cost_coefs_load(path, "test", &bad), LG_INVALID_ARGUMENT);
    cr_expect(strstr(lg_last_error(), "negative") != NULL, "%s", lg_last_error());
    lg_graph_destroy(g);
    free(w);
    remove(path);
    remove(again);
}
