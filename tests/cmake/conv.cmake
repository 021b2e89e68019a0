# Convolution tests: the reference and every path against the truth, layout
# choice, bad input.
lg_add_test(primitives_conv SOURCES primitives/test_conv.c)
