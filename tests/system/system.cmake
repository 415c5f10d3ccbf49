# Several processes or machines (tests/system/): lenet-mpi's ranks failing, disagreeing and
# sharing the data on one node (label mpi); lenet-mpi across network-namespace "hosts" (label
# multihost); experiments/slurm/ submitted to a Slurm cluster on this machine (label slurm);
# lenet-mpi-smpi under SimGrid's simulator (label simgrid). What needs root, namespaces, Slurm
# or SimGrid and cannot get it reports SKIPPED (77).
set(_system ${CMAKE_CURRENT_LIST_DIR})

# ---- MPI on one node: every test starts its ranks through run_scripts/mpi_launch.sh
# (${LENET_MPI_LAUNCH}), under mpi_run.sh, which reports SKIPPED (77) where the build's launcher
# is missing. Label launcher-quiet: the test checks that a failing run prints one error line, so
# it needs a launcher that adds nothing of its own (tests/cli/cli.cmake says more).
if(TARGET lenet-mpi)
  add_test(NAME "mpi: a failing rank stops every rank"
    COMMAND ${_mpi_run} bash ${_system}/mpi_errors.sh $<TARGET_FILE:lenet-mpi> ${LENET_TEST_DATA}
            ${LENET_MPI_LAUNCH})
  add_test(NAME "mpi: ranks given different options all stop"
    COMMAND ${_mpi_run} bash ${_system}/mpi_disagree.sh $<TARGET_FILE:lenet-mpi>
            ${LENET_TEST_DATA} ${LENET_MPI_LAUNCH})
  add_test(NAME "mpi: lenet-mpi-pingpong measures the link"
    COMMAND ${_mpi_run} bash ${_system}/pingpong_test.sh $<TARGET_FILE:lenet-mpi-pingpong>
            ${LENET_MPI_LAUNCH})
  add_test(NAME "mpi: 4 ranks of one node read the data once"
    COMMAND ${_mpi_run} bash ${_system}/mpi_data_once.sh $<TARGET_FILE:lenet-mpi>
            ${LENET_TEST_DATA} ${LENET_MPI_LAUNCH})
  add_test(NAME "mpi: 4 ranks of one node hold one copy of the images"
    COMMAND ${_mpi_run} bash ${_system}/mpi_data_shared.sh $<TARGET_FILE:lenet-mpi>
            ${LENET_TEST_DATA} ${LENET_MPI_LAUNCH})
  # TIMEOUT: a rank that waits for another in a collective must fail the test, not hang it.
  set_tests_properties("mpi: 4 ranks of one node read the data once"
    "mpi: 4 ranks of one node hold one copy of the images" PROPERTIES
    LABELS "mpi" SKIP_RETURN_CODE 77 TIMEOUT 120)
  set_tests_properties("mpi: a failing rank stops every rank"
    "mpi: ranks given different options all stop" "mpi: lenet-mpi-pingpong measures the link"
    PROPERTIES LABELS "mpi;launcher-quiet" SKIP_RETURN_CODE 77 TIMEOUT 120)
endif()

# ---- Several "hosts" on this one machine: Linux network namespaces joined by a bridge (or a
# user-space switch with latency), launched through Open MPI's rsh launcher
# (experiments/multihost.sh, docs/multihost.md); SKIPPED in a build with another MPI. Each test
# checks bit-identity with lenet-serial (--exact) and that nothing is left afterwards. They need
# root and network namespaces; elsewhere multihost.sh exits 77: SKIPPED.
if(TARGET lenet-mpi)
  set(_multihost bash ${_system}/multihost_test.sh ${PROJECT_SOURCE_DIR}/experiments/multihost.sh
    --build ${PROJECT_BINARY_DIR} --mpi $<TARGET_FILE:lenet-mpi>
    --serial $<TARGET_FILE:lenet-serial>)
  # The 128 real images of the test vectors: a few seconds per run.
  set(_multihost_run -- --data ${LENET_TEST_DATA} --batch 16 --epochs 2)
  add_test(NAME "multihost: 2 hosts x 1 rank, bit-identical to serial"
    COMMAND ${_multihost} --hosts 2 ${_multihost_run})
  add_test(NAME "multihost: 3 hosts shaped to 10mbit, bit-identical to serial"
    COMMAND ${_multihost} --hosts 3 --bandwidth 10mbit ${_multihost_run})
  # The user-space switch of --latency: training over it, and its latency and bandwidth.
  add_test(NAME "multihost: 4 hosts, 1ms and 10mbit user-space switch, bit-identical to serial"
    COMMAND ${_multihost} --hosts 4 --latency 1ms --bandwidth 10mbit ${_multihost_run})
  add_test(NAME "multihost: the user-space switch gives the latency and bandwidth asked for"
    COMMAND bash ${_system}/multihost_wire_test.sh ${_system}/multihost_test.sh
            ${PROJECT_SOURCE_DIR}/experiments/multihost.sh ${PROJECT_BINARY_DIR}
            $<TARGET_FILE:lenet-mpi-pingpong>)
  set_tests_properties(
    "multihost: 2 hosts x 1 rank, bit-identical to serial"
    "multihost: 3 hosts shaped to 10mbit, bit-identical to serial"
    "multihost: 4 hosts, 1ms and 10mbit user-space switch, bit-identical to serial"
    "multihost: the user-space switch gives the latency and bandwidth asked for"
    PROPERTIES LABELS "multihost" SKIP_RETURN_CODE 77 TIMEOUT 60)
endif()

# ---- The Slurm batch scripts of experiments/slurm/, submitted with sbatch to a Slurm cluster
# that the test brings up on this machine and removes afterwards (slurm_test.sh,
# docs/cluster.md): one node for the one-node jobs, and two slurmd nodes in network namespaces
# of their own for the two-node ones (srun --mpi=pmix across nodes). Every job must be
# bit-identical to lenet-serial. Needs root, Debian's slurmctld, slurmd, slurm-client and munge,
# and network namespaces.
if(TARGET lenet-mpi AND TARGET lenet-openmp)
  set(_slurm_test
    "slurm: experiments/slurm/ jobs on 1 node and on 2 nodes, bit-identical to serial")
  add_test(NAME "${_slurm_test}" COMMAND bash ${_system}/slurm_test.sh ${CMAKE_BINARY_DIR})
  # RESOURCE_LOCK lab-cache: its class run grades through the lab kit's cache, one test at a
  # time with the kit's own tests (whose checks look for processes left in that cache). It runs
  # after lab 1's gradings (DEPENDS), whose starter and reference builds it then finds made.
  # TIMEOUT: above the script's own limits (60 s start, 240 s jobs, 1500 + 5 x 300 s for
  # lab.sh class --slurm, whose first grading in a clean checkout builds the lab kit's starter
  # and reference, teardown), so that its trap, not CTest's kill, ends a stuck run.
  set_tests_properties("${_slurm_test}" PROPERTIES LABELS "slurm" SKIP_RETURN_CODE 77
    TIMEOUT 3600 RESOURCE_LOCK lab-cache DEPENDS "labkit: lab 1 graded, sealed and bounded")
endif()

# ---- lenet-mpi-smpi (cmake/smpi.cmake) under SimGrid's smpirun: the simulated run trains the
# same parameters as lenet-serial, and its simulated time behaves (docs/scaling.md). SKIPPED
# (77) where SimGrid was not found when configuring, or smpirun is missing.
if(TARGET lenet-mpi-smpi)
  set(_smpi_exe $<TARGET_FILE:lenet-mpi-smpi>)
else()
  set(_smpi_exe "")
endif()
add_test(NAME "simgrid: lenet-mpi-smpi on 4 simulated ranks"
  COMMAND bash ${_system}/simgrid_test.sh "${_smpi_exe}" $<TARGET_FILE:lenet-serial>
          ${LENET_TEST_DATA})
set_tests_properties("simgrid: lenet-mpi-smpi on 4 simulated ranks"
  PROPERTIES LABELS "simgrid" SKIP_RETURN_CODE 77 TIMEOUT 60)

# scale_sim.sh --calibration: the file's figures are the ones simulated; bad files refused.
if(TARGET lenet-mpi-smpi)
  add_test(NAME "simgrid: scale_sim.sh --calibration FILE uses the file, refuses bad ones"
    COMMAND bash ${_system}/calibration_test.sh ${PROJECT_BINARY_DIR} ${LENET_TEST_DATA})
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
    COMMAND bash ${_system}/validation_live_test.sh ${PROJECT_BINARY_DIR})
  set_tests_properties("simgrid: scale_sim.sh --validate measures 2 and 3 namespace hosts live"
    PROPERTIES LABELS "simgrid;multihost" SKIP_RETURN_CODE 77 TIMEOUT 600 RUN_SERIAL TRUE)
endif()
