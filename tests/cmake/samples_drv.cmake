# The samples of the driver/docs work: each checks its own results and exits
# non-zero when they are wrong.
if(LG_BUILD_SAMPLES)
  add_test(NAME sample_reorder_quantize COMMAND reorder_quantize)
endif()
