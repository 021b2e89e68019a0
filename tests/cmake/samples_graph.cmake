# The graph samples run as tests: each exits non-zero when its plans disagree
# (or, for async_uv, when an asynchronous run differs from the synchronous one).
if(LG_BUILD_SAMPLES)
  set(LG_SAMPLE_RUN_DIR ${PROJECT_BINARY_DIR}/samples)
  add_test(NAME sample_shufflenet_unit COMMAND shufflenet_unit 1 3 WORKING_DIRECTORY ${LG_SAMPLE_RUN_DIR})
  set_tests_properties(sample_shufflenet_unit PROPERTIES PASS_REGULAR_EXPRESSION "outputs agree: .*\\(ok\\)")
  add_test(NAME sample_resnet_block COMMAND resnet_block 1 2 WORKING_DIRECTORY ${LG_SAMPLE_RUN_DIR})
  set_tests_properties(sample_resnet_block PROPERTIES PASS_REGULAR_EXPRESSION "outputs agree: .*\\(ok\\)")
  add_test(NAME sample_async_uv COMMAND async_uv WORKING_DIRECTORY ${LG_SAMPLE_RUN_DIR})
  # User strategies against the built-ins on W1-W3 (spatial sizes / 4, 2 runs).
  add_test(NAME sample_custom_strategy COMMAND custom_strategy 1 2 4 WORKING_DIRECTORY ${LG_SAMPLE_RUN_DIR})
endif()
