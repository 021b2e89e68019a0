# Binary post-ops and binary scales (issue 17): lg_attr_append_binary,
# lg_eltwise_create_attr, lg_binary_create_attr against a truth computed in
# the test, every layout family, policy and type, at every ISA cap.
lg_add_test(primitives_postops_binary SOURCES primitives/test_postops_binary.c)
