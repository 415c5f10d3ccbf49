# Label portability: the project built where its users are rather than on this machine's set-up.
# A cluster user's build without root or network, CLI11 and Catch2 taken from local copies
# (cmake/dependencies.cmake, docs/cluster.md): it switches to nobody where it runs as root, and
# reports SKIPPED where Debian's registry, its source of those copies, is unreachable.
add_test(NAME "portability: no root, no network, CLI11 and Catch2 built from local copies"
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/portability/no_root_fetch.sh ${PROJECT_SOURCE_DIR}
          ${CMAKE_CXX_COMPILER})
set_tests_properties("portability: no root, no network, CLI11 and Catch2 built from local copies"
  PROPERTIES LABELS "portability" SKIP_RETURN_CODE 77 PROCESSORS 2 TIMEOUT 2700)
