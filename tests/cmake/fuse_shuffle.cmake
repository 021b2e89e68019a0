# The fuse_shuffle_reorder compile pass, tests/graph.
lg_add_test(graph_fuse_shuffle SOURCES graph/test_fuse_shuffle.c)
