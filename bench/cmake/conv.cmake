# Convolution benchmark: lgraph against oneDNN on the WORKLOADS.md convs.
lg_add_bench(bench_conv DNNL SOURCES bench_conv.c)
