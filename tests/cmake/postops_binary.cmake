# Binary post-ops and binary scales (issue 17): lg_attr_append_binary,
# lg_eltwise_create_attr, lg_binary_create_attr against a truth computed in
# the test, every layout family, policy and type, at every ISA cap.
lg_add_test(primitives_postops_binary SOURCES primitives/test_postops_binary.c)
if(LG_DNNL_FOUND)
  # The same chains against oneDNN (within 1e-6 relative: independent of
  # which oneDNN implementation this CPU gets).
  lg_add_test(primitives_postops_binary_dnnl DNNL SOURCES primitives/test_postops_binary_dnnl.c)
endif()
