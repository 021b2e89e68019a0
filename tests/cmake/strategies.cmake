# lgraph-run --compare-strategies (tools/compare.c): every strategy and
# every optional pass switched off on a small model of the fuzz corpus, as
# a table and as JSON; the tool fails when a plan's outputs differ.
if(LG_ONNX_FOUND)
  set(LG_CMP_MODEL ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/onnx/conv_bn_relu.onnx)
  add_test(NAME tool_compare_strategies
           COMMAND lgraph-run ${LG_CMP_MODEL} --batch=2 --iters=1 --warmup=0 --compare-strategies)
  set_tests_properties(tool_compare_strategies PROPERTIES
    ENVIRONMENT "OMP_NUM_THREADS=2"
    PASS_REGULAR_EXPRESSION "optimal +plan_memory .*yes")
  add_test(NAME tool_compare_strategies_json
           COMMAND lgraph-run ${LG_CMP_MODEL} --iters=1 --warmup=0 --compare-strategies --json)
  set_tests_properties(tool_compare_strategies_json PROPERTIES
    ENVIRONMENT "OMP_NUM_THREADS=2"
    PASS_REGULAR_EXPRESSION "\"disabled\": \"plan_memory\".*\"agree\": true}]")
endif()
