# The MPI backend's tests (included by tests/CMakeLists.txt when lenet_mpi is built). Every test
# starts its ranks through run_scripts/mpi_launch.sh (${LENET_MPI_LAUNCH}), under mpi_run.sh,
# which reports SKIPPED (77) where the build's launcher is missing.
add_executable(lenet_mpi_tests test_mpi.cpp test_mpi_main.cpp)
target_link_libraries(lenet_mpi_tests PRIVATE lenet_mpi lenet_serial lenet_test_support)

set(_mpi_tests "")
# One CTest entry per mode (its Catch2 tag) and rank count, each one launch: a failure names the
# mode that has it. --exact claims any rank count: 3 and 4 ranks (oversubscribed on 2 cores),
# where the tests' batches of 7 and 32 do not divide evenly and the last batch of 128 images at
# B = 7 (2 samples) is smaller than the rank count; the PyTorch vectors run at 2 ranks only.
foreach(ranks 2 3 4)
  foreach(mode allreduce exact)
    set(_spec "[${mode}]")
    if(NOT ranks EQUAL 2)
      set(_spec "[${mode}]~[vectors]")
    endif()
    add_test(NAME "mpi: [${mode}] on ${ranks} ranks"
      COMMAND ${_mpi_run} ${LENET_MPI_LAUNCH} -n ${ranks} $<TARGET_FILE:lenet_mpi_tests> "${_spec}")
    list(APPEND _mpi_tests "mpi: [${mode}] on ${ranks} ranks")
  endforeach()
endforeach()

# The command line's errors through the real executable, as for lenet-serial (--quiet: the
# launcher adds no text of its own to the one error line, and ends the job at once: with Open
# MPI 4.1 that makes the 35 failing runs take 13 s instead of a minute).
add_test(NAME "cli: lenet-mpi rejects bad input (2 ranks)"
  COMMAND ${_mpi_run} bash ${CMAKE_CURRENT_SOURCE_DIR}/cli_errors.sh $<TARGET_FILE:lenet-mpi>
          ${CMAKE_CURRENT_SOURCE_DIR}/vectors/data ${LENET_MPI_LAUNCH} --quiet -n 2)
add_test(NAME "mpi: a failing rank stops every rank"
  COMMAND ${_mpi_run} bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi_errors.sh $<TARGET_FILE:lenet-mpi>
          ${CMAKE_CURRENT_SOURCE_DIR}/vectors/data
          ${LENET_MPI_LAUNCH})
add_test(NAME "mpi: ranks given different options all stop"
  COMMAND ${_mpi_run} bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi_disagree.sh $<TARGET_FILE:lenet-mpi>
          ${CMAKE_CURRENT_SOURCE_DIR}/vectors/data
          ${LENET_MPI_LAUNCH})
add_test(NAME "mpi: lenet-mpi-pingpong measures the link"
  COMMAND ${_mpi_run} bash ${CMAKE_CURRENT_SOURCE_DIR}/pingpong_test.sh $<TARGET_FILE:lenet-mpi-pingpong>
          ${LENET_MPI_LAUNCH})
add_test(NAME "mpi: 4 ranks of one node read the data once"
  COMMAND ${_mpi_run} bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi_data_once.sh $<TARGET_FILE:lenet-mpi>
          ${CMAKE_CURRENT_SOURCE_DIR}/vectors/data
          ${LENET_MPI_LAUNCH})
add_test(NAME "mpi: 4 ranks of one node hold one copy of the images"
  COMMAND ${_mpi_run} bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi_data_shared.sh $<TARGET_FILE:lenet-mpi>
          ${CMAKE_CURRENT_SOURCE_DIR}/vectors/data
          ${LENET_MPI_LAUNCH})
list(APPEND _mpi_tests "mpi: 4 ranks of one node read the data once"
  "mpi: 4 ranks of one node hold one copy of the images"
  "cli: lenet-mpi rejects bad input (2 ranks)"
  "mpi: a failing rank stops every rank" "mpi: ranks given different options all stop"
  "mpi: lenet-mpi-pingpong measures the link")

# TIMEOUT: a rank that waits for another in a collective must fail the test, not hang it.
set_tests_properties(${_mpi_tests} PROPERTIES LABELS "mpi" SKIP_RETURN_CODE 77 TIMEOUT 120)
set_tests_properties("cli: lenet-mpi rejects bad input (2 ranks)" PROPERTIES LABELS "mpi;cli")
