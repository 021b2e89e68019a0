/* The builder's graph: values (tensors), nodes and outputs, and the hook
 * table of every node kind.
 *
 * struct lg_graph is what the user builds with lg_graph_add_*: every node's
 * result is a new value whose md holds its dims and type (format "any");
 * inputs keep the md they were given, constants a concrete one. The
 * compiler (src/passes/ir.h) copies it into its own IR, whose nodes and
 * values extend these with what only compiling needs (layouts read, fused
 * post-ops, places in memory, kernels); this header knows nothing of that.
 *
 * A value id (lg_value) is an index into the value array; nodes are kept in
 * the order they were added, which is a topological order (a node can only
 * read values that exist when it is added). */
#ifndef LG_GRAPH_GRAPH_H
#define LG_GRAPH_GRAPH_H

#include "memory/md.h"
#include "primitives/attr.h"
#include "primitives/kernel.h"

typedef enum lg__node_kind {
#define X(id, name) LG_NODE_##id,
#include "graph/nodes.def"
#undef X
    LG_NODE_COUNT
} lg__node_kind;

/* Most inputs a node reads (conv: src, weights, bias; batchnorm: src, mean,
 * variance, gamma, beta). */
#define LG_NODE_MAX_IN 5

typedef enum lg__val_kind {
    LG_VAL_INPUT,    /* bound by the caller at execution */
    LG_VAL_CONSTANT, /* data known at compile time */
    LG_VAL_NODE,     /* produced by a node */
} lg__val_kind;

/* The fields of a value, shared by the builder's value and the compiler's
 * (which adds its place in memory). */
#define LG__VALUE_FIELDS                                                                           \
    lg__val_kind kind;                                                                             \
    lg_md md;         /* see the file comment: dims/type, then the layout */                       \
    int producer;     /* LG_VAL_NODE: index of the node producing it */                            \
    int input;        /* LG_VAL_INPUT: its number among the inputs */                              \
    const char *name; /* inputs and constants; NULL otherwise */                                   \
    const void *data; /* constants: lg_md_size(&md) bytes */

typedef struct lg__value {
    LG__VALUE_FIELDS
    /* A constant added by lg_graph_add_constant_ref: data is the caller's,
     * release(release_ctx) runs when the graph is destroyed (instead of
     * freeing data). NULL for every other value. */
    void (*release)(void *ctx);
    void *release_ctx;
} lg__value;

/* The parameters of a node, by kind. */
typedef union lg__node_params {
    lg_conv_params conv;
    struct {
        int alg;
        float alpha, beta;
    } eltwise;
    struct {
        int alg;
    } binary;
    struct {
        int axis;
        int64_t group_size;
    } shuffle;
    struct {
        lg_md dst;
        /* A quantising reorder (lg_graph_add_reorder_attr); all zero for a
         * plain one (and for the reorders the compiler inserts). mask[]:
         * src scales, dst scales, src zero points, dst zero points, -1 when
         * absent; the arrays present are inputs 1.. in that order. */
        bool quant;
        int32_t mask[4];
        bool sum; /* dst = ... + sum_beta * (value sum_src) */
        float sum_beta;
        lg_value sum_src;
    } reorder;
    lg_pool_params pool;
    struct {
        int alg, axis;
    } softmax;
    struct {
        float eps;
        unsigned flags; /* LG_BNORM_FUSE_RELU, USE_SCALE | USE_SHIFT with gamma, beta */
    } batchnorm;
    struct {
        int axis;
    } concat;
    struct {
        int axis;
        int64_t start, len;
    } slice;
    struct {
        int ndims;
        int64_t dims[LG_MAX_NDIMS];
    } reshape;
} lg__node_params;

/* The fields of a node as the builder makes it (what every hook sees),
 * shared by the compiler's node, which adds compile-only state. */
#define LG__NODE_FIELDS                                                                            \
    lg__node_kind kind;                                                                            \
    int nin;                                                                                       \
    lg_value in[LG_NODE_MAX_IN];                                                                   \
    lg_value out;                                                                                  \
    lg__node_params p;

typedef struct lg__node {
    LG__NODE_FIELDS
} lg__node;

typedef struct lg__output {
    lg_value v;
    const char *name;
    lg_md md; /* requested layout; "any" until the strategy picks one */
} lg__output;

/* The user's graph. Names and constant data are owned here. */
struct lg_graph {
    lg__value *vals;
    int nvals, capv;
    lg__node *nodes;
    int nnodes, capn;
    lg__output *outs;
    int nouts, capo;
    int ninputs;
};

/* One layout configuration of a node: the layout each input is read in and
 * the layout its result is written in. */
typedef struct lg__layout_cfg {
    lg_md in[LG_NODE_MAX_IN];
    lg_md out;
} lg__layout_cfg;

/* Most configurations a kind offers the OPTIMAL strategy for one node. */
#define LG_NODE_MAX_CFG 24

/* What the cost model needs beyond bytes (src/passes/cost_model.h): the
 * node's arithmetic and how much slower its kernel runs it in the given
 * layouts than in its best ones (1 = best). */
typedef struct lg__node_cost {
    double flops;
    double slowdown;
    /* The kernel path these layouts run ("pw", "direct", "ref": static
     * storage), priced under its own cost-model key; NULL when the kind has
     * one path (the key then says ".slow" where slowdown > 1). */
    const char *path;
} lg__node_cost;

/* The hooks of one node kind (src/graph/nodes/<kind>.c): every question a
 * compile pass asks about a node is answered here, so no pass branches on
 * the kind. A hook sees the node (its kind, parameters and input count) and
 * mds only, never the graph: `in` holds the node's nin input mds and `out`
 * its result's md. Optional hooks may be NULL (the comment says what NULL
 * means). */
/* The compile options a node's kernel may depend on (lg_compile_options'
 * conv_alg). */
typedef struct lg__node_opts {
    int conv_alg; /* lg_conv_alg: what a conv left at LG_CONV_DIRECT runs */
} lg__node_opts;

typedef struct lg__node_ops {
    const char *name;
    /* Execution argument id of each input (conv: SRC, WEIGHTS, BIAS). */
    int in_args[LG_NODE_MAX_IN];
    /* For kinds whose inputs depend on the node's parameters (a quantising
     * reorder's scale and zero-point arrays): the argument id of input i.
     * NULL: in_args[i]. Ask through lg__node_in_arg. */
    int (*in_arg)(const lg__node *node, int i);
    /* The value the node's kernel adds into its result (its own sum
     * attribute: dst = ... + beta * dst_old), or LG_NO_VALUE. The compiler
     * treats it as a fused sum's source (copied into, or sharing, the
     * result's buffer before the step). NULL: none. */
    lg_value (*sum_operand)(const lg__node *node);
    /* The result may take input 0's buffer (the kernel allows src == dst)
     * when input 0 has the result's md and dies at the node. */
    bool inplace;
    /* With every input a constant, the node runs once at compile time
     * (fold_constants) unless its result is a graph output. */
    bool foldable;
    /* Check the node against its inputs' mds (dims and types) and write its
     * result's dims and type into *out (format "any"), validating through
     * the kernel kind's own validator. Errors name `where` and node `index`. */
    lg_status (*infer)(const lg__node *node, const lg_md *in, int index, lg_md *out,
                       const char *where);
    /* Strategies NONE and GREEDY: from the inputs' current mds in[], write
     * the layout each input is read in (read[]) and the result's layout
     * (*out holds the result's "any" md on entry). */
    lg_status (*layout_none)(const lg__node *node, const lg_md *in, lg_md *read, lg_md *out);
    lg_status (*layout_greedy)(const lg__node *node, const lg_md *in, lg_md *read, lg_md *out);
    /* The layout the node would like input i in when that input's layout is
     * still free ("any"); false (or NULL) for no preference. */
    bool (*prefers)(const lg__node *node, const lg_md *in, const lg_md *out, int i, lg_md *md);
    /* OPTIMAL: the configurations the node can run in, given its inputs' and
     * result's shapes; at most LG_NODE_MAX_CFG written into cfg, count
     * returned. */
    int (*candidates)(const lg__node *node, const lg_md *in, const lg_md *out, lg__layout_cfg *cfg);
    /* Cost inputs in the configuration (in[] read layouts, *out result
     * layout). NULL: memory-bound (no flops). */
    void (*cost)(const lg__node *node, const lg_md *in, const lg_md *out, lg__node_cost *c);
    /* The node as a post-op of the producer of its input `slot`: *op, and in
     * *other the input a sum post-op adds (-1 for none). NULL or false: it
     * cannot be fused into its producer. */
    bool (*as_post_op)(const lg__node *node, int slot, lg__post_op *op, int *other);
    /* True if the kernel of this node, in these layouts, runs the post-op
     * chain post[0..npost). NULL: the kind absorbs no post-ops. */
    bool (*accepts_post)(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                         const lg__post_op *post);
    /* Per-channel affine nodes (batchnorm): with data[i] the constant data of
     * input i (NULL when not a constant), write the node as y = scale[c] x +
     * shift[c] over channel dim 1 (then max(y, 0) when *relu), C values each;
     * false when it is not one (statistics not constant). NULL: never. */
    bool (*channel_affine)(const lg__node *node, const lg_md *in, const void *const *data,
                           float *scale, float *shift, bool *relu);
    /* Producers that can absorb such an affine map of their result (conv):
     * with data[] as above, write weights equal to input 1's scaled per
     * output channel into wei (input 1's md, lg_md_size bytes) and the new
     * bias (scale times the old one, or 0, plus shift; C floats) into bias;
     * *wmask gets the output channel dims of input 1 as an lg_attr_set_scales
     * mask (scale[] is row-major over them), so that with wei NULL the
     * caller scales the weights itself (the compiler does it in the reorder
     * that gives them their final layout: the weights are written once).
     * False when it cannot (weights or bias not constant). NULL: never. */
    bool (*absorb_affine)(const lg__node *node, const lg_md *in, const void *const *data,
                          const float *scale, const float *shift, void *wei, float *bias,
                          int *wmask);
    /* True if the node only flattens input 0 (in[0]) into out's dims
     * [in dims[0], product of the others]. NULL: never (fold_flatten). */
    bool (*is_flatten)(const lg__node *node, const lg_md *in, const lg_md *out);
    /* True if, in these layouts, the result is input 0's bytes unchanged
     * (a reshape whose input layout views as the result's md): plan_memory
     * then gives the result input 0's buffer when input 0 dies at the node,
     * and the plan runs no step for it. NULL: never. */
    bool (*is_view)(const lg__node *node, const lg_md *in, const lg_md *out);
    /* Inputs (bit i: input i) the node may read unflattened: a 2D input
     * [N, K] there may be replaced by any [N, ...] tensor whose row-major
     * rows are the same K elements, when input `unflat_with` (a constant of
     * [M, K]) is reshaped alike to [M, ...] (an inner product's weights). */
    unsigned reads_unflat;
    int unflat_with;
    /* The layer class profiles report for the node (lg_layer_class; 0 is
     * LG_LAYER_OTHER), or, when `classify` is set, what it returns for the
     * node's input and result mds. */
    lg_layer_class layer_class;
    lg_layer_class (*classify)(const lg__node *node, const lg_md *in, const lg_md *out);
    /* The node as its kernel will be created under the compile options o, in
     * these layouts: an adjusted copy written to *tmp and returned, or node
     * itself. Both the cost model and kernel creation ask it, so that the
     * path priced is the one that runs. NULL: node itself. Ask through
     * lg__node_as_run. */
    const lg__node *(*as_run)(const lg__node *node, const lg_md *in, const lg_md *out,
                              const lg__node_opts *o, lg__node *tmp);
    /* True if create() would succeed for these layouts and post-ops and its
     * kernel would run vector code (not a reference or generic path),
     * asked of the kernel kind's query: nothing is created or cached and no
     * message recorded. concat_inplace asks it before it hands a producer
     * or reader a strided view. NULL: never (a kind whose kernels do not
     * take views; the value keeps a buffer of its own). */
    bool (*runs_fast)(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                      const lg__post_op *post);
    /* Create the kernel for the final layouts and post-ops. */
    lg_status (*create)(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                        const lg__post_op *post, lg_kernel **k);
    /* The node's parameters for dumps, e.g. "alg:relu alpha:0". */
    void (*describe)(const lg__node *node, const lg_md *in, const lg_md *out, int npost,
                     const lg__post_op *post, char *buf, size_t len);
} lg__node_ops;

#define X(id, name) LG_INTERNAL extern const lg__node_ops lg__node_##name##_ops;
#include "graph/nodes.def"
#undef X

/* The hooks of a node kind; never NULL for a valid kind. */
LG_INTERNAL const lg__node_ops *lg__node_ops_of(lg__node_kind kind);

/* The execution argument id of node's input i (the in_arg hook, else
 * in_args[i]). */
LG_INTERNAL int lg__node_in_arg(const lg__node *node, int i);

/* The node as its kernel runs under o (the as_run hook, else node). */
LG_INTERNAL const lg__node *lg__node_as_run(const lg__node *node, const lg_md *in, const lg_md *out,
                                            const lg__node_opts *o, lg__node *tmp);

/* The value node's kernel accumulates into its result (sum_operand), or
 * LG_NO_VALUE. */
LG_INTERNAL lg_value lg__node_sum_operand(const lg__node *node);

/* ---- helpers for the node files (src/graph/graph.c) ---- */

/* Check that v names an existing value of g; error names `where`, the node
 * being added (index, kind) and the operand `what`. */
LG_INTERNAL lg_status lg__graph_check_value(const struct lg_graph *g, lg_value v, const char *what,
                                            const char *kind, const char *where);

/* Append node (its out is filled here) whose result has md *out_md; *out
 * gets the new value. Runs the kind's infer hook first. */
LG_INTERNAL lg_status lg__graph_add_node(struct lg_graph *g, lg__node *node, lg_value *out,
                                         const char *where);

/* ---- layout helpers shared by the strategies ---- */

/* Dense row-major ("abcd...") md of `like`'s dims and type. */
LG_INTERNAL void lg__md_plain(const lg_md *like, lg_md *out);

/* An md with `shape`'s dims and type laid out as `layout` (same tag), or
 * plain if layout is not a dense tag-expressible layout of that rank. */
LG_INTERNAL void lg__md_like(const lg_md *layout, const lg_md *shape, lg_md *out);

/* True if md is concrete and dense (no gaps, no offset). */
LG_INTERNAL bool lg__md_dense_concrete(const lg_md *md);

/* The layouts a tensor of shape's dims may take: plain, channels-last and
 * channel-blocked (block 16 with AVX-512, else 8) for 3D-5D tensors with more
 * than one channel; plain otherwise. Returns the count (at most 3). */
LG_INTERNAL int lg__layouts_of(const lg_md *shape, lg_md out[3]);

/* Shared hooks. layout: every input read and the result written plain; the
 * result in the layout of input 0 (dense), every input read as it is.
 * candidates: the result and every same-shaped input in one layout, a
 * broadcast input (binary) in any of its own layouts. */
LG_INTERNAL lg_status lg__layout_all_plain(const lg__node *node, const lg_md *in, lg_md *read,
                                           lg_md *out);
LG_INTERNAL lg_status lg__layout_keep(const lg__node *node, const lg_md *in, lg_md *read,
                                      lg_md *out);
LG_INTERNAL int lg__candidates_same_layout(const lg__node *node, const lg_md *in, const lg_md *out,
                                           lg__layout_cfg *cfg);

#endif /* LG_GRAPH_GRAPH_H */
