# Fuzz targets (docs/reliability.md). Each tests/fuzz/fuzz_<name>.c defines
# LLVMFuzzerTestOneInput and is built twice:
#  - fuzz_replay_<name>, in every build (gcc, plain and ASan): a CTest case
#    that replays the committed corpus tests/fuzz/corpus/<name>/ without
#    libFuzzer, so every input that ever found a bug stays a regression test;
#  - fuzz_<name>, only with -DLG_FUZZ=ON and clang: the libFuzzer binary
#    that scripts/fuzz.sh runs (with ASan + UBSan) for a bounded time.
# Adding a target: write tests/fuzz/fuzz_<name>.c, add <name> to this list,
# commit a few seeds in tests/fuzz/corpus/<name>/.
set(LG_FUZZ_TARGETS md md_hand reorder shuffle eltwise binary graph npy)
# Sources a target needs beyond fuzz_<name>.c and the shared harness, and
# include directories beyond src/ and tests/.
set(LG_FUZZ_EXTRA_graph fuzz/graph_model.c fuzz/graph_run.c fuzz/graph_extreme.c)
set(LG_FUZZ_EXTRA_npy ../tools/npy.c) # lgraph-run's .npy reader
set(LG_FUZZ_INC_npy ${PROJECT_SOURCE_DIR}/tools)
# The ONNX loader's target, when the importer is built; libraries a target
# links beyond the core.
if(LG_ONNX_FOUND)
  list(APPEND LG_FUZZ_TARGETS onnx)
  set(LG_FUZZ_LIBS_onnx lgraph_onnx_static)
endif()

option(LG_FUZZ "Build the libFuzzer targets fuzz_<name> (clang only)" OFF)
set(LG_FUZZ_HARNESS fuzz/fuzz_util.c reliability/problem.c)

function(lg_fuzz_common target)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
  target_compile_definitions(${target} PRIVATE _POSIX_C_SOURCE=200809L)
  target_compile_options(${target} PRIVATE ${LG_WARNINGS})
  target_link_libraries(${target} PRIVATE lgraph_static m)
endfunction()

foreach(t IN LISTS LG_FUZZ_TARGETS)
  add_executable(fuzz_replay_${t} fuzz/fuzz_${t}.c fuzz/replay.c ${LG_FUZZ_HARNESS}
                 ${LG_FUZZ_EXTRA_${t}})
  lg_fuzz_common(fuzz_replay_${t})
  target_include_directories(fuzz_replay_${t} PRIVATE ${LG_FUZZ_INC_${t}})
  target_link_libraries(fuzz_replay_${t} PRIVATE ${LG_FUZZ_LIBS_${t}})
  add_test(NAME fuzz_replay_${t}
           COMMAND fuzz_replay_${t} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/${t})
  if(LG_FUZZ)
    add_executable(fuzz_${t} fuzz/fuzz_${t}.c ${LG_FUZZ_HARNESS} ${LG_FUZZ_EXTRA_${t}})
    lg_fuzz_common(fuzz_${t})
    target_include_directories(fuzz_${t} PRIVATE ${LG_FUZZ_INC_${t}})
    target_link_libraries(fuzz_${t} PRIVATE ${LG_FUZZ_LIBS_${t}})
    target_compile_options(fuzz_${t} PRIVATE -fsanitize=fuzzer)
    target_link_options(fuzz_${t} PRIVATE -fsanitize=fuzzer)
    list(APPEND LG_FUZZ_BINARIES fuzz_${t})
  endif()
endforeach()

if(LG_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "LG_FUZZ needs clang (libFuzzer): configure with CC=clang")
  endif()
  add_custom_target(fuzz_all DEPENDS ${LG_FUZZ_BINARIES})
  # scripts/fuzz.sh runs the targets this file lists.
  string(REPLACE ";" "\n" LG_FUZZ_LIST "${LG_FUZZ_TARGETS}")
  file(WRITE ${PROJECT_BINARY_DIR}/fuzz_targets.txt "${LG_FUZZ_LIST}\n")
endif()
