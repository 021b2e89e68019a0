/* lg_plan_profile: run a plan several times timing each step and report,
 * per step, what it is (node kind, kernel, layer class), what it moves and
 * computes, what the cost model predicted and the median measured time. */
#include "graph/plan.h"
#include "primitives/kernel.h"

#include <stdlib.h>
#include <string.h>

const char *lg_layer_class_name(lg_layer_class c) {
    static const char *const names[LG_LAYER_CLASS_COUNT] = {
        [LG_LAYER_OTHER] = "other",
        [LG_LAYER_FIRST_CONV] = "first_conv",
        [LG_LAYER_CONV_1X1] = "conv1x1",
        [LG_LAYER_CONV_KXK] = "conv_kxk",
        [LG_LAYER_DEPTHWISE] = "depthwise",
        [LG_LAYER_POOLING] = "pooling",
        [LG_LAYER_DATA_MOVEMENT] = "concat_split_shuffle",
        [LG_LAYER_REORDER] = "reorder",
        [LG_LAYER_ELTWISE] = "eltwise",
        [LG_LAYER_HEAD] = "head",
    };
    return (int)c >= 0 && c < LG_LAYER_CLASS_COUNT ? names[c] : "unknown";
}

static int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Median of v[0, n) (sorts v). */
static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* "src:<tag> wei:<tag> dst:<tag>" of the kernel's tensor slots (sources
 * beyond the first of a concat as "+n"); a layout no tag names is written
 * as "strided". */
static void describe_layouts(const lg_kernel *k, char *buf, size_t len) {
    size_t n = 0;
    int extra = 0;
    buf[0] = 0;
    for (int i = 0; i < k->nslots && n < len; i++) {
        const lg__arg_slot *sl = &k->slots[i];
        if (!sl->is_tensor) continue;
        const char *name = sl->arg == LG_ARG_SRC || sl->arg == LG_ARG_MULTIPLE_SRC ? "src"
                           : sl->arg == LG_ARG_WEIGHTS                             ? "wei"
                           : sl->arg == LG_ARG_DST                                 ? "dst"
                                                                                   : NULL;
        if (!name) {
            extra += sl->arg > LG_ARG_MULTIPLE_SRC &&
                     sl->arg <= LG_ARG_MULTIPLE_SRC + LG_CONCAT_MAX_SRCS;
            continue;
        }
        char tag[LG_TAG_MAX * 2];
        if (!lg__md_tag_str(&sl->md, tag)) snprintf(tag, sizeof tag, "strided");
        int w = snprintf(buf + n, len - n, "%s%s:%s", n ? " " : "", name, tag);
        if (w < 0) break;
        n += (size_t)w;
    }
    if (extra && n < len) snprintf(buf + n, len - n, " (+%d srcs)", extra);
}

lg_status lg_plan_profile(const lg_plan *p, int nin, const lg_binding *in, int nout,
                          const lg_binding *out, int runs, lg_step_profile *steps, int capacity) {
    if (!p) return LG_ERROR(LG_INVALID_ARGUMENT, "plan is NULL");
    if (!steps) return LG_ERROR(LG_INVALID_ARGUMENT, "steps is NULL");
    if (runs < 1 || runs > 100000)
        return LG_ERROR(LG_INVALID_ARGUMENT, "runs is %d, not in [1, 100000]", runs);
    if (capacity < p->nsteps)
        return LG_ERROR(LG_INVALID_ARGUMENT, "capacity %d is less than the plan's %d steps",
                        capacity, p->nsteps);
    int n = p->nsteps;
    /* times[i * runs + r]: step i in run r. */
    double *ms = lg__malloc((size_t)n * sizeof *ms + 1);
    double *times = lg__malloc((size_t)n * (size_t)runs * sizeof *times + 1);
    if (!ms || !times) {
        lg__free(ms);
        lg__free(times);
        return LG_ERROR(LG_OUT_OF_MEMORY, "cannot allocate %d x %d step times", n, runs);
    }
    lg_status s = LG_OK;
    for (int r = 0; r < runs && s == LG_OK; r++) {
        s = lg__plan_execute_timed(p, nin, in, nout, out, ms, __func__);
        for (int i = 0; i < n && s == LG_OK; i++)
            times[(size_t)i * (size_t)runs + (size_t)r] = ms[i];
    }
    for (int i = 0; i < n && s == LG_OK; i++) {
        const lg__step *st = &p->steps[i];
        lg_step_profile *o = &steps[i];
        memset(o, 0, sizeof *o);
        o->node_kind = lg__node_ops_of(st->node_kind)->name;
        snprintf(o->impl, sizeof o->impl, "%s", st->kernel->impl);
        snprintf(o->desc, sizeof o->desc, "%s", st->desc);
        o->layer_class = st->layer_class;
        o->inserted = st->inserted || st->copy;
        /* Per execute: a step runs once per batch slice. */
        o->bytes = st->bytes * p->slices;
        o->flops = st->flops * p->slices;
        o->model_cost = st->model_cost * p->slices;
        o->model_ms = o->model_cost * 1e-6;
        snprintf(o->cost_key, sizeof o->cost_key, "%s", st->cost_key);
        o->cost_bytes = st->cost_bytes * p->slices;
        o->ms = median(times + (size_t)i * (size_t)runs, runs);
        describe_layouts(st->kernel, o->layouts, sizeof o->layouts);
    }
    lg__free(ms);
    lg__free(times);
    return s;
}
