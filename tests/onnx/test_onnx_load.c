/* lg_onnx_load_buffer on models built here with protobuf-c: a conv + batch
 * norm + relu model against a scalar reference computed in double, the
 * symbolic batch, and every kind of bad model file the loader must refuse
 * with a status and a message (malformed, truncated, wrong opset,
 * unsupported operators listed together, tensor size mismatch, external
 * data, a cycle, a dangling input, a symbolic dim other than the batch). */
#include "onnx.pb-c.h"

#include <criterion/criterion.h>
#include <lgraph.h>
#include <lgraph_onnx.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A model under construction: every part is static storage of the test. */
typedef struct model {
    Onnx__ModelProto m;
    Onnx__OperatorSetIdProto opset, *opsets[1];
    Onnx__GraphProto g;
    Onnx__NodeProto nodes[8], *pnodes[8];
    Onnx__AttributeProto attrs[8][8], *pattrs[8][8]; /* 8 nodes of up to 8 attributes */
    Onnx__TensorProto inits[8], *pinits[8];
    Onnx__ValueInfoProto ins[2], outs[2], *pins[2], *pouts[2];
    Onnx__TypeProto types[4];
    Onnx__TypeProto__Tensor ttypes[4];
    Onnx__TensorShapeProto shapes[4];
    Onnx__TensorShapeProto__Dimension dims[4][5], *pdims[4][5];
    int ntypes;
} model;

static void model_init(model *md, int64_t opset) {
    memset(md, 0, sizeof *md);
    md->m = (Onnx__ModelProto)ONNX__MODEL_PROTO__INIT;
    md->opset = (Onnx__OperatorSetIdProto)ONNX__OPERATOR_SET_ID_PROTO__INIT;
    md->opset.domain = "";
    md->opset.has_version = 1;
    md->opset.version = opset;
    md->opsets[0] = &md->opset;
    md->m.n_opset_import = 1;
    md->m.opset_import = md->opsets;
    md->m.has_ir_version = 1;
    md->m.ir_version = 7;
    md->g = (Onnx__GraphProto)ONNX__GRAPH_PROTO__INIT;
    md->m.graph = &md->g;
    md->g.node = md->pnodes;
    md->g.initializer = md->pinits;
    md->g.input = md->pins;
    md->g.output = md->pouts;
}

/* A float tensor value info; a dim of -1 is the symbolic "N". */
static Onnx__ValueInfoProto *value_info(model *md, Onnx__ValueInfoProto *vi, const char *name,
                                        int nd, const int64_t *dims) {
    int t = md->ntypes++;
    *vi = (Onnx__ValueInfoProto)ONNX__VALUE_INFO_PROTO__INIT;
    vi->name = (char *)name;
    md->types[t] = (Onnx__TypeProto)ONNX__TYPE_PROTO__INIT;
    md->ttypes[t] = (Onnx__TypeProto__Tensor)ONNX__TYPE_PROTO__TENSOR__INIT;
    md->shapes[t] = (Onnx__TensorShapeProto)ONNX__TENSOR_SHAPE_PROTO__INIT;
    md->types[t].value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    md->types[t].tensor_type = &md->ttypes[t];
    md->ttypes[t].has_elem_type = 1;
    md->ttypes[t].elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    md->ttypes[t].shape = &md->shapes[t];
    md->shapes[t].n_dim = (size_t)nd;
    md->shapes[t].dim = md->pdims[t];
    for (int d = 0; d < nd; d++) {
        Onnx__TensorShapeProto__Dimension *x = &md->dims[t][d];
        *x = (Onnx__TensorShapeProto__Dimension)ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT;
        if (dims[d] < 0) {
            x->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
            x->dim_param = "N";
        } else {
            x->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            x->dim_value = dims[d];
        }
        md->pdims[t][d] = x;
    }
    md->ttypes[t].shape->dim = md->pdims[t];
    vi->type = &md->types[t];
    return vi;
}

static void add_input(model *md, const char *name, int nd, const int64_t *dims) {
    md->pins[md->g.n_input] = value_info(md, &md->ins[md->g.n_input], name, nd, dims);
    md->g.n_input++;
}

static void add_output(model *md, const char *name, int nd, const int64_t *dims) {
    md->pouts[md->g.n_output] = value_info(md, &md->outs[md->g.n_output], name, nd, dims);
    md->g.n_output++;
}

/* A new initializer of ONNX type dt, its data not set. */
static Onnx__TensorProto *new_init(model *md, const char *name, int nd, int64_t *dims, int dt) {
    Onnx__TensorProto *t = &md->inits[md->g.n_initializer];
    *t = (Onnx__TensorProto)ONNX__TENSOR_PROTO__INIT;
    t->name = (char *)name;
    t->n_dims = (size_t)nd;
    t->dims = dims;
    t->has_data_type = 1;
    t->data_type = dt;
    md->pinits[md->g.n_initializer++] = t;
    return t;
}

static Onnx__TensorProto *add_init(model *md, const char *name, int nd, int64_t *dims, float *data,
                                   size_t n) {
    Onnx__TensorProto *t = new_init(md, name, nd, dims, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT);
    t->n_float_data = n;
    t->float_data = data;
    return t;
}

static Onnx__NodeProto *add_node(model *md, const char *op, const char *name, int nin, char **in,
                                 int nout, char **out) {
    int k = (int)md->g.n_node++;
    Onnx__NodeProto *n = &md->nodes[k];
    *n = (Onnx__NodeProto)ONNX__NODE_PROTO__INIT;
    n->op_type = (char *)op;
    n->name = (char *)name;
    n->n_input = (size_t)nin;
    n->input = in;
    n->n_output = (size_t)nout;
    n->output = out;
    n->attribute = md->pattrs[k];
    md->pnodes[k] = n;
    return n;
}

static void add_ints(model *md, Onnx__NodeProto *n, const char *name, int64_t *v, size_t cnt) {
    int k = (int)(n - md->nodes), a = (int)n->n_attribute++;
    cr_assert_lt(a, 8, "the test model holds up to 8 attributes a node");
    Onnx__AttributeProto *at = &md->attrs[k][a];
    *at = (Onnx__AttributeProto)ONNX__ATTRIBUTE_PROTO__INIT;
    at->name = (char *)name;
    at->has_type = 1;
    at->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
    at->n_ints = cnt;
    at->ints = v;
    md->pattrs[k][a] = at;
}

static uint8_t *pack(const model *md, size_t *len) {
    *len = onnx__model_proto__get_packed_size(&md->m);
    uint8_t *buf = malloc(*len);
    cr_assert(buf);
    onnx__model_proto__pack(&md->m, buf);
    return buf;
}

/* The conv model: x [N, 2, 5, 5] -> Conv (3 out, 3x3, pads 1, stride 1,
 * bias) -> BatchNormalization -> Relu -> y [N, 3, 5, 5]. */
static float w[3 * 2 * 3 * 3], b[3], gam[3], bet[3], mean[3], var[3];
static int64_t wdims[4] = {3, 2, 3, 3}, cdims[1] = {3}, pads[4] = {1, 1, 1, 1};
static char *conv_in[] = {"x", "w", "b"}, *conv_out[] = {"c"};
static char *bn_in[] = {"c", "gamma", "beta", "mean", "var"}, *bn_out[] = {"n"};
static char *relu_in[] = {"n"}, *relu_out[] = {"y"};

static void conv_model(model *md, int64_t opset) {
    for (int k = 0; k < 54; k++) w[k] = (float)((k * 37 % 19) - 9) / 10.0f;
    for (int k = 0; k < 3; k++) {
        b[k] = 0.1f * (float)k - 0.1f;
        gam[k] = 1.0f + 0.25f * (float)k;
        bet[k] = 0.05f * (float)k;
        mean[k] = 0.1f - 0.05f * (float)k;
        var[k] = 0.5f + 0.5f * (float)k;
    }
    model_init(md, opset);
    int64_t xd[4] = {-1, 2, 5, 5}, yd[4] = {-1, 3, 5, 5};
    add_input(md, "x", 4, xd);
    add_output(md, "y", 4, yd);
    add_init(md, "w", 4, wdims, w, 54);
    add_init(md, "b", 1, cdims, b, 3);
    add_init(md, "gamma", 1, cdims, gam, 3);
    add_init(md, "beta", 1, cdims, bet, 3);
    add_init(md, "mean", 1, cdims, mean, 3);
    add_init(md, "var", 1, cdims, var, 3);
    Onnx__NodeProto *c = add_node(md, "Conv", "conv0", 3, conv_in, 1, conv_out);
    add_ints(md, c, "pads", pads, 4);
    add_node(md, "BatchNormalization", "bn0", 5, bn_in, 1, bn_out);
    add_node(md, "Relu", "relu0", 1, relu_in, 1, relu_out);
}

/* The reference, in double, straight from ONNX's definitions. */
static double ref(const float *x, int64_t n, int64_t o, int64_t i, int64_t j) {
    double s = b[o];
    for (int64_t c = 0; c < 2; c++)
        for (int64_t u = 0; u < 3; u++)
            for (int64_t v = 0; v < 3; v++) {
                int64_t ii = i + u - 1, jj = j + v - 1;
                if (ii < 0 || ii >= 5 || jj < 0 || jj >= 5) continue;
                s += (double)x[((n * 2 + c) * 5 + ii) * 5 + jj] * w[((o * 2 + c) * 3 + u) * 3 + v];
            }
    s = gam[o] * (s - mean[o]) / sqrt(var[o] + 1e-5) + bet[o];
    return s > 0 ? s : 0;
}

Test(onnx_load, conv_bn_relu_matches_the_reference_under_every_strategy) {
    model md;
    conv_model(&md, 13);
    size_t len;
    uint8_t *buf = pack(&md, &len);
    for (int64_t batch = 1; batch <= 3; batch += 2)
        for (int s = 0; s < 3; s++) {
            lg_onnx_options o;
            lg_onnx_options_init(&o);
            o.batch = batch;
            lg_graph *g;
            lg_onnx_io io;
            cr_assert_eq(lg_onnx_load_buffer(buf, len, &o, &g, &io), LG_OK, "%s", lg_last_error());
            cr_assert_eq(io.n_inputs, 1);
            cr_assert_eq(io.n_outputs, 1);
            cr_assert_str_eq(io.inputs[0], "x");
            cr_assert_str_eq(io.outputs[0], "y");
            lg_compile_options co;
            lg_compile_options_init(&co);
            co.strategy = (lg_strategy)s;
            lg_plan *p;
            cr_assert_eq(lg_graph_compile(g, &co, &p), LG_OK, "%s", lg_last_error());
            lg_md xm, ym;
            cr_assert_eq(lg_plan_query_md(p, "x", &xm), LG_OK);
            cr_assert_eq(lg_plan_query_md(p, "y", &ym), LG_OK);
            cr_assert_eq(xm.dims[0], batch);
            float *x = malloc(lg_md_size(&xm)), *y = malloc(lg_md_size(&ym));
            for (int64_t k = 0; k < batch * 50; k++) x[k] = (float)((k * 13 % 23) - 11) / 7.0f;
            lg_binding in = {"x", x}, out = {"y", y};
            cr_assert_eq(lg_plan_execute(p, 1, &in, 1, &out), LG_OK, "%s", lg_last_error());
            /* Batch norm folded into the conv: one conv step (+ relu fused). */
            lg_plan_stats ps;
            lg_plan_stats_get(p, &ps);
            cr_assert_leq(ps.steps, 2);
            for (int64_t n = 0; n < batch; n++)
                for (int64_t c = 0; c < 3; c++)
                    for (int64_t i = 0; i < 5; i++)
                        for (int64_t j = 0; j < 5; j++) {
                            double want = ref(x, n, c, i, j);
                            float got = y[((n * 3 + c) * 5 + i) * 5 + j];
                            cr_assert(fabs(got - want) <= 1e-5 * (1 + fabs(want)),
                                      "n %lld c %lld (%lld, %lld): %g, want %g", (long long)n,
                                      (long long)c, (long long)i, (long long)j, got, want);
                        }
            free(x);
            free(y);
            lg_plan_destroy(p);
            lg_graph_destroy(g);
            lg_onnx_io_free(&io);
        }
    free(buf);
}

/* Load must fail with status st and a message containing each of the words. */
static void expect_fail(const uint8_t *buf, size_t len, lg_status st, const char *w1,
                        const char *w2) {
    lg_graph *g = (lg_graph *)&g;
    lg_onnx_io io = {.n_inputs = 5};
    cr_assert_eq(lg_onnx_load_buffer(buf, len, NULL, &g, &io), st, "status for '%s': %s", w1,
                 lg_last_error());
    cr_assert_null(g);
    cr_assert_eq(io.n_inputs, 0);
    cr_assert(strstr(lg_last_error(), "lg_onnx_load"), "%s", lg_last_error());
    cr_assert(strstr(lg_last_error(), w1), "'%s' not in: %s", w1, lg_last_error());
    if (w2) cr_assert(strstr(lg_last_error(), w2), "'%s' not in: %s", w2, lg_last_error());
}

Test(onnx_load, malformed_and_truncated_files) {
    model md;
    conv_model(&md, 13);
    size_t len;
    uint8_t *buf = pack(&md, &len);
    /* Every truncation either fails cleanly or (rarely, at a field
     * boundary) loads a smaller model; none crashes (ASan in CI). */
    int failed = 0;
    for (size_t cut = 0; cut < len; cut += 7) {
        lg_graph *g;
        if (lg_onnx_load_buffer(buf, cut, NULL, &g, NULL) != LG_OK)
            failed++;
        else
            lg_graph_destroy(g);
    }
    cr_assert_gt(failed, (int)(len / 7) - 3);
    expect_fail(buf, len / 2, LG_INVALID_ARGUMENT, "malformed or truncated", NULL);
    uint8_t junk[64];
    for (int k = 0; k < 64; k++) junk[k] = (uint8_t)(k * 151 + 7);
    expect_fail(junk, sizeof junk, LG_INVALID_ARGUMENT, "malformed", NULL);
    expect_fail(NULL, 0, LG_INVALID_ARGUMENT, "no graph", NULL);
    free(buf);
    cr_assert_eq(lg_onnx_load_buffer(NULL, 10, NULL, (lg_graph **)&buf, NULL), LG_INVALID_ARGUMENT);
    cr_assert_eq(lg_onnx_load_buffer(junk, 10, NULL, NULL, NULL), LG_INVALID_ARGUMENT);
    lg_graph *g;
    cr_assert_eq(lg_onnx_load_file("/nonexistent/model.onnx", NULL, &g, NULL), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "cannot open"));
}

Test(onnx_load, bad_models_are_refused_with_a_message) {
    model md;
    size_t len;
    uint8_t *buf;

    conv_model(&md, 9);
    buf = pack(&md, &len);
    expect_fail(buf, len, LG_UNIMPLEMENTED, "opset 9", "11 to 17");
    free(buf);

    /* Two unsupported types, one listed once with its first node. */
    conv_model(&md, 13);
    md.nodes[1].op_type = "LRN";
    md.nodes[2].op_type = "Foo";
    buf = pack(&md, &len);
    expect_fail(buf, len, LG_UNIMPLEMENTED, "LRN (first: 'bn0')", "Foo (first: 'relu0')");
    free(buf);

    conv_model(&md, 13);
    md.inits[0].n_float_data = 53; /* declares 54 */
    buf = pack(&md, &len);
    expect_fail(buf, len, LG_INVALID_ARGUMENT, "'w' declares 54 elements but holds 53", NULL);
    free(buf);

    conv_model(&md, 13);
    int64_t huge[4] = {INT64_MAX, 2, 3, 3};
    md.inits[0].dims = huge;
    buf = pack(&md, &len);
    expect_fail(buf, len, LG_INVALID_ARGUMENT, "'w'", NULL);
    free(buf);

    conv_model(&md, 13);
    md.inits[1].has_data_location = 1;
    md.inits[1].data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    buf = pack(&md, &len);
    expect_fail(buf, len, LG_UNIMPLEMENTED, "'b' keeps its data in an external file", NULL);
    free(buf);

    /* relu reads y, its own output through conv: a cycle. */
    conv_model(&md, 13);
    static char *cyc_in[] = {"y", "w", "b"};
    md.nodes[0].input = cyc_in;
    buf = pack(&md, &len);
    expect_fail(buf, len, LG_INVALID_ARGUMENT, "cycle", NULL);
    free(buf);

    conv_model(&md, 13);
    static char *dangling[] = {"nowhere"};
    md.nodes[2].input = dangling;
    buf = pack(&md, &len);
    expect_fail(buf, len, LG_INVALID_ARGUMENT, "'nowhere' is produced by no node", "relu0");
    free(buf);

    conv_model(&md, 13);
    md.dims[0][2].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
    md.dims[0][2].dim_param = "H";
    buf = pack(&md, &len);
    expect_fail(buf, len, LG_UNIMPLEMENTED, "dim 2 is symbolic", NULL);
    free(buf);

    /* Weights of the wrong input channel count. */
    conv_model(&md, 13);
    int64_t wrong[4] = {3, 1, 3, 3};
    md.inits[0].dims = wrong;
    md.inits[0].n_float_data = 27;
    buf = pack(&md, &len);
    expect_fail(buf, len, LG_INVALID_ARGUMENT, "conv0", "group");
    free(buf);

    /* The same value produced by two nodes. */
    conv_model(&md, 13);
    md.nodes[0].output = bn_out;
    buf = pack(&md, &len);
    expect_fail(buf, len, LG_INVALID_ARGUMENT, "'n' is defined twice", NULL);
    free(buf);

    lg_onnx_options o;
    lg_onnx_options_init(&o);
    o.batch = 0;
    conv_model(&md, 13);
    buf = pack(&md, &len);
    lg_graph *g;
    cr_assert_eq(lg_onnx_load_buffer(buf, len, &o, &g, NULL), LG_INVALID_ARGUMENT);
    cr_assert(strstr(lg_last_error(), "options.batch"));
    free(buf);
}

/* ---- pooling, reductions and softmax (ops_pool.c) ---- */

static void add_int(model *md, Onnx__NodeProto *n, const char *name, int64_t v) {
    int k = (int)(n - md->nodes), a = (int)n->n_attribute++;
    cr_assert_lt(a, 8, "the test model holds up to 8 attributes a node");
    Onnx__AttributeProto *at = &md->attrs[k][a];
    *at = (Onnx__AttributeProto)ONNX__ATTRIBUTE_PROTO__INIT;
    at->name = (char *)name;
    at->has_type = 1;
    at->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
    at->has_i = 1;
    at->i = v;
    md->pattrs[k][a] = at;
}

/* A string attribute; NULL stands for the empty string as protobuf-c
 * decodes it (data NULL, length 0). */
static void add_string(model *md, Onnx__NodeProto *n, const char *name, const char *v) {
    int k = (int)(n - md->nodes), a = (int)n->n_attribute++;
    cr_assert_lt(a, 8, "the test model holds up to 8 attributes a node");
    Onnx__AttributeProto *at = &md->attrs[k][a];
    *at = (Onnx__AttributeProto)ONNX__ATTRIBUTE_PROTO__INIT;
    at->name = (char *)name;
    at->has_type = at->has_s = 1;
    at->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
    at->s.data = (uint8_t *)v;
    at->s.len = v ? strlen(v) : 0;
    md->pattrs[k][a] = at;
}

/* x [N, 2, 5, 5] -> op -> y (dims as the caller's model declares them). */
static char *one_in[] = {"x"}, *one_out[] = {"y"};
static Onnx__NodeProto *one_op_model(model *md, int64_t opset, const char *op) {
    model_init(md, opset);
    int64_t xd[4] = {-1, 2, 5, 5}, yd[4] = {-1, 2, 1, 1};
    add_input(md, "x", 4, xd);
    add_output(md, "y", 4, yd);
    return add_node(md, op, "op0", 1, one_in, 1, one_out);
}

Test(onnx_load, malformed_pool_reduce_softmax_attributes) {
    model md;
    size_t len;
    uint8_t *buf;
    static int64_t k7[2] = {7, 7}, k3[2] = {3, 3}, k3x1[1] = {3}, axes01[2] = {1, 2},
                   axes23[2] = {2, 3};

    /* MaxPool without kernel_shape. */
    one_op_model(&md, 13, "MaxPool");
    buf = pack(&md, &len);
    expect_fail(buf, len, LG_INVALID_ARGUMENT, "kernel_shape", "op0");
    free(buf);

    /* kernel_shape of the wrong length. */
    add_ints(&md, one_op_model(&md, 13, "MaxPool"), "kernel_shape", k3x1, 1);
    buf = pack(&md, &len);
    expect_fail(buf, len, LG_INVALID_ARGUMENT, "kernel_shape has 1 values", NULL);
    free(buf);

    /* A kernel wider than the (unpadded) input. */
    add_ints(&md, one_op_model(&md, 13, "AveragePool"), "kernel_shape", k7, 2);
    buf = pack(&md, &len);
    expect_fail(buf, len, LG_INVALID_ARGUMENT, "wider than the padded input", "op0");
    free(buf);

    /* A stride of 0. */
    Onnx__NodeProto *n = one_op_model(&md, 13, "MaxPool");
    static int64_t s0[2] = {0, 1};
    add_ints(&md, n, "kernel_shape", k3, 2);
    add_ints(&md, n, "strides", s0, 2);
    buf = pack(&md, &len);
    expect_fail(buf, len, LG_INVALID_ARGUMENT, "spatial dim 0 out of range", NULL);
    free(buf);

    /* An unknown auto_pad. */
    n = one_op_model(&md, 13, "MaxPool");
    add_ints(&md, n, "kernel_shape", k3, 2);
    add_string(&md, n, "auto_pad", "SIDEWAYS");
    buf = pack(&md, &len);
    expect_fail(buf, len, LG_INVALID_ARGUMENT, "auto_pad 'SIDEWAYS'", NULL);
    free(buf);

    /* ReduceMean over channels (refused); with keepdims 0 (loads). */
    add_ints(&md, one_op_model(&md, 13, "ReduceMean"), "axes", axes01, 2);
    buf = pack(&md, &len);
    expect_fail(buf, len, LG_UNIMPLEMENTED, "spatial ones", NULL);
    free(buf);
    n = one_op_model(&md, 13, "ReduceMean");
    add_ints(&md, n, "axes", axes23, 2);
    add_int(&md, n, "keepdims", 0); /* loads: a global pool, then a reshape to N x C */
    buf = pack(&md, &len);
    {
        lg_graph *g = NULL;
        lg_onnx_io io = {0};
        cr_assert_eq(lg_onnx_load_buffer(buf, len, NULL, &g, &io), LG_OK, "%s", lg_last_error());
        lg_graph_destroy(g);
        lg_onnx_io_free(&io);
    }
    free(buf);

    /* Softmax axis out of range; an opset 11 softmax over several dims. */
    add_int(&md, one_op_model(&md, 13, "Softmax"), "axis", 4);
    buf = pack(&md, &len);
    expect_fail(buf, len, LG_INVALID_ARGUMENT, "axis 4 out of range", NULL);
    free(buf);
    add_int(&md, one_op_model(&md, 11, "LogSoftmax"), "axis", 1);
    buf = pack(&md, &len);
    expect_fail(buf, len, LG_UNIMPLEMENTED, "flattened", NULL);
    free(buf);
}

/* Empty attribute lists and an empty string (protobuf-c leaves their data
 * NULL; the fuzzer found the importer copying from it, which the sanitizer
 * build reports as undefined behaviour): refused, or read as empty. */
Test(onnx_load, empty_attribute_lists_and_strings) {
    model md;
    size_t len;
    uint8_t *buf;

    /* Transpose with an empty perm: a permutation of 0 dims for a 4D input. */
    add_ints(&md, one_op_model(&md, 13, "Transpose"), "perm", NULL, 0);
    buf = pack(&md, &len);
    expect_fail(buf, len, LG_INVALID_ARGUMENT, "perm has 0 entries", "op0");
    free(buf);

    /* MaxPool with an empty kernel_shape. */
    add_ints(&md, one_op_model(&md, 13, "MaxPool"), "kernel_shape", NULL, 0);
    buf = pack(&md, &len);
    expect_fail(buf, len, LG_INVALID_ARGUMENT, "kernel_shape has 0 values", "op0");
    free(buf);

    /* MaxPool with an empty auto_pad: not one of ONNX's values. */
    static int64_t k3[2] = {3, 3};
    Onnx__NodeProto *n = one_op_model(&md, 13, "MaxPool");
    add_ints(&md, n, "kernel_shape", k3, 2);
    add_string(&md, n, "auto_pad", NULL); /* data NULL, length 0 */
    buf = pack(&md, &len);
    expect_fail(buf, len, LG_INVALID_ARGUMENT, "auto_pad ''", "op0");
    free(buf);
}

/* An int64 initializer. */
static void add_init_i64(model *md, const char *name, int nd, int64_t *dims, int64_t *data,
                         size_t n) {
    Onnx__TensorProto *t = new_init(md, name, nd, dims, ONNX__TENSOR_PROTO__DATA_TYPE__INT64);
    t->n_int64_data = n;
    t->int64_data = data;
}

/* Slice with steps far past the length (INT64_MAX, INT64_MIN), whose
 * element counts overflowed int64 in the importer: folded on the constant
 * shape [50, 2, 1, 25], the slice feeds a Reshape of x [1, 2, 5, 5], so
 * the output's dims show what it selected. A step past the length takes
 * one element (ONNX's rule: start, start + step, ... while inside). */
Test(onnx_load, slice_steps_past_the_length) {
    static int64_t shape[4] = {50, 2, 1, 25}, d4[1] = {4}, d1[1] = {1}, ax0[1] = {0};
    static int64_t s0[1] = {0}, s1[1] = {1}, e4[1] = {4}, em100[1] = {-100};
    static int64_t big[1] = {INT64_MAX}, small[1] = {INT64_MIN}, two[1] = {2};
    static char *sl_in[] = {"shape", "starts", "ends", "axes", "steps"}, *sl_out[] = {"sh"};
    static char *rs_in[] = {"x", "sh"}, *rs_out[] = {"y"};
    struct {
        int64_t *start, *end, *step;
        int nd;
        int64_t ydims[2];
    } cases[3] = {
        {s0, e4, big, 1, {50}},      /* index 0 only */
        {s0, em100, small, 1, {50}}, /* backwards from 0: index 0 only */
        {s1, e4, two, 2, {2, 25}},   /* indices 1 and 3 */
    };
    for (int c = 0; c < 3; c++) {
        model md;
        model_init(&md, 13);
        int64_t xd[4] = {1, 2, 5, 5};
        add_input(&md, "x", 4, xd);
        add_output(&md, "y", cases[c].nd, cases[c].ydims);
        add_init_i64(&md, "shape", 1, d4, shape, 4);
        add_init_i64(&md, "starts", 1, d1, cases[c].start, 1);
        add_init_i64(&md, "ends", 1, d1, cases[c].end, 1);
        add_init_i64(&md, "axes", 1, d1, ax0, 1);
        add_init_i64(&md, "steps", 1, d1, cases[c].step, 1);
        add_node(&md, "Slice", "slice0", 5, sl_in, 1, sl_out);
        add_node(&md, "Reshape", "reshape0", 2, rs_in, 1, rs_out);
        size_t len;
        uint8_t *buf = pack(&md, &len);
        lg_graph *g = NULL;
        lg_onnx_io io = {0};
        cr_assert_eq(lg_onnx_load_buffer(buf, len, NULL, &g, &io), LG_OK, "case %d: %s", c,
                     lg_last_error());
        lg_plan *p = NULL;
        cr_assert_eq(lg_graph_compile(g, NULL, &p), LG_OK, "case %d: %s", c, lg_last_error());
        lg_md y;
        cr_assert_eq(lg_plan_query_md(p, "y", &y), LG_OK, "%s", lg_last_error());
        cr_assert_eq(y.ndims, cases[c].nd, "case %d", c);
        for (int d = 0; d < y.ndims; d++)
            cr_assert_eq(y.dims[d], cases[c].ydims[d], "case %d dim %d", c, d);
        lg_plan_destroy(p);
        lg_graph_destroy(g);
        lg_onnx_io_free(&io);
        free(buf);
    }
}

/* A small file cannot make the loader build huge constants: ConstantOfShape
 * of 2^34 elements (128 GiB of int64 zeros; the file is about 100 bytes) is
 * refused before anything is allocated, naming the budget; 2^20 elements
 * (8 MiB) load. */
Test(onnx_load, folded_constants_have_a_budget) {
    static int64_t d1[1] = {1}, huge[1] = {(int64_t)1 << 34}, fine[1] = {1 << 20};
    static char *cs_in[] = {"shape"}, *cs_out[] = {"c"}, *add_in[] = {"x", "x"}, *add_out[] = {"y"};
    int64_t *shapes[2] = {huge, fine};
    for (int c = 0; c < 2; c++) {
        model md;
        model_init(&md, 13);
        int64_t xd[4] = {1, 2, 5, 5};
        add_input(&md, "x", 4, xd);
        add_output(&md, "y", 4, xd);
        add_init_i64(&md, "shape", 1, d1, shapes[c], 1);
        add_node(&md, "ConstantOfShape", "cos0", 1, cs_in, 1, cs_out);
        add_node(&md, "Add", "add0", 2, add_in, 1, add_out);
        size_t len;
        uint8_t *buf = pack(&md, &len);
        if (c == 0) {
            expect_fail(buf, len, LG_INVALID_ARGUMENT, "budget", "cos0");
        } else {
            lg_graph *g = NULL;
            lg_onnx_io io = {0};
            cr_assert_eq(lg_onnx_load_buffer(buf, len, NULL, &g, &io), LG_OK, "%s",
                         lg_last_error());
            lg_graph_destroy(g);
            lg_onnx_io_free(&io);
        }
        free(buf);
    }
}

/* Split with malformed sizes (the attribute of opset 11): refused, naming
 * the node and what is wrong. */
Test(onnx_load, split_with_bad_sizes_is_refused) {
    static char *sin[] = {"x"}, *sout[] = {"y0", "y1"};
    static int64_t three[3] = {1, 2, 1}, short_[2] = {1, 2}, neg[2] = {-1, 5};
    int64_t xd[4] = {-1, 4, 5, 5}, yd[4] = {-1, 2, 5, 5};
    int64_t *cases[3] = {three, short_, neg};
    size_t counts[3] = {3, 2, 2};
    const char *why[3] = {"3 sizes for 2 outputs", "sum of sizes", "sizes[0] = -1"};
    for (int c = 0; c < 3; c++) {
        model md;
        model_init(&md, 11);
        add_input(&md, "x", 4, xd);
        add_output(&md, "y0", 4, yd);
        add_output(&md, "y1", 4, yd);
        Onnx__NodeProto *n = add_node(&md, "Split", "split0", 1, sin, 2, sout);
        add_ints(&md, n, "split", cases[c], counts[c]);
        Onnx__AttributeProto *ax = &md.attrs[0][1];
        *ax = (Onnx__AttributeProto)ONNX__ATTRIBUTE_PROTO__INIT;
        ax->name = "axis";
        ax->has_type = ax->has_i = 1;
        ax->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
        ax->i = 1;
        md.pattrs[0][n->n_attribute++] = ax;
        size_t len;
        uint8_t *buf = pack(&md, &len);
        expect_fail(buf, len, LG_INVALID_ARGUMENT, "split0", why[c]);
        free(buf);
    }
}

/* ---- Gemm (ops_ip.c): x [N, 4] -> Gemm(x, B, C) -> y [N, 3] ---- */

static void add_float(model *md, Onnx__NodeProto *n, const char *name, float v) {
    int k = (int)(n - md->nodes), a = (int)n->n_attribute++;
    cr_assert_lt(a, 8, "the test model holds up to 8 attributes a node");
    Onnx__AttributeProto *at = &md->attrs[k][a];
    *at = (Onnx__AttributeProto)ONNX__ATTRIBUTE_PROTO__INIT;
    at->name = (char *)name;
    at->has_type = 1;
    at->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
    at->has_f = 1;
    at->f = v;
    md->pattrs[k][a] = at;
}

static float gB[12], gC[3];
static int64_t gBd[2] = {4, 3}, gCd[1] = {3};
static char *gemm_in[] = {"x", "B", "C"}, *gemm_out[] = {"y"};

/* transB 0 (B is K x OC = 4 x 3), alpha and beta as given. */
static Onnx__NodeProto *gemm_model(model *md, int64_t transb, double alpha, double beta) {
    model_init(md, 13);
    int64_t xd[2] = {-1, 4}, yd[2] = {-1, 3};
    add_input(md, "x", 2, xd);
    add_output(md, "y", 2, yd);
    for (int k = 0; k < 12; k++) gB[k] = (float)(k % 5 - 2) * 0.25f;
    for (int k = 0; k < 3; k++) gC[k] = (float)k - 1.0f;
    gBd[0] = transb ? 3 : 4;
    gBd[1] = transb ? 4 : 3;
    add_init(md, "B", 2, gBd, gB, 12);
    add_init(md, "C", 1, gCd, gC, 3);
    Onnx__NodeProto *n = add_node(md, "Gemm", "gemm0", 3, gemm_in, 1, gemm_out);
    add_int(md, n, "transB", transb);
    add_float(md, n, "alpha", (float)alpha);
    add_float(md, n, "beta", (float)beta);
    return n;
}

Test(onnx_load, gemm_transb_alpha_beta) {
    for (int tb = 0; tb < 2; tb++) {
        model md;
        gemm_model(&md, tb, 0.5, 2.0);
        size_t len;
        uint8_t *buf = pack(&md, &len);
        lg_onnx_options o;
        lg_onnx_options_init(&o);
        o.batch = 2;
        lg_graph *g;
        cr_assert_eq(lg_onnx_load_buffer(buf, len, &o, &g, NULL), LG_OK, "%s", lg_last_error());
        lg_plan *p;
        cr_assert_eq(lg_graph_compile(g, NULL, &p), LG_OK, "%s", lg_last_error());
        float x[8], y[6];
        for (int k = 0; k < 8; k++) x[k] = (float)(k * 3 % 7) - 3.0f;
        lg_binding in = {"x", x}, out = {"y", y};
        cr_assert_eq(lg_plan_execute(p, 1, &in, 1, &out), LG_OK, "%s", lg_last_error());
        for (int n = 0; n < 2; n++)
            for (int o2 = 0; o2 < 3; o2++) {
                double want = 2.0 * gC[o2];
                for (int k = 0; k < 4; k++)
                    want += 0.5 * x[n * 4 + k] * gB[tb ? o2 * 4 + k : k * 3 + o2];
                cr_assert(fabs(y[n * 3 + o2] - want) <= 1e-5, "transB %d (%d, %d): %g, want %g", tb,
                          n, o2, y[n * 3 + o2], want);
            }
        lg_plan_destroy(p);
        lg_graph_destroy(g);
        free(buf);
    }
}

Test(onnx_load, gemm_refusals) {
    model md;
    size_t len;
    uint8_t *buf;
    Onnx__NodeProto *n = gemm_model(&md, 1, 1, 1);
    add_int(&md, n, "transA", 1);
    buf = pack(&md, &len);
    expect_fail(buf, len, LG_UNIMPLEMENTED, "transA", "gemm0");
    free(buf);
    /* C read from the input x (a tensor), B a tensor. */
    static char *c_tensor[] = {"x", "B", "x"}, *b_tensor[] = {"x", "x", "C"};
    n = gemm_model(&md, 1, 1, 1);
    n->input = c_tensor;
    buf = pack(&md, &len);
    expect_fail(buf, len, LG_UNIMPLEMENTED, "C 'x'", "bias");
    free(buf);
    n = gemm_model(&md, 1, 1, 1);
    n->input = b_tensor;
    buf = pack(&md, &len);
    expect_fail(buf, len, LG_UNIMPLEMENTED, "B 'x'", "constant");
    free(buf);
}

/* AveragePool with ceil_mode = 1 and count_include_pad = 1 (issue 19):
 * x = 1..6, kernel 3, stride 2, pads 1 and 1 gives 4 outputs; the last
 * window [5, 8) holds 6, one given pad and one that only ceil_mode adds,
 * and is divided by 2 (PyTorch's avg_pool1d(..., ceil_mode=True,
 * count_include_pad=True) = 1 3 5 3). count_include_pad = 0 divides each
 * window by its taps inside the input; MaxPool takes the maximum. */
Test(onnx_load, average_pool_ceil_mode_count_include_pad) {
    const char *ops[3] = {"AveragePool", "AveragePool", "MaxPool"};
    const int64_t cips[3] = {1, 0, 0};
    const float want[3][4] = {{1, 3, 5, 3}, {1.5f, 3, 5, 6}, {2, 4, 6, 6}};
    for (int t = 0; t < 3; t++) {
        model md;
        model_init(&md, 13);
        int64_t xd[3] = {-1, 1, 6}, yd[3] = {-1, 1, 4}, k[1] = {3}, s[1] = {2}, pd[2] = {1, 1};
        add_input(&md, "x", 3, xd);
        add_output(&md, "y", 3, yd);
        Onnx__NodeProto *n = add_node(&md, ops[t], "pool0", 1, one_in, 1, one_out);
        add_ints(&md, n, "kernel_shape", k, 1);
        add_ints(&md, n, "strides", s, 1);
        add_ints(&md, n, "pads", pd, 2);
        add_int(&md, n, "ceil_mode", 1);
        if (t < 2) add_int(&md, n, "count_include_pad", cips[t]);
        size_t len;
        uint8_t *buf = pack(&md, &len);
        lg_graph *g;
        cr_assert_eq(lg_onnx_load_buffer(buf, len, NULL, &g, NULL), LG_OK, "%s", lg_last_error());
        for (int st = 0; st < 3; st++) {
            lg_compile_options co;
            lg_compile_options_init(&co);
            co.strategy = (lg_strategy)st;
            lg_plan *p;
            cr_assert_eq(lg_graph_compile(g, &co, &p), LG_OK, "%s", lg_last_error());
            float x[6] = {1, 2, 3, 4, 5, 6}, y[4] = {0};
            lg_binding in = {"x", x}, out = {"y", y};
            cr_assert_eq(lg_plan_execute(p, 1, &in, 1, &out), LG_OK, "%s", lg_last_error());
            for (int o = 0; o < 4; o++)
                cr_assert(y[o] == want[t][o], "%s count_include_pad %lld output %d: %g, want %g",
                          ops[t], (long long)cips[t], o, (double)y[o], (double)want[t][o]);
            lg_plan_destroy(p);
        }
        lg_graph_destroy(g);
        free(buf);
    }
}

/* PRelu (ONNX: y = x > 0 ? x : slope * x, slope broadcast to X right-aligned):
 * x [N, 3, 2, 2] with a per-channel slope [3, 1, 1] (lowered onto eltwise
 * and binary nodes) and with one slope [1] (a leaky relu), each against
 * values computed here (exact: one product per element); a slope that does
 * not broadcast is refused. */
static float pr_slope[3] = {0.5f, -2.0f, 0.25f}, pr_one[1] = {0.125f}, pr_bad[4];
static int64_t pr_sd[3] = {3, 1, 1}, pr_od[1] = {1}, pr_bd[3] = {4, 1, 1};
static char *pr_in[] = {"x", "slope"}, *pr_out[] = {"y"};

static void prelu_model(model *md, int nd, int64_t *sdims, float *slope, size_t n) {
    model_init(md, 13);
    int64_t xd[4] = {-1, 3, 2, 2};
    add_input(md, "x", 4, xd);
    add_output(md, "y", 4, xd);
    add_init(md, "slope", nd, sdims, slope, n);
    add_node(md, "PRelu", "prelu0", 2, pr_in, 1, pr_out);
}

Test(onnx_load, prelu) {
    for (int c = 0; c < 2; c++) {
        model md;
        if (c == 0)
            prelu_model(&md, 3, pr_sd, pr_slope, 3);
        else
            prelu_model(&md, 1, pr_od, pr_one, 1);
        size_t len;
        uint8_t *buf = pack(&md, &len);
        lg_onnx_options o;
        lg_onnx_options_init(&o);
        o.batch = 2;
        lg_graph *g;
        cr_assert_eq(lg_onnx_load_buffer(buf, len, &o, &g, NULL), LG_OK, "%s", lg_last_error());
        lg_plan *p;
        cr_assert_eq(lg_graph_compile(g, NULL, &p), LG_OK, "%s", lg_last_error());
        float x[24], y[24];
        for (int k = 0; k < 24; k++) x[k] = (float)(k * 7 % 11 - 5) * 0.75f;
        lg_binding in = {"x", x}, out = {"y", y};
        cr_assert_eq(lg_plan_execute(p, 1, &in, 1, &out), LG_OK, "%s", lg_last_error());
        for (int k = 0; k < 24; k++) {
            float s = c == 0 ? pr_slope[k / 4 % 3] : pr_one[0];
            float want = x[k] > 0 ? x[k] : s * x[k];
            cr_assert(y[k] == want, "case %d element %d: x %g, y %g, want %g", c, k, (double)x[k],
                      (double)y[k], (double)want);
        }
        lg_plan_destroy(p);
        lg_graph_destroy(g);
        free(buf);
    }
    model md;
    prelu_model(&md, 3, pr_bd, pr_bad, 4);
    size_t len;
    uint8_t *buf = pack(&md, &len);
    expect_fail(buf, len, LG_INVALID_ARGUMENT, "slope", "prelu0");
    free(buf);
}
