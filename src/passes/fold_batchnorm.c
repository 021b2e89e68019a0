/* Pass "fold_batchnorm": a per-channel affine node (a batchnorm: its kind's
 * channel_affine, with constant statistics) whose input is the result of a
 * node that can absorb it (a conv: absorb_affine, with constant weights and
 * bias), that result having no other reader and being no graph output,
 * folds into that producer: the producer gets new constant weights (the
 * old ones with a pending scale per output channel, lg__cvalue.scale: they
 * are written scaled once, by the reorder that gives them their final
 * layout or when the plan takes them) and a new bias, and produces the
 * affine node's result itself. A fused relu of the batchnorm
 * stays as a relu node (which the fuse pass then makes a post-op of the
 * conv). The original constants are untouched (another conv may share
 * them). Runs before the layouts are chosen, so the strategies see the
 * folded graph. Optional: without it the batchnorm runs as its own step. */
#include "passes/passes.h"

#include <string.h>

/* data[i] = constant data of node's input i, or NULL. */
static void const_data(const lg__graph *ir, const lg__cnode *node, const void **data) {
    for (int i = 0; i < node->nin; i++) {
        const lg__cvalue *v = &ir->vals[node->in[i]];
        data[i] = v->kind == LG_VAL_CONSTANT ? v->data : NULL;
    }
}

/* A new constant value of md holding data (owned by ir), or -1. */
static int add_constant(lg__graph *ir, const lg_md *md, const char *name, const void *data) {
    lg__cvalue v;
    memset(&v, 0, sizeof v);
    v.kind = LG_VAL_CONSTANT;
    v.md = *md;
    v.producer = -1;
    v.input = -1;
    v.name = name;
    v.data = data;
    return lg__ir_add_value(ir, &v);
}

/* Fold affine node n into producer p when both agree; *done says if it did. */
static lg_status try_fold(lg__graph *ir, int n, int p, bool *done) {
    const lg__cnode *an = &ir->nodes[n], *pn = &ir->nodes[p];
    const lg__node_ops *aops = lg__node_ops_of(an->kind), *pops = lg__node_ops_of(pn->kind);
    *done = false;
    if (!pops->absorb_affine || pn->npost || pn->nin < 2) return LG_OK;
    int64_t c = ir->vals[an->out].md.dims[1];
    lg_md ain[LG_NODE_MAX_IN], pin[LG_NODE_MAX_IN];
    lg__ir_in_mds(ir, an, ain);
    lg__ir_in_mds(ir, pn, pin);
    /* Weights folded before (a second affine node) get their scale now. */
    if (ir->vals[pn->in[1]].scale) {
        LG_CHECK(lg__ir_const_apply(ir, pn->in[1]));
        an = &ir->nodes[n];
        pn = &ir->nodes[p];
    }
    const void *adata[LG_NODE_MAX_IN], *pdata[LG_NODE_MAX_IN];
    const_data(ir, an, adata);
    const_data(ir, pn, pdata);
    /* coef: the scale (kept as the weights' pending scale), then the shift. */
    float *coef = lg__malloc(2 * (size_t)c * sizeof(float));
    float *bias = lg__aligned_alloc(64, (size_t)c * sizeof(float));
    bool relu = false, ok = coef && bias;
    int wmask = 0;
    if (ok) ok = aops->channel_affine(&an->base, ain, adata, coef, coef + c, &relu);
    if (ok) ok = pops->absorb_affine(&pn->base, pin, pdata, coef, coef + c, NULL, bias, &wmask);
    if (!ok) {
        lg__free(coef);
        lg__free(bias);
        if (!coef || !bias)
            return LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "cannot allocate folded batch-norm weights");
        return LG_OK;
    }
    if (!lg__ir_own(ir, coef)) {
        lg__free(bias);
        return LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "out of memory");
    }
    if (!lg__ir_own(ir, bias)) return LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "out of memory");
    lg_md raw, bmd;
    int64_t bd[1] = {c};
    if (lg_md_init_strides(&raw, 1, bd, LG_F32, NULL) != LG_OK) return LG_OK;
    lg__md_canon(&raw, &bmd);
    int wv = add_constant(ir, &pin[1], ir->vals[pn->in[1]].name, pdata[1]);
    if (wv < 0) return LG_OUT_OF_MEMORY;
    ir->vals[wv].scale = coef;
    ir->vals[wv].scale_mask = wmask;
    int bv = add_constant(ir, &bmd, NULL, bias);
    if (bv < 0) return LG_OUT_OF_MEMORY;
    lg__cnode *prod = &ir->nodes[p], *aff = &ir->nodes[n];
    prod->in[1] = (lg_value)wv;
    prod->in[2] = (lg_value)bv;
    prod->nin = 3;
    lg_value mid = prod->out;
    if (relu) {
        /* The affine node becomes relu(conv's result). */
        aff->kind = LG_NODE_ELTWISE;
        aff->nin = 1;
        aff->in[0] = mid;
        memset(&aff->p, 0, sizeof aff->p);
        aff->p.eltwise.alg = LG_ELTWISE_RELU;
    } else {
        /* The producer writes the affine node's result; mid is left unread
         * (as the fuse pass leaves a fused result). */
        prod->out = aff->out;
        ir->vals[aff->out].producer = p;
        lg__ir_sched_remove(ir, n);
    }
    *done = true;
    return LG_OK;
}

/* Uses of v (scheduled readers plus outputs); -1 when out of memory. */
static int uses_of(const lg__graph *ir, lg_value v) {
    int *uses = lg__malloc((size_t)ir->nvals * sizeof *uses + 1);
    if (!uses) return -1;
    lg__ir_count_uses(ir, uses);
    int u = uses[v];
    lg__free(uses);
    return u;
}

lg_status lg__pass_fold_batchnorm(lg__graph *ir) {
    for (int i = 0; i < ir->nsched;) {
        int n = ir->sched[i];
        const lg__cnode *node = &ir->nodes[n];
        lg_value v = node->in[0];
        bool done = false;
        if (lg__node_ops_of(node->kind)->channel_affine && ir->vals[v].kind == LG_VAL_NODE &&
            !lg__ir_is_output(ir, v)) {
            int u = uses_of(ir, v);
            if (u < 0) return LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "cannot count the uses");
            if (u == 1) LG_CHECK(try_fold(ir, n, ir->vals[v].producer, &done));
        }
        /* A removed node's place now holds the next one. */
        if (!(done && ir->sched[i] != n)) i++;
    }
    return LG_OK;
}
