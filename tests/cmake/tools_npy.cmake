# lgraph-run's .npy reader and writer (tools/npy.c): round trips and every
# refusal of a bad file; its fuzz target is tests/fuzz/fuzz_npy.c.
lg_add_test(tools_npy SOURCES tools/test_npy.c ../tools/npy.c)
target_include_directories(tools_npy PRIVATE ${PROJECT_SOURCE_DIR}/tools)
