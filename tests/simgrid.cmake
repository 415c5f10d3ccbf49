# lenet-mpi-smpi (cmake/smpi.cmake) under SimGrid's smpirun: the simulated run trains the same
# parameters as lenet-serial, and its simulated time behaves (docs/scaling.md). SKIPPED (77)
# where SimGrid was not found when configuring, or smpirun is missing.
if(TARGET lenet-mpi-smpi)
  set(_smpi_exe $<TARGET_FILE:lenet-mpi-smpi>)
else()
  set(_smpi_exe "")
endif()
add_test(NAME "simgrid: lenet-mpi-smpi on 4 simulated ranks"
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/simgrid_test.sh "${_smpi_exe}"
          $<TARGET_FILE:lenet-serial> ${CMAKE_CURRENT_SOURCE_DIR}/vectors/data)
set_tests_properties("simgrid: lenet-mpi-smpi on 4 simulated ranks"
  PROPERTIES LABELS "simgrid" SKIP_RETURN_CODE 77 TIMEOUT 60)

# scale_sim.sh --calibration: the file's figures are the ones simulated; bad files refused.
if(TARGET lenet-mpi-smpi)
  add_test(NAME "simgrid: scale_sim.sh --calibration FILE uses the file, refuses bad ones"
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/calibration_test.sh ${PROJECT_BINARY_DIR}
            ${CMAKE_CURRENT_SOURCE_DIR}/vectors/data)
  set_tests_properties("simgrid: scale_sim.sh --calibration FILE uses the file, refuses bad ones"
    PROPERTIES LABELS "simgrid" SKIP_RETURN_CODE 77 TIMEOUT 120)
endif()

# The token bucket model that validate.sh puts in front of the simulator (its doctests).
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  add_test(NAME "simgrid: token bucket model (token_bucket.py doctests)"
    COMMAND ${Python3_EXECUTABLE} -m doctest -v
            ${PROJECT_SOURCE_DIR}/experiments/simgrid/token_bucket.py)
  set_tests_properties("simgrid: token bucket model (token_bucket.py doctests)"
    PROPERTIES LABELS "simgrid" TIMEOUT 30)
endif()

# scale_sim.sh --validate's live stage at 2 and 3 namespace hosts: it runs and gives a residual
# per point (no timing threshold). SKIPPED (77) when not root or without SimGrid.
if(TARGET lenet-mpi-smpi)
  add_test(NAME "simgrid: scale_sim.sh --validate measures 2 and 3 namespace hosts live"
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/validation_live_test.sh ${PROJECT_BINARY_DIR})
  set_tests_properties("simgrid: scale_sim.sh --validate measures 2 and 3 namespace hosts live"
    PROPERTIES LABELS "simgrid;multihost" SKIP_RETURN_CODE 77 TIMEOUT 600 RUN_SERIAL TRUE)
endif()
