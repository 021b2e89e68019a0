/* The OPTIMAL strategy's search space and its factor problem (see
 * layout_space.h for the model). */
#include "passes/layout_space.h"

#include <math.h>
#include <string.h>

#include "passes/cost_model.h"
#include "passes/passes.h"

/* Caps that keep the factor tables small: a value read by more nodes than a
 * factor may hold, or whose table would exceed this, sends the strategy to
 * its fallback. */
#define MAX_FACTOR_ENTRIES (1 << 16)
/* Most candidates of one variable (conv: 5 layout pairs, plus GREEDY's and
 * NONE's; binary with a broadcast src1: 3 x 3). */
#define MAX_CFG 16

/* ---- snapshot of the layout state, so GREEDY and NONE can be replayed ---- */

typedef struct snapshot {
    lg_md *vals, *outs, *in; /* in: LG_NODE_MAX_IN per node */
} snapshot;

static lg_status snap_take(const lg__graph *ir, snapshot *s) {
    s->vals = lg__malloc((size_t)ir->nvals * sizeof(lg_md) + 1);
    s->outs = lg__malloc((size_t)ir->nouts * sizeof(lg_md) + 1);
    s->in = lg__malloc((size_t)ir->nnodes * LG_NODE_MAX_IN * sizeof(lg_md) + 1);
    if (!s->vals || !s->outs || !s->in) return LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "out of memory");
    for (int v = 0; v < ir->nvals; v++) s->vals[v] = ir->vals[v].md;
    for (int o = 0; o < ir->nouts; o++) s->outs[o] = ir->outs[o].md;
    for (int n = 0; n < ir->nnodes; n++)
        memcpy(&s->in[n * LG_NODE_MAX_IN], ir->nodes[n].in_md, sizeof ir->nodes[n].in_md);
    return LG_OK;
}

static void snap_restore(lg__graph *ir, const snapshot *s) {
    for (int v = 0; v < ir->nvals; v++) ir->vals[v].md = s->vals[v];
    for (int o = 0; o < ir->nouts; o++) ir->outs[o].md = s->outs[o];
    for (int n = 0; n < ir->nnodes; n++)
        memcpy(ir->nodes[n].in_md, &s->in[n * LG_NODE_MAX_IN], sizeof ir->nodes[n].in_md);
}

static void snap_free(snapshot *s) {
    lg__free(s->vals);
    lg__free(s->outs);
    lg__free(s->in);
}

/* ---- candidates ---- */

static bool cfg_equal(const lg__layout_cfg *a, const lg__layout_cfg *b, int nin) {
    for (int i = 0; i < nin; i++)
        if (!lg_md_equal(&a->in[i], &b->in[i])) return false;
    return lg_md_equal(&a->out, &b->out);
}

/* Append c to var unless an equal candidate is there already. */
static void cfg_add(lg__layout_var *var, int nin, const lg__layout_cfg *c) {
    for (int i = 0; i < var->ncfg; i++)
        if (cfg_equal(&var->cfg[i], c, nin)) return;
    if (var->ncfg < MAX_CFG) var->cfg[var->ncfg++] = *c;
}

/* The configuration ir currently gives variable var (after a strategy ran). */
static void cfg_current(const lg__graph *ir, const lg__layout_var *var, lg__layout_cfg *c) {
    memset(c, 0, sizeof *c);
    if (var->node >= 0) {
        const lg__cnode *node = &ir->nodes[var->node];
        memcpy(c->in, node->in_md, sizeof c->in);
    }
    c->out = ir->vals[var->value].md;
}

/* The kind's own candidates for node variable var (from the shapes: ir is
 * in the state the strategies start from). */
static void kind_cfgs(const lg__graph *ir, lg__layout_var *var) {
    const lg__cnode *node = &ir->nodes[var->node];
    const lg__node_ops *ops = lg__node_ops_of(node->kind);
    if (!ops->candidates) return;
    lg_md in[LG_NODE_MAX_IN];
    lg__ir_in_mds(ir, node, in);
    lg__layout_cfg c[LG_NODE_MAX_CFG];
    int k = ops->candidates(&node->base, in, &ir->vals[node->out].md, c);
    for (int i = 0; i < k; i++) cfg_add(var, node->nin, &c[i]);
}

/* ---- the factor problem ---- */

/* Most distinct layouts one value is considered in (stored or read). */
#define MAX_LAYOUTS 16

/* Append a factor over vars[0..arity) with a fresh table (filled by the
 * caller); LG_OUT_OF_MEMORY when the table cannot be allocated. */
static lg_status add_factor(lg__layout_space *s, int arity, const int *vars, double **table) {
    int64_t size = 1;
    for (int i = 0; i < arity; i++) size *= s->ncand[vars[i]];
    if (s->nfactors == s->capfactors) {
        int cap = 2 * s->capfactors + 16;
        lg__solver_factor *f = lg__calloc((size_t)cap, sizeof *f);
        if (!f) return LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "out of memory");
        if (s->nfactors) memcpy(f, s->factors, (size_t)s->nfactors * sizeof *f);
        lg__free(s->factors);
        s->factors = f;
        s->capfactors = cap;
    }
    *table = lg__malloc((size_t)size * sizeof(double));
    if (!*table) return LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "out of memory");
    lg__solver_factor *f = &s->factors[s->nfactors++];
    memset(f, 0, sizeof *f);
    f->arity = arity;
    memcpy(f->vars, vars, (size_t)arity * sizeof(int));
    f->cost = *table;
    return LG_OK;
}

/* Index of md in the value's layout list, appending it if new; -1 when the
 * list is full. */
static int layout_index(const lg_md **ls, int *nl, const lg_md *md) {
    for (int i = 0; i < *nl; i++)
        if (lg_md_equal(ls[i], md)) return i;
    if (*nl == MAX_LAYOUTS) return -1;
    ls[*nl] = md;
    return (*nl)++;
}

/* The readers of v: scheduled nodes reading it, as variables. */
static int readers_of(const lg__graph *ir, const int *var_of_node, lg_value v, int *rd) {
    int k = 0;
    for (int i = 0; i < ir->nsched; i++) {
        const lg__cnode *node = &ir->nodes[ir->sched[i]];
        bool reads = false;
        for (int j = 0; j < node->nin; j++) reads |= node->in[j] == v;
        if (reads) rd[k++] = var_of_node[ir->sched[i]];
    }
    return k;
}

/* The factors of value v. For every layout L the value may be stored or read
 * in, a binary auxiliary variable says "v exists in L": the producer pays
 * one reorder into L when it is set and L is not the stored layout; a reader
 * configuration that reads v in L forbids (INFINITY) L being unset; an output
 * wanting L forbids it too. Minimising sets exactly the layouts some reader
 * or output needs, so the total is one reorder per distinct needed layout,
 * as lg__cost_assignment counts. Constants cost nothing (their reorders are
 * folded) except toward an output, a fixed cost added to *offset. */
static lg_status value_factors(const lg__graph *ir, lg__layout_space *s, const int *var_of_node,
                               const int *var_of_input, lg_value v, double *offset) {
    const lg__cvalue *val = &ir->vals[v];
    int prod = val->kind == LG_VAL_NODE    ? var_of_node[val->producer]
               : val->kind == LG_VAL_INPUT ? var_of_input[v]
                                           : -1;
    if (val->kind == LG_VAL_CONSTANT) {
        /* One reorder per distinct wanted layout (lg__cost_assignment shares
         * it between outputs wanting the same one). */
        for (int o = 0; o < ir->nouts; o++) {
            if (ir->outs[o].v != v || s->out_any[o] || lg_md_equal(&ir->outs[o].md, &val->md))
                continue;
            bool seen = false;
            for (int p = 0; p < o && !seen; p++)
                seen = ir->outs[p].v == v && !s->out_any[p] &&
                       lg_md_equal(&ir->outs[p].md, &ir->outs[o].md);
            if (!seen) *offset += lg__cost_reorder(ir, &val->md, &ir->outs[o].md);
        }
        return LG_OK;
    }
    int *rd = lg__malloc((size_t)ir->nsched * sizeof(int) + 1);
    if (!rd) return LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "out of memory");
    int nrd = readers_of(ir, var_of_node, v, rd);
    /* The layouts: stored candidates, read candidates, wanted by outputs. */
    const lg_md *ls[MAX_LAYOUTS];
    int nl = 0;
    bool full = false;
    if (prod >= 0)
        for (int c = 0; c < s->vars[prod].ncfg; c++)
            full |= layout_index(ls, &nl, &s->vars[prod].cfg[c].out) < 0;
    else
        full |= layout_index(ls, &nl, &val->md) < 0;
    for (int r = 0; r < nrd; r++) {
        const lg__layout_var *var = &s->vars[rd[r]];
        const lg__cnode *node = &ir->nodes[var->node];
        for (int c = 0; c < var->ncfg; c++)
            for (int j = 0; j < node->nin; j++)
                if (node->in[j] == v) full |= layout_index(ls, &nl, &var->cfg[c].in[j]) < 0;
    }
    for (int o = 0; o < ir->nouts; o++)
        if (ir->outs[o].v == v && !s->out_any[o])
            full |= layout_index(ls, &nl, &ir->outs[o].md) < 0;
    lg_status st = LG_OK;
    if (full) {
        s->too_large = true;
        s->why = "a value has more candidate layouts than the model holds";
        goto done;
    }
    /* One auxiliary variable per layout, and what the producer pays. */
    int aux0 = s->nvars + s->naux;
    for (int l = 0; l < nl && st == LG_OK; l++) {
        int a = aux0 + l;
        s->ncand[a] = 2;
        s->naux++;
        double *t;
        int vars[2] = {prod, a};
        if (prod >= 0) {
            st = add_factor(s, 2, vars, &t);
            for (int c = 0; st == LG_OK && c < s->vars[prod].ncfg; c++) {
                const lg_md *stored = &s->vars[prod].cfg[c].out;
                t[2 * c] = 0;
                t[2 * c + 1] = lg_md_equal(stored, ls[l]) ? 0 : lg__cost_reorder(ir, stored, ls[l]);
            }
        } else {
            st = add_factor(s, 1, &a, &t);
            if (st == LG_OK) {
                t[0] = 0;
                t[1] = lg_md_equal(&val->md, ls[l]) ? 0 : lg__cost_reorder(ir, &val->md, ls[l]);
            }
        }
    }
    /* Each reader: its configuration needs its layouts set. */
    for (int r = 0; r < nrd && st == LG_OK; r++) {
        const lg__layout_var *var = &s->vars[rd[r]];
        const lg__cnode *node = &ir->nodes[var->node];
        int vars[LG__SOLVER_MAX_ARITY], nv = 1, pos[MAX_LAYOUTS];
        vars[0] = rd[r];
        for (int l = 0; l < nl; l++) pos[l] = -1;
        for (int c = 0; c < var->ncfg; c++)
            for (int j = 0; j < node->nin; j++) {
                if (node->in[j] != v) continue;
                int l = layout_index(ls, &nl, &var->cfg[c].in[j]);
                if (pos[l] >= 0) continue;
                if (nv == LG__SOLVER_MAX_ARITY) {
                    s->too_large = true;
                    s->why = "a node reads a value in more layouts than a factor holds";
                    goto done;
                }
                pos[l] = nv;
                vars[nv++] = aux0 + l;
            }
        double *t;
        st = add_factor(s, nv, vars, &t);
        int64_t bits = (int64_t)1 << (nv - 1);
        for (int c = 0; st == LG_OK && c < var->ncfg; c++)
            for (int64_t b = 0; b < bits; b++) {
                double cost = 0;
                for (int j = 0; j < node->nin; j++) {
                    if (node->in[j] != v) continue;
                    int l = layout_index(ls, &nl, &var->cfg[c].in[j]);
                    /* vars[1] is the slowest bit of b */
                    if (!((b >> (nv - 1 - pos[l])) & 1)) cost = INFINITY;
                }
                t[c * bits + b] = cost;
            }
    }
    /* Outputs: the wanted layout must exist. */
    for (int o = 0; o < ir->nouts && st == LG_OK; o++) {
        if (ir->outs[o].v != v || s->out_any[o]) continue;
        int a = aux0 + layout_index(ls, &nl, &ir->outs[o].md);
        double *t;
        st = add_factor(s, 1, &a, &t);
        if (st == LG_OK) {
            t[0] = INFINITY;
            t[1] = 0;
        }
    }
    /* The start: GREEDY (candidate 0 everywhere) with exactly the layouts it
     * needs set. */
    for (int l = 0; l < nl; l++) s->start[aux0 + l] = 0;
    for (int r = 0; r < nrd; r++) {
        const lg__cnode *node = &ir->nodes[s->vars[rd[r]].node];
        for (int j = 0; j < node->nin; j++)
            if (node->in[j] == v)
                s->start[aux0 + layout_index(ls, &nl, &s->vars[rd[r]].cfg[0].in[j])] = 1;
    }
    for (int o = 0; o < ir->nouts; o++)
        if (ir->outs[o].v == v && !s->out_any[o])
            s->start[aux0 + layout_index(ls, &nl, &ir->outs[o].md)] = 1;
done:
    lg__free(rd);
    return st;
}

/* Variables and their candidates: GREEDY's first, NONE's second, then the
 * kind's own. */
static lg_status build_vars(lg__graph *ir, lg__layout_space *s, int *var_of_node,
                            int *var_of_input) {
    snapshot snap = {0};
    lg_status st = snap_take(ir, &snap);
    for (int v = 0; v < ir->nvals && st == LG_OK; v++)
        if (ir->vals[v].kind == LG_VAL_INPUT && lg_md_is_any(&ir->vals[v].md)) {
            var_of_input[v] = s->nvars;
            s->vars[s->nvars++] = (lg__layout_var){.node = -1, .value = (lg_value)v};
        }
    for (int i = 0; i < ir->nsched && st == LG_OK; i++) {
        int n = ir->sched[i];
        var_of_node[n] = s->nvars;
        s->vars[s->nvars++] = (lg__layout_var){.node = n, .value = ir->nodes[n].out};
    }
    for (int i = 0; i < s->nvars && st == LG_OK; i++) {
        s->vars[i].cfg = lg__calloc(MAX_CFG, sizeof(lg__layout_cfg));
        if (!s->vars[i].cfg) st = LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "out of memory");
    }
    lg__strategy_fn seeds[2] = {lg__propagate_greedy, lg__propagate_none};
    for (int k = 0; k < 2 && st == LG_OK; k++) {
        st = seeds[k](ir);
        for (int i = 0; i < s->nvars && st == LG_OK; i++) {
            lg__layout_cfg c;
            cfg_current(ir, &s->vars[i], &c);
            int nin = s->vars[i].node >= 0 ? ir->nodes[s->vars[i].node].nin : 0;
            cfg_add(&s->vars[i], nin, &c);
        }
        snap_restore(ir, &snap);
    }
    /* The kinds' own candidates (asked of the kernels, none created). */
    for (int i = 0; i < s->nvars && st == LG_OK; i++) {
        lg__layout_var *var = &s->vars[i];
        if (var->node < 0) {
            lg_md l[3];
            int nl = lg__layouts_of(&ir->vals[var->value].md, l);
            for (int j = 0; j < nl; j++) {
                lg__layout_cfg c;
                memset(&c, 0, sizeof c);
                c.out = l[j];
                cfg_add(var, 0, &c);
            }
        } else {
            kind_cfgs(ir, var);
        }
        s->ncand[i] = var->ncfg;
    }
    snap_free(&snap);
    return st;
}

lg_status lg__layout_space_build(lg__graph *ir, lg__layout_space *s) {
    memset(s, 0, sizeof *s);
    int cap = ir->nvals + ir->nnodes + 1;
    int total = cap + ir->nvals * MAX_LAYOUTS; /* variables and auxiliaries */
    int *var_of_node = lg__malloc((size_t)(ir->nnodes + 1) * sizeof(int));
    int *var_of_input = lg__malloc((size_t)(ir->nvals + 1) * sizeof(int));
    s->vars = lg__calloc((size_t)cap, sizeof *s->vars);
    s->ncand = lg__calloc((size_t)total, sizeof *s->ncand);
    s->start = lg__calloc((size_t)total, sizeof *s->start);
    s->out_any = lg__calloc((size_t)ir->nouts + 1, sizeof *s->out_any);
    lg_status st = LG_OK;
    if (!var_of_node || !var_of_input || !s->vars || !s->ncand || !s->start || !s->out_any)
        st = LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "out of memory");
    for (int i = 0; st == LG_OK && i < ir->nnodes; i++) var_of_node[i] = -1;
    for (int i = 0; st == LG_OK && i < ir->nvals; i++) var_of_input[i] = -1;
    for (int o = 0; st == LG_OK && o < ir->nouts; o++)
        s->out_any[o] = lg_md_is_any(&ir->outs[o].md);
    if (st == LG_OK) st = build_vars(ir, s, var_of_node, var_of_input);
    /* The cost of running each node in each configuration; for a node the
     * fuse pass may fold into the conv before it, a factor over both: nothing
     * when their layouts let it fuse (see lg__cost_fusable). */
    for (int i = 0; st == LG_OK && i < s->nvars; i++) {
        const lg__layout_var *var = &s->vars[i];
        if (var->node < 0) continue;
        const lg__cnode *node = &ir->nodes[var->node];
        int chain[LG_COST_MAX_CHAIN], slots[LG_COST_MAX_CHAIN];
        int len = lg__cost_fusion_chain(ir, node, chain, slots), vars[LG_COST_MAX_CHAIN + 1];
        int64_t size = var->ncfg;
        for (int k = 0; k < len; k++) {
            vars[k] = var_of_node[chain[k]];
            if (vars[k] < 0)
                len = 0;
            else
                size *= s->vars[vars[k]].ncfg;
        }
        double *table;
        if (len == 0 || size > (1 << 20)) {
            st = add_factor(s, 1, &i, &table);
            for (int c = 0; st == LG_OK && c < var->ncfg; c++)
                table[c] = lg__cost_node(ir, node, var->cfg[c].in, &var->cfg[c].out);
            continue;
        }
        /* A factor over the chain and node (first variable slowest): nothing
         * where every link fuses. */
        vars[len] = i;
        st = add_factor(s, len + 1, vars, &table);
        double *own = st == LG_OK ? lg__malloc((size_t)var->ncfg * sizeof *own) : NULL;
        if (st == LG_OK && !own) st = LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "out of memory");
        for (int c = 0; st == LG_OK && c < var->ncfg; c++)
            own[c] = lg__cost_node(ir, node, var->cfg[c].in, &var->cfg[c].out);
        for (int64_t e = 0; st == LG_OK && e < size; e++) {
            const lg_md *in[LG_COST_MAX_CHAIN + 1], *out[LG_COST_MAX_CHAIN + 1];
            int64_t r = e;
            for (int k = len; k >= 0; k--) {
                const lg__layout_var *kv = &s->vars[vars[k]];
                int c = (int)(r % kv->ncfg);
                r /= kv->ncfg;
                in[k] = kv->cfg[c].in;
                out[k] = &kv->cfg[c].out;
            }
            int c = (int)(e % var->ncfg);
            table[e] = lg__cost_chain_fuses(ir, node, chain, slots, len, in, out) ? 0 : own[c];
        }
        lg__free(own);
    }
    double offset = 0;
    for (int v = 0; st == LG_OK && v < ir->nvals && !s->too_large; v++)
        st = value_factors(ir, s, var_of_node, var_of_input, (lg_value)v, &offset);
    /* A fixed cost rides on variable 0 (every entry), so the solver's total
     * equals the cost model's. */
    if (st == LG_OK && !s->too_large && offset > 0 && s->nvars > 0) {
        double *table;
        int zero = 0;
        st = add_factor(s, 1, &zero, &table);
        for (int c = 0; st == LG_OK && c < s->ncand[0]; c++) table[c] = offset;
    }
    lg__free(var_of_node);
    lg__free(var_of_input);
    if (st != LG_OK) lg__layout_space_free(s);
    return st;
}

void lg__layout_space_apply(lg__graph *ir, const lg__layout_space *s, const int *choice) {
    for (int i = 0; i < s->nvars; i++) {
        const lg__layout_var *var = &s->vars[i];
        const lg__layout_cfg *c = &var->cfg[choice[i]];
        if (var->node >= 0) memcpy(ir->nodes[var->node].in_md, c->in, sizeof c->in);
        ir->vals[var->value].md = c->out;
    }
    for (int o = 0; o < ir->nouts; o++)
        if (s->out_any[o]) ir->outs[o].md = ir->vals[ir->outs[o].v].md;
}

void lg__layout_space_free(lg__layout_space *s) {
    if (s->vars)
        for (int i = 0; i < s->nvars; i++) lg__free(s->vars[i].cfg);
    if (s->factors)
        for (int f = 0; f < s->nfactors; f++) lg__free((void *)s->factors[f].cost);
    lg__free(s->vars);
    lg__free(s->ncand);
    lg__free(s->factors);
    lg__free(s->out_any);
    lg__free(s->start);
    memset(s, 0, sizeof *s);
}
