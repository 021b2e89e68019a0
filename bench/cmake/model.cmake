# The cost model against measurement on W1-W3 (issue 20; scripts/model_table.sh).
lg_add_bench(bench_model SOURCES bench_model.c workloads.c)
