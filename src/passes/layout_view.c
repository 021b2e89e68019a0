/* The user-strategy view (layout_view.h): building it from the OPTIMAL
 * search space, and the public read-only accessors of lg_layout_problem. */
#include "passes/layout_view.h"

#include <string.h>

#include "passes/cost_model.h"

lg_status lg__layout_view_build(lg__graph *ir, lg_layout_problem *p) {
    memset(p, 0, sizeof *p);
    p->ir = ir;
    LG_CHECK(lg__layout_space_build(ir, &p->s));
    const lg__layout_space *s = &p->s;
    int *var_of_value = lg__malloc((size_t)ir->nvals * sizeof(int) + 1);
    int cap = ir->nouts;
    for (int i = 0; i < s->nvars; i++)
        cap += s->vars[i].node >= 0 ? ir->nodes[s->vars[i].node].nin : 0;
    p->edges = lg__calloc((size_t)cap + 1, sizeof *p->edges);
    p->first_edge = lg__calloc((size_t)s->nvars + 1, sizeof(int));
    p->choice = lg__calloc((size_t)s->nvars + 1, sizeof(int));
    if (!var_of_value || !p->edges || !p->first_edge || !p->choice) {
        lg__free(var_of_value);
        lg__layout_view_free(p);
        return LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "out of memory");
    }
    for (int v = 0; v < ir->nvals; v++) var_of_value[v] = -1;
    for (int i = 0; i < s->nvars; i++) var_of_value[s->vars[i].value] = i;
    for (int i = 0; i < s->nvars; i++) {
        p->first_edge[i] = p->nedges;
        if (s->vars[i].node < 0) continue;
        const lg__cnode *node = &ir->nodes[s->vars[i].node];
        for (int j = 0; j < node->nin; j++)
            p->edges[p->nedges++] = (lg__layout_edge){
                .src = var_of_value[node->in[j]], .dst = i, .input = j, .value = node->in[j]};
    }
    for (int o = 0; o < ir->nouts; o++)
        p->edges[p->nedges++] = (lg__layout_edge){
            .src = var_of_value[ir->outs[o].v], .dst = -1, .input = o, .value = ir->outs[o].v};
    lg__free(var_of_value);
    return LG_OK;
}

void lg__layout_view_free(lg_layout_problem *p) {
    lg__layout_space_free(&p->s);
    lg__free(p->edges);
    lg__free(p->first_edge);
    lg__free(p->choice);
    p->edges = NULL;
    p->first_edge = p->choice = NULL;
}

/* The kind of variable i: the node kind's name, or "input". */
static const char *kind_of(const lg_layout_problem *p, int i) {
    int n = p->s.vars[i].node;
    return n < 0 ? "input" : lg__node_ops_of(p->ir->nodes[n].kind)->name;
}

lg_status lg__layout_view_check(lg_layout_problem *p, int n, const int *choice, const char *where) {
    lg_status st = LG_OK;
    if (!choice)
        st = lg__error(LG_INVALID_ARGUMENT, where, "choice is NULL (%d problem nodes)", p->s.nvars);
    else if (n != p->s.nvars)
        st = lg__error(LG_INVALID_ARGUMENT, where,
                       "n = %d choices for %d problem nodes (one per node is needed)", n,
                       p->s.nvars);
    for (int i = 0; st == LG_OK && i < n; i++)
        if (choice[i] < 0 || choice[i] >= p->s.vars[i].ncfg)
            st =
                lg__error(LG_INVALID_ARGUMENT, where,
                          "choice[%d] = %d is not a configuration of problem node %d (%s, graph "
                          "node %d): it has configurations 0..%d",
                          i, choice[i], i, kind_of(p, i), p->s.vars[i].node, p->s.vars[i].ncfg - 1);
    if (st != LG_OK) snprintf(p->why, sizeof p->why, "%s", lg_last_error());
    return st;
}

/* Argument checks shared by the accessors: p non-NULL, node in range. */
static lg_status check_node(const lg_layout_problem *p, int node, const char *where) {
    if (!p) return lg__error(LG_INVALID_ARGUMENT, where, "problem is NULL");
    if (node < 0 || node >= p->s.nvars)
        return lg__error(LG_INVALID_ARGUMENT, where, "node %d is not in 0..%d", node,
                         p->s.nvars - 1);
    return LG_OK;
}

static lg_status check_cfg(const lg_layout_problem *p, int node, int cfg, const char *where) {
    LG_CHECK(check_node(p, node, where));
    if (cfg < 0 || cfg >= p->s.vars[node].ncfg)
        return lg__error(LG_INVALID_ARGUMENT, where, "cfg %d of node %d is not in 0..%d", cfg, node,
                         p->s.vars[node].ncfg - 1);
    return LG_OK;
}

static int nin_of(const lg_layout_problem *p, int i) {
    int n = p->s.vars[i].node;
    return n < 0 ? 0 : p->ir->nodes[n].nin;
}

int lg_layout_num_nodes(const lg_layout_problem *p) {
    return p ? p->s.nvars : 0;
}

int lg_layout_num_edges(const lg_layout_problem *p) {
    return p ? p->nedges : 0;
}

lg_status lg_layout_node(const lg_layout_problem *p, int node, const char **kind, int *graph_node,
                         int *num_inputs, int *num_configs) {
    LG_CHECK(check_node(p, node, __func__));
    if (kind) *kind = kind_of(p, node);
    if (graph_node) *graph_node = p->s.vars[node].node;
    if (num_inputs) *num_inputs = nin_of(p, node);
    if (num_configs) *num_configs = p->s.vars[node].ncfg;
    return LG_OK;
}

const char *lg_layout_node_name(const lg_layout_problem *p, int node) {
    if (check_node(p, node, __func__) != LG_OK || p->s.vars[node].node >= 0) return NULL;
    return p->ir->vals[p->s.vars[node].value].name;
}

lg_status lg_layout_node_input(const lg_layout_problem *p, int node, int j, int *src, int *edge) {
    LG_CHECK(check_node(p, node, __func__));
    if (j < 0 || j >= nin_of(p, node))
        return LG_ERROR(LG_INVALID_ARGUMENT, "j %d: node %d (%s) reads %d inputs", j, node,
                        kind_of(p, node), nin_of(p, node));
    int e = p->first_edge[node] + j;
    if (src) *src = p->edges[e].src;
    if (edge) *edge = e;
    return LG_OK;
}

lg_status lg_layout_config_cost(const lg_layout_problem *p, int node, int cfg, double *cost) {
    LG_CHECK(check_cfg(p, node, cfg, __func__));
    const lg__layout_var *var = &p->s.vars[node];
    if (cost)
        *cost = var->node < 0 ? 0.0
                              : lg__cost_node(p->ir, &p->ir->nodes[var->node], var->cfg[cfg].in,
                                              &var->cfg[cfg].out);
    return LG_OK;
}

lg_status lg_layout_config_md(const lg_layout_problem *p, int node, int cfg, int j, lg_md *md) {
    LG_CHECK(check_cfg(p, node, cfg, __func__));
    if (j < -1 || j >= nin_of(p, node))
        return LG_ERROR(LG_INVALID_ARGUMENT, "j %d: node %d (%s) reads %d inputs (-1: result)", j,
                        node, kind_of(p, node), nin_of(p, node));
    const lg__layout_cfg *c = &p->s.vars[node].cfg[cfg];
    if (md) *md = j < 0 ? c->out : c->in[j];
    return LG_OK;
}

lg_status lg_layout_edge(const lg_layout_problem *p, int e, int *src, int *dst, int *dst_input) {
    if (!p) return LG_ERROR(LG_INVALID_ARGUMENT, "problem is NULL");
    if (e < 0 || e >= p->nedges)
        return LG_ERROR(LG_INVALID_ARGUMENT, "edge %d is not in 0..%d", e, p->nedges - 1);
    if (src) *src = p->edges[e].src;
    if (dst) *dst = p->edges[e].dst;
    if (dst_input) *dst_input = p->edges[e].input;
    return LG_OK;
}

/* Check edge e's configuration pair; point *from and *to at its layouts. */
static lg_status edge_layouts(const lg_layout_problem *p, int e, int src_cfg, int dst_cfg,
                              const lg_md **from, const lg_md **to, const char *where) {
    if (!p) return lg__error(LG_INVALID_ARGUMENT, where, "problem is NULL");
    if (e < 0 || e >= p->nedges)
        return lg__error(LG_INVALID_ARGUMENT, where, "edge %d is not in 0..%d", e, p->nedges - 1);
    const lg__layout_edge *ed = &p->edges[e];
    int ns = ed->src >= 0 ? p->s.vars[ed->src].ncfg : 1;
    int nd = ed->dst >= 0 ? p->s.vars[ed->dst].ncfg : 1;
    if (src_cfg < 0 || src_cfg >= ns)
        return lg__error(LG_INVALID_ARGUMENT, where,
                         "src_cfg %d of edge %d is not in 0..%d (source node %d)", src_cfg, e,
                         ns - 1, ed->src);
    if (dst_cfg < 0 || dst_cfg >= nd)
        return lg__error(LG_INVALID_ARGUMENT, where,
                         "dst_cfg %d of edge %d is not in 0..%d (destination node %d)", dst_cfg, e,
                         nd - 1, ed->dst);
    *from = ed->src >= 0 ? &p->s.vars[ed->src].cfg[src_cfg].out : &p->ir->vals[ed->value].md;
    *to = ed->dst >= 0              ? &p->s.vars[ed->dst].cfg[dst_cfg].in[ed->input]
          : p->s.out_any[ed->input] ? *from
                                    : &p->ir->outs[ed->input].md;
    return LG_OK;
}

lg_status lg_layout_edge_mds(const lg_layout_problem *p, int e, int src_cfg, int dst_cfg,
                             lg_md *from, lg_md *to) {
    const lg_md *f = NULL, *t = NULL;
    LG_CHECK(edge_layouts(p, e, src_cfg, dst_cfg, &f, &t, __func__));
    if (from) *from = *f;
    if (to) *to = *t;
    return LG_OK;
}

lg_status lg_layout_edge_cost(const lg_layout_problem *p, int e, int src_cfg, int dst_cfg,
                              double *cost) {
    const lg_md *from = NULL, *to = NULL;
    LG_CHECK(edge_layouts(p, e, src_cfg, dst_cfg, &from, &to, __func__));
    const lg__layout_edge *ed = &p->edges[e];
    bool free_move =
        lg_md_equal(from, to) || (p->ir->vals[ed->value].kind == LG_VAL_CONSTANT && ed->dst >= 0);
    if (cost) *cost = free_move ? 0.0 : lg__cost_reorder(p->ir, from, to);
    return LG_OK;
}

lg_status lg_layout_cost(lg_layout_problem *p, int n, const int *choice, double *cost) {
    if (!p) return LG_ERROR(LG_INVALID_ARGUMENT, "problem is NULL");
    LG_CHECK(lg__layout_view_check(p, n, choice, __func__));
    lg__layout_space_apply(p->ir, &p->s, choice);
    if (cost) *cost = lg__cost_assignment(p->ir);
    return LG_OK;
}

lg_status lg_layout_choose(lg_layout_problem *p, int n, const int *choice) {
    if (!p) return LG_ERROR(LG_INVALID_ARGUMENT, "problem is NULL");
    p->why[0] = '\0';
    p->chosen = false; /* a refused answer replaces an accepted one too */
    LG_CHECK(lg__layout_view_check(p, n, choice, __func__));
    memcpy(p->choice, choice, (size_t)n * sizeof(int));
    p->chosen = true;
    return LG_OK;
}
