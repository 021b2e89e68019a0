# LG_STRATEGY_OPTIMAL against exhaustive enumeration (tests/graph/test_optimal.c).
lg_add_test(graph_optimal SOURCES graph/test_optimal.c)
# The elimination passes (tests/graph/test_eliminate.c).
lg_add_test(graph_eliminate SOURCES graph/test_eliminate.c)
