/* lg_graph_compile: the compile pipeline, its order written once here.
 *
 *  1. infer_shapes       re-check every node's shapes; reject graphs with no
 *                        outputs or with values that reach no output.
 *  2. eliminate_shuffles a shuffle by G then by C/G on the same axis is the
 *                        identity: both go (eliminate_shuffles.c).
 * 2b. fold_batchnorm     a batchnorm reading the only-read result of a conv
 *                        with constant weights folds into the conv's
 *                        weights and bias (fold_batchnorm.c).
 * 2c. fold_flatten       a flatten read only by inner products goes: they
 *                        read the unflattened tensor (fold_flatten.c).
 *  3. propagate_layouts  the strategy (NONE, GREEDY, OPTIMAL or the user's
 *                        lg_compile_options.strategy_fn) gives every
 *                        value a concrete layout and every node input the
 *                        layout it is read in; the model cost is recorded.
 *  4. insert_reorders    one reorder per (value, layout) wherever a reader or
 *                        an output needs a layout the value does not have,
 *                        shared by all such readers; copies so that every
 *                        output has a value of its own.
 *  5. eliminate_reorders inverse pairs (A->B->A) cancel, chains (A->B->C)
 *                        merge into one reorder (eliminate_reorders.c).
 * 5b. fuse_shuffle_reorder
 *                        a shuffle and a same-type reorder right before or
 *                        after it become one kernel that shuffles into the
 *                        other layout (fuse_shuffle_reorder.c).
 *  6. fold_constants     reorders of constants run now, once (weights).
 *  7. fuse               eltwise chains and a residual add into the
 *                        producing conv's post-ops.
 * 7b. concat_inplace     concat inputs written by their producers at their
 *                        place in the concat's buffer, concats and slices
 *                        that become views of a buffer (concat_inplace.c).
 *  8. plan_memory        liveness-based reuse of one arena, in place where
 *                        safe.
 *  9. create_kernels     every step's kernel, through the kernel cache.
 * Then the plan is built (src/graph/plan_build.c): an immutable array of
 * steps. Passes 2, 2b, 2c, 5, 5b, 6, 7, 7b and 8 are optional and may be skipped by name
 * through lg_compile_options.disable_passes or LG_DISABLE_PASSES
 * ("fold_constants,fuse"); results stay correct (the skipped work happens at
 * run time, or memory is not reused). lg_compile_options.fuse = false skips
 * "fuse". */
#include "passes/passes.h"

#include "passes/cost_coefs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    lg__pass_fn fn;
    bool optional;
} pipeline[] = {
    {"infer_shapes", lg__pass_infer_shapes, false},
    {"eliminate_shuffles", lg__pass_eliminate_shuffles, true},
    {"fold_batchnorm", lg__pass_fold_batchnorm, true},
    {"fold_flatten", lg__pass_fold_flatten, true},
    {"propagate_layouts", lg__pass_propagate_layouts, false},
    {"insert_reorders", lg__pass_insert_reorders, false},
    {"eliminate_reorders", lg__pass_eliminate_reorders, true},
    {"fuse_shuffle_reorder", lg__pass_fuse_shuffle_reorder, true},
    {"fold_constants", lg__pass_fold_constants, true},
    {"fuse", lg__pass_fuse, true},
    {"concat_inplace", lg__pass_concat_inplace, true},
    {"plan_memory", lg__pass_plan_memory, true},
    {"create_kernels", lg__pass_create_kernels, false},
};
#define NPASSES ((int)(sizeof pipeline / sizeof pipeline[0]))

/* Most batch slices an execute may run (lg_compile_options.batch_slices). */
#define LG_MAX_BATCH_SLICES (1 << 20)

void lg_compile_options_init(lg_compile_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->strategy = LG_STRATEGY_OPTIMAL;
    o->fuse = true;
    o->num_threads = 0;
    o->disable_passes = NULL;
    o->optimal_margin = LG_OPTIMAL_MARGIN_DEFAULT;
    o->conv_alg = LG_CONV_AUTO;
}

/* Mark the passes named in the comma-separated list (from `origin`). */
static lg_status parse_disabled(const char *list, const char *origin, bool *off) {
    const char *s = list;
    while (*s) {
        while (*s == ',' || *s == ' ') s++;
        if (!*s) break;
        size_t n = strcspn(s, ", ");
        int i = 0;
        while (i < NPASSES && (strlen(pipeline[i].name) != n || strncmp(pipeline[i].name, s, n)))
            i++;
        if (i == NPASSES)
            return lg__error(
                LG_INVALID_ARGUMENT, "lg_graph_compile",
                "%s: unknown pass '%.*s' (optional passes: eliminate_shuffles, fold_batchnorm, "
                "fold_flatten, "
                "eliminate_reorders, fuse_shuffle_reorder, fold_constants, fuse, "
                "concat_inplace, plan_memory)",
                origin, (int)n, s);
        if (!pipeline[i].optional)
            return lg__error(LG_INVALID_ARGUMENT, "lg_graph_compile",
                             "%s: pass '%s' cannot be skipped", origin, pipeline[i].name);
        off[i] = true;
        s += n;
    }
    return LG_OK;
}

static lg_status check_options(const lg_compile_options *o, bool *off) {
    if (o->strategy != LG_STRATEGY_NONE && o->strategy != LG_STRATEGY_GREEDY &&
        o->strategy != LG_STRATEGY_OPTIMAL)
        return lg__error(LG_INVALID_ARGUMENT, "lg_graph_compile",
                         "options: strategy %d is not an lg_strategy", (int)o->strategy);
    if (o->num_threads < 0 || o->num_threads > LG_MAX_THREADS)
        return lg__error(LG_INVALID_ARGUMENT, "lg_graph_compile",
                         "options: num_threads %d is outside 0..%d (LG_MAX_THREADS)",
                         o->num_threads, LG_MAX_THREADS);
    if (!(o->optimal_margin >= 0 && o->optimal_margin < 1)) /* NaN fails too */
        return lg__error(LG_INVALID_ARGUMENT, "lg_graph_compile",
                         "options: optimal_margin %g is outside [0, 1)", o->optimal_margin);
    if (o->conv_alg != LG_CONV_DIRECT && o->conv_alg != LG_CONV_WINOGRAD &&
        o->conv_alg != LG_CONV_AUTO)
        return lg__error(LG_INVALID_ARGUMENT, "lg_graph_compile",
                         "options: conv_alg %d is not an lg_conv_alg", (int)o->conv_alg);
    if (o->batch_slices < 0 || o->batch_slices > LG_MAX_BATCH_SLICES)
        return lg__error(LG_INVALID_ARGUMENT, "lg_graph_compile",
                         "options: batch_slices %d is outside 0..%d", o->batch_slices,
                         LG_MAX_BATCH_SLICES);
    if (o->disable_passes) LG_CHECK(parse_disabled(o->disable_passes, "disable_passes", off));
    const char *env = getenv("LG_DISABLE_PASSES");
    if (env) LG_CHECK(parse_disabled(env, "LG_DISABLE_PASSES", off));
    if (!o->fuse)
        for (int i = 0; i < NPASSES; i++)
            if (strcmp(pipeline[i].name, "fuse") == 0) off[i] = true;
    return LG_OK;
}

lg_status lg_graph_compile(const lg_graph *g, const lg_compile_options *o, lg_plan **plan) {
    double t0 = lg__now_ms();
    if (!g || !plan) return LG_ERROR(LG_INVALID_ARGUMENT, "%s is NULL", !g ? "graph" : "plan");
    lg_compile_options defaults;
    lg_compile_options_init(&defaults);
    if (!o) o = &defaults;
    bool off[NPASSES] = {false};
    LG_CHECK(check_options(o, off));
    const lg__cost_coefs *coefs;
    lg__cost_coefs *owned_coefs;
    LG_CHECK(lg__cost_coefs_for(o->cost_model, "lg_graph_compile", &coefs, &owned_coefs));
    lg__graph ir;
    lg_status si = lg__ir_init(&ir, g);
    if (si != LG_OK) {
        lg__cost_coefs_free(owned_coefs);
        lg__free(owned_coefs);
        return si;
    }
    ir.coefs = coefs;
    ir.threads = o->num_threads;
    ir.conv_alg = o->conv_alg;
    ir.strategy = o->strategy;
    ir.user_strategy = o->strategy_fn;
    ir.user_data = o->strategy_data;
    ir.optimal_margin = o->optimal_margin;
    for (int i = 0; i < NPASSES; i++)
        if (strcmp(pipeline[i].name, "fuse") == 0) ir.fuse = !off[i];
    lg_status s = LG_OK;
    /* LG_PASS_TIMES=1 prints each pass's time to stderr (compile profiling). */
    const char *times = getenv("LG_PASS_TIMES");
    bool show = times && times[0] == '1';
    for (int i = 0; i < NPASSES && s == LG_OK; i++) {
        double tp = show ? lg__now_ms() : 0;
        if (!off[i]) s = pipeline[i].fn(&ir);
        if (show)
            fprintf(stderr, "lgraph pass %-22s %8.2f ms\n", pipeline[i].name, lg__now_ms() - tp);
    }
    double tb = show ? lg__now_ms() : 0;
    if (s == LG_OK) s = lg__plan_build(&ir, o->num_threads, plan);
    if (s == LG_OK &&
        (s = lg__plan_set_slices(*plan, o->batch_slices, "lg_graph_compile")) != LG_OK) {
        lg_plan_destroy(*plan);
        *plan = NULL;
    }
    if (show) fprintf(stderr, "lgraph pass %-22s %8.2f ms\n", "plan_build", lg__now_ms() - tb);
    lg__ir_free(&ir);
    lg__cost_coefs_free(owned_coefs);
    lg__free(owned_coefs);
    if (s == LG_OK) {
        (*plan)->strategy = o->strategy_fn ? "user" : lg__strategy_name(o->strategy);
        (*plan)->stats.compile_ms = lg__now_ms() - t0;
    }
    return s;
}
