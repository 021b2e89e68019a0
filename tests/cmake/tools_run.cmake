# lgraph-run's option parser (tools/lgraph_run.c): malformed numbers are
# refused with the option's name (tests/tools/lgraph_run_args.sh).
if(TARGET lgraph-run)
  add_test(NAME tool_run_args
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/lgraph_run_args.sh $<TARGET_FILE:lgraph-run>)
endif()
