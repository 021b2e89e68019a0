# Pooling, softmax and batch-normalization kernels against their references,
# and, when oneDNN is found, against its primitives.
lg_add_test(primitives_pool SOURCES primitives/test_pool.c)
if(LG_DNNL_FOUND)
  lg_add_test(primitives_pool_dnnl DNNL SOURCES primitives/test_pool_dnnl.c)
endif()
