# The OpenMP backend's tests (included by tests/CMakeLists.txt when lenet_openmp is built):
# the PyTorch vectors for both strategies, bit-identity with lenet-serial at 1 to 4 threads,
# and the command line's errors.
add_executable(lenet_openmp_tests test_openmp.cpp)
target_link_libraries(lenet_openmp_tests PRIVATE
  lenet_openmp lenet_serial lenet_test_support lenet_catch_main)
# The CLI checks run the real executable.
add_dependencies(lenet_openmp_tests lenet-openmp)
target_compile_definitions(lenet_openmp_tests PRIVATE
  LENET_OPENMP_EXE="${LENET_OPENMP_EXE}")
# The tests check bits, not speed. Threads that sleep at a barrier instead of spinning keep them
# quick when other work shares the cores (spinning made them 3 to 6 times slower there).
# Tests tagged [lab1] or [lab2] are that lab's checks (run_scripts/lab.sh grade N runs
# `ctest -L labN`). One label each: catch_discover_tests passes no list of labels, and
# "openmp_lab1" is found by `-L openmp` and by `-L lab1` alike.
catch_discover_tests(lenet_openmp_tests TEST_PREFIX "openmp: " TEST_SPEC "[lab1]"
  PROPERTIES LABELS "openmp_lab1" ENVIRONMENT "OMP_WAIT_POLICY=passive")
catch_discover_tests(lenet_openmp_tests TEST_PREFIX "openmp: " TEST_SPEC "[lab2]"
  PROPERTIES LABELS "openmp_lab2" ENVIRONMENT "OMP_WAIT_POLICY=passive")
catch_discover_tests(lenet_openmp_tests TEST_PREFIX "openmp: " TEST_SPEC "~[lab1]~[lab2]"
  PROPERTIES LABELS "openmp" ENVIRONMENT "OMP_WAIT_POLICY=passive")

add_test(NAME "cli: lenet-openmp rejects bad input"
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli_errors.sh ${LENET_OPENMP_EXE}
          ${CMAKE_CURRENT_SOURCE_DIR}/vectors/data)
set_tests_properties("cli: lenet-openmp rejects bad input" PROPERTIES LABELS "openmp;cli")

add_test(NAME "summary: lenet-openmp"
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/summary.sh ${LENET_OPENMP_EXE}
          ${CMAKE_CURRENT_SOURCE_DIR}/vectors/data)
set_tests_properties("summary: lenet-openmp" PROPERTIES LABELS "openmp;summary"
  ENVIRONMENT "OMP_WAIT_POLICY=passive")
