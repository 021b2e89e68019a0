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
endif()
