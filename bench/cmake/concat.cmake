# Concat and split on ShuffleNetV2's layers against oneDNN and memcpy.
lg_add_bench(bench_concat DNNL SOURCES bench_concat.c)
