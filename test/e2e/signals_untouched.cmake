# Issue 33: signals, alternate stacks and namespaces are the program's own (signals_untouched_test.cc):
# its own small test program, needing only the collector, the launcher and the profile reader.
ppe_fixture(signals_untouched signals_untouched.c -O1)

add_executable(ppe_signals_untouched_tests signals_untouched_test.cc)
target_link_libraries(ppe_signals_untouched_tests PRIVATE ppe_test_support ppe_profile GTest::gtest_main)
add_dependencies(ppe_signals_untouched_tests signals_untouched ppe ppe_launcher)
target_compile_definitions(ppe_signals_untouched_tests PRIVATE
  PPE_LAUNCHER="$<TARGET_FILE:ppe_launcher>"
  PPE_SIGNALS_UNTOUCHED="$<TARGET_FILE:signals_untouched>")
ppe_discover_tests(ppe_signals_untouched_tests e2e PRE_TEST)
