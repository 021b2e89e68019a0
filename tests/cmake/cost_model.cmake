# The calibrated cost model (issue 20): lg_calibrate's file round trip,
# malformed files, model_ms and the shipped model's ranking.
lg_add_test(graph_cost_model SOURCES graph/test_cost_model.c)

