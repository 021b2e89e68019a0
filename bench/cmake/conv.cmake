# Convolution benchmark: lgraph against oneDNN on the WORKLOADS.md convs; and
# the FMA peak alone (bench_fma_peak, for bench/nets/run.py).
lg_add_bench(bench_conv DNNL SOURCES bench_conv.c fma_peak.c)
lg_add_bench(bench_fma_peak SOURCES bench_fma_peak.c fma_peak.c)
