/* Turn a compiled graph into the immutable plan (see lg__plan_build). */
#include "passes/cost_model.h"
#include "passes/passes.h"

#include <string.h>

static const char where[] = "lg_graph_compile";

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = lg__malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static bool same_place(lg__place a, lg__place b) {
    return a.base == b.base && a.offset == b.offset;
}

/* Place inputs, outputs and the constants the schedule reads; copy the
 * constants' data into the plan. */
static lg_status place_io(lg__graph *ir, lg_plan *p) {
    p->nin = ir->ninputs;
    p->nout = ir->nouts;
    p->ins = lg__calloc((size_t)p->nin + 1, sizeof *p->ins);
    p->outs = lg__calloc((size_t)p->nout + 1, sizeof *p->outs);
    p->consts = lg__calloc((size_t)ir->nvals + 1, sizeof *p->consts);
    if (!p->ins || !p->outs || !p->consts)
        return lg__error(LG_OUT_OF_MEMORY, where, "cannot allocate the plan's tables");
    for (int v = 0; v < ir->nvals; v++) {
        lg__cvalue *val = &ir->vals[v];
        if (val->kind != LG_VAL_INPUT) continue;
        p->ins[val->input].md = val->md;
        p->ins[val->input].name = dup_str(val->name);
        if (!p->ins[val->input].name) return lg__error(LG_OUT_OF_MEMORY, where, "out of memory");
        val->place = (lg__place){1 + val->input, 0};
    }
    for (int o = 0; o < ir->nouts; o++) {
        p->outs[o].md = ir->outs[o].md;
        p->outs[o].name = dup_str(ir->outs[o].name);
        if (!p->outs[o].name) return lg__error(LG_OUT_OF_MEMORY, where, "out of memory");
        ir->vals[ir->outs[o].v].place = (lg__place){1 + p->nin + o, 0};
    }
    for (int i = 0; i < ir->nsched; i++) {
        lg_value vs[LG_NODE_MAX_IN + 1];
        int k = lg__ir_reads(&ir->nodes[ir->sched[i]], vs);
        for (int j = 0; j < k; j++) {
            lg__cvalue *val = &ir->vals[vs[j]];
            if (val->kind != LG_VAL_CONSTANT || val->place.base >= 0) continue;
            size_t bytes = lg_md_size(&val->md);
            /* A constant the passes made (folded weights) moves into the
             * plan; the user's constants are copied. */
            void *c = NULL;
            for (int o = 0; o < ir->nowned && !c && !val->scale; o++)
                if (ir->owned[o] == val->data) {
                    c = ir->owned[o];
                    ir->owned[o] = NULL;
                }
            if (!c) {
                c = lg__alloc_big(bytes);
                if (!c) return lg__error(LG_OUT_OF_MEMORY, where, "cannot copy a constant");
                /* A pending scale (a folded batchnorm's) is applied as the
                 * weights are copied: they are still written once. */
                lg_status s = LG_OK;
                if (val->scale)
                    s = lg__ir_const_write(ir, vs[j], &val->md, c, 0);
                else if (bytes)
                    memcpy(c, val->data, bytes);
                if (s != LG_OK) {
                    lg__free(c);
                    return s;
                }
            }
            p->consts[p->nconst] = c;
            p->const_bytes += (int64_t)bytes;
            val->place = (lg__place){1 + p->nin + p->nout + p->nconst++, 0};
        }
    }
    p->nbases = 1 + p->nin + p->nout + p->nconst;
    /* Intermediates the memory planner did not place (pass skipped). */
    p->arena_bytes = ir->arena_bytes;
    for (int i = 0; i < ir->nsched; i++) {
        lg_value v = lg__ir_home_root(ir, ir->nodes[ir->sched[i]].out, NULL);
        lg__cvalue *val = &ir->vals[v];
        if (val->place.base >= 0) continue;
        val->place = (lg__place){0, p->arena_bytes};
        p->arena_bytes += ((int64_t)lg_md_size(&val->md) + 63) / 64 * 64;
    }
    /* Values placed inside another's buffer (concat_inplace). */
    for (int v = 0; v < ir->nvals; v++) {
        if (!ir->vals[v].homed) continue;
        int64_t off;
        lg__place at = ir->vals[lg__ir_home_root(ir, v, &off)].place;
        if (at.base < 0)
            return lg__error(LG_RUNTIME_ERROR, where, "value %d lives in a value with no place", v);
        ir->vals[v].place = (lg__place){at.base, at.offset + off};
    }
    return LG_OK;
}

/* The dump name of value v. */
static void value_name(const lg__graph *ir, lg_value v, char *buf, size_t len) {
    const lg__cvalue *val = &ir->vals[v];
    for (int o = 0; o < ir->nouts; o++)
        if (ir->outs[o].v == v) {
            snprintf(buf, len, "%s", ir->outs[o].name);
            return;
        }
    if (val->name) {
        snprintf(buf, len, "%s", val->name);
        return;
    }
    /* A folded constant: name it after what it was folded from. */
    lg_value from = v;
    while (ir->vals[from].kind == LG_VAL_CONSTANT && !ir->vals[from].name &&
           ir->vals[from].producer >= 0)
        from = ir->nodes[ir->vals[from].producer].in[0];
    if (from != v && ir->vals[from].name)
        snprintf(buf, len, "t%u(%s folded)", v, ir->vals[from].name);
    else
        snprintf(buf, len, "t%u", v);
}

/* Tensor id of value v, adding it on first use. */
static int tensor_of(const lg__graph *ir, lg_plan *p, int *tid, lg_value v) {
    if (tid[v] >= 0) return tid[v];
    lg__tensor *t = &p->tensors[p->ntensors];
    value_name(ir, v, t->name, sizeof t->name);
    t->md = ir->vals[v].md;
    t->place = ir->vals[v].place;
    t->kind = ir->vals[v].kind;
    t->output = lg__ir_is_output(ir, v);
    return tid[v] = p->ntensors++;
}

/* Fill st's buffers in its kernel's slot order: DST is `out`, other slots
 * the inputs whose argument ids match. */
static lg_status bind_slots(lg_plan *p, lg__step *st, const lg__graph *ir, const lg_value *in,
                            const int *args, int nin, lg_value out) {
    const lg_kernel *k = st->kernel;
    if (k->nslots > LG_KERNEL_MAX_ARGS)
        return lg__error(LG_UNIMPLEMENTED, where,
                         "step %d (%s) takes %d arguments: a plan step "
                         "holds %d at most",
                         p->nsteps, k->impl, k->nslots, LG_KERNEL_MAX_ARGS);
    st->nbufs = k->nslots;
    for (int j = 0; j < k->nslots; j++) {
        int arg = k->slots[j].arg;
        st->bufs[j] = (lg__place){-1, 0};
        if (arg == LG_ARG_DST) {
            st->bufs[j] = ir->vals[out].place;
            continue;
        }
        for (int i = 0; i < nin; i++)
            if (args[i] == arg) st->bufs[j] = ir->vals[in[i]].place;
        if (st->bufs[j].base < 0 && k->slots[j].required && k->slots[j].bytes)
            return lg__error(LG_RUNTIME_ERROR, where, "step %d (%s) has no buffer for argument %d",
                             p->nsteps, k->impl, arg);
    }
    return LG_OK;
}

/* The kernel's per-step state for the plan's constants it reads (kernel.h
 * lg__kernel_prep_ops): made once here, for this step's constant bytes. */
static lg_status prepare_step(const lg_plan *p, lg__step *st) {
    const lg_kernel *k = st->kernel;
    if (!k->prep) return LG_OK;
    const int cbase = 1 + p->nin + p->nout;
    void *bufs[LG_KERNEL_MAX_ARGS];
    bool any = false;
    for (int j = 0; j < st->nbufs; j++) {
        bool c = st->bufs[j].base >= cbase;
        bufs[j] = c ? (char *)p->consts[st->bufs[j].base - cbase] + st->bufs[j].offset : NULL;
        any = any || c;
    }
    if (!any) return LG_OK;
    if (k->prep->prepare(k, bufs, &st->state) != LG_OK)
        return lg__error(LG_OUT_OF_MEMORY, where, "step %d (%s): cannot allocate its state",
                         p->nsteps - 1, k->impl);
    return LG_OK;
}

/* Bytes of the tensors st's kernel reads and writes. */
static int64_t kernel_bytes(const lg_kernel *k) {
    int64_t b = 0;
    for (int j = 0; j < k->nslots; j++)
        if (k->slots[j].is_tensor) b += (int64_t)lg_md_size(&k->slots[j].md);
    return b;
}

/* The profile fields of a node's step: its layer class, flops and cost. */
static void profile_fields(const lg__graph *ir, const lg__cnode *node, const lg_md *in,
                           lg__step *st) {
    const lg__node_ops *ops = lg__node_ops_of(node->kind);
    const lg_md *out = &ir->vals[node->out].md;
    st->bytes = kernel_bytes(st->kernel);
    st->model_cost = lg__cost_node_ex(ir, node, in, out, st->cost_key, &st->cost_bytes);
    lg__node_cost c = {0, 1, NULL};
    if (ops->cost) ops->cost(&node->base, in, out, &c);
    st->flops = c.flops;
    st->layer_class = node->inserted || node->copy ? LG_LAYER_REORDER
                      : ops->classify              ? ops->classify(&node->base, in, out)
                                                   : ops->layer_class;
}

/* The copy of a fused sum's source into the conv's result buffer. */
static lg_status add_sum_copy(lg__graph *ir, lg_plan *p, int *tid, const lg__cnode *node) {
    lg__step *st = &p->steps[p->nsteps];
    memset(st, 0, sizeof *st);
    lg_status s =
        lg_reorder_create(&st->kernel, &ir->vals[node->sum_src].md, &ir->vals[node->out].md, NULL);
    if (s != LG_OK) return s;
    p->nsteps++;
    static const int args[1] = {LG_ARG_SRC};
    LG_CHECK(bind_slots(p, st, ir, &node->sum_src, args, 1, node->out));
    st->node_kind = LG_NODE_REORDER;
    st->inserted = st->copy = true;
    snprintf(st->desc, sizeof st->desc, "copy of the fused sum's source");
    st->layer_class = LG_LAYER_REORDER;
    st->bytes = kernel_bytes(st->kernel);
    const lg_md *from = &ir->vals[node->sum_src].md, *to = &ir->vals[node->out].md;
    st->model_cost = lg__cost_reorder(ir, from, to);
    lg__cost_key("reorder", "reorder", from, to, st->cost_key);
    st->cost_bytes = (double)lg_md_size(from) + (double)lg_md_size(to);
    st->nin = 1;
    st->tin[0] = tensor_of(ir, p, tid, node->sum_src);
    st->tout = tensor_of(ir, p, tid, node->out);
    return LG_OK;
}

static lg_status add_steps(lg__graph *ir, lg_plan *p, int *tid) {
    for (int i = 0; i < ir->nsched; i++) {
        lg__cnode *node = &ir->nodes[ir->sched[i]];
        const lg__node_ops *ops = lg__node_ops_of(node->kind);
        if (ops->is_view && same_place(ir->vals[node->in[0]].place, ir->vals[node->out].place))
            continue; /* a view placed on its input's bytes: nothing to run */
        if (node->sum_src != LG_NO_VALUE &&
            !same_place(ir->vals[node->sum_src].place, ir->vals[node->out].place))
            LG_CHECK(add_sum_copy(ir, p, tid, node));
        lg__step *st = &p->steps[p->nsteps];
        memset(st, 0, sizeof *st);
        st->kernel = node->kernel;
        node->kernel = NULL;
        p->nsteps++;
        int in_args[LG_NODE_MAX_IN];
        for (int j = 0; j < node->nin; j++) in_args[j] = lg__node_in_arg(&node->base, j);
        LG_CHECK(bind_slots(p, st, ir, node->in, in_args, node->nin, node->out));
        LG_CHECK(prepare_step(p, st));
        st->node_kind = node->kind;
        st->inserted = node->inserted;
        st->copy = node->copy;
        lg_md in[LG_NODE_MAX_IN];
        lg__ir_in_mds(ir, node, in);
        ops->describe(&node->base, in, &ir->vals[node->out].md, node->npost, node->post, st->desc,
                      sizeof st->desc);
        profile_fields(ir, node, in, st);
        size_t len = strlen(st->desc);
        snprintf(st->desc + len, sizeof st->desc - len, "%s",
                 node->copy       ? " (copy to output)"
                 : node->inserted ? " (inserted)"
                                  : "");
        lg_value vs[LG_NODE_MAX_IN + 1];
        st->nin = lg__ir_reads(node, vs);
        for (int j = 0; j < st->nin; j++) st->tin[j] = tensor_of(ir, p, tid, vs[j]);
        st->tout = tensor_of(ir, p, tid, node->out);
    }
    return LG_OK;
}

static void fill_stats(const lg__graph *ir, lg_plan *p) {
    lg_plan_stats *s = &p->stats;
    memset(s, 0, sizeof *s);
    s->steps = p->nsteps;
    s->folded_reorders = ir->folded;
    s->arena_bytes = p->arena_bytes;
    s->const_bytes = p->const_bytes;
    s->model_cost = ir->model_cost;
    for (int i = 0; i < p->nsteps; i++) s->model_ms += p->steps[i].model_cost * 1e-6;
    s->exact = ir->exact;
    if (!ir->exact) snprintf(s->inexact_reason, sizeof s->inexact_reason, "%s", ir->inexact);
    s->kept_greedy = ir->kept_greedy;
    s->model_cost_bound = ir->cost_gap >= 0 && ir->model_cost > ir->cost_gap
                              ? ir->model_cost - ir->cost_gap
                          : ir->exact ? ir->model_cost
                                      : 0;
    s->views = ir->views;
    s->copy_steps_removed = ir->copy_steps_removed;
    s->copy_bytes_removed = ir->copy_bytes_removed;
    for (int i = 0; i < ir->nsched; i++) s->fused_steps += ir->nodes[ir->sched[i]].npost > 0;
    for (int i = 0; i < p->nsteps; i++) {
        const lg_kernel *k = p->steps[i].kernel;
        if (k->kind != LG_KIND_REORDER) continue;
        s->runtime_reorders++;
        for (int j = 0; j < k->nslots; j++)
            if (k->slots[j].is_tensor) s->reorder_bytes += (int64_t)k->slots[j].bytes;
    }
}

static lg_status build(lg__graph *ir, lg_plan *p) {
    LG_CHECK(place_io(ir, p));
    p->steps = lg__calloc((size_t)ir->nsched * 2 + 1, sizeof *p->steps);
    p->tensors = lg__calloc((size_t)ir->nvals + 1, sizeof *p->tensors);
    int *tid = lg__malloc((size_t)ir->nvals * sizeof *tid + 1);
    if (!p->steps || !p->tensors || !tid) {
        lg__free(tid);
        return lg__error(LG_OUT_OF_MEMORY, where, "cannot allocate the plan's steps");
    }
    for (int v = 0; v < ir->nvals; v++) tid[v] = -1;
    lg_status s = add_steps(ir, p, tid);
    lg__free(tid);
    if (s == LG_OK) fill_stats(ir, p);
    return s;
}

lg_status lg__plan_build(lg__graph *ir, int num_threads, lg_plan **out) {
    lg_plan *p = lg__plan_new();
    if (!p) return lg__error(LG_OUT_OF_MEMORY, where, "cannot allocate a plan");
    p->num_threads = num_threads;
    lg_status s = build(ir, p);
    if (s != LG_OK) {
        lg_plan_destroy(p);
        return s;
    }
    *out = p;
    return LG_OK;
}
