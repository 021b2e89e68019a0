# Review of the compile-time passes (tests/graph/test_review_passes.c).
lg_add_test(graph_review SOURCES graph/test_review_passes.c)
