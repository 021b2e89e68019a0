# Descriptor operations (views, permutation, reshape) and kernels through views.
lg_add_test(memory_md_ops SOURCES memory/test_md_ops.c)
lg_add_test(primitives_views SOURCES primitives/test_views.c)
lg_add_test(memory_f8 SOURCES memory/test_f8.c)
