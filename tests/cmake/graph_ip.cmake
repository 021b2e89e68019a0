# Inner-product and reshape nodes in compiled graphs.
lg_add_test(graph_ip SOURCES graph/test_graph_ip.c)
