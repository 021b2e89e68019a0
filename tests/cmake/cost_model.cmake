# The calibrated cost model (issue 20): lg_calibrate's file round trip,
# malformed files, model_ms and the shipped model's ranking.
lg_add_test(graph_cost_model SOURCES graph/test_cost_model.c)

target_compile_definitions(graph_cost_model PRIVATE
  LG_CALIBRATED_MODEL="${PROJECT_SOURCE_DIR}/data/cost_model_calibrated.json")

# The cost model's Winograd entry and spill term (issue 20).
lg_add_test(graph_cost_wino SOURCES graph/test_cost_wino.c)
target_compile_definitions(graph_cost_wino PRIVATE
  LG_OLD_MODEL="${PROJECT_SOURCE_DIR}/tests/data/cost_model_2026-11-25.json")
