/* Pass "eliminate_reorders": after reorders are inserted, a reorder r2 that
 * reads the result of another reorder r1 (A -> B -> C) reads r1's source
 * directly (A -> C) when the first step loses nothing (same type, or a type
 * that holds every value of the source's exactly, e.g. s8 -> f32 or
 * f8 -> f16); and when C
 * is A itself (an inverse pair, A -> B -> A) r2 disappears and its readers
 * read A. r1 leaves the schedule once nothing reads its result. Results are
 * unchanged (NaN payloads aside). Copies into output buffers are kept (a
 * caller's buffer must be written); a chain ending in one still merges.
 * Graph reorders carry no attributes (lg_graph_add_reorder refuses them), so
 * there are no scales or zero points to compose. Optional. */
#include "passes/passes.h"

/* True if every value of type `from` converts to `to` exactly. */
static bool lossless(lg_dtype from, lg_dtype to) {
    if (from == to) return true;
    switch (from) {
    case LG_S8:
    case LG_U8:
        return to == LG_F32 || to == LG_S32 || to == LG_F16 || to == LG_BF16;
    case LG_F16:
    case LG_BF16:
        return to == LG_F32;
    case LG_F8_E4M3: /* 3 mantissa bits, exponents -9..8: exact in f16, bf16, f32 */
    case LG_F8_E5M2: /* f16's exponent range with 2 mantissa bits */
        return to == LG_F32 || to == LG_F16 || to == LG_BF16;
    default:
        return false;
    }
}

/* Make every reader and output of `from` use `to` instead. */
static void replace_uses(lg__graph *ir, lg_value from, lg_value to) {
    for (int i = 0; i < ir->nsched; i++) {
        lg__cnode *node = &ir->nodes[ir->sched[i]];
        for (int j = 0; j < node->nin; j++)
            if (node->in[j] == from) node->in[j] = to;
        if (node->sum_src == from) node->sum_src = to;
    }
}

static bool is_reorder(const lg__graph *ir, int n) {
    return n >= 0 && ir->nodes[n].kind == LG_NODE_REORDER && !ir->nodes[n].dead;
}

/* Remove reorder r1 when nothing reads its result any more. */
static lg_status drop_if_unused(lg__graph *ir, int r1) {
    int *uses = lg__malloc((size_t)ir->nvals * sizeof *uses);
    if (!uses) return LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "cannot allocate the use counts");
    lg__ir_count_uses(ir, uses);
    if (uses[ir->nodes[r1].out] == 0) lg__ir_sched_remove(ir, r1);
    lg__free(uses);
    return LG_OK;
}

lg_status lg__pass_eliminate_reorders(lg__graph *ir) {
    for (int i = 0; i < ir->nsched; i++) {
        int r2 = ir->sched[i];
        if (!is_reorder(ir, r2)) continue;
        lg_value w = ir->nodes[r2].in[0];
        if (ir->vals[w].kind != LG_VAL_NODE) continue;
        int r1 = ir->vals[w].producer;
        if (!is_reorder(ir, r1) || ir->nodes[r1].copy || lg__ir_is_output(ir, w)) continue;
        lg_value a = ir->nodes[r1].in[0];
        if (!lossless(ir->vals[a].md.dtype, ir->vals[w].md.dtype)) continue;
        lg_value c = ir->nodes[r2].out;
        if (!ir->nodes[r2].copy && !lg__ir_is_output(ir, c) &&
            lg_md_equal(&ir->vals[a].md, &ir->vals[c].md)) {
            replace_uses(ir, c, a); /* A -> B -> A: read A */
            lg__ir_sched_remove(ir, r2);
            if (lg__verbose())
                lg__verbose_printf("lgraph: eliminate_reorders: inverse pair %d, %d cancelled\n",
                                   r1, r2);
        } else {
            ir->nodes[r2].in[0] = a; /* A -> C in one step */
            ir->nodes[r2].in_md[0] = ir->vals[a].md;
            if (lg__verbose())
                lg__verbose_printf("lgraph: eliminate_reorders: chain %d, %d merged\n", r1, r2);
        }
        LG_CHECK(drop_if_unused(ir, r1));
        i = -1; /* positions moved: start over (graphs are small) */
    }
    return LG_OK;
}
