lg_add_test(graph_plan_profile SOURCES graph/test_plan_profile.c)
