# Two builds of liblgraph against each other on one convolution (dlopen;
# deliberately not linked with lgraph: see bench_ab_conv.c).
add_executable(bench_ab_conv bench_ab_conv.c)
target_include_directories(bench_ab_conv PRIVATE ${PROJECT_SOURCE_DIR}/include)
target_link_libraries(bench_ab_conv PRIVATE OpenMP::OpenMP_C ${CMAKE_DL_LIBS})
target_compile_options(bench_ab_conv PRIVATE ${LG_WARNINGS})
target_compile_definitions(bench_ab_conv PRIVATE _POSIX_C_SOURCE=200809L)
