/* Internals of lgraph_onnx shared by its files: the importer state, the
 * table of ONNX values, and the helpers operator handlers use. The importer
 * reaches the core only through include/lgraph.h. */
#ifndef LG_ONNX_INT_H
#define LG_ONNX_INT_H

#include "onnx.pb-c.h"

#include <lgraph.h>
#include <lgraph_onnx.h>
#include <stdbool.h>
#include <stdint.h>

/* What an ONNX value is at load time. */
typedef enum ov_kind {
    OV_UNSET,  /* not produced yet */
    OV_CONST,  /* host data known at load time (initializers, folded shape math) */
    OV_TENSOR, /* a value of the lgraph graph */
    OV_LAZY,   /* a pattern not emitted yet: emitted when a consumer needs a tensor */
} ov_kind;

/* Patterns kept pending until their consumer is known, so that a consumer
 * can absorb them (batch norm into a conv, Pad into a conv, x * sigmoid(x)
 * into swish and x * hardsigmoid(x) into hardswish, reshape-transpose-reshape
 * into a channel shuffle). */
typedef enum lazy_kind {
    LZ_GATE, /* sigmoid(base) or hardsigmoid(base) (alg, alpha, beta): x * gate(x) is one node */
    LZ_CONV, /* a conv whose weights and bias may still absorb a batch norm */
    LZ_PAD,  /* base with zero padding on the spatial dims */
    LZ_RESHAPE5, /* base [N, C, H, W] viewed as [N, g, C/g, H, W] */
    LZ_SHUFFLED, /* an LZ_RESHAPE5 with its dims 1 and 2 swapped */
} lazy_kind;

typedef struct pending_conv pending_conv;

typedef struct oval {
    const char *name; /* the model's name (owned by the unpacked model) */
    ov_kind kind;
    int nd;
    int64_t dims[LG_MAX_NDIMS];
    int uses; /* consumers: nodes reading it, plus one if it is a graph output */
    /* OV_CONST: exactly one of f (float data) and i (integer data), n elements.
     * f_borrowed: f points into the unpacked model (the arena), not freed. */
    float *f;
    bool f_borrowed;
    int64_t *i;
    int64_t n;
    /* OV_TENSOR */
    lg_value v;
    /* OV_LAZY */
    lazy_kind lz;
    struct oval *base;
    int64_t pads[6];    /* LZ_PAD: before for each spatial dim, then after */
    lg_eltwise_alg alg; /* LZ_GATE: LG_ELTWISE_LOGISTIC or LG_ELTWISE_HARDSIGMOID */
    float alpha, beta;
    pending_conv *conv;
} oval;

/* A conv held back so that a following batch norm folds into it. */
struct pending_conv {
    const char *node;
    struct oval *src; /* a tensor */
    lg_conv_params p;
    int wnd; /* weights' rank as lgraph takes them (goihw when groups > 1) */
    int64_t wdims[LG_MAX_NDIMS];
    float *w, *b;    /* b may be NULL */
    bool w_borrowed; /* w points into the unpacked model (not freed) */
    int64_t nw, oc;
};

/* An arena for protobuf-c (arena.c): bump allocation in chunks marked for
 * transparent huge pages (64-byte aligned fields), released at once when
 * its last reference goes: the importer's, and one for each graph constant
 * that reads weights in place from it (lg_graph_add_constant_ref). */
typedef struct lg__onnx_arena {
    ProtobufCAllocator pb; /* pass &arena->pb to unpack */
    struct chunk *head;
    int refs;
} lg__onnx_arena;
/* A new arena with one reference, or NULL. */
lg__onnx_arena *lg__onnx_arena_new(void);
void lg__onnx_arena_ref(lg__onnx_arena *a);
/* Drop a reference (a void * so that it is a release callback); the last
 * one unmaps everything. NULL allowed. */
void lg__onnx_arena_unref(void *arena);
/* malloc, but 64-byte aligned, and from 4 MB on 2 MB aligned and marked
 * for huge pages; free()d. */
void *lg__onnx_big_alloc(size_t size);

typedef struct importer {
    lg_graph *g;
    lg_onnx_options opt;
    int64_t opset;
    oval *vals;
    int nvals, cap;
    int *slots; /* open-addressing hash of names to indices into vals */
    int nslots;
    lg__onnx_arena *arena;       /* the unpacked model: borrowed weights live here */
    const Onnx__NodeProto *node; /* the node being imported, for messages */
    /* Bytes of constants made so far (lg__onnx_const_alloc), and the most
     * one load may make: ConstantOfShape, Concat, Gather and friends fold
     * constants whose size a small file sets at will. */
    int64_t const_bytes, const_budget;
    char msg[1024];
} importer;

/* Return the status of expr from the enclosing function unless it is LG_OK. */
#define LG_ONNX_CHECK(expr)                                                                        \
    do {                                                                                           \
        lg_status lg__s = (expr);                                                                  \
        if (lg__s != LG_OK) return lg__s;                                                          \
    } while (0)

/* Record an error naming the current node (if any) and return status. */
lg_status lg__onnx_fail(importer *im, lg_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The value named `name`, or NULL. */
oval *lg__onnx_find(importer *im, const char *name);
/* The value named `name`, created OV_UNSET if new; NULL when out of memory. */
oval *lg__onnx_get(importer *im, const char *name);

/* Input i of the current node: NULL (and an error) when it is missing, or
 * when optional is false and the node left it empty. *out is NULL for an
 * empty optional input. */
lg_status lg__onnx_input(importer *im, int i, bool optional, oval **out);
/* Output i of the current node (created); NULL when out of memory. */
lg_status lg__onnx_output(importer *im, int i, oval **out);
/* Make v a graph tensor (emitting a pending pattern); error if it cannot be
 * one (a constant is added to the graph as a constant). */
lg_status lg__onnx_tensor(importer *im, oval *v);

/* Attributes of the current node. Each returns LG_OK with the default when
 * the attribute is absent and an error when it has the wrong type. */
lg_status lg__onnx_attr_int(importer *im, const char *name, int64_t def, int64_t *out);
lg_status lg__onnx_attr_float(importer *im, const char *name, float def, float *out);
lg_status lg__onnx_attr_ints(importer *im, const char *name, int max, int64_t *out, int *n);
lg_status lg__onnx_attr_string(importer *im, const char *name, const char *def, char *out,
                               size_t len);
const Onnx__AttributeProto *lg__onnx_attr(importer *im, const char *name);

/* Decode an ONNX tensor (initializer or attribute) into v as OV_CONST:
 * float, double (to float), int64, int32 and int8/uint8 (to integers);
 * checks that the data matches the declared dims. */
lg_status lg__onnx_const_from_tensor(importer *im, const Onnx__TensorProto *t, oval *v);
/* Make v an OV_CONST of nd dims; allocates n elements (f or i). */
lg_status lg__onnx_const_alloc(importer *im, oval *v, int nd, const int64_t *dims, bool is_int);
/* v's element k as a float or as an integer, whatever its storage. */
float lg__onnx_const_f(const oval *v, int64_t k);
int64_t lg__onnx_const_i(const oval *v, int64_t k);

/* Add host data as a graph constant of v's dims (plain layout); name is
 * derived from base and suffix. */
lg_status lg__onnx_add_constant(importer *im, const char *base, const char *suffix, int nd,
                                const int64_t *dims, const float *data, lg_value *out);
/* The plain tag of rank nd ("a", "ab", "abc", ...). */
const char *lg__onnx_plain_tag(int nd);

/* y = tensor x (a pending pattern is emitted first) reshaped to dims, as
 * a reshape node (ops_ip.c). */
lg_status lg__onnx_reshape_tensor(importer *im, oval *x, oval *y, int nd, const int64_t *dims);

/* Operator handlers: one per ONNX op type (ops_*.c). */
typedef lg_status (*lg__onnx_op_fn)(importer *im);
/* The handler of op_type, or NULL when the operator is unsupported. */
lg__onnx_op_fn lg__onnx_op(const char *op_type);

#endif
