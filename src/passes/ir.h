/* The compiler's IR: its working copy of the user's graph (lg__graph) and
 * the helpers on it: copying it from the builder's graph, adding values and
 * nodes, editing the schedule, counting uses. The passes assign a concrete
 * layout to every value, insert reorder nodes, fold, fuse and place values
 * in memory. It borrows names and constant data from the lg_graph it was
 * copied from, and owns what the passes allocate. Node and value pointers
 * are invalidated by adding nodes or values: passes hold indices.
 *
 * Dependencies run one way: the compiler reads the builder (graph/graph.h:
 * node kinds and their hooks) and produces the plan (graph/plan.h); neither
 * includes anything of src/passes. */
#ifndef LG_PASSES_IR_H
#define LG_PASSES_IR_H

#include "graph/graph.h"
#include "graph/plan.h"

/* A value of the compiler: the builder's fields (also as `base`) and its
 * place in memory. */
typedef struct lg__cvalue {
    union {
        lg__value base;
        struct {
            LG__VALUE_FIELDS
        };
    };
    lg__place place;
    /* Constants: data is used scaled along the dims of scale_mask (an
     * lg_attr_set_scales mask) by scale[] (owned by the IR), applied when
     * the constant is first written (lg__ir_const_write); NULL: as is. */
    const float *scale;
    int scale_mask;
    /* Pass concat_inplace: the value lives inside value `home`'s buffer,
     * home_off bytes from its start (a concat input its producer writes at
     * its place in the concat's result, a slice read in its source). */
    bool homed;
    lg_value home;
    int64_t home_off;
} lg__cvalue;

/* A node of the compiler: the builder's node (also as `base`, what the
 * kind's hooks see) and the state the passes give it. */
typedef struct lg__cnode {
    union {
        lg__node base;
        struct {
            LG__NODE_FIELDS
        };
    };
    lg_md in_md[LG_NODE_MAX_IN]; /* layout each input is read in (set by a strategy) */
    bool dead;                   /* folded or fused away */
    bool inserted;               /* a reorder the compiler added */
    bool copy;                   /* a copy into an output buffer (never folded) */
    int npost;                   /* fused post-ops */
    lg__post_op post[LG_MAX_POST_OPS];
    lg_value sum_src;  /* the value added into the result (a fused residual add's other
                        * input, or the node's own sum operand), or LG_NO_VALUE */
    lg_kernel *kernel; /* created by the create_kernels pass */
} lg__cnode;

/* The compiler's working copy (see the file comment). sched lists the live
 * nodes in execution order; passes keep it topological. */
typedef struct lg__graph {
    const struct lg_graph *src;
    lg__cvalue *vals;
    int nvals, capv;
    lg__cnode *nodes;
    int nnodes, capn;
    lg__output *outs;
    int nouts;
    int ninputs;
    int *sched;
    int nsched, capsched;
    void **owned; /* buffers the passes allocated (folded constants) */
    int nowned, capowned;
    /* Options and results the passes share. */
    lg_strategy strategy;
    lg_strategy_fn user_strategy; /* non-NULL: used instead of `strategy` */
    void *user_data;
    int folded;            /* reorders of constants done at compile time */
    bool exact;            /* the layout assignment is proven optimal */
    bool fuse;             /* the fuse pass will run (the cost model counts fusion) */
    double optimal_margin; /* lg_compile_options.optimal_margin */
    bool kept_greedy;      /* OPTIMAL kept GREEDY's assignment (margin not reached) */
    double model_cost;     /* cost of the assignment (src/passes/cost_model.h) */
    /* When exact is false: why, and how far above a proven lower bound of
     * the minimum model_cost may be (the solver's cost minus its bound;
     * negative: no bound known). */
    char inexact[160];
    double cost_gap;
    const struct lg__cost_coefs *coefs; /* the cost model's table; NULL: the default */
    int threads;          /* the plan's threads (0: OpenMP's default), for the model's speedups */
    lg_conv_alg conv_alg; /* lg_compile_options.conv_alg (issue 24) */
    int64_t arena_bytes;
    /* Pass concat_inplace: values placed inside another's buffer, concat
     * and slice steps it removed (net of the copies it added) and the bytes
     * those steps read and wrote. */
    int views, copy_steps_removed;
    int64_t copy_bytes_removed;
} lg__graph;

/* Copy g into ir (names and constant data are borrowed from g); the
 * schedule lists every node in the order added. */
LG_INTERNAL lg_status lg__ir_init(lg__graph *ir, const lg_graph *g);

/* Release what ir owns: arrays, folded buffers, kernel references. */
LG_INTERNAL void lg__ir_free(lg__graph *ir);

/* Append a copy of *v; returns its id or -1 when out of memory (error set). */
LG_INTERNAL int lg__ir_add_value(lg__graph *ir, const lg__cvalue *v);

/* Append a copy of *node (not scheduled); returns its index or -1. */
LG_INTERNAL int lg__ir_add_node(lg__graph *ir, const lg__cnode *node);

/* Keep p (from lg__aligned_alloc) until ir is freed; false when out of memory
 * (p is then freed). */
LG_INTERNAL bool lg__ir_own(lg__graph *ir, void *p);

/* Write constant v's data (its pending scale applied) into buf in layout md
 * (v's dims and type): one reorder, on `threads` threads (0: the current
 * OpenMP setting). */
LG_INTERNAL lg_status lg__ir_const_write(const lg__graph *ir, lg_value v, const lg_md *md,
                                         void *buf, int threads);

/* The parts of lg__ir_const_write, for callers that run many at once: the
 * reorder kernel (scale attribute included) and its nargs, and its args
 * (args[2], the scales, only when nargs is 3). */
LG_INTERNAL lg_status lg__ir_const_writer(const lg__graph *ir, lg_value v, const lg_md *md,
                                          lg_kernel **k, int *nargs);
LG_INTERNAL void lg__ir_const_args(const lg__graph *ir, lg_value v, void *buf, lg_arg args[3]);

/* Give constant v's pending scale effect now: new data owned by ir. */
LG_INTERNAL lg_status lg__ir_const_apply(lg__graph *ir, lg_value v);

/* Position of node n in the schedule, -1 if not scheduled. */
LG_INTERNAL int lg__ir_sched_pos(const lg__graph *ir, int n);

/* Insert node n at position pos of the schedule (0 <= pos <= nsched). */
LG_INTERNAL lg_status lg__ir_sched_insert(lg__graph *ir, int pos, int n);

/* Remove node n from the schedule and mark it dead. */
LG_INTERNAL void lg__ir_sched_remove(lg__graph *ir, int n);

/* The values node reads: its inputs, then a fused sum's source. Returns the
 * count (at most LG_NODE_MAX_IN + 1). */
LG_INTERNAL int lg__ir_reads(const lg__cnode *node, lg_value *vs);

/* The mds of node's input values, into in[0..nin). */
LG_INTERNAL void lg__ir_in_mds(const lg__graph *ir, const lg__cnode *node, lg_md *in);

/* Create node's kernel for its values' current layouts and post-ops
 * (through the kind's create hook, so through the kernel cache). */
LG_INTERNAL lg_status lg__ir_create_kernel(const lg__graph *ir, const lg__cnode *node,
                                           lg_kernel **k);

/* True if node's kernel, for its values' current layouts and post-ops,
 * would be made and run vector code (the kind's runs_fast hook; false
 * without one): asked, nothing created or cached, no message recorded. */
LG_INTERNAL bool lg__ir_kernel_fast(const lg__graph *ir, const lg__cnode *node);

/* uses[v] = edges from v into scheduled nodes plus outputs naming v. */
LG_INTERNAL void lg__ir_count_uses(const lg__graph *ir, int *uses);

/* The value whose buffer holds v (v itself unless homed) and, in *off, v's
 * byte offset in it (homes followed to the end). */
LG_INTERNAL lg_value lg__ir_home_root(const lg__graph *ir, lg_value v, int64_t *off);

/* True if some output names v. */
LG_INTERNAL bool lg__ir_is_output(const lg__graph *ir, lg_value v);

/* A compile-time error message: "lg_graph_compile: ..." */
#define LG_COMPILE_ERROR(status, ...) lg__error((status), "lg_graph_compile", __VA_ARGS__)

#endif /* LG_PASSES_IR_H */
