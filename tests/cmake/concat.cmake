# Concat and slice kernels against a truth computed by logical index.
lg_add_test(primitives_concat SOURCES primitives/test_concat.c)
lg_add_test(graph_concat SOURCES graph/test_graph_concat.c)
# Pass concat_inplace: concats without copies, slices as views.
lg_add_test(graph_concat_inplace SOURCES graph/test_concat_inplace.c)
if(LG_DNNL_FOUND)
  lg_add_test(primitives_concat_dnnl DNNL SOURCES primitives/test_concat_dnnl.c)
endif()
