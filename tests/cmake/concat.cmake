# Concat and slice kernels against a truth computed by logical index.
lg_add_test(primitives_concat SOURCES primitives/test_concat.c)
