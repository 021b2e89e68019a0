# The structure of the compiler (issue "architecture before breadth"): the
# layers of src/ include one another one way (scripts/check_layers.sh), and
# compiling asks kernels without creating them.
add_test(NAME check_layers COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/check_layers.sh
                                   ${PROJECT_SOURCE_DIR}/src)
lg_add_test(passes_kernel_queries SOURCES passes/test_kernel_queries.c
            ${PROJECT_SOURCE_DIR}/bench/workloads.c)
target_include_directories(passes_kernel_queries PRIVATE ${PROJECT_SOURCE_DIR}/bench)
# The same check fails on a planted folder cycle and on a kernel kind that
# includes another kind's private header (only simd/ and <kind>/<kind>.h
# are shared).
add_test(NAME check_layers_negative COMMAND bash ${PROJECT_SOURCE_DIR}/tests/passes/check_layers_negative.sh
                                            ${PROJECT_SOURCE_DIR})
