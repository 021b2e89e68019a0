/* lgraph-run --profile (see profile.h). */
#include "profile.h"

#include <stdlib.h>
#include <string.h>

int profile_collect(const lg_plan *p, int nin, const lg_binding *in, int nout,
                    const lg_binding *out, int runs, lg_step_profile **steps, int *n) {
    lg_plan_stats ps;
    if (lg_plan_stats_get(p, &ps) != LG_OK) return fprintf(stderr, "%s\n", lg_last_error()), -1;
    *steps = calloc((size_t)ps.steps + 1, sizeof **steps);
    if (!*steps) return fprintf(stderr, "lgraph-run: out of memory\n"), -1;
    if (lg_plan_profile(p, nin, in, nout, out, runs, *steps, ps.steps) != LG_OK) {
        fprintf(stderr, "lgraph-run: profile: %s\n", lg_last_error());
        free(*steps);
        *steps = NULL;
        return -1;
    }
    *n = ps.steps;
    return 0;
}

/* Sums of a group of steps. */
typedef struct group {
    const char *name;
    int steps;
    double ms, flops, model;
    int64_t bytes;
} group;

/* Index of name in g[0, *ng), appended when new. */
static int group_of(group *g, int *ng, const char *name) {
    for (int i = 0; i < *ng; i++)
        if (strcmp(g[i].name, name) == 0) return i;
    g[*ng] = (group){.name = name};
    return (*ng)++;
}

/* Steps grouped by node kind (by_class false) or layer class. */
static int group_steps(const lg_step_profile *s, int n, bool by_class, group *g) {
    int ng = 0;
    for (int i = 0; i < n; i++) {
        group *e =
            &g[group_of(g, &ng, by_class ? lg_layer_class_name(s[i].layer_class) : s[i].node_kind)];
        e->steps++;
        e->ms += s[i].ms;
        e->flops += s[i].flops;
        e->model += s[i].model_cost;
        e->bytes += s[i].bytes;
    }
    return ng;
}

static void totals(const lg_step_profile *s, int n, double *ms, double *model) {
    *ms = *model = 0;
    for (int i = 0; i < n; i++) {
        *ms += s[i].ms;
        *model += s[i].model_cost;
    }
}

/* A step's predicted ms: the calibrated cost model's time (model_cost is
 * in ns). */
static double predicted(double cost_ns) {
    return cost_ns * 1e-6;
}

void profile_print_text(FILE *f, const lg_step_profile *s, int n, int runs) {
    double tot, model;
    totals(s, n, &tot, &model);
    fprintf(f,
            "profile: %d steps, median of %d runs each, steps sum to %.3f ms, the cost model "
            "predicts %.3f ms\n",
            n, runs, tot, predicted(model));
    fprintf(f, "%4s %-13s %-20s %-28s %9s %9s %9s %9s %9s %6s\n", "#", "kind", "class", "impl",
            "MB", "MFLOP", "model", "pred_ms", "ms", "share");
    for (int i = 0; i < n; i++)
        fprintf(f, "%4d %-13s %-20s %-28s %9.3f %9.2f %9.3g %9.4f %9.4f %5.1f%%  %s  [%s]\n", i,
                s[i].node_kind, lg_layer_class_name(s[i].layer_class), s[i].impl,
                (double)s[i].bytes / 1e6, s[i].flops / 1e6, s[i].model_cost,
                predicted(s[i].model_cost), s[i].ms, tot > 0 ? 100 * s[i].ms / tot : 0, s[i].desc,
                s[i].layouts);
    group g[LG_LAYER_CLASS_COUNT + 64];
    for (int by_class = 0; by_class < 2; by_class++) {
        int ng = group_steps(s, n, by_class, g);
        fprintf(f, "by %s:\n", by_class ? "layer class" : "node kind");
        fprintf(f, "  %-20s %5s %9s %6s %9s %8s %9s\n", by_class ? "class" : "kind", "steps", "ms",
                "share", "pred_ms", "pred_sh", "GFLOP/s");
        for (int i = 0; i < ng; i++)
            fprintf(f, "  %-20s %5d %9.3f %5.1f%% %9.3f %7.1f%% %9.2f\n", g[i].name, g[i].steps,
                    g[i].ms, tot > 0 ? 100 * g[i].ms / tot : 0, predicted(g[i].model),
                    model > 0 ? 100 * g[i].model / model : 0,
                    g[i].ms > 0 ? g[i].flops / g[i].ms / 1e6 : 0);
    }
}

static void json_groups(FILE *f, const lg_step_profile *s, int n, bool by_class, double tot) {
    group g[LG_LAYER_CLASS_COUNT + 64];
    int ng = group_steps(s, n, by_class, g);
    fprintf(f, "\"%s\": {", by_class ? "by_class" : "by_kind");
    for (int i = 0; i < ng; i++)
        fprintf(f,
                "%s\"%s\": {\"steps\": %d, \"ms\": %.5f, \"share\": %.4f, \"bytes\": %lld, "
                "\"flops\": %.6g, \"model_cost\": %.6g}",
                i ? ", " : "", g[i].name, g[i].steps, g[i].ms, tot > 0 ? g[i].ms / tot : 0,
                (long long)g[i].bytes, g[i].flops, g[i].model);
    fprintf(f, "}");
}

void profile_print_json(FILE *f, const lg_step_profile *s, int n, int runs) {
    double tot, model;
    totals(s, n, &tot, &model);
    fprintf(f,
            "\"profile\": {\"runs\": %d, \"step_sum_ms\": %.5f, \"model_cost\": %.6g, \"steps\": [",
            runs, tot, model);
    for (int i = 0; i < n; i++) {
        fprintf(f,
                "%s{\"kind\": \"%s\", \"class\": \"%s\", \"impl\": \"%s\", \"inserted\": %s, "
                "\"bytes\": %lld, \"flops\": %.6g, \"model_cost\": %.6g, \"predicted_ms\": %.5f, "
                "\"ms\": %.5f, \"layouts\": \"%s\", \"desc\": \"",
                i ? ", " : "", s[i].node_kind, lg_layer_class_name(s[i].layer_class), s[i].impl,
                s[i].inserted ? "true" : "false", (long long)s[i].bytes, s[i].flops,
                s[i].model_cost, predicted(s[i].model_cost), s[i].ms, s[i].layouts);
        for (const char *c = s[i].desc; *c; c++)
            if (*c == '"' || *c == '\\')
                fprintf(f, "\\%c", *c);
            else if ((unsigned char)*c >= 0x20)
                fputc(*c, f);
        fprintf(f, "\"}");
    }
    fprintf(f, "], ");
    json_groups(f, s, n, false, tot);
    fprintf(f, ", ");
    json_groups(f, s, n, true, tot);
    fprintf(f, "}");
}
