# The layout-changing shuffle (lg__shuffle_create_ex), tests/primitives.
lg_add_test(primitives_shuffle_ex SOURCES primitives/test_shuffle_ex.c)
