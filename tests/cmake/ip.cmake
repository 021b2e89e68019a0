# The inner-product kernel against its exact truth and, when oneDNN is found,
# against oneDNN's inner product.
lg_add_test(primitives_ip SOURCES primitives/test_ip.c)
if(LG_DNNL_FOUND)
  lg_add_test(primitives_ip_dnnl DNNL SOURCES primitives/test_ip_dnnl.c)
endif()
