# Pooling, softmax and batch normalization against oneDNN on classifier layers.
lg_add_bench(bench_layers DNNL SOURCES bench_layers.c)
