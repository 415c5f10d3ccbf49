# Label portability: the project built where its users are, not as on this machine
# (docs/portability.md). Each test is a second build of its own (minutes), run only where
# LENET_PORTABILITY=1 (.ci/run sets it), SKIPPED otherwise and where what it needs is missing.
# The builds run one at a time (RESOURCE_LOCK portability-build) and start early (COST) beside
# the lab kit's gradings: the two chains overlap where one waits for downloads or for a
# grading's runs. Each has a label of its own besides (portability-hydra, portability-no-root,
# portability-debian13, portability-arm64, portability-gcc11), to run one:
# LENET_PORTABILITY=1 ctest -L portability-no-root.

# The MPI suite in a build of its own against MPICH, the other MPI family (SKIPPED without
# MPICH). It ran alone (RUN_SERIAL) once, which left a core idle for its 140 s at the end of
# CI's long tests; its suite passes beside other tests, as the README's command runs it.
add_test(NAME "portability: the MPI suite on MPICH (Hydra's mpiexec)"
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/mpich.sh ${PROJECT_SOURCE_DIR})
set_tests_properties("portability: the MPI suite on MPICH (Hydra's mpiexec)" PROPERTIES
  LABELS "portability;portability-hydra" SKIP_RETURN_CODE 77 TIMEOUT 1800
  RESOURCE_LOCK portability-build COST 200)

# A cluster user's build without root or network, CLI11 and Catch2 built from local copies
# (cmake/dependencies.cmake, docs/cluster.md): as nobody where it runs as root; SKIPPED where
# Debian's registry, the source of those copies, is unreachable.
add_test(NAME "portability: no root, no network, CLI11 and Catch2 built from local copies"
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/no_root_fetch.sh ${PROJECT_SOURCE_DIR}
          ${CMAKE_CXX_COMPILER})
set_tests_properties("portability: no root, no network, CLI11 and Catch2 built from local copies"
  PROPERTIES LABELS "portability;portability-no-root" SKIP_RETURN_CODE 77 TIMEOUT 2700
  RESOURCE_LOCK portability-build COST 500)

# In a Debian 13 root made with debootstrap (tests/portability/debian13.sh): the build and tests
# with Debian 13's compilers and libraries, and the ARM64 cross build run under qemu-aarch64.
# Both need root and Debian's registry, and download about 400 MB the first time: they run when
# LENET_PORTABILITY=1 is set (.ci/run sets it), and say SKIPPED otherwise. One at a time: the
# first makes the root that both use (the lock: never beside each other).
set(_debian13 ${CMAKE_CURRENT_LIST_DIR}/debian13.sh)
add_test(NAME "portability: Debian 13 (GCC 14, CMake 3.31, Catch2 3, Open MPI 5)"
  COMMAND bash ${_debian13} native ${PROJECT_SOURCE_DIR})
add_test(NAME "portability: ARM64 cross build, tests under qemu-aarch64 (Debian 13)"
  COMMAND bash ${_debian13} arm64 ${PROJECT_SOURCE_DIR})
set_tests_properties("portability: Debian 13 (GCC 14, CMake 3.31, Catch2 3, Open MPI 5)"
  PROPERTIES LABELS "portability;portability-debian13")
set_tests_properties("portability: ARM64 cross build, tests under qemu-aarch64 (Debian 13)"
  PROPERTIES LABELS "portability;portability-arm64")
set_tests_properties("portability: Debian 13 (GCC 14, CMake 3.31, Catch2 3, Open MPI 5)"
  "portability: ARM64 cross build, tests under qemu-aarch64 (Debian 13)" PROPERTIES
  SKIP_RETURN_CODE 77 RESOURCE_LOCK portability-build COST 500 TIMEOUT 3600)

# GCC 11, Ubuntu 22.04's compiler (Colab's pinned runtime): a build with g++-11 that fails on any
# `#pragma omp` it ignores (OpenMP 5.1's `masked` ran on every thread there), then the OpenMP
# suite (tests/portability/gcc11.sh; installs Debian's g++-11 where it is missing).
add_test(NAME "portability: GCC 11 honours every OpenMP pragma, and the OpenMP suite passes"
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/gcc11.sh ${PROJECT_SOURCE_DIR})
set_tests_properties("portability: GCC 11 honours every OpenMP pragma, and the OpenMP suite passes"
  PROPERTIES LABELS "portability;portability-gcc11" SKIP_RETURN_CODE 77 TIMEOUT 3600
  RESOURCE_LOCK portability-build COST 200)
