# Reorder with typed / grouped scales and zero points and stochastic rounding,
# against a scalar truth of its own (oneDNN 2.6 lacks these attributes).
lg_add_test(primitives_reorder_quant SOURCES primitives/test_reorder_quant.c)
