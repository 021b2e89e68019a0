# Reliability tests (docs/reliability.md): allocation-failure sweeps, size
# overflow, and the kernel cache under concurrent load. problem.c, the
# create / execute / compare-with-reference harness, is shared with the fuzz
# targets (tests/cmake/fuzz.cmake).
set(LG_REL_HARNESS reliability/problem.c reliability/problems.c)
lg_add_test(reliability_alloc_fail SOURCES reliability/test_alloc_fail.c ${LG_REL_HARNESS})
lg_add_test(reliability_overflow SOURCES reliability/test_overflow.c)
lg_add_test(reliability_cache_concurrency
  SOURCES reliability/test_cache_concurrency.c ${LG_REL_HARNESS})
# glibc's per-thread cache off: its heap counters are then exact, and the
# sweeps check that every failed creation gives back every byte.
set_tests_properties(reliability_alloc_fail PROPERTIES
  ENVIRONMENT "GLIBC_TUNABLES=glibc.malloc.tcache_count=0")
# The overflow test makes the library ask for allocations of 2^48 bytes and
# more; under ASan those must fail with NULL (as glibc's malloc does), not abort.
set_tests_properties(reliability_overflow PROPERTIES
  ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1")
# Four threads executing one plan (a conv graph), every strategy.
lg_add_test(reliability_plan_concurrency SOURCES reliability/test_plan_concurrency.c)
