/* One typed conv kernel (quant.h: int8 and bf16), four threads: each
 * executes the same kernel many times at once on its own buffers and checks
 * every result bit for bit against the scalar reference lg__convq_ref. The
 * kernel's f32 scratch is allocated at creation and claimed per execution;
 * an execution that finds it taken runs the reference, so every result must
 * equal the reference's whichever way it ran (the data are small or int8
 * integers: the f32 sums are exact in any order). Cases: int8 with zero
 * points and scales (one f32 convolution), int8 over a large reduction with
 * full-range data (the split mode: two f32 convolutions), bf16. */
#include "memory/convert.h"
#include "memory/md.h"
#include "primitives/conv/quant.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define NTHREADS 4
#define ITERS    6

typedef struct tcase {
    lg_dtype sdt, wdt, ddt;
    int64_t ic, oc, hw;
    int64_t slo, shi, wlo, whi; /* the data ranges */
    bool quant;                 /* src zero point 3, weights scales per oc, dst scale */
} tcase;

typedef struct shared {
    const tcase *c;
    lg_kernel *k;
    lg_md s, w, d;
    lg__convq_pd q;
    lg__conv_tabs tabs;
    float wscale[64], dscale;
    int32_t zp;
    pthread_barrier_t start;
} shared;

typedef struct job {
    shared *sh;
    uint64_t seed;
    int failures, runs;
    char msg[200];
} job;

static uint32_t rnd(uint64_t *st) {
    *st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(*st >> 33);
}

/* Plain md: element i at offset i; integers in [lo, hi]. */
static void fill(const lg_md *md, void *buf, int64_t lo, int64_t hi, uint64_t *st) {
    int64_t n = lg__md_nelems(md);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = lo + (int64_t)(rnd(st) % (uint32_t)(hi - lo + 1));
        switch (md->dtype) {
        case LG_U8:
            ((uint8_t *)buf)[i] = (uint8_t)v;
            break;
        case LG_S8:
            ((int8_t *)buf)[i] = (int8_t)v;
            break;
        case LG_BF16:
            ((uint16_t *)buf)[i] = lg__f32_to_bf16((float)v);
            break;
        default:
            ((float *)buf)[i] = (float)v;
        }
    }
}

static void *buffer(const lg_md *md) {
    size_t n = (lg_md_size(md) + 63) / 64 * 64 + 64;
    void *p = aligned_alloc(64, n);
    if (p) memset(p, 0, n);
    return p;
}

static void *thread_main(void *arg) {
    job *j = arg;
    shared *sh = j->sh;
    void *src = buffer(&sh->s), *wei = buffer(&sh->w), *dst = buffer(&sh->d);
    void *want = buffer(&sh->d);
    pthread_barrier_wait(&sh->start);
    if (!src || !wei || !dst || !want) {
        j->failures++;
        snprintf(j->msg, sizeof j->msg, "cannot allocate the test buffers");
    }
    size_t bytes = lg_md_size(&sh->d);
    for (int it = 0; it < ITERS && !j->failures; it++) {
        fill(&sh->s, src, sh->c->slo, sh->c->shi, &j->seed);
        fill(&sh->w, wei, sh->c->wlo, sh->c->whi, &j->seed);
        memset(dst, 0x5a, bytes);
        lg_arg a[8] = {{LG_ARG_SRC, src}, {LG_ARG_WEIGHTS, wei}, {LG_ARG_DST, dst}};
        int na = 3;
        if (sh->c->quant) {
            a[na++] = (lg_arg){LG_ARG_ATTR_ZERO_POINTS | LG_ARG_SRC, &sh->zp};
            a[na++] = (lg_arg){LG_ARG_ATTR_SCALES | LG_ARG_WEIGHTS, sh->wscale};
            a[na++] = (lg_arg){LG_ARG_ATTR_SCALES | LG_ARG_DST, &sh->dscale};
        }
        lg_status st = lg_kernel_execute(sh->k, na, a);
        j->runs++;
        if (st != LG_OK) {
            j->failures++;
            snprintf(j->msg, sizeof j->msg, "execute: %s", lg_last_error());
            break;
        }
        lg__convq_args ra;
        memset(&ra, 0, sizeof ra);
        ra.src = src;
        ra.wei = wei;
        ra.dst = want;
        if (sh->c->quant) {
            ra.zp[LG_CQ_SRC] = &sh->zp;
            ra.scale[LG_CQ_WEI] = sh->wscale;
            ra.scale[LG_CQ_DST] = &sh->dscale;
        }
        lg__convq_ref(&sh->q, &sh->tabs, &ra);
        if (memcmp(dst, want, bytes)) {
            j->failures++;
            snprintf(j->msg, sizeof j->msg, "iteration %d: dst differs from the reference", it);
        }
    }
    free(src);
    free(wei);
    free(dst);
    free(want);
    return NULL;
}

static void run_case(const tcase *c, const char *what) {
    shared sh;
    memset(&sh, 0, sizeof sh);
    sh.c = c;
    const int64_t sd[4] = {2, c->ic, c->hw, c->hw}, wd[4] = {c->oc, c->ic, 3, 3};
    const int64_t dd[4] = {2, c->oc, c->hw, c->hw};
    cr_assert_eq(lg_md_init_tag(&sh.s, 4, sd, c->sdt, "nchw"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&sh.w, 4, wd, c->wdt, "oihw"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&sh.d, 4, dd, c->ddt, "nchw"), LG_OK);
    lg_conv_params p = {.strides = {1, 1},
                        .dilates = {0, 0},
                        .pad_l = {1, 1},
                        .pad_r = {1, 1},
                        .groups = 1,
                        .alg = LG_CONV_AUTO};
    lg_attr *attr = NULL;
    if (c->quant) {
        cr_assert_eq(lg_attr_create(&attr), LG_OK);
        cr_assert_eq(lg_attr_set_zero_points(attr, LG_ARG_SRC, 0), LG_OK);
        cr_assert_eq(lg_attr_set_scales(attr, LG_ARG_WEIGHTS, 1), LG_OK);
        cr_assert_eq(lg_attr_set_scales(attr, LG_ARG_DST, 0), LG_OK);
        sh.zp = 3;
        for (int i = 0; i < c->oc; i++) sh.wscale[i] = 0.25f * (float)(1 + i % 4);
        sh.dscale = 2.0f;
    }
    cr_assert_eq(lg_conv_create(&sh.k, &p, &sh.s, &sh.w, NULL, &sh.d, attr), LG_OK, "%s: %s", what,
                 lg_last_error());
    cr_assert_eq(lg__convq_query(&p, &sh.s, &sh.w, NULL, &sh.d, attr, "test", &sh.q), LG_OK);
    cr_assert_eq(lg__conv_tabs_init(&sh.q.f, &sh.tabs), LG_OK);
    cr_assert_eq(pthread_barrier_init(&sh.start, NULL, NTHREADS), 0);
    job jobs[NTHREADS];
    pthread_t th[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
        jobs[i] = (job){.sh = &sh, .seed = 1234567u + 7919u * (uint64_t)i};
        cr_assert_eq(pthread_create(&th[i], NULL, thread_main, &jobs[i]), 0);
    }
    for (int i = 0; i < NTHREADS; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&sh.start);
    for (int i = 0; i < NTHREADS; i++) {
        cr_expect_eq(jobs[i].failures, 0, "%s, thread %d: %s", what, i, jobs[i].msg);
        cr_expect_eq(jobs[i].runs, ITERS, "%s, thread %d ran %d times", what, i, jobs[i].runs);
    }
    lg__conv_tabs_free(&sh.tabs);
    lg_kernel_destroy(sh.k);
    lg_attr_destroy(attr);
}

Test(conv_quant_threads, int8_zero_points_and_scales) {
    const tcase c = {LG_U8, LG_S8, LG_S8, 16, 16, 8, 0, 255, -128, 127, true};
    run_case(&c, "u8 x s8 -> s8");
}

/* K = 512 * 9: full-range sums exceed 2^24, the split into 16 hi + lo
 * does not (two f32 convolutions, both scratch halves). */
Test(conv_quant_threads, int8_split) {
    const tcase c = {LG_U8, LG_S8, LG_S32, 512, 8, 4, 0, 255, -128, 127, true};
    run_case(&c, "u8 x s8 -> s32, split");
}

Test(conv_quant_threads, bf16) {
    const tcase c = {LG_BF16, LG_BF16, LG_F32, 16, 16, 8, -4, 4, -3, 3, false};
    run_case(&c, "bf16 x bf16 -> f32");
}
