/* lg_plan_dump: the plan as text (a summary, one line per tensor, one line
 * per step) or as Graphviz DOT (tensors as ellipses labelled with their
 * layout tag, steps as boxes, reorders as red boxes). */
#include "graph/plan.h"

#include <string.h>

static const char *role(const lg__tensor *t) {
    if (t->output) return "output";
    switch (t->kind) {
    case LG_VAL_INPUT:
        return "input";
    case LG_VAL_CONSTANT:
        return "constant";
    default:
        return "arena";
    }
}

/* "f32 aBcd16b 1x64x56x56" */
static void md_label(const lg_md *md, char *buf, size_t len) {
    char tag[LG_TAG_MAX * 2];
    if (!lg__md_tag_str(md, tag)) snprintf(tag, sizeof tag, "strided");
    int n = snprintf(buf, len, "%s %s ", lg_dtype_str(md->dtype), tag);
    for (int d = 0; d < md->ndims && n > 0 && (size_t)n < len; d++)
        n += snprintf(buf + n, len - (size_t)n, d ? "x%lld" : "%lld", (long long)md->dims[d]);
}

static const char *step_kind(const lg__step *st) {
    return lg__node_ops_of(st->node_kind)->name;
}

static void dump_text(const lg_plan *p, FILE *f) {
    const lg_plan_stats *s = &p->stats;
    fprintf(f,
            "plan: strategy %s, %d steps, %d runtime reorders (%lld bytes), %d folded reorders, "
            "arena %lld bytes, model cost %.6g%s\n",
            p->strategy ? p->strategy : "?", s->steps, s->runtime_reorders,
            (long long)s->reorder_bytes, s->folded_reorders, (long long)s->arena_bytes,
            s->model_cost, s->exact ? " (exact)" : "");
    if (p->slices > 1)
        fprintf(f,
                "batch slices: %d (the steps run once per slice of dim 0 of every input and "
                "output; tensors below are one slice's)\n",
                p->slices);
    fprintf(f, "tensors:\n");
    for (int i = 0; i < p->ntensors; i++) {
        const lg__tensor *t = &p->tensors[i];
        char md[160];
        md_label(&t->md, md, sizeof md);
        if (t->place.base == 0)
            fprintf(f, "  %-24s %-8s %s @arena+%lld\n", t->name, role(t), md,
                    (long long)t->place.offset);
        else
            fprintf(f, "  %-24s %-8s %s\n", t->name, role(t), md);
    }
    fprintf(f, "steps:\n");
    for (int i = 0; i < p->nsteps; i++) {
        const lg__step *st = &p->steps[i];
        fprintf(f, "  #%d %s %s [%s] ", i, step_kind(st), lg_kernel_impl(st->kernel), st->desc);
        for (int j = 0; j < st->nin; j++)
            fprintf(f, "%s%s", j ? ", " : "", p->tensors[st->tin[j]].name);
        fprintf(f, " -> %s\n", p->tensors[st->tout].name);
    }
}

/* s with '"' and '\' escaped, for a DOT label. */
static void put_escaped(FILE *f, const char *s) {
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', f);
        fputc(*s, f);
    }
}

static void dump_dot(const lg_plan *p, FILE *f) {
    fprintf(f, "digraph lgraph_plan {\n  rankdir=TB;\n  node [fontname=\"monospace\"];\n");
    for (int i = 0; i < p->ntensors; i++) {
        const lg__tensor *t = &p->tensors[i];
        char md[160];
        md_label(&t->md, md, sizeof md);
        fprintf(f, "  tensor%d [shape=%s%s, label=\"", i,
                t->kind == LG_VAL_CONSTANT ? "note" : "ellipse",
                t->output || t->kind == LG_VAL_INPUT ? ", peripheries=2" : "");
        put_escaped(f, t->name);
        fprintf(f, "\\n%s\"];\n", md);
    }
    for (int i = 0; i < p->nsteps; i++) {
        const lg__step *st = &p->steps[i];
        bool reorder = st->kernel->kind == LG_KIND_REORDER;
        fprintf(f, "  step%d [shape=box%s, label=\"#%d %s\\n%s\\n", i,
                reorder ? ", color=red, style=filled, fillcolor=\"#ffd0d0\"" : "", i, step_kind(st),
                lg_kernel_impl(st->kernel));
        put_escaped(f, st->desc);
        fprintf(f, "\"];\n");
        for (int j = 0; j < st->nin; j++) fprintf(f, "  tensor%d -> step%d;\n", st->tin[j], i);
        fprintf(f, "  step%d -> tensor%d;\n", i, st->tout);
    }
    fprintf(f, "}\n");
}

lg_status lg_plan_dump(const lg_plan *p, FILE *f, const char *format) {
    if (!p || !f || !format)
        return LG_ERROR(LG_INVALID_ARGUMENT, "%s is NULL", !p ? "plan" : !f ? "file" : "format");
    if (strcmp(format, "text") == 0)
        dump_text(p, f);
    else if (strcmp(format, "dot") == 0)
        dump_dot(p, f);
    else
        return LG_ERROR(LG_INVALID_ARGUMENT, "format '%s' is neither \"text\" nor \"dot\"", format);
    if (ferror(f)) return LG_ERROR(LG_RUNTIME_ERROR, "writing the dump failed");
    return LG_OK;
}
