# The ONNX importer (built when protobuf-c is found): the loader against a
# scalar reference and every kind of bad model file (test_onnx_load.c), and
# models exported by PyTorch run by lgraph-run against PyTorch's outputs
# (onnx/run_models.sh; skipped, exit 77, only where python3-torch is absent).
if(LG_ONNX_FOUND)
  lg_add_test(onnx_load SOURCES onnx/test_onnx_load.c)
  target_link_libraries(onnx_load PRIVATE lgraph_onnx_static)
  target_include_directories(onnx_load PRIVATE ${PROJECT_BINARY_DIR}/onnx)
  add_test(NAME onnx_models
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/onnx/run_models.sh $<TARGET_FILE:lgraph-run>
                   ${CMAKE_CURRENT_BINARY_DIR}/models ${PROJECT_SOURCE_DIR})
  set_tests_properties(onnx_models PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)
  # Whole torchvision classifiers (random weights) against PyTorch at N = 1
  # and 4 under every strategy, with the same top-1 class in every row: the
  # networks docs/onnx.md lists. Sanitizer builds run two small ones at N = 1
  # (the importer and every kernel kind they use, under ASan and UBSan).
  if(LG_SANITIZE)
    set(lg_nets "shufflenet_v2_x1_0 mobilenet_v3_small")
    set(lg_net_batches "1")
  else()
    set(lg_nets "resnet50 mobilenet_v2 shufflenet_v2_x1_0 squeezenet1_1 googlenet densenet121 \
efficientnet_b0 mobilenet_v3_small mnasnet1_0 regnet_y_400mf")
    set(lg_net_batches "1 4")
  endif()
  set(LG_ONNX_NETS "${lg_nets}")
  add_test(NAME onnx_nets
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/onnx/run_models.sh $<TARGET_FILE:lgraph-run>
                   ${CMAKE_CURRENT_BINARY_DIR}/models ${PROJECT_SOURCE_DIR})
  set_tests_properties(onnx_nets PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1500
                       ENVIRONMENT "MODELS=${LG_ONNX_NETS};BATCHES=${lg_net_batches}")
endif()
