# (Named to sort after the fragments that define these tests.)
# Tests whose expected plans (which steps OPTIMAL keeps, fuses or folds on
# tiny graphs) were written for the byte-count model that preceded the
# calibrated one run under it (a table no key matches: bytes + 0.1 x flops
# x the kind's slowdown, cost_coefs.h).
set_tests_properties(graph_fuse_shuffle graph_nodes_layers graph_ip onnx_load PROPERTIES
  ENVIRONMENT "LG_COST_MODEL=${PROJECT_SOURCE_DIR}/tests/data/bytes_cost_model.json")
