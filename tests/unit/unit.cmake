# The Catch2 test programs (tests/unit/), one CTest test per test case where the program can list
# its cases at build time, labelled with its backend and, through its Catch2 tags, with the lab
# whose check it is: labN for a student's `ctest -L labN`, and labN-CHECK for each of the lab
# kit's ctest checks (labkit/labs/labN.json, "label"), which selects exactly that check's tests.
# Every backend's tests link lenet_test_support, which holds the reader of the shared PyTorch
# vectors and the checks every backend must pass.
set(_unit ${CMAKE_CURRENT_LIST_DIR})
add_library(lenet_test_support STATIC ${_unit}/vectors.cpp ${_unit}/backend_checks.cpp)
target_link_libraries(lenet_test_support PUBLIC lenet_common lenet_catch2)
target_compile_definitions(lenet_test_support PUBLIC
  LENET_VECTORS_DIR="${PROJECT_SOURCE_DIR}/tests/vectors")

add_library(lenet_catch_main STATIC ${_unit}/test_main.cpp)
target_link_libraries(lenet_catch_main PUBLIC lenet_catch2)

# Common code and the serial backend. The kernels' PyTorch checks ([lab4]) are lab 4's: the
# forward pass and per-sample gradients (lab4-forward), the batch gradients (lab4-batch).
add_executable(lenet_tests
  ${_unit}/test_checkpoint.cpp
  ${_unit}/test_compare.cpp
  ${_unit}/test_dataset.cpp
  ${_unit}/test_driver.cpp
  ${_unit}/test_rng.cpp
  ${_unit}/test_serial.cpp
  ${_unit}/test_simd_exp.cpp
  ${_unit}/test_step.cpp
  ${_unit}/test_kernels.cpp
  ${_unit}/test_lanes.cpp
  ${_unit}/test_vexp.cpp)
target_link_libraries(lenet_tests PRIVATE lenet_serial lenet_test_support lenet_catch_main)
lenet_catch_tests(lenet_tests PREFIX "serial: " SPEC "[lab4]~[batch]"
  LABELS "serial;lab4;lab4-forward")
lenet_catch_tests(lenet_tests PREFIX "serial: " SPEC "[lab4][batch]"
  LABELS "serial;lab4;lab4-batch")
lenet_catch_tests(lenet_tests PREFIX "serial: " SPEC "~[lab4]~[exhaustive]" LABELS "serial")
# [exhaustive] (label exhaustive, not serial): every one of the 2^32 floats through the vector
# sigmoid, about 15 s compiled with -O3, hours under an emulator or a sanitizer: so neither the
# sanitizers' run nor the ARM64 leg picks it (both select by label).
lenet_catch_tests(lenet_tests PREFIX "serial: " SPEC "[exhaustive]" LABELS "exhaustive")

# The fuzzers' seed corpus and every input they found a bug with, through the ordinary loaders
# (fuzz/README.md): no libFuzzer needed, so this runs in every build.
add_executable(lenet_regression_tests ${_unit}/test_regressions.cpp)
target_include_directories(lenet_regression_tests PRIVATE ${PROJECT_SOURCE_DIR}/fuzz)
target_link_libraries(lenet_regression_tests PRIVATE lenet_test_support lenet_catch_main)
lenet_catch_tests(lenet_regression_tests PREFIX "serial: " LABELS "serial")

if(TARGET lenet_openmp)
  # The PyTorch vectors for both strategies, bit-identity with lenet-serial at 1 to 4 threads,
  # and the constructor's and command line's errors (the CLI checks run the real executable).
  add_executable(lenet_openmp_tests ${_unit}/test_openmp.cpp)
  target_link_libraries(lenet_openmp_tests PRIVATE
    lenet_openmp lenet_serial lenet_test_support lenet_catch_main)
  add_dependencies(lenet_openmp_tests lenet-openmp)
  target_compile_definitions(lenet_openmp_tests PRIVATE LENET_OPENMP_EXE="${LENET_OPENMP_EXE}")
  # The tests check bits, not speed. Threads that sleep at a barrier instead of spinning keep
  # them quick when other work shares the cores (spinning made them 3 to 6 times slower there).
  # Tests tagged [lab1] or [lab2] are that lab's checks: the PyTorch vectors (labN-vectors), the
  # layer kernels' bits ([lab2][kernels]: lab2-kernels), bit-identity at 1 to 4 threads (the
  # rest: labN-threads).
  set(_omp ENVIRONMENT "OMP_WAIT_POLICY=passive")
  lenet_catch_tests(lenet_openmp_tests PREFIX "openmp: " SPEC "[lab1][vectors]"
    LABELS "openmp;lab1;lab1-vectors" ${_omp})
  # [sweep] (label thread-sweep): the tests that train the batch strategy at every thread count
  # from 1 to 4, minutes under an emulator (tests/portability/debian13.sh's ARM64 leg leaves them
  # out).
  lenet_catch_tests(lenet_openmp_tests PREFIX "openmp: " SPEC "[lab1]~[vectors]"
    LABELS "openmp;lab1;lab1-threads;thread-sweep" ${_omp})
  lenet_catch_tests(lenet_openmp_tests PREFIX "openmp: " SPEC "[lab2][vectors]"
    LABELS "openmp;lab2;lab2-vectors" ${_omp})
  lenet_catch_tests(lenet_openmp_tests PREFIX "openmp: " SPEC "[lab2][kernels]"
    LABELS "openmp;lab2;lab2-kernels" ${_omp})
  lenet_catch_tests(lenet_openmp_tests PREFIX "openmp: " SPEC "[lab2]~[vectors]~[kernels]"
    LABELS "openmp;lab2;lab2-threads" ${_omp})
  lenet_catch_tests(lenet_openmp_tests PREFIX "openmp: " SPEC "~[lab1]~[lab2]~[sweep]"
    LABELS "openmp" ${_omp})
  lenet_catch_tests(lenet_openmp_tests PREFIX "openmp: " SPEC "~[lab1]~[lab2][sweep]"
    LABELS "openmp;thread-sweep" ${_omp})
endif()

if(TARGET lenet_mpi)
  # One CTest test per mode (its Catch2 tag) and rank count, each one launch (under mpi_run.sh,
  # tests/CMakeLists.txt): a failure names the mode that has it. --exact claims any rank count:
  # 3 and 4 ranks (oversubscribed on 2 cores), where the tests' batches of 7 and 32 do not divide
  # evenly and the last batch of 128 images at B = 7 (2 samples) is smaller than the rank count;
  # the PyTorch vectors run at 2 ranks only. They are lab 3's checks: each mode on 2 ranks
  # (lab3-MODE-2ranks), and on 3 and 4 ranks (lab3-MODE-3-4ranks).
  # TIMEOUT: a rank that waits for another in a collective must fail the test, not hang it.
  add_executable(lenet_mpi_tests ${_unit}/test_mpi.cpp ${_unit}/test_mpi_main.cpp)
  target_link_libraries(lenet_mpi_tests PRIVATE lenet_mpi lenet_serial lenet_test_support)
  foreach(ranks 2 3 4)
    foreach(mode allreduce exact)
      set(_spec "[${mode}]")
      set(_check lab3-${mode}-3-4ranks)
      if(ranks EQUAL 2)
        set(_check lab3-${mode}-2ranks)
      else()
        set(_spec "[${mode}]~[vectors]")
      endif()
      add_test(NAME "mpi: [${mode}] on ${ranks} ranks"
        COMMAND ${_mpi_run} ${LENET_MPI_LAUNCH} -n ${ranks} $<TARGET_FILE:lenet_mpi_tests>
                "${_spec}")
      set_tests_properties("mpi: [${mode}] on ${ranks} ranks" PROPERTIES
        LABELS "mpi;lab3;${_check}" SKIP_RETURN_CODE 77 TIMEOUT 120)
    endforeach()
  endforeach()
endif()

if(TARGET lenet_cuda)
  # They need a GPU: without one, lenet_cuda_tests prints "SKIPPED: ..." and exits 77, which
  # CTest shows as skipped. One CTest test for the whole program: test discovery would run it at
  # build time, where there may be no GPU. Lab 5's check on a GPU (lab5-gpu).
  add_executable(lenet_cuda_tests ${_unit}/test_cuda.cpp ${_unit}/test_cuda_main.cpp)
  target_link_libraries(lenet_cuda_tests PRIVATE
    lenet_cuda lenet_serial lenet_test_support lenet_catch2)
  add_test(NAME "cuda: kernels match PyTorch, serial and each other" COMMAND lenet_cuda_tests)
  set_tests_properties("cuda: kernels match PyTorch, serial and each other" PROPERTIES
    LABELS "cuda;lab5;lab5-gpu" SKIP_RETURN_CODE 77)
endif()
