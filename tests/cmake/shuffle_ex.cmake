# The layout-changing shuffle (lg_shuffle_create_layouts), tests/primitives.
lg_add_test(primitives_shuffle_ex SOURCES primitives/test_shuffle_ex.c)
