# The samples of the driver/docs work: each checks its own results and exits
# non-zero when they are wrong. docs/api.md shows the api_* samples in full;
# docs_api_examples checks that what it shows is what is compiled and run.
if(LG_BUILD_SAMPLES)
  add_test(NAME sample_reorder_quantize COMMAND reorder_quantize)
  foreach(s api_md api_attr api_kernel api_cache)
    add_test(NAME sample_${s} COMMAND ${s})
  endforeach()
endif()
add_test(NAME docs_api_examples
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/lgbench/check_doc_examples.sh
          ${PROJECT_SOURCE_DIR}/docs/api.md ${PROJECT_SOURCE_DIR})
