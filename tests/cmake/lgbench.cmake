# lgbench (bench/lgbench): unit tests of its parsers, the correctness sweep
# over every driver at each ISA level, and the self-test that its checks
# fail when lgraph's output is wrong.
lg_add_test(lgbench_parse SOURCES lgbench/test_parse.c ../bench/lgbench/parse.c)
target_include_directories(lgbench_parse PRIVATE ${PROJECT_SOURCE_DIR}/bench/lgbench)
lg_add_test(lgbench_conv_desc SOURCES lgbench/test_conv_desc.c ../bench/lgbench/conv_desc.c)
target_include_directories(lgbench_conv_desc PRIVATE ${PROJECT_SOURCE_DIR}/bench/lgbench)

if(TARGET lgbench)
  # bench/inputs/test_sweep: reorder, shuffle, eltwise, binary and conv on
  # small shapes, each against its scalar reference.
  foreach(isa avx512 avx2 scalar)
    add_test(NAME lgbench_sweep_${isa} COMMAND lgbench --mode=C --batch=test_sweep)
    set_tests_properties(lgbench_sweep_${isa} PROPERTIES ENVIRONMENT LG_ISA=${isa}
                         PASS_REGULAR_EXPRESSION "tests:[0-9]+ passed:[0-9]+ failed:0")
  endforeach()
  # The checks can fail: a corrupted value and a non-zero padding element
  # must each be reported, with exit status 1.
  add_test(NAME lgbench_fault_value
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/lgbench/expect_fail.sh "tests:5 passed:0 failed:5"
            $<TARGET_FILE:lgbench> --fault=value --reorder --dtag=nChw16c 2x19x3x5
            --shuffle --tag=nChw8c --group=2 2x18x3x3 --eltwise --tag=nhwc --alg=gelu_erf 2x19x3x5
            --binary --stag=nChw16c:nchw 2x19x3x5:1x19x1x1 --conv mb2ic19ih5oc21oh5kh3ph1)
  add_test(NAME lgbench_fault_padding
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/lgbench/expect_fail.sh "tests:4 passed:0 failed:4"
            $<TARGET_FILE:lgbench> --fault=padding --reorder --dtag=nChw16c 2x19x3x5
            --shuffle --tag=nChw8c --group=2 2x18x3x3 --eltwise --tag=nChw8c --alg=logistic 2x19x3x5
            --conv --dtag=nChw16c mb2ic19ih5oc21oh5kh3ph1)
  # benchdnn's batch syntax: continued lines, ignored options, knob values
  # lgraph lacks (skipped with the reason, never failed), out-of-scope types
  # and directions, *_dst algorithms, named problems, x on fewer dims.
  add_test(NAME lgbench_benchdnn_syntax
    COMMAND lgbench --batch=${CMAKE_CURRENT_SOURCE_DIR}/lgbench/benchdnn_syntax.batch)
  set_tests_properties(lgbench_benchdnn_syntax PROPERTIES PASS_REGULAR_EXPRESSION
    "tests:148 passed:44 failed:0 skipped:104")
  # A usage error is exit status 2, not a pass; so is a number given half
  # ("--pairs=2x" once ran 2 pairs).
  add_test(NAME lgbench_usage_error COMMAND lgbench --reorder --no-such-knob=1 2x3)
  set_tests_properties(lgbench_usage_error PROPERTIES WILL_FAIL TRUE)
  add_test(NAME lgbench_bad_number COMMAND lgbench --pairs=2x --reorder 2x3)
  set_tests_properties(lgbench_bad_number PROPERTIES WILL_FAIL TRUE)
  # A knob value that is not a number fails its problem (it once ran at the
  # problem's own batch).
  add_test(NAME lgbench_bad_mb
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/lgbench/expect_fail.sh "tests:2 passed:0 failed:2"
            $<TARGET_FILE:lgbench> --conv --mb=2x mb2ic19ih5oc21oh5kh3ph1 --ip --mb=abc mb2ic16oc8)
endif()
