/*
 * lgraph_onnx: load an ONNX model into an lgraph graph.
 *
 * A library of its own (CMake target lgraph::onnx, pkg-config lgraph-onnx)
 * over the public lgraph API, so that the core keeps its small dependency
 * set. It parses the protobuf with protobuf-c.
 *
 *     lg_onnx_options o; lg_onnx_options_init(&o);
 *     o.batch = 1;                                   // fixes a symbolic batch dim
 *     lg_graph *g; lg_onnx_io io;
 *     if (lg_onnx_load_file("resnet.onnx", &o, &g, &io) != LG_OK)
 *         fprintf(stderr, "%s\n", lg_last_error());
 *     ... lg_graph_compile(g, NULL, &plan); bind io.inputs[0], io.outputs[0] ...
 *     lg_onnx_io_free(&io); lg_graph_destroy(g);
 *
 * Model files are untrusted input: a malformed or truncated file, an opset
 * outside 11..17, a tensor whose data does not match its declared size,
 * external data, a cycle or a dangling value returns LG_INVALID_ARGUMENT
 * (LG_UNIMPLEMENTED for valid models that use operators or attributes lgraph
 * cannot run) with lg_last_error() naming the node and what is wrong; loading
 * never allocates more than a small multiple of the file's size. docs/onnx.md
 * lists the operators.
 */
#ifndef LGRAPH_ONNX_H
#define LGRAPH_ONNX_H

#include <lgraph.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(LG_BUILDING_ONNX) && defined(__GNUC__)
#define LG_ONNX_API __attribute__((visibility("default")))
#else
#define LG_ONNX_API
#endif

/* How a model is loaded; lg_onnx_options_init sets the defaults. */
typedef struct lg_onnx_options {
    int64_t batch;   /* the value of a symbolic (named) first input dim; default 1 */
    bool inputs_any; /* graph inputs in layout "any" (the compiler picks); default
                        false: plain (nchw for 4D) */
} lg_onnx_options;

/* Fill o with the defaults. */
LG_ONNX_API void lg_onnx_options_init(lg_onnx_options *o);

/* The names of a loaded model's graph inputs and outputs, in the model's
 * order; they are the names to bind in lg_plan_execute. */
typedef struct lg_onnx_io {
    int n_inputs, n_outputs;
    char **inputs, **outputs;
} lg_onnx_io;

/* Free the names io holds and zero it; NULL allowed. */
LG_ONNX_API void lg_onnx_io_free(lg_onnx_io *io);

/* Load the model in data[0..size) into a new graph *g (the caller destroys
 * it with lg_graph_destroy). o may be NULL (defaults); io may be NULL. On
 * failure *g is NULL and io is zeroed. Initializers become constants, graph
 * inputs become inputs, outputs keep their ONNX names; shape-only
 * subgraphs are folded at load time. */
LG_ONNX_API lg_status lg_onnx_load_buffer(const void *data, size_t size, const lg_onnx_options *o,
                                          lg_graph **g, lg_onnx_io *io);

/* lg_onnx_load_buffer on the contents of the file at path. */
LG_ONNX_API lg_status lg_onnx_load_file(const char *path, const lg_onnx_options *o, lg_graph **g,
                                        lg_onnx_io *io);

#ifdef __cplusplus
}
#endif
#endif
