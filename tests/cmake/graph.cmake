# Graph IR, compile passes and executor (tests/graph).
lg_add_test(graph_exec SOURCES graph/test_graph_exec.c)
