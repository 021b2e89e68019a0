# lgbench: the benchdnn-style driver (bench/lgbench/). It links the static
# library and includes src/ so that correctness mode can call the internal
# scalar references (src/primitives/<kind>/ref.c). Built with and without
# oneDNN: without it, performance mode prints lgraph's figures only.
#
# LGB_HAVE_CONV: the conv driver (drv_conv.c) needs the conv kernel's
# reference (src/primitives/conv/ref.c); it is compiled whenever that exists
# in the tree (it does since conv landed).
set(LGB_DIR ${CMAKE_CURRENT_SOURCE_DIR}/lgbench)
set(LGB_SOURCES ${LGB_DIR}/main.c ${LGB_DIR}/batch.c ${LGB_DIR}/jobs.c ${LGB_DIR}/parse.c
    ${LGB_DIR}/check.c ${LGB_DIR}/report.c ${LGB_DIR}/perf.c ${LGB_DIR}/drv_common.c
    ${LGB_DIR}/drv_reorder.c ${LGB_DIR}/drv_shuffle.c ${LGB_DIR}/drv_eltwise.c
    ${LGB_DIR}/drv_binary.c ${LGB_DIR}/drv_po.c ${LGB_DIR}/conv_desc.c
    ${LGB_DIR}/drv_pool.c ${LGB_DIR}/drv_softmax.c ${LGB_DIR}/drv_bnorm.c
    ${LGB_DIR}/drv_concat.c ${LGB_DIR}/drv_ip.c)
set(LGB_HAVE_CONV 0)
if(EXISTS ${PROJECT_SOURCE_DIR}/src/primitives/conv/ref.c AND EXISTS ${LGB_DIR}/drv_conv.c)
  set(LGB_HAVE_CONV 1)
  list(APPEND LGB_SOURCES ${LGB_DIR}/drv_conv.c)
endif()
if(LG_DNNL_FOUND)
  list(APPEND LGB_SOURCES ${LGB_DIR}/dnnl.c)
else()
  list(APPEND LGB_SOURCES ${LGB_DIR}/dnnl_none.c)
endif()

add_executable(lgbench ${LGB_SOURCES})
target_include_directories(lgbench PRIVATE ${PROJECT_SOURCE_DIR}/src ${LGB_DIR})
target_compile_definitions(lgbench PRIVATE _POSIX_C_SOURCE=200809L LGB_HAVE_CONV=${LGB_HAVE_CONV}
  LGB_INPUTS_DIR="${CMAKE_CURRENT_SOURCE_DIR}/inputs")
target_compile_options(lgbench PRIVATE ${LG_WARNINGS})
target_link_libraries(lgbench PRIVATE lgraph_static m)
if(LG_DNNL_FOUND)
  target_link_libraries(lgbench PRIVATE DNNL::dnnl)
  target_compile_definitions(lgbench PRIVATE LG_HAVE_DNNL=1)
endif()
