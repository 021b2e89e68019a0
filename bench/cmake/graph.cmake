# bench_graph: the end-to-end graph workloads (W1-W3 of WORKLOADS.md), lgraph's
# plans under each strategy against a hand-built oneDNN chain (needs oneDNN).
lg_add_bench(bench_graph DNNL SOURCES bench_graph.c graph_dnnl.c workloads.c)

# Compile time of the workload graphs (no oneDNN needed).
lg_add_bench(bench_compile SOURCES bench_compile.c workloads.c)

# Compile time and exactness of OPTIMAL on a ResNet-50-sized graph (issue 18).
lg_add_bench(bench_resnet50_compile SOURCES bench_resnet50_compile.c)
