# Graph IR, compile passes and executor (tests/graph).
lg_add_test(graph_exec SOURCES graph/test_graph_exec.c)
lg_add_test(graph_errors SOURCES graph/test_graph_errors.c)
lg_add_test(graph_plan SOURCES graph/test_graph_plan.c)
lg_add_test(graph_async SOURCES graph/test_graph_async.c)
lg_add_test(graph_conv SOURCES graph/test_graph_conv.c)
lg_add_test(graph_workloads SOURCES graph/test_graph_workloads.c)
lg_add_test(graph_nodes_layers SOURCES graph/test_nodes_layers.c)
lg_add_test(graph_quant SOURCES graph/test_graph_quant.c)
