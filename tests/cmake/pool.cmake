# Pooling, softmax and batch-normalization kernels against their references,
# and, when oneDNN is found, against its primitives.
lg_add_test(primitives_pool SOURCES primitives/test_pool.c)
if(LG_DNNL_FOUND)
  lg_add_test(primitives_pool_dnnl DNNL SOURCES primitives/test_pool_dnnl.c)
endif()
lg_add_test(primitives_softmax SOURCES primitives/test_softmax.c)
if(LG_DNNL_FOUND)
  lg_add_test(primitives_softmax_dnnl DNNL SOURCES primitives/test_softmax_dnnl.c)
endif()
lg_add_test(primitives_bnorm SOURCES primitives/test_bnorm.c)
if(LG_DNNL_FOUND)
  lg_add_test(primitives_bnorm_dnnl DNNL SOURCES primitives/test_bnorm_dnnl.c)
endif()
