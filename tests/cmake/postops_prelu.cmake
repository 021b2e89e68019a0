# The prelu post-op (lg_attr_append_prelu) on the eltwise, binary and conv
# kernels against a truth computed in the test, and against oneDNN.
lg_add_test(primitives_postops_prelu SOURCES primitives/test_postops_prelu.c)
if(LG_DNNL_FOUND)
  lg_add_test(primitives_postops_prelu_dnnl DNNL SOURCES primitives/test_postops_prelu_dnnl.c)
endif()
