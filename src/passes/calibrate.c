/* lg_calibrate: build one small graph per (node kind, shape class, layout
 * family), compile it with a strategy that puts its node in that family,
 * profile every step of the plan, and fit the cost model's entries to the
 * steps' times, key by key (see lgraph.h and docs/propagation.md). Graphs
 * are built with the public API only, so the steps and their keys are
 * exactly what a user's plan runs. */
#include "passes/calibrate.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "primitives/conv/conv.h"
#include "primitives/cpu.h"

/* Layout families a case may ask for: their generic tags on 4 dims. */
enum { F_PLAIN, F_CL, F_B8, F_B16, NFAM };
static const char *const fam_tag[NFAM] = {"abcd", "acdb", "aBcd8b", "aBcd16b"};
static const char *const fam_alias[NFAM] = {"nchw", "nhwc", "nChw8c", "nChw16c"};

typedef enum op {
    OP_CONV,
    OP_POOL_MAX,
    OP_POOL_AVG,
    OP_RELU,
    OP_ADD,
    OP_CONCAT,
    OP_SHUFFLE,
    OP_SPLIT,
    OP_BNORM,
    OP_IP,
    OP_SOFTMAX,
    OP_REORDER
} op;

/* One measurement graph: input n x c x h x h in family src, the op, the
 * result wanted in family dst. */
typedef struct calib_case {
    op op;
    int64_t n, c, h;
    int64_t oc, k, stride, groups; /* conv (pad k / 2), pool (kernel k, stride) */
    int src, dst;
} calib_case;

/* A strategy putting every node's activations in the case's families. */
typedef struct force {
    int src, dst;
} force;

static int tag_family(const lg_md *md) {
    char tag[32];
    if (lg_md_tag(md, tag, sizeof tag) != LG_OK) return -1;
    if (md->ndims == 2) return strcmp(tag, "ab") == 0 ? F_PLAIN : -1;
    for (int f = 0; f < NFAM; f++)
        if (strcmp(tag, fam_tag[f]) == 0) return f;
    return -1;
}

static lg_status force_strategy(lg_layout_problem *p, void *user) {
    const force *fc = user;
    int n = lg_layout_num_nodes(p);
    int *choice = calloc((size_t)n + 1, sizeof *choice);
    if (!choice) return LG_OUT_OF_MEMORY;
    for (int i = 0; i < n; i++) {
        const char *kind;
        int gn, nin, ncfg, best = -1;
        if (lg_layout_node(p, i, &kind, &gn, &nin, &ncfg) != LG_OK) continue;
        /* Inputs other than the first are weights for these kinds. */
        bool weights = strcmp(kind, "conv") == 0 || strcmp(kind, "inner_product") == 0 ||
                       strcmp(kind, "batchnorm") == 0;
        for (int c = 0; c < ncfg; c++) {
            lg_md md;
            int score = 0;
            if (lg_layout_config_md(p, i, c, -1, &md) == LG_OK && tag_family(&md) == fc->dst)
                score += 4;
            for (int j = 0; j < nin && !(weights && j > 0); j++)
                if (lg_layout_config_md(p, i, c, j, &md) == LG_OK && tag_family(&md) == fc->src)
                    score += 1;
            if (score > best) {
                best = score;
                choice[i] = c;
            }
        }
    }
    lg_status s = lg_layout_choose(p, n, choice);
    free(choice);
    return s;
}

static uint32_t rng_next(uint32_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static float *random_floats(int64_t n, uint32_t *seed, float scale) {
    float *p = malloc((size_t)(n > 0 ? n : 1) * sizeof *p);
    for (int64_t i = 0; p && i < n; i++)
        p[i] = scale * ((float)(rng_next(seed) >> 8) / 8388608.0f - 1.0f);
    return p;
}

/* Constants of the graph being built (freed after the graph). */
typedef struct consts {
    float *p[8];
    int n;
} consts;

static lg_status add_const(lg_graph *g, consts *k, int nd, const int64_t *dims, const char *tag,
                           float scale, uint32_t *seed, lg_value *v) {
    int64_t e = 1;
    for (int i = 0; i < nd; i++) e *= dims[i];
    float *p = random_floats(e, seed, scale);
    if (!p || k->n == 8) return free(p), LG_OUT_OF_MEMORY;
    k->p[k->n++] = p;
    lg_md md;
    char name[16];
    snprintf(name, sizeof name, "c%d", k->n);
    LG_CHECK(lg_md_init_tag(&md, nd, dims, LG_F32, tag));
    return lg_graph_add_constant(g, name, &md, p, v);
}

static int64_t out_size(int64_t in, int64_t k, int64_t s) {
    return (in + 2 * (k / 2) - k) / s + 1;
}

/* Build the case's graph: input "x", output "y" (and "y2" for a split). */
static lg_status build(const calib_case *cc, lg_graph *g, consts *k) {
    uint32_t seed = 12345u + (uint32_t)(cc->c * 31 + cc->h * 7 + cc->oc);
    int64_t d[4] = {cc->n, cc->c, cc->h, cc->h};
    lg_md md;
    lg_value x, y, y2 = LG_NO_VALUE;
    bool flat = cc->op == OP_IP || cc->op == OP_SOFTMAX;
    LG_CHECK(lg_md_init_tag(&md, flat ? 2 : 4, d, LG_F32, flat ? "ab" : fam_alias[cc->src]));
    LG_CHECK(lg_graph_add_input(g, "x", &md, &x));
    switch (cc->op) {
    case OP_CONV: {
        int64_t gr = cc->groups, wd[5] = {gr, cc->oc / gr, cc->c / gr, cc->k, cc->k}, b;
        lg_value w, bias;
        if (gr == 1)
            LG_CHECK(add_const(g, k, 4, wd + 1, "oihw", 0.1f, &seed, &w));
        else
            LG_CHECK(add_const(g, k, 5, wd, "goihw", 0.1f, &seed, &w));
        b = cc->oc;
        LG_CHECK(add_const(g, k, 1, &b, "a", 0.1f, &seed, &bias));
        lg_conv_params p;
        memset(&p, 0, sizeof p);
        for (int s = 0; s < 2; s++) {
            p.strides[s] = cc->stride;
            p.pad_l[s] = p.pad_r[s] = cc->k / 2;
        }
        p.groups = gr;
        LG_CHECK(lg_graph_add_conv(g, x, w, bias, &p, &y));
        break;
    }
    case OP_POOL_MAX:
    case OP_POOL_AVG: {
        lg_pool_params p;
        memset(&p, 0, sizeof p);
        p.alg = cc->op == OP_POOL_MAX ? LG_POOL_MAX : LG_POOL_AVG_EXCLUDE_PADDING;
        bool global = cc->k >= cc->h;
        for (int s = 0; s < 2; s++) {
            p.kernel[s] = global ? cc->h : cc->k;
            p.strides[s] = global ? 1 : cc->stride;
            p.pad_l[s] = p.pad_r[s] = global ? 0 : cc->k / 2;
        }
        if (!global && cc->stride > 1) /* keep the formula's output size exact */
            for (int s = 0; s < 2; s++)
                p.pad_r[s] = (out_size(cc->h, cc->k, cc->stride) - 1) * cc->stride + cc->k - cc->h -
                             p.pad_l[s];
        for (int s = 0; s < 2; s++)
            if (p.pad_r[s] < 0) p.pad_r[s] = 0;
        LG_CHECK(lg_graph_add_pool(g, x, &p, &y));
        break;
    }
    case OP_RELU:
        LG_CHECK(lg_graph_add_eltwise(g, x, LG_ELTWISE_RELU, 0, 0, &y));
        break;
    case OP_ADD: {
        lg_value x2;
        LG_CHECK(lg_graph_add_input(g, "x2", &md, &x2));
        LG_CHECK(lg_graph_add_binary(g, LG_BINARY_ADD, x, x2, &y));
        break;
    }
    case OP_CONCAT: {
        lg_value x2, s[2];
        LG_CHECK(lg_graph_add_input(g, "x2", &md, &x2));
        s[0] = x, s[1] = x2;
        LG_CHECK(lg_graph_add_concat(g, 1, 2, s, &y));
        break;
    }
    case OP_SHUFFLE:
        LG_CHECK(lg_graph_add_shuffle(g, x, 1, cc->c / cc->groups, &y));
        break;
    case OP_SPLIT: {
        int64_t sz[2] = {cc->c / 2, cc->c - cc->c / 2};
        lg_value o[2];
        LG_CHECK(lg_graph_add_split(g, x, 1, 2, sz, o));
        y = o[0], y2 = o[1];
        break;
    }
    case OP_BNORM: {
        lg_value m, v, ga, be;
        int64_t c = cc->c;
        LG_CHECK(add_const(g, k, 1, &c, "a", 0.1f, &seed, &m));
        LG_CHECK(add_const(g, k, 1, &c, "a", 0.1f, &seed, &v));
        k->p[k->n - 1][0] = 1.0f;
        for (int64_t i = 0; i < c; i++) k->p[k->n - 1][i] = 1.0f + 0.5f * k->p[k->n - 1][i];
        LG_CHECK(add_const(g, k, 1, &c, "a", 1.0f, &seed, &ga));
        LG_CHECK(add_const(g, k, 1, &c, "a", 0.1f, &seed, &be));
        LG_CHECK(lg_graph_add_batchnorm(g, x, m, v, ga, be, 1e-5f, false, &y));
        break;
    }
    case OP_IP: {
        lg_value w, bias;
        int64_t wd[2] = {cc->oc, cc->c}, b = cc->oc;
        LG_CHECK(add_const(g, k, 2, wd, "ab", 0.05f, &seed, &w));
        LG_CHECK(add_const(g, k, 1, &b, "a", 0.1f, &seed, &bias));
        LG_CHECK(lg_graph_add_inner_product(g, x, w, bias, &y));
        break;
    }
    case OP_SOFTMAX:
        LG_CHECK(lg_graph_add_softmax(g, x, LG_SOFTMAX, 1, &y));
        break;
    case OP_REORDER: {
        lg_md dmd;
        LG_CHECK(lg_md_init_tag(&dmd, 4, d, LG_F32, fam_alias[cc->dst]));
        LG_CHECK(lg_graph_add_reorder(g, x, &dmd, NULL, &y));
        break;
    }
    }
    LG_CHECK(lg_graph_add_output(g, y, "y", "any"));
    if (y2 != LG_NO_VALUE) LG_CHECK(lg_graph_add_output(g, y2, "y2", "any"));
    return LG_OK;
}

static double now_ms(void) {
    return omp_get_wtime() * 1e3;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The process's CPU time. */
static double cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* The calling thread's CPU time: on one thread the plan runs on it, and
 * what other processes take of the core is not counted. */
static double thread_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Growing sample list. */
typedef struct samples {
    lg__calib_sample *s;
    int n, cap;
} samples;

static bool push(samples *ss, const lg__calib_sample *x) {
    if (ss->n == ss->cap) {
        int cap = ss->cap ? 2 * ss->cap : 256;
        lg__calib_sample *p = realloc(ss->s, (size_t)cap * sizeof *p);
        if (!p) return false;
        ss->s = p, ss->cap = cap;
    }
    ss->s[ss->n++] = *x;
    return true;
}

/* Compile, warm up, profile the case; append one sample per step. With
 * wall non-NULL, instead: the fastest wall time of a whole run over many
 * runs into *wall, and no sample. */
static lg_status measure(const calib_case *cc, const lg_calibrate_options *o, samples *ss,
                         double *wall) {
    lg_graph *g = NULL;
    consts k = {.n = 0};
    lg_plan *plan = NULL;
    lg_step_profile *steps = NULL;
    void *bufs[4] = {NULL, NULL, NULL, NULL};
    lg_binding bind[4];
    int nin = 0, nout = 0;
    lg_status s = lg_graph_create(&g);
    if (s == LG_OK) s = build(cc, g, &k);
    force fc = {cc->src, cc->dst};
    if (s == LG_OK) {
        lg_compile_options co;
        lg_compile_options_init(&co);
        co.num_threads = o->num_threads;
        co.strategy_fn = force_strategy;
        co.strategy_data = &fc;
        s = lg_graph_compile(g, &co, &plan);
    }
    static const char *const names[4] = {"x", "x2", "y", "y2"};
    bool two_in = cc->op == OP_ADD || cc->op == OP_CONCAT, two_out = cc->op == OP_SPLIT;
    uint32_t seed = 777u;
    for (int i = 0; i < 4 && s == LG_OK; i++) {
        bool in = i < 2;
        if ((i == 1 && !two_in) || (i == 3 && !two_out)) continue;
        lg_md md;
        s = lg_plan_query_md(plan, names[i], &md);
        if (s != LG_OK) break;
        size_t bytes = lg_md_size(&md);
        bufs[i] = random_floats((int64_t)(bytes / sizeof(float) + 16), &seed, 1.0f);
        if (!bufs[i])
            s = LG_OUT_OF_MEMORY;
        else if (in)
            bind[nin++] = (lg_binding){names[i], bufs[i]};
    }
    for (int i = 2; i < 4 && s == LG_OK; i++)
        if (bufs[i]) bind[2 + nout++] = (lg_binding){names[i], bufs[i]};
    lg_plan_stats ps;
    if (s == LG_OK) s = lg_plan_stats_get(plan, &ps);
    if (s == LG_OK && !(steps = calloc((size_t)ps.steps + 1, sizeof *steps))) s = LG_OUT_OF_MEMORY;
    double t0 = now_ms();
    if (s == LG_OK) s = lg_plan_execute(plan, nin, bind, nout, bind + 2);
    /* Slow plans (reference kernels) get fewer runs. */
    int runs = now_ms() - t0 > 30 && o->runs > 3 ? 3 : o->runs;
    bool one_thread = (o->num_threads ? o->num_threads : omp_get_max_threads()) == 1;
    /* The fastest of the runs, step by step: on a shared machine the
     * slower ones measure the other processes (a 2-thread step whose thread
     * is descheduled waits a whole time slice). */
    /* all[r * steps + i]: step i in run r (scaled, see below). */
    double *all = s == LG_OK ? malloc((size_t)ps.steps * (size_t)o->runs * sizeof *all + 1) : NULL,
           *best = s == LG_OK ? malloc((size_t)ps.steps * sizeof *best + 1) : NULL;
    if (s == LG_OK && (!all || !best)) s = LG_OUT_OF_MEMORY;
    bool scaled = false;
    if (wall && s == LG_OK) {
        double m = INFINITY;
        for (int r = 0; r < 8 * runs + 8 && s == LG_OK; r++) {
            double w0 = now_ms();
            s = lg_plan_execute(plan, nin, bind, nout, bind + 2);
            m = fmin(m, now_ms() - w0);
        }
        *wall = m;
        runs = 0;
        ps.steps = 0;
    }
    /* One thread and one step: the fastest run by the thread's CPU clock
     * (usable while other processes share the machine). */
    bool cpu_clock = one_thread && ps.steps == 1;
    if (cpu_clock && s == LG_OK) {
        s = lg_plan_profile(plan, nin, bind, nout, bind + 2, 1, steps, ps.steps);
        double m = INFINITY;
        for (int r = 0; r < runs + 2 && s == LG_OK; r++) {
            double c0 = thread_ms();
            s = lg_plan_execute(plan, nin, bind, nout, bind + 2);
            m = fmin(m, thread_ms() - c0);
        }
        best[0] = m;
        runs = 0;
    }
    for (int r = 0; r < runs && s == LG_OK; r++) {
        double c0 = cpu_ms(), w0 = now_ms();
        s = lg_plan_profile(plan, nin, bind, nout, bind + 2, 1, steps, ps.steps);
        /* On one thread, the share of a long run the process was on a core
         * (CPU time over wall time) takes out what other processes took.
         * Short runs: the minimum over runs already leaves the waits out,
         * and the CPU clock is too coarse for them. */
        double f = 1, w = now_ms() - w0, c = cpu_ms() - c0;
        if (one_thread && w > 5 && c > 0 && c < w) {
            f = c / w;
            scaled = true;
        }
        for (int i = 0; s == LG_OK && i < ps.steps; i++)
            all[(size_t)r * (size_t)ps.steps + (size_t)i] = steps[i].ms * f;
    }
    /* The fastest run; the median where runs were scaled (the minimum of
     * noisy scaled times would be biased low). */
    for (int i = 0; s == LG_OK && !cpu_clock && i < ps.steps; i++) {
        double v[1000];
        for (int r = 0; r < runs; r++) v[r] = all[(size_t)r * (size_t)ps.steps + (size_t)i];
        qsort(v, (size_t)runs, sizeof *v, cmp_double);
        best[i] = scaled ? v[runs / 2] : v[0];
    }
    for (int i = 0; s == LG_OK && i < ps.steps; i++) {
        lg__calib_sample x;
        steps[i].ms = best[i];
        snprintf(x.key, sizeof x.key, "%s", steps[i].cost_key);
        x.bytes = steps[i].cost_bytes;
        /* Memory-bound: the bytes beyond the caches (lg__cost_spill). */
        x.flops = steps[i].flops > 0 ? steps[i].flops : lg__cost_spill(x.bytes);
        x.spill = steps[i].flops > 0 ? lg__cost_spill(x.bytes) : 0;
        x.ns = fmax(steps[i].ms * 1e6, 1.0);
        if (!push(ss, &x)) s = LG_OUT_OF_MEMORY;
        if (o->log)
            fprintf(o->log, "  %-34s %-24s %10.4f ms  %s\n", x.key, steps[i].impl, steps[i].ms,
                    steps[i].desc);
    }
    if (s != LG_OK && o->log)
        fprintf(o->log, "  case op %d c %lld h %lld families %d>%d skipped: %s\n", (int)cc->op,
                (long long)cc->c, (long long)cc->h, cc->src, cc->dst, lg_last_error());
    free(steps);
    free(best);
    free(all);
    for (int i = 0; i < 4; i++) free(bufs[i]);
    lg_plan_destroy(plan);
    lg_graph_destroy(g);
    for (int i = 0; i < k.n; i++) free(k.p[i]);
    /* A case the kernels refuse is left out, not fatal; running out of
     * memory is. */
    return s == LG_OUT_OF_MEMORY ? s : LG_OK;
}

/* The cases: shapes of the classes the networks run. quick keeps one or
 * two per class. Plain convs run the reference kernel: their shapes are
 * smaller so that they take tens of ms. */
typedef struct shape {
    int64_t c, oc, h, k, stride, groups;
} shape;

static const shape conv_1x1[] = {
    {232, 232, 7, 1, 1, 1},  {24, 58, 28, 1, 1, 1},   {64, 256, 56, 1, 1, 1},
    {256, 64, 56, 1, 1, 1},  {512, 128, 28, 1, 1, 1}, {1024, 256, 14, 1, 1, 1},
    {2048, 512, 7, 1, 1, 1}, {256, 512, 56, 1, 2, 1}, {58, 58, 28, 1, 1, 1},
    {144, 24, 56, 1, 1, 1},  {32, 192, 28, 1, 1, 1},  {960, 160, 7, 1, 1, 1},
    {116, 116, 14, 1, 1, 1}, {320, 1280, 7, 1, 1, 1}, {240, 60, 28, 1, 1, 3},
    {60, 240, 28, 1, 1, 3},  {480, 120, 14, 1, 1, 3}, {480, 60, 14, 1, 1, 3},
    {240, 60, 56, 1, 1, 3},  {32, 16, 112, 1, 1, 1},  {16, 96, 112, 1, 1, 1},
    {96, 24, 56, 1, 1, 1},   {24, 144, 56, 1, 1, 1},  {64, 384, 14, 1, 1, 1},
    {384, 64, 14, 1, 1, 1},  {576, 160, 7, 1, 1, 1},
};
static const shape conv_kxk[] = {
    {64, 64, 56, 3, 1, 1},  {128, 128, 28, 3, 1, 1}, {256, 256, 14, 3, 1, 1},
    {512, 512, 7, 3, 1, 1}, {128, 128, 56, 3, 2, 1}, {256, 256, 28, 3, 2, 1},
    {60, 60, 28, 3, 1, 3},  {512, 512, 14, 3, 2, 1}, {24, 24, 56, 3, 1, 1},
    {32, 64, 56, 3, 1, 1},  {128, 128, 14, 3, 1, 1}, {256, 256, 28, 3, 1, 1},
};
static const shape conv_dw[] = {
    {32, 32, 112, 3, 1, 32},   {144, 144, 56, 3, 2, 144}, {192, 192, 28, 3, 1, 192},
    {576, 576, 14, 3, 1, 576}, {960, 960, 7, 3, 1, 960},  {58, 58, 28, 3, 1, 58},
    {116, 116, 28, 3, 2, 116}, {96, 96, 112, 3, 2, 96},   {144, 144, 56, 3, 1, 144},
    {384, 384, 14, 3, 1, 384},
};
static const shape conv_first[] = {
    {3, 64, 224, 7, 2, 1}, {3, 32, 224, 3, 2, 1}, {3, 24, 224, 3, 2, 1}, {3, 16, 112, 3, 1, 1}};
/* Activation sizes (c, h) for memory-bound kinds. */
static const int64_t act[][2] = {{64, 56},   {256, 56}, {512, 28}, {32, 112},
                                 {1024, 14}, {116, 28}, {232, 14}};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* True if a conv case would run the scalar reference path (the path the
 * cost model prices it by, asked without creating a kernel). */
static bool runs_ref(const shape *sh, int64_t h, int src, int dst) {
    int64_t ho = out_size(h, sh->k, sh->stride);
    int64_t sd[4] = {1, sh->c, h, h}, dd[4] = {1, sh->oc, ho, ho};
    int64_t wd[5] = {sh->groups, sh->oc / sh->groups, sh->c / sh->groups, sh->k, sh->k};
    lg_md sm, dm, wm;
    lg_conv_params p;
    memset(&p, 0, sizeof p);
    for (int i = 0; i < 2; i++) {
        p.strides[i] = sh->stride;
        p.pad_l[i] = p.pad_r[i] = sh->k / 2;
    }
    p.groups = sh->groups;
    if (lg_md_init_tag(&sm, 4, sd, LG_F32, fam_alias[src]) != LG_OK ||
        lg_md_init_tag(&dm, 4, dd, LG_F32, fam_alias[dst]) != LG_OK ||
        lg_md_init_tag(&wm, sh->groups > 1 ? 5 : 4, sh->groups > 1 ? wd : wd + 1, LG_F32, "any") !=
            LG_OK)
        return true;
    return strcmp(lg__conv_path(&p, &sm, &wm, NULL, &dm), "ref") == 0;
}

/* Shapes (group gi of make_cases: 1x1, kxk, depthwise; index i) also
 * measured at N = 16 and full size: ResNet-50's 56x56 1x1 pair, MobileNet
 * v2's small-channel 1x1 at 112 and 56, the 3x3 convs Winograd runs at
 * N = 16 (64@56, 128@28, 512@7), depthwise at 56 (stride 2 and 1) and 112. */
static bool batched_full(int gi, int i) {
    static const int pick[3][4] = {{2, 3, 20, 22}, {0, 3, 1, -1}, {1, 8, 7, -1}};
    for (int k = 0; k < 4; k++)
        if (pick[gi][k] == i) return true;
    return false;
}

static int add_case(calib_case *cs, int n, int cap, calib_case c) {
    if (n < cap) cs[n] = c;
    return n + 1;
}

static int make_cases(bool quick, bool b16, calib_case *cs, int cap) {
    int n = 0;
    const shape *groups[4] = {conv_1x1, conv_kxk, conv_dw, conv_first};
    const int counts[4] = {COUNT(conv_1x1), COUNT(conv_kxk), COUNT(conv_dw), COUNT(conv_first)};
    for (int f = 0; f < NFAM; f++) {
        if (f == F_B16 && !b16) continue;
        for (int gi = 0; gi < 4; gi++)
            for (int i = 0; i < counts[gi]; i++) {
                if (quick && i >= 2) break;
                shape s = groups[gi][i];
                int64_t h = s.h;
                /* The reference kernel (plain and channels-last convs) is
                 * slow: shrink the image so each case takes tens of ms. */
                if (runs_ref(&s, h, gi == 3 ? F_PLAIN : f, f)) {
                    double flops = 2.0 * (double)s.c / (double)s.groups * (double)s.oc *
                                   (double)(h * h) * (double)(s.k * s.k) /
                                   (double)(s.stride * s.stride);
                    while (flops > (quick ? 2e6 : 1.2e7) && h > 7) {
                        h /= 2;
                        flops /= 4;
                    }
                }
                calib_case c = {OP_CONV, 1, s.c, h, s.oc, s.k, s.stride, s.groups, f, f};
                if (gi == 3) c.src = F_PLAIN; /* a first conv reads the plain image */
                n = add_case(cs, n, cap, c);
                if (gi < 3 && f != F_PLAIN && (!quick || i == 0)) {
                    /* OPTIMAL may also read a plain source into any
                     * destination: another kernel path. */
                    calib_case m = c;
                    m.src = F_PLAIN;
                    m.h = s.h;
                    double flops = 2.0 * (double)s.c / (double)s.groups * (double)s.oc *
                                   (double)(m.h * m.h) * (double)(s.k * s.k) /
                                   (double)(s.stride * s.stride);
                    while (runs_ref(&s, m.h, F_PLAIN, f) && flops > (quick ? 2e6 : 1.2e7) &&
                           m.h > 7) {
                        m.h /= 2;
                        flops /= 4;
                    }
                    n = add_case(cs, n, cap, m);
                }
                if (gi == 3 && f != F_PLAIN) { /* and the same in its family */
                    c.src = f;
                    n = add_case(cs, n, cap, c);
                }
                /* Batched, out of cache: in every family a fast path runs,
                 * so that no family's entry is extrapolated to large steps. */
                if (!quick && gi < 3 && (i == 0 || i == 6) && f != F_PLAIN &&
                    !runs_ref(&s, s.h, f, f)) {
                    c.n = 16;
                    c.h = s.h >= 28 ? s.h / 2 : s.h;
                    n = add_case(cs, n, cap, c);
                }
                /* And at the networks' full size at N = 16 (tens of MB:
                 * the spill term), for the shapes of batched_full. */
                if (!quick && gi < 3 && f != F_PLAIN && batched_full(gi, i) &&
                    !runs_ref(&s, s.h, f, f)) {
                    c.n = 16;
                    c.h = s.h;
                    n = add_case(cs, n, cap, c);
                }
            }
        for (int i = 0; i < COUNT(act); i++) {
            if (quick && i >= 2) break;
            int64_t c = act[i][0], h = act[i][1];
            calib_case base = {OP_RELU, 1, c, h, c, 3, 2, 2, f, f};
            static const op ops[] = {OP_RELU,  OP_ADD,      OP_CONCAT,   OP_SHUFFLE,
                                     OP_SPLIT, OP_POOL_MAX, OP_POOL_AVG, OP_BNORM};
            for (int k = 0; k < COUNT(ops); k++) {
                calib_case x = base;
                x.op = ops[k];
                if (x.op == OP_POOL_AVG && i % 2) x.k = h; /* global average */
                n = add_case(cs, n, cap, x);
            }
            if (!quick && i == 1) {
                base.n = 16;
                base.op = OP_RELU;
                n = add_case(cs, n, cap, base);
                base.op = OP_ADD;
                n = add_case(cs, n, cap, base);
            }
            for (int t = 0; t < NFAM; t++) {
                if ((t == F_B16 && !b16) || t == f) continue;
                calib_case r = {OP_REORDER, 1, c, h, c, 1, 1, 1, f, t};
                n = add_case(cs, n, cap, r);
                if (!quick && i <= 1) { /* out of cache */
                    r.n = 16;
                    n = add_case(cs, n, cap, r);
                }
            }
        }
    }
    static const int64_t heads[][3] = {
        {1, 2048, 1000}, {1, 1280, 1000}, {16, 2048, 1000}, {16, 1024, 1000}, {1, 512, 10}};
    for (int i = 0; i < COUNT(heads); i++) {
        if (quick && i >= 2) break;
        calib_case c = {OP_IP, heads[i][0], heads[i][1], 1, heads[i][2], 1, 1, 1, F_PLAIN, F_PLAIN};
        n = add_case(cs, n, cap, c);
        c.op = OP_SOFTMAX;
        c.c = heads[i][2];
        n = add_case(cs, n, cap, c);
    }
    return n;
}

void lg_calibrate_options_init(lg_calibrate_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
}

static int cmp_key(const void *a, const void *b) {
    return strcmp(((const lg__calib_sample *)a)->key, ((const lg__calib_sample *)b)->key);
}

/* The prefix of key up to its `parts`-th ':' plus wildcards ("conv:conv1x1:*:*"). */
static void wildcard(const char *key, int parts, char out[LG_COST_KEY_LEN]) {
    const char *p = key;
    for (int i = 0; i < parts && p; i++) p = strchr(p + (i > 0), ':');
    int len = p ? (int)(p - key) : (int)strlen(key);
    snprintf(out, LG_COST_KEY_LEN, "%.*s%s", len, key, parts == 1 ? ":*:*:*" : ":*:*");
}

/* Fit every key of ss (sorted), then the wildcard entries. */
static lg_status fit_all(samples *ss, lg__cost_coefs *c, FILE *log) {
    qsort(ss->s, (size_t)ss->n, sizeof *ss->s, cmp_key);
    lg__calib_sample *tmp = malloc((size_t)(ss->n + 1) * sizeof *tmp);
    if (!tmp) return LG_OUT_OF_MEMORY;
    lg_status s = LG_OK;
    for (int i = 0; i < ss->n && s == LG_OK;) {
        int j = i;
        while (j < ss->n && strcmp(ss->s[j].key, ss->s[i].key) == 0) j++;
        lg__cost_entry e;
        memset(&e, 0, sizeof e);
        snprintf(e.key, sizeof e.key, "%s", ss->s[i].key);
        lg__calib_fit(ss->s + i, j - i, &e);
        s = lg__cost_coefs_set(c, &e);
        i = j;
    }
    /* Wildcards: "kind:class:*:*", "kind:*:*:*" and "*", over every sample
     * they cover. */
    for (int parts = 2; parts >= 0 && s == LG_OK; parts--) {
        for (int i = 0; i < ss->n && s == LG_OK;) {
            char w[LG_COST_KEY_LEN], w2[LG_COST_KEY_LEN];
            if (parts)
                wildcard(ss->s[i].key, parts, w);
            else
                snprintf(w, sizeof w, "*");
            int m = 0, j = i;
            for (; j < ss->n; j++) {
                if (parts)
                    wildcard(ss->s[j].key, parts, w2);
                else
                    snprintf(w2, sizeof w2, "*");
                if (strcmp(w, w2) != 0) break;
                tmp[m++] = ss->s[j];
            }
            lg__cost_entry e;
            memset(&e, 0, sizeof e);
            snprintf(e.key, sizeof e.key, "%s", w);
            lg__calib_fit(tmp, m, &e);
            s = lg__cost_coefs_set(c, &e);
            i = j;
        }
    }
    free(tmp);
    /* A family's own entry is kept only where its steps run measurably
     * differently from the kind and class over all families: where the
     * pooled "kind:class:*:*" predicts the key's own samples within 5
     * points of relative error of the key's fit, the key goes (it falls
     * back to the pooled entry). Otherwise OPTIMAL would trade layouts
     * whose kernels run equally fast on the noise of two separate fits. */
    for (int i = 0; i < ss->n && s == LG_OK;) {
        int j = i;
        while (j < ss->n && strcmp(ss->s[j].key, ss->s[i].key) == 0) j++;
        char w[LG_COST_KEY_LEN];
        wildcard(ss->s[i].key, 2, w);
        const lg__cost_entry *own = NULL, *pool = NULL;
        int at = -1;
        for (int k = 0; k < c->n; k++) {
            if (strcmp(c->e[k].key, ss->s[i].key) == 0) own = &c->e[k], at = k;
            if (strcmp(c->e[k].key, w) == 0) pool = &c->e[k];
        }
        if (own && pool && strcmp(ss->s[i].key, "reorder") != 0 &&
            strncmp(ss->s[i].key, "reorder:", 8) != 0) {
            double err = 0;
            for (int k = i; k < j; k++) {
                double p = lg__cost_eval(pool, ss->s[k].bytes, ss->s[k].flops, ss->s[k].spill);
                err += (p - ss->s[k].ns) * (p - ss->s[k].ns) / (ss->s[k].ns * ss->s[k].ns);
            }
            err = sqrt(err / (j - i));
            if (err <= own->rms_rel_err + 0.05) {
                if (log)
                    fprintf(log, "pooled: %s (own fit %.1f%%, %s %.1f%%)\n", own->key,
                            100 * own->rms_rel_err, w, 100 * err);
                c->e[at] = c->e[c->n - 1];
                c->n--;
            }
        }
        i = j;
    }
    if (log && s == LG_OK) {
        fprintf(log, "fit: %d entries from %d measured steps\n", c->n, ss->n);
        fprintf(log, "%-36s %5s %12s %12s %12s %12s %8s\n", "key", "n", "fixed_ns", "ns/byte",
                "ns/flop", "ns/spilled", "rms_err");
        for (int i = 0; i < c->n; i++)
            fprintf(log, "%-36s %5d %12.1f %12.5f %12.6f %12.5f %7.1f%%\n", c->e[i].key,
                    c->e[i].samples, c->e[i].fixed_ns, c->e[i].ns_per_byte, c->e[i].ns_per_flop,
                    c->e[i].ns_per_spill, 100 * c->e[i].rms_rel_err);
    }
    return s;
}

/* The speedup on 2 threads over 1 of a few steps of networks' sizes, the
 * median over them of the one-thread time (thread CPU clock, fastest run)
 * over the fastest wall time of many 2-thread runs (on a shared machine, the runs during
 * which both threads held a core; the process CPU time cannot serve: idle
 * OpenMP threads spin between runs). compute: convs; else memory-bound
 * kinds. 0 if nothing was measured. */
static double speedup2(const lg_calibrate_options *o, bool compute) {
    static const calib_case comp[] = {
        {OP_CONV, 1, 256, 56, 64, 1, 1, 1, F_B8, F_B8},
        {OP_CONV, 1, 64, 56, 64, 3, 1, 1, F_B8, F_B8},
        {OP_CONV, 1, 1024, 14, 256, 1, 1, 1, F_B8, F_B8},
        {OP_CONV, 1, 144, 56, 144, 3, 1, 144, F_B8, F_B8},
        {OP_CONV, 1, 512, 7, 512, 3, 1, 1, F_B8, F_B8},
    };
    static const calib_case mem[] = {
        {OP_RELU, 1, 256, 56, 256, 3, 2, 2, F_B8, F_B8},
        {OP_ADD, 1, 256, 56, 256, 3, 2, 2, F_B8, F_B8},
        {OP_REORDER, 1, 256, 56, 256, 1, 1, 1, F_PLAIN, F_B8},
        {OP_REORDER, 1, 256, 56, 256, 1, 1, 1, F_B8, F_PLAIN},
    };
    /* The cases in this machine's channel block (on AVX-512 a conv in
     * nChw8c is preceded by a reorder to nChw16c: two steps, no sample). */
    calib_case cs[8];
    int n = compute ? COUNT(comp) : COUNT(mem), m = 0;
    bool b16 = lg__cpu_isa() >= LG_ISA_AVX512;
    for (int i = 0; i < n; i++) {
        cs[i] = compute ? comp[i] : mem[i];
        if (b16 && cs[i].src == F_B8) cs[i].src = F_B16;
        if (b16 && cs[i].dst == F_B8) cs[i].dst = F_B16;
    }
    double r[8];
    for (int i = 0; i < n; i++) {
        lg_calibrate_options a = *o, b = *o;
        a.num_threads = 1;
        b.num_threads = 2;
        samples ss = {NULL, 0, 0};
        double t2 = INFINITY;
        bool ok = measure(&cs[i], &a, &ss, NULL) == LG_OK && ss.n == 1;
        /* Up to 3 tries while every 2-thread run was disturbed (below). */
        for (int k = 0; ok && k < 3 && !(t2 < ss.s[0].ns * 1e-6); k++) {
            double t = 0;
            if (measure(&cs[i], &b, NULL, &t) == LG_OK && t > 0) t2 = fmin(t2, t);
        }
        if (!ok && o->log) fprintf(o->log, "  speedup case %d: not one step, not measured\n", i);
        if (ok && isfinite(t2)) {
            /* Slower on 2 threads than on 1: the second thread never got a
             * core (it waits a time slice when woken on a loaded machine). */
            if (ss.s[0].ns * 1e-6 > t2) r[m++] = ss.s[0].ns * 1e-6 / t2;
            if (o->log)
                fprintf(o->log, "  %-34s 1 thread %.4f ms (CPU), 2 threads %.4f ms (wall)\n",
                        ss.s[0].key, ss.s[0].ns * 1e-6, t2);
        }
        free(ss.s);
    }
    if (!m) return 0;
    /* The median of the cases left. */
    qsort(r, (size_t)m, sizeof *r, cmp_double);
    double med = m % 2 ? r[m / 2] : 0.5 * (r[m / 2 - 1] + r[m / 2]);
    return fmax(0.5, fmin(2.0, med));
}

/* The median wall time (ms) of a chain of `len` relu steps over
 * 1x64x28x28 (200 KB: each step a few microseconds, big enough that its
 * kernel splits it over the threads) on `threads` threads, and its step
 * count; a negative time on failure. */
static double chain_ms(int threads, int len, int *nsteps) {
    lg_graph *g = NULL;
    lg_plan *plan = NULL;
    float *x = NULL, *y = NULL;
    double med = -1;
    int64_t d[4] = {1, 64, 28, 28};
    lg_md md;
    lg_value v;
    lg_status s = lg_graph_create(&g);
    if (s == LG_OK) s = lg_md_init_tag(&md, 4, d, LG_F32, "nchw");
    if (s == LG_OK) s = lg_graph_add_input(g, "x", &md, &v);
    for (int i = 0; i < len && s == LG_OK; i++)
        s = lg_graph_add_eltwise(g, v, LG_ELTWISE_RELU, 0, 0, &v);
    if (s == LG_OK) s = lg_graph_add_output(g, v, "y", "nchw");
    if (s == LG_OK) {
        lg_compile_options co;
        lg_compile_options_init(&co);
        co.num_threads = threads;
        s = lg_graph_compile(g, &co, &plan);
    }
    lg_plan_stats ps;
    if (s == LG_OK) s = lg_plan_stats_get(plan, &ps);
    uint32_t seed = 99u;
    if (s == LG_OK) {
        x = random_floats(64 * 28 * 28, &seed, 1.0f);
        y = random_floats(64 * 28 * 28, &seed, 1.0f);
    }
    enum { RUNS = 101 };
    double t[RUNS];
    if (s == LG_OK && x && y) {
        lg_binding in = {"x", x}, out = {"y", y};
        for (int r = 0; r < RUNS + 5 && s == LG_OK; r++) {
            double t0 = now_ms();
            s = lg_plan_execute(plan, 1, &in, 1, &out);
            if (r >= 5) t[r - 5] = now_ms() - t0;
        }
        if (s == LG_OK) {
            qsort(t, RUNS, sizeof *t, cmp_double);
            med = t[RUNS / 2];
            *nsteps = (int)ps.steps;
        }
    }
    free(x);
    free(y);
    lg_plan_destroy(plan);
    lg_graph_destroy(g);
    return med;
}

/* What a step costs on 2 threads beyond its one-thread time divided by the
 * memory-bound speedup s (lg__cost_coefs.step_ns_mt, ns): a chain of small
 * steps, the median of many runs on 1 and on 2 threads (the median: what a
 * plan of many short steps measures), the difference per step. 0 if it
 * cannot be measured. */
static double step_overhead(double s, FILE *log) {
    int n1 = 0, n2 = 0;
    double t1 = chain_ms(1, 48, &n1), t2 = chain_ms(2, 48, &n2);
    if (t1 <= 0 || t2 <= 0 || n1 != n2 || n1 < 1) return 0;
    double ns = (t2 - t1 / (s > 1 ? s : 1)) / n1 * 1e6;
    if (log)
        fprintf(log,
                "step overhead: %d steps, 1 thread %.4f ms, 2 threads %.4f ms: %.0f ns a step\n",
                n1, t1, t2, ns);
    return fmin(fmax(ns, 0), 1e5);
}

lg_status lg_calibrate(const char *path, const lg_calibrate_options *opts) {
    if (!path) return LG_ERROR(LG_INVALID_ARGUMENT, "path is NULL");
    lg_calibrate_options o;
    lg_calibrate_options_init(&o);
    if (opts) o = *opts;
    if (o.num_threads < 0 || o.num_threads > LG_MAX_THREADS)
        return LG_ERROR(LG_INVALID_ARGUMENT, "options: num_threads %d is outside 0..%d",
                        o.num_threads, LG_MAX_THREADS);
    if (o.runs < 0 || o.runs > 1000)
        return LG_ERROR(LG_INVALID_ARGUMENT, "options: runs %d is outside 0..1000", o.runs);
    if (o.runs == 0) o.runs = o.quick ? 3 : 9;
    bool b16 = lg__cpu_isa() >= LG_ISA_AVX512;
    int cap = make_cases(o.quick, b16, NULL, 0);
    calib_case *cs = malloc((size_t)cap * sizeof *cs);
    if (!cs) return LG_ERROR(LG_OUT_OF_MEMORY, "out of memory");
    make_cases(o.quick, b16, cs, cap);
    samples ss = {NULL, 0, 0};
    lg_status s = LG_OK;
    if (o.log) fprintf(o.log, "lg_calibrate: %d graphs, %d runs each\n", cap, o.runs);
    for (int i = 0; i < cap && s == LG_OK; i++) s = measure(&cs[i], &o, &ss, NULL);
    free(cs);
    lg__cost_coefs c;
    memset(&c, 0, sizeof c);
    snprintf(c.machine, sizeof c.machine, "%s, %d threads", lg__isa_name(lg__cpu_isa()),
             o.num_threads ? o.num_threads : omp_get_max_threads());
    c.threads = o.num_threads ? o.num_threads : omp_get_max_threads();
    /* Calibrated on one thread: how much 2 threads gain, for plans that
     * run on more. */
    if (s == LG_OK && c.threads == 1 && omp_get_num_procs() >= 2) {
        c.speedup2_compute = speedup2(&o, true);
        c.speedup2_memory = speedup2(&o, false);
        c.step_ns_mt = step_overhead(c.speedup2_memory, o.log);
        if (o.log)
            fprintf(o.log,
                    "speedup on 2 threads (fastest wall time): compute %.3f, memory-bound %.3f\n",
                    c.speedup2_compute, c.speedup2_memory);
    }
    if (s == LG_OK && ss.n == 0) s = LG_ERROR(LG_RUNTIME_ERROR, "no step could be measured");
    if (s == LG_OK) s = fit_all(&ss, &c, o.log);
    free(ss.s);
    if (s == LG_OK) {
        FILE *f = fopen(path, "w");
        if (!f)
            s = LG_ERROR(LG_RUNTIME_ERROR, "cannot write %s", path);
        else {
            s = lg__cost_coefs_write(&c, f);
            if (fclose(f) != 0 || s != LG_OK)
                s = LG_ERROR(LG_RUNTIME_ERROR, "cannot write %s", path);
        }
    } else if (s == LG_OUT_OF_MEMORY)
        s = LG_ERROR(s, "out of memory");
    lg__cost_coefs_free(&c);
    return s;
}
