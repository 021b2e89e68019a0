/* The operators lgraph_onnx imports: one table from ONNX op type to its
 * handler. An op type not listed here makes a model fail to load with a
 * message that lists every such type (load.c). */
#include "onnx_int.h"

#include <string.h>

#define ONNX_OPS(X)                                                                                \
    X("Conv", conv)                                                                                \
    X("BatchNormalization", batchnorm)                                                             \
    X("Pad", pad)                                                                                  \
    X("Relu", unary)                                                                               \
    X("LeakyRelu", unary)                                                                          \
    X("PRelu", prelu)                                                                              \
    X("Tanh", unary)                                                                               \
    X("Elu", unary)                                                                                \
    X("HardSigmoid", gate)                                                                         \
    X("HardSwish", unary)                                                                          \
    X("Sigmoid", gate)                                                                             \
    X("Clip", clip)                                                                                \
    X("Add", binary)                                                                               \
    X("Sub", binary)                                                                               \
    X("Mul", binary)                                                                               \
    X("Div", binary)                                                                               \
    X("Constant", constant)                                                                        \
    X("ConstantOfShape", constant_of_shape)                                                        \
    X("Shape", shape)                                                                              \
    X("Gather", gather)                                                                            \
    X("Unsqueeze", unsqueeze)                                                                      \
    X("Squeeze", unsqueeze)                                                                        \
    X("Concat", concat_any)                                                                        \
    X("Cast", cast)                                                                                \
    X("Reshape", reshape)                                                                          \
    X("Transpose", transpose)                                                                      \
    X("Slice", slice_any)                                                                          \
    X("Split", split)                                                                              \
    X("Identity", identity)                                                                        \
    X("Dropout", identity)                                                                         \
    X("MaxPool", pool)                                                                             \
    X("AveragePool", pool)                                                                         \
    X("GlobalAveragePool", global_pool)                                                            \
    X("GlobalMaxPool", global_pool)                                                                \
    X("ReduceMean", reduce_mean)                                                                   \
    X("Softmax", softmax)                                                                          \
    X("LogSoftmax", softmax)                                                                       \
    X("Gemm", gemm)                                                                                \
    X("MatMul", matmul)                                                                            \
    X("Flatten", flatten)

#define DECLARE(name, fn) lg_status lg__onnx_op_##fn(importer *im);
ONNX_OPS(DECLARE)
#undef DECLARE

static const struct {
    const char *name;
    lg__onnx_op_fn fn;
} ops[] = {
#define ENTRY(name, fn) {name, lg__onnx_op_##fn},
    ONNX_OPS(ENTRY)
#undef ENTRY
};

lg__onnx_op_fn lg__onnx_op(const char *op_type) {
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        if (strcmp(ops[k].name, op_type) == 0) return ops[k].fn;
    return NULL;
}
