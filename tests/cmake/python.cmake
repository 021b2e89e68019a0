# The Python package (python/lgraph) against NumPy references, with Debian's
# interpreter and python3-numpy (scripts/setup.sh installs it). Not in
# sanitizer builds: an instrumented library cannot load into an
# uninstrumented interpreter.
if(NOT LG_SANITIZE)
  execute_process(COMMAND /usr/bin/python3 -c "import numpy" RESULT_VARIABLE LG_PY_NUMPY
                  OUTPUT_QUIET ERROR_QUIET)
  if(LG_PY_NUMPY EQUAL 0)
    add_test(NAME python_lgraph COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/python/test_lgraph.py)
    set_tests_properties(python_lgraph PROPERTIES ENVIRONMENT
      "LGRAPH_LIBRARY_DIR=${PROJECT_BINARY_DIR}:${PROJECT_BINARY_DIR}/onnx;OMP_NUM_THREADS=2")
  else()
    message(STATUS "lgraph: /usr/bin/python3 with numpy not found; the Python test is skipped")
  endif()
endif()
