# Binary in f32, bf16 and f16 and its broadcast paths against oneDNN.
lg_add_bench(bench_binary DNNL SOURCES bench_binary.c)
