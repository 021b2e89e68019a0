# The reorder against oneDNN, bit for bit (built only when oneDNN is found).
if(LG_DNNL_FOUND)
  lg_add_test(primitives_reorder_dnnl DNNL SOURCES primitives/test_reorder_dnnl.c)
endif()
