/* The cost model (see cost_model.h for what each cost means). */
#include "passes/cost_model.h"

#include "passes/ir.h"

/* Layout classes of an activation, by how well a conv vectorises over it. */
typedef enum layout_class {
    CLASS_BLOCKED,
    CLASS_CHANNELS_LAST,
    CLASS_PLAIN,
    CLASS_OTHER
} layout_class;

/* Slowdown of a conv per class, relative to channel-blocked activations
 * (nChw16c / nChw8c): channels-last keeps the channels contiguous but loses
 * the blocked weight reuse; plain nchw vectorises only along width. */
static const double class_factor[] = {
    [CLASS_BLOCKED] = 1.0,
    [CLASS_CHANNELS_LAST] = 1.5,
    [CLASS_PLAIN] = 3.0,
    [CLASS_OTHER] = 4.0,
};

static layout_class classify(const lg_md *md) {
    if (md->format_kind != LG_FMT_BLOCKED || md->ndims < 3) return CLASS_OTHER;
    if (md->blocking.inner_nblks > 0) {
        for (int i = 0; i < md->blocking.inner_nblks; i++)
            if (md->blocking.inner_idxs[i] != 1) return CLASS_OTHER;
        return CLASS_BLOCKED;
    }
    if (md->blocking.strides[1] == 1 && md->dims[1] > 1) return CLASS_CHANNELS_LAST;
    lg_md plain;
    lg__md_plain(md, &plain);
    return lg_md_equal(&plain, md) ? CLASS_PLAIN : CLASS_OTHER;
}

double lg__cost_reorder(const lg_md *src, const lg_md *dst) {
    return (double)lg_md_size(src) + (double)lg_md_size(dst);
}

double lg__cost_conv_factor(const lg_md *src, const lg_md *dst, int64_t ic_per_group) {
    double f = class_factor[classify(dst)];
    double fs = class_factor[classify(src)];
    /* A first layer (few input channels) reads plain src well. */
    if (ic_per_group >= 8 && fs > f) f = fs;
    return f;
}

static double conv_flops(const lg__graph *ir, const lg__node *node, const lg_md *out) {
    const lg_md *src = &ir->vals[node->in[0]].md, *wei = &ir->vals[node->in[1]].md;
    int sp = src->ndims - 2;
    int64_t g = node->p.conv.groups;
    double f = 2.0 * (double)out->dims[0] * (double)out->dims[1] * (double)(src->dims[1] / g);
    for (int d = 0; d < sp; d++)
        f *= (double)out->dims[2 + d] * (double)wei->dims[wei->ndims - sp + d];
    return f;
}

double lg__cost_node(const lg__graph *ir, const lg__node *node, const lg_md *in_mds,
                     const lg_md *out) {
    double bytes = (double)lg_md_size(out);
    for (int i = 0; i < node->nin; i++) bytes += (double)lg_md_size(&in_mds[i]);
    if (node->kind != LG_NODE_CONV) return bytes;
    int64_t icg = ir->vals[node->in[0]].md.dims[1] / node->p.conv.groups;
    return bytes + conv_flops(ir, node, out) * LG_COST_PER_FLOP *
                       lg__cost_conv_factor(&in_mds[0], out, icg);
}

bool lg__cost_fusable(const lg__graph *ir, const lg__node *node, int slot, const lg_md *in_mds,
                      const lg_md *out, const lg_md *conv_out) {
    (void)ir;
    if (!lg_md_equal(&in_mds[slot], conv_out) || !lg_md_equal(out, conv_out)) return false;
    if (node->kind == LG_NODE_BINARY) return lg_md_equal(&in_mds[1 - slot], conv_out);
    return true;
}

int lg__cost_fusion_producer(const lg__graph *ir, const lg__node *node, int *slot) {
    if (!ir->fuse) return -1;
    bool add = node->kind == LG_NODE_BINARY && node->p.binary.alg == LG_BINARY_ADD &&
               node->in[0] != node->in[1];
    if (node->kind != LG_NODE_ELTWISE && !add) return -1;
    for (int j = 0; j < node->nin; j++) {
        const lg__value *v = &ir->vals[node->in[j]];
        if (v->kind != LG_VAL_NODE || ir->nodes[v->producer].kind != LG_NODE_CONV) continue;
        if (lg__ir_is_output(ir, node->in[j])) continue;
        int readers = 0;
        for (int i = 0; i < ir->nsched; i++) {
            const lg__node *r = &ir->nodes[ir->sched[i]];
            for (int k = 0; k < r->nin; k++) readers += r->in[k] == node->in[j];
        }
        if (readers != 1) continue;
        *slot = j;
        return v->producer;
    }
    return -1;
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
        const lg__node *node = &ir->nodes[ir->sched[i]];
        int slot, conv = lg__cost_fusion_producer(ir, node, &slot);
        if (conv < 0 || !lg__cost_fusable(ir, node, slot, node->in_md, &ir->vals[node->out].md,
                                          &ir->vals[ir->nodes[conv].out].md))
            cost += lg__cost_node(ir, node, node->in_md, &ir->vals[node->out].md);
        for (int j = 0; j < node->nin; j++) {
            const lg__value *v = &ir->vals[node->in[j]];
            if (v->kind == LG_VAL_CONSTANT || lg_md_equal(&v->md, &node->in_md[j])) continue;
            if (vs && mds && find_pair(vs, mds, k, node->in[j], &node->in_md[j]) >= 0) continue;
            cost += lg__cost_reorder(&v->md, &node->in_md[j]);
            if (vs && mds) {
                vs[k] = node->in[j];
                mds[k++] = &node->in_md[j];
            }
        }
    }
    for (int o = 0; o < ir->nouts; o++) {
        const lg__value *v = &ir->vals[ir->outs[o].v];
        const lg_md *want = &ir->outs[o].md;
        if (lg_md_equal(&v->md, want)) continue;
        if (vs && mds && find_pair(vs, mds, k, ir->outs[o].v, want) >= 0) continue;
        cost += lg__cost_reorder(&v->md, want);
        if (vs && mds) {
            vs[k] = ir->outs[o].v;
            mds[k++] = want;
        }
    }
    lg__free(vs);
    lg__free((void *)mds);
    return cost;
}
