/* The cost model (see cost_model.h for what each cost means). */
#include "passes/cost_model.h"

#include "passes/ir.h"

#include <stdio.h>
#include <string.h>

const lg__cost_coefs *lg__cost_coefs_of(const lg__graph *ir) {
    return ir && ir->coefs ? ir->coefs : lg__cost_coefs_default();
}

double lg__cost_reorder(const lg__graph *ir, const lg_md *src, const lg_md *dst) {
    char key[LG_COST_KEY_LEN];
    lg__cost_key("reorder", "reorder", src, dst, key);
    double bytes = (double)lg_md_size(src) + (double)lg_md_size(dst);
    const lg__cost_coefs *c = lg__cost_coefs_of(ir);
    const lg__cost_entry *e = lg__cost_lookup(c, key);
    int thr = ir ? ir->threads : 0;
    return lg__cost_eval(e, bytes, e ? lg__cost_spill(bytes) : 0, 0) /
               lg__cost_speedup(c, thr, false) +
           lg__cost_step_overhead(c, thr);
}

/* The node as its kernel will be created (the kind's as_run hook under the
 * compile's options, as lg__ir_create_kernel asks it), so that the path
 * priced is the one that runs. Points at a thread-local copy or at
 * node->base. */
static _Thread_local lg__node run_copy;
static const lg__node *as_run(const lg__graph *ir, const lg__cnode *node, const lg_md *in,
                              const lg_md *out) {
    if (!ir) return &node->base;
    const lg__node_opts o = {ir->conv_alg};
    return lg__node_as_run(&node->base, in, out, &o, &run_copy);
}

/* True if entry e is of key's kind and class (not a wildcard over them). */
static bool same_class(const lg__cost_entry *e, const char *key) {
    const char *a = strchr(key, ':'), *b = a ? strchr(a + 1, ':') : NULL;
    return e && b && strncmp(e->key, key, (size_t)(b - key + 1)) == 0;
}

double lg__cost_node_ex(const lg__graph *ir, const lg__cnode *node, const lg_md *in_mds,
                        const lg_md *out, char key[LG_COST_KEY_LEN], double *bytes_out) {
    double bytes = (double)lg_md_size(out);
    for (int i = 0; i < node->nin; i++) bytes += (double)lg_md_size(&in_mds[i]);
    const lg__node_ops *ops = lg__node_ops_of(node->kind);
    lg__node_cost c = {0, 1, NULL};
    const lg__node *base = as_run(ir, node, in_mds, out);
    if (ops->cost) ops->cost(base, in_mds, out, &c);
    lg_layer_class lc = ops->classify ? ops->classify(&node->base, in_mds, out) : ops->layer_class;
    char cls[32];
    snprintf(cls, sizeof cls, "%s%s%s", lg_layer_class_name(lc),
             c.path           ? "."
             : c.slowdown > 1 ? ".slow"
                              : "",
             c.path ? c.path : "");
    char k[LG_COST_KEY_LEN];
    char *kp = key ? key : k;
    lg__cost_key(ops->name, cls, node->nin > 0 ? &in_mds[0] : NULL, out, kp);
    if (bytes_out) *bytes_out = bytes;
    const lg__cost_coefs *t = lg__cost_coefs_of(ir);
    const lg__cost_entry *e = lg__cost_lookup(t, kp);
    if (c.path && strcmp(c.path, "wino") == 0 && !same_class(e, kp)) {
        /* A table without Winograd entries (calibrated before it): priced
         * as the direct path, as such tables were fitted; the step keeps
         * its own key (what runs). */
        char dk[LG_COST_KEY_LEN];
        snprintf(cls, sizeof cls, "%s.direct", lg_layer_class_name(lc));
        lg__cost_key(ops->name, cls, node->nin > 0 ? &in_mds[0] : NULL, out, dk);
        e = lg__cost_lookup(t, dk);
    }
    /* Without an entry, the flops of a slow layout weigh more. */
    double third = !e ? c.flops * c.slowdown : c.flops > 0 ? c.flops : lg__cost_spill(bytes);
    double spill = c.flops > 0 ? lg__cost_spill(bytes) : 0;
    int thr = ir ? ir->threads : 0;
    return lg__cost_eval(e, bytes, third, spill) / lg__cost_speedup(t, thr, c.flops > 0) +
           lg__cost_step_overhead(t, thr);
}

double lg__cost_node(const lg__graph *ir, const lg__cnode *node, const lg_md *in_mds,
                     const lg_md *out) {
    return lg__cost_node_ex(ir, node, in_mds, out, NULL, NULL);
}

bool lg__cost_fusable(const lg__graph *ir, const lg__cnode *node, int slot, const lg_md *in_mds,
                      const lg_md *out, const lg_md *conv_out) {
    (void)ir;
    if (!lg_md_equal(&in_mds[slot], conv_out) || !lg_md_equal(out, conv_out)) return false;
    lg__post_op op;
    int other = -1;
    lg__node_ops_of(node->kind)->as_post_op(&node->base, slot, &op, &other);
    return other < 0 || lg_md_equal(&in_mds[other], conv_out);
}

int lg__cost_fusion_producer(const lg__graph *ir, const lg__cnode *node, int *slot) {
    if (!ir->fuse) return -1;
    const lg__node_ops *ops = lg__node_ops_of(node->kind);
    if (!ops->as_post_op) return -1;
    for (int j = 0; j < node->nin; j++) {
        const lg__cvalue *v = &ir->vals[node->in[j]];
        lg__post_op op;
        int other;
        if (v->kind != LG_VAL_NODE || !lg__node_ops_of(ir->nodes[v->producer].kind)->accepts_post ||
            !ops->as_post_op(&node->base, j, &op, &other))
            continue;
        if (lg__ir_is_output(ir, node->in[j])) continue;
        int readers = 0;
        for (int i = 0; i < ir->nsched; i++) {
            const lg__cnode *r = &ir->nodes[ir->sched[i]];
            for (int k = 0; k < r->nin; k++) readers += r->in[k] == node->in[j];
        }
        if (readers != 1) continue;
        *slot = j;
        return v->producer;
    }
    return -1;
}

int lg__cost_fusion_chain(const lg__graph *ir, const lg__cnode *node, int *nodes, int *slots) {
    if (!ir->fuse) return 0;
    const lg__node_ops *ops = lg__node_ops_of(node->kind);
    if (!ops->as_post_op) return 0;
    for (int j = 0; j < node->nin; j++) {
        const lg__cvalue *v = &ir->vals[node->in[j]];
        lg__post_op op;
        int other;
        if (v->kind != LG_VAL_NODE || !ops->as_post_op(&node->base, j, &op, &other) ||
            lg__ir_is_output(ir, node->in[j]))
            continue;
        int readers = 0;
        for (int i = 0; i < ir->nsched; i++) {
            const lg__cnode *r = &ir->nodes[ir->sched[i]];
            for (int k = 0; k < r->nin; k++) readers += r->in[k] == node->in[j];
        }
        if (readers != 1) continue;
        const lg__cnode *p = &ir->nodes[v->producer];
        if (lg__node_ops_of(p->kind)->accepts_post) {
            nodes[0] = v->producer;
            slots[0] = j;
            return 1;
        }
        int k = lg__cost_fusion_chain(ir, p, nodes, slots);
        if (k > 0 && k < LG_COST_MAX_CHAIN) {
            nodes[k] = v->producer;
            slots[k] = j;
            return k + 1;
        }
    }
    return 0;
}

bool lg__cost_chain_fuses(const lg__graph *ir, const lg__cnode *node, const int *nodes,
                          const int *slots, int len, const lg_md *const *in,
                          const lg_md *const *out) {
    for (int k = 1; k <= len; k++) {
        const lg__cnode *n = k < len ? &ir->nodes[nodes[k]] : node;
        if (!lg__cost_fusable(ir, n, slots[k - 1], in[k], out[k], out[k - 1])) return false;
    }
    return true;
}

/* Index of (v, md) among the first k pairs, or -1. */
static int find_pair(const lg_value *vs, const lg_md *const *mds, int k, lg_value v,
                     const lg_md *md) {
    for (int i = 0; i < k; i++)
        if (vs[i] == v && lg_md_equal(mds[i], md)) return i;
    return -1;
}

double lg__cost_assignment(const lg__graph *ir) {
    double cost = 0;
    /* Reorders counted once per (value, layout): at most one per node input
     * and one per output. */
    int cap = ir->nsched * LG_NODE_MAX_IN + ir->nouts, k = 0;
    lg_value *vs = lg__malloc((size_t)(cap ? cap : 1) * sizeof *vs);
    const lg_md **mds = lg__malloc((size_t)(cap ? cap : 1) * sizeof *mds);
    for (int i = 0; i < ir->nsched; i++) {
        const lg__cnode *node = &ir->nodes[ir->sched[i]];
        int chain[LG_COST_MAX_CHAIN], slots[LG_COST_MAX_CHAIN];
        int len = lg__cost_fusion_chain(ir, node, chain, slots);
        const lg_md *in[LG_COST_MAX_CHAIN + 1], *out[LG_COST_MAX_CHAIN + 1];
        for (int c = 0; c <= len; c++) {
            const lg__cnode *n = c < len ? &ir->nodes[chain[c]] : node;
            in[c] = n->in_md;
            out[c] = &ir->vals[n->out].md;
        }
        if (len == 0 || !lg__cost_chain_fuses(ir, node, chain, slots, len, in, out))
            cost += lg__cost_node(ir, node, node->in_md, &ir->vals[node->out].md);
        for (int j = 0; j < node->nin; j++) {
            const lg__cvalue *v = &ir->vals[node->in[j]];
            if (v->kind == LG_VAL_CONSTANT || lg_md_equal(&v->md, &node->in_md[j])) continue;
            if (vs && mds && find_pair(vs, mds, k, node->in[j], &node->in_md[j]) >= 0) continue;
            cost += lg__cost_reorder(ir, &v->md, &node->in_md[j]);
            if (vs && mds) {
                vs[k] = node->in[j];
                mds[k++] = &node->in_md[j];
            }
        }
    }
    for (int o = 0; o < ir->nouts; o++) {
        const lg__cvalue *v = &ir->vals[ir->outs[o].v];
        const lg_md *want = &ir->outs[o].md;
        if (lg_md_equal(&v->md, want)) continue;
        if (vs && mds && find_pair(vs, mds, k, ir->outs[o].v, want) >= 0) continue;
        cost += lg__cost_reorder(ir, &v->md, want);
        if (vs && mds) {
            vs[k] = ir->outs[o].v;
            mds[k++] = want;
        }
    }
    lg__free(vs);
    lg__free((void *)mds);
    return cost;
}
