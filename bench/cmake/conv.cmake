# Convolution benchmark: lgraph against oneDNN on the WORKLOADS.md convs; and
# the FMA peak alone (bench_fma_peak, for bench/nets/run.py).
lg_add_bench(bench_conv DNNL SOURCES bench_conv.c fma_peak.c)
lg_add_bench(bench_fma_peak SOURCES bench_fma_peak.c fma_peak.c)
# The pointwise path against the direct path it replaced and against itself
# on channels-last, on ResNet-50's and MobileNetV2's 1x1 layers (static
# library: it switches the pw path off through an internal flag).
add_executable(bench_pw bench_pw.c fma_peak.c)
target_include_directories(bench_pw PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(bench_pw PRIVATE lgraph_static OpenMP::OpenMP_C m)
target_compile_options(bench_pw PRIVATE ${LG_WARNINGS})
target_compile_definitions(bench_pw PRIVATE _POSIX_C_SOURCE=200809L)
# Winograd 3x3 against the direct path (issue 24)
lg_add_bench(bench_wino SOURCES bench_wino.c)
