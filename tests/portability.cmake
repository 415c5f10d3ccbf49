# Portability (label portability, docs/portability.md): the project where its users are.
# In a Debian 13 root made with debootstrap (tests/portability/debian13.sh): the build and tests
# with Debian 13's compilers and libraries, and the ARM64 cross build run under qemu-aarch64.
# Both need root and Debian's registry, and download about 400 MB the first time: they run when
# LENET_PORTABILITY=1 is set (.ci/run sets it), and say SKIPPED otherwise. One at a time: the
# first makes the root that both use.
set(_debian13 ${CMAKE_CURRENT_SOURCE_DIR}/portability/debian13.sh)
add_test(NAME "portability: Debian 13 (GCC 14, CMake 3.31, Catch2 3, Open MPI 5)"
  COMMAND bash ${_debian13} native ${PROJECT_SOURCE_DIR})
add_test(NAME "portability: ARM64 cross build, tests under qemu-aarch64 (Debian 13)"
  COMMAND bash ${_debian13} arm64 ${PROJECT_SOURCE_DIR})
set_tests_properties("portability: Debian 13 (GCC 14, CMake 3.31, Catch2 3, Open MPI 5)"
  "portability: ARM64 cross build, tests under qemu-aarch64 (Debian 13)" PROPERTIES
  LABELS portability SKIP_RETURN_CODE 77 RESOURCE_LOCK debian13-root TIMEOUT 3600)
