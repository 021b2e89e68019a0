/* Fuzz target: the ONNX loader (lg_onnx_load_buffer) on any bytes; model
 * files are untrusted input. Seeds are small valid models (conv + batch norm
 * + relu, a channel shuffle, a shape subgraph around a reshape) made by
 * tests/fuzz/make_onnx_seeds.py. Properties:
 *  - a refusal is a status other than LG_OK with a message from
 *    lg_onnx_load, *g NULL and io zeroed;
 *  - an accepted model gives a graph and named inputs and outputs;
 *  - no crash, leak, hang or sanitizer report (ASan + UBSan). */
#include "fuzz/fuzz.h"

#include <lgraph_onnx.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    lg_onnx_options o;
    lg_onnx_options_init(&o);
    o.batch = size && data[0] % 2 ? 2 : 1;
    lg_graph *g = (lg_graph *)&o;
    lg_onnx_io io;
    lg_status st = lg_onnx_load_buffer(data, size, &o, &g, &io);
    if (st != LG_OK) {
        if (g || io.n_inputs || io.n_outputs || io.inputs || io.outputs) abort();
        if (strncmp(lg_last_error(), "lg_onnx_load", 12) != 0) abort();
        return 0;
    }
    if (!g || io.n_inputs < 1 || io.n_outputs < 1) abort();
    for (int k = 0; k < io.n_inputs; k++)
        if (!io.inputs[k]) abort();
    lg_graph_destroy(g);
    lg_onnx_io_free(&io);
    return 0;
}
