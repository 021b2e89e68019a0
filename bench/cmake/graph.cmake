# bench_graph: the end-to-end graph workloads (W1-W3), lgraph's plans against a
# hand-built oneDNN chain. It needs oneDNN and the graph compiler; the latter
# is detected by a definition of lg_graph_compile in the library's sources, so
# the build never breaks while the compiler is not there yet.
# LG_BENCH_GRAPH=OFF skips it; ON makes a missing compiler an error.
set(LG_BENCH_GRAPH AUTO CACHE STRING "Build bench_graph (AUTO: when lg_graph_compile is defined)")
set_property(CACHE LG_BENCH_GRAPH PROPERTY STRINGS AUTO ON OFF)

set(lg_graph_compiler_found OFF)
file(GLOB_RECURSE lg_graph_srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/*.c)
foreach(f IN LISTS lg_graph_srcs)
  file(STRINGS ${f} lg_graph_hit REGEX "lg_status[ \t]+lg_graph_compile[ \t]*\\(")
  if(lg_graph_hit)
    set(lg_graph_compiler_found ON)
    break()
  endif()
endforeach()

if(LG_BENCH_GRAPH STREQUAL "ON" AND NOT lg_graph_compiler_found)
  message(FATAL_ERROR "LG_BENCH_GRAPH=ON but the library does not define lg_graph_compile")
endif()
if(NOT LG_BENCH_GRAPH STREQUAL "OFF" AND lg_graph_compiler_found)
  lg_add_bench(bench_graph DNNL SOURCES bench_graph.c graph_dnnl.c workloads.c)
elseif(NOT LG_BENCH_GRAPH STREQUAL "OFF")
  message(STATUS "lgraph: bench_graph skipped (no lg_graph_compile in src/ yet)")
endif()

# Compile time of the workload graphs (no oneDNN needed).
if(lg_graph_compiler_found)
  lg_add_bench(bench_compile SOURCES bench_compile.c workloads.c)
endif()
