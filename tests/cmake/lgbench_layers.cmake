# lgbench's --pool, --softmax and --bnorm drivers: a correctness sweep over
# layouts and algorithms at each ISA level, and the self-test that their
# checks fail when lgraph's output is wrong.
if(TARGET lgbench)
  foreach(isa avx512 avx2 scalar)
    add_test(NAME lgbench_layers_${isa}
      COMMAND lgbench --mode=C
              --pool --alg=max,avg_np,avg_p --tag=abx,axb,aBx8b,aBx16b --dt=f32,bf16,s8
              mb2ic64_ih56oh28kh3sh2ph1 mb2ic20ih13kh3sh2 mb1ic70ih7kh7 mb2ic19ih9kh3ph1dh1
              --softmax --alg=SOFTMAX,LOGSOFTMAX --stag=abx,aBx8b,aBx16b --axis=1 2x20x7x7
              --stag=abx --axis=1 16x1000 --axis=3 2x20x7x7
              --bnorm --flags=G,GS,GCHR --tag=abx,axb,aBx8b,aBx16b mb2ic64ih14 mb2ic20ih7 mb3ic19
              --inplace=true mb2ic20ih7)
    set_tests_properties(lgbench_layers_${isa} PROPERTIES ENVIRONMENT LG_ISA=${isa}
                         PASS_REGULAR_EXPRESSION "tests:[0-9]+ passed:[0-9]+ failed:0")
  endforeach()
  add_test(NAME lgbench_layers_fault_value
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/lgbench/expect_fail.sh "tests:3 passed:0 failed:3"
            $<TARGET_FILE:lgbench> --fault=value --pool --tag=aBx8b mb2ic20ih13kh3sh2
            --softmax --alg=LOGSOFTMAX 2x1000 --bnorm --flags=GS mb2ic20ih7)
  add_test(NAME lgbench_layers_fault_padding
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/lgbench/expect_fail.sh "tests:3 passed:0 failed:3"
            $<TARGET_FILE:lgbench> --fault=padding --pool --tag=aBx8b mb2ic20ih13kh3sh2
            --softmax --stag=aBx8b 2x20x7x7 --bnorm --flags=GS --tag=aBx16b mb2ic20ih7)
endif()
