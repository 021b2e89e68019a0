/* The graph builder: creation, inputs, constants, outputs, and the helpers
 * every node file uses to check operands and append its node. */
#include "graph/graph.h"

#include <stdlib.h>
#include <string.h>

lg_status lg_graph_create(lg_graph **g) {
    if (!g) return LG_ERROR(LG_INVALID_ARGUMENT, "graph pointer is NULL");
    *g = lg__calloc(1, sizeof **g);
    if (!*g) return LG_ERROR(LG_OUT_OF_MEMORY, "cannot allocate a graph");
    return LG_OK;
}

void lg_graph_destroy(lg_graph *g) {
    if (!g) return;
    for (int i = 0; i < g->nvals; i++) {
        lg__free((void *)g->vals[i].name);
        if (g->vals[i].release)
            g->vals[i].release(g->vals[i].release_ctx);
        else
            lg__free((void *)g->vals[i].data);
    }
    for (int i = 0; i < g->nouts; i++) lg__free((void *)g->outs[i].name);
    lg__free(g->vals);
    lg__free(g->nodes);
    lg__free(g->outs);
    lg__free(g);
}

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = lg__malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* Inputs, constants and outputs share one namespace (bindings and dumps
 * refer to them by name). */
static lg_status check_name(const lg_graph *g, const char *name, const char *where) {
    if (!name) return lg__error(LG_INVALID_ARGUMENT, where, "name is NULL");
    if (!*name) return lg__error(LG_INVALID_ARGUMENT, where, "name is empty");
    for (int i = 0; i < g->nvals; i++)
        if (g->vals[i].name && strcmp(g->vals[i].name, name) == 0)
            return lg__error(LG_INVALID_ARGUMENT, where, "name '%s' is already used by value %d",
                             name, i);
    for (int i = 0; i < g->nouts; i++)
        if (strcmp(g->outs[i].name, name) == 0)
            return lg__error(LG_INVALID_ARGUMENT, where, "name '%s' is already used by output %d",
                             name, i);
    return LG_OK;
}

/* Append a value whose fields are in *v; *out gets its id. Takes ownership
 * of v->name and v->data only on success. */
static lg_status push_value(lg_graph *g, const lg__value *v, lg_value *out, const char *where) {
    if (!lg__grow((void **)&g->vals, g->nvals, &g->capv, sizeof *g->vals))
        return lg__error(LG_OUT_OF_MEMORY, where, "cannot grow the value array");
    g->vals[g->nvals] = *v;
    *out = (lg_value)g->nvals++;
    return LG_OK;
}

lg_status lg_graph_add_input(lg_graph *g, const char *name, const lg_md *md, lg_value *out) {
    if (!g || !md || !out)
        return LG_ERROR(LG_INVALID_ARGUMENT, "%s is NULL", !g ? "graph" : !md ? "md" : "out");
    LG_CHECK(check_name(g, name, __func__));
    LG_CHECK(lg__md_check(md, __func__, "md"));
    lg__value v = {.kind = LG_VAL_INPUT, .producer = -1, .input = g->ninputs};
    lg__md_canon(md, &v.md);
    v.name = dup_str(name);
    if (!v.name) return LG_ERROR(LG_OUT_OF_MEMORY, "cannot copy the name '%s'", name);
    lg_status s = push_value(g, &v, out, __func__);
    if (s != LG_OK) {
        lg__free((void *)v.name);
        return s;
    }
    g->ninputs++;
    return LG_OK;
}

/* A constant of md holding data: copied (release NULL) or borrowed (the
 * graph calls release(ctx) when destroyed; not on failure). */
static lg_status add_constant(lg_graph *g, const char *name, const lg_md *md, const void *data,
                              void (*release)(void *), void *ctx, lg_value *out,
                              const char *where) {
    if (!g || !md || !out)
        return lg__error(LG_INVALID_ARGUMENT, where, "%s is NULL",
                         !g    ? "graph"
                         : !md ? "md"
                               : "out");
    LG_CHECK(check_name(g, name, where));
    LG_CHECK(lg__md_check(md, where, "md"));
    if (lg_md_is_any(md))
        return lg__error(LG_INVALID_ARGUMENT, where,
                         "constant '%s': md is 'any' (a constant's layout is "
                         "its data's)",
                         name);
    size_t bytes = lg_md_size(md);
    if (!data && bytes)
        return lg__error(LG_INVALID_ARGUMENT, where, "constant '%s': data is NULL", name);
    lg__value v = {.kind = LG_VAL_CONSTANT, .producer = -1, .input = -1};
    lg__md_canon(md, &v.md);
    v.name = dup_str(name);
    void *copy = !v.name ? NULL : release ? (void *)(uintptr_t)data : lg__alloc_big(bytes);
    if (!copy && (!release || !v.name)) {
        lg__free((void *)v.name);
        return lg__error(LG_OUT_OF_MEMORY, where, "constant '%s': cannot copy %zu bytes", name,
                         bytes);
    }
    if (bytes && !release) memcpy(copy, data, bytes);
    v.data = copy;
    v.release = release;
    v.release_ctx = ctx;
    lg_status s = push_value(g, &v, out, where);
    if (s != LG_OK) {
        lg__free((void *)v.name);
        if (!release) lg__free(copy);
    }
    return s;
}

lg_status lg_graph_add_constant(lg_graph *g, const char *name, const lg_md *md, const void *data,
                                lg_value *out) {
    return add_constant(g, name, md, data, NULL, NULL, out, __func__);
}

lg_status lg_graph_add_constant_ref(lg_graph *g, const char *name, const lg_md *md,
                                    const void *data, void (*release)(void *ctx), void *ctx,
                                    lg_value *out) {
    if (!release) return LG_ERROR(LG_INVALID_ARGUMENT, "release is NULL");
    if (data && (uintptr_t)data % 64)
        return LG_ERROR(LG_INVALID_ARGUMENT, "data %p is not 64-byte aligned", data);
    return add_constant(g, name, md, data, release, ctx, out, __func__);
}

lg_status lg_graph_add_output(lg_graph *g, lg_value v, const char *name, const char *tag) {
    if (!g) return LG_ERROR(LG_INVALID_ARGUMENT, "graph is NULL");
    if (v >= (lg_value)g->nvals)
        return LG_ERROR(LG_INVALID_ARGUMENT, "output '%s': value %u does not exist (%d values)",
                        name ? name : "(null)", v, g->nvals);
    LG_CHECK(check_name(g, name, __func__));
    if (!tag) return LG_ERROR(LG_INVALID_ARGUMENT, "output '%s': tag is NULL", name);
    const lg_md *vm = &g->vals[v].md;
    lg__output o = {.v = v};
    if (strcmp(tag, "any") == 0) {
        o.md = *vm;
        o.md.format_kind = LG_FMT_ANY;
    } else if (lg_md_init_tag(&o.md, vm->ndims, vm->dims, vm->dtype, tag) != LG_OK) {
        char why[512];
        return LG_ERROR(LG_INVALID_ARGUMENT, "output '%s' of value %u (%d dims): bad tag '%s': %s",
                        name, v, vm->ndims, tag, lg__why(why, sizeof why));
    }
    lg_md canon;
    lg__md_canon(&o.md, &canon);
    o.md = canon;
    if (!lg__grow((void **)&g->outs, g->nouts, &g->capo, sizeof *g->outs))
        return LG_ERROR(LG_OUT_OF_MEMORY, "cannot grow the output array");
    o.name = dup_str(name);
    if (!o.name) return LG_ERROR(LG_OUT_OF_MEMORY, "cannot copy the name '%s'", name);
    g->outs[g->nouts++] = o;
    return LG_OK;
}

lg_status lg__graph_check_value(const lg_graph *g, lg_value v, const char *what, const char *kind,
                                const char *where) {
    if (v >= (lg_value)g->nvals)
        return lg__error(LG_INVALID_ARGUMENT, where,
                         "node %d (%s): %s value %u does not exist (the graph has %d values)",
                         g->nnodes, kind, what, v, g->nvals);
    return LG_OK;
}

lg_status lg__graph_add_node(lg_graph *g, lg__node *node, lg_value *out, const char *where) {
    const lg__node_ops *ops = lg__node_ops_of(node->kind);
    lg_md md, in[LG_NODE_MAX_IN];
    for (int i = 0; i < node->nin; i++) in[i] = g->vals[node->in[i]].md;
    LG_CHECK(ops->infer(node, in, g->nnodes, &md, where));
    if (!lg__grow((void **)&g->nodes, g->nnodes, &g->capn, sizeof *g->nodes))
        return lg__error(LG_OUT_OF_MEMORY, where, "cannot grow the node array");
    lg__value v = {.kind = LG_VAL_NODE, .producer = g->nnodes, .input = -1};
    lg__md_canon(&md, &v.md);
    LG_CHECK(push_value(g, &v, out, where));
    node->out = *out;
    g->nodes[g->nnodes++] = *node;
    return LG_OK;
}
