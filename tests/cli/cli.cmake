# The programs and the run scripts through their command lines (tests/cli/): exit codes, error
# lines, the summary block, --verify, --list-kernels, accuracy on the real data, kill-and-resume,
# the peers; and the scripts' own checks (label scripts). Labelled with the backend each runs
# and what it checks.
set(_cli ${CMAKE_CURRENT_LIST_DIR})

# Command-line and file errors, through the real executables: exit code and a one-line message.
add_test(NAME "cli: lenet-serial rejects bad input"
  COMMAND bash ${_cli}/cli_errors.sh ${LENET_SERIAL_EXE} ${LENET_TEST_DATA})
set_tests_properties("cli: lenet-serial rejects bad input" PROPERTIES LABELS "serial;cli")
if(TARGET lenet-openmp)
  add_test(NAME "cli: lenet-openmp rejects bad input"
    COMMAND bash ${_cli}/cli_errors.sh ${LENET_OPENMP_EXE} ${LENET_TEST_DATA})
  set_tests_properties("cli: lenet-openmp rejects bad input" PROPERTIES LABELS "openmp;cli")
endif()
if(TARGET lenet-mpi)
  # --quiet: the launcher adds no text of its own to the one error line, and ends the job at
  # once: with Open MPI 4.1 that makes the 35 failing runs take 13 s instead of a minute. Label
  # launcher-quiet: it needs a launcher that can be told to add nothing (Open MPI 5's cannot:
  # tests/portability/debian13.sh leaves these tests out there).
  add_test(NAME "cli: lenet-mpi rejects bad input (2 ranks)"
    COMMAND ${_mpi_run} bash ${_cli}/cli_errors.sh $<TARGET_FILE:lenet-mpi> ${LENET_TEST_DATA}
            ${LENET_MPI_LAUNCH} --quiet -n 2)
  set_tests_properties("cli: lenet-mpi rejects bad input (2 ranks)" PROPERTIES
    LABELS "mpi;cli;launcher-quiet" SKIP_RETURN_CODE 77 TIMEOUT 120)
endif()

# --verify catches NaN, a small tensor's wrong value, and (with --identical) any changed bit.
add_test(NAME "verify: lenet-serial --verify and --identical"
  COMMAND bash ${_cli}/verify.sh ${LENET_SERIAL_EXE} ${LENET_TEST_DATA})
set_tests_properties("verify: lenet-serial --verify and --identical" PROPERTIES
  LABELS "serial;verify")

# The summary block says what happened (--quiet --timing; MPI's per-step lines from mpirun).
add_test(NAME "summary: lenet-serial"
  COMMAND bash ${_cli}/summary.sh ${LENET_SERIAL_EXE} ${LENET_TEST_DATA})
set_tests_properties("summary: lenet-serial" PROPERTIES LABELS "serial;summary")
if(TARGET lenet-openmp)
  add_test(NAME "summary: lenet-openmp"
    COMMAND bash ${_cli}/summary.sh ${LENET_OPENMP_EXE} ${LENET_TEST_DATA})
  set_tests_properties("summary: lenet-openmp" PROPERTIES LABELS "openmp;summary"
    ENVIRONMENT "OMP_WAIT_POLICY=passive")
endif()
if(TARGET lenet-mpi)
  add_test(NAME "summary: lenet-mpi on 3 ranks"
    COMMAND ${_mpi_run} bash ${_cli}/summary.sh $<TARGET_FILE:lenet-mpi> ${LENET_TEST_DATA}
            ${LENET_MPI_LAUNCH} -n 3)
  set_tests_properties("summary: lenet-mpi on 3 ranks" PROPERTIES
    LABELS "mpi;summary" SKIP_RETURN_CODE 77 TIMEOUT 120)
endif()

# --list-kernels, one name a line for scripts (run_scripts/lib.sh's kernels_of), as --kernels
# takes them; under MPI printed once, by rank 0.
set(_list_kernels bash ${_cli}/list_kernels.sh)
add_test(NAME "cli: lenet-serial --list-kernels" COMMAND ${_list_kernels} ${LENET_SERIAL_EXE})
set_tests_properties("cli: lenet-serial --list-kernels" PROPERTIES LABELS "serial;cli")
if(TARGET lenet-openmp)
  add_test(NAME "cli: lenet-openmp --list-kernels" COMMAND ${_list_kernels} ${LENET_OPENMP_EXE})
  set_tests_properties("cli: lenet-openmp --list-kernels" PROPERTIES LABELS "openmp;cli")
endif()
if(TARGET lenet-mpi)
  add_test(NAME "cli: lenet-mpi --list-kernels (2 ranks)"
    COMMAND ${_mpi_run} ${_list_kernels} $<TARGET_FILE:lenet-mpi> ${LENET_MPI_LAUNCH} -n 2)
  set_tests_properties("cli: lenet-mpi --list-kernels (2 ranks)" PROPERTIES
    LABELS "mpi;cli" SKIP_RETURN_CODE 77 TIMEOUT 120)
endif()

# The CUDA program (when lenet_cuda is built). Without a GPU the training test prints
# "SKIPPED: ..." and exits 77; the no-GPU test checks the one-line "no CUDA device" error, and is
# the one skipped where a GPU is present.
if(TARGET lenet_cuda)
  set(_cuda_cli bash ${_cli}/test_cuda_cli.sh)
  set(_cuda_cli_args $<TARGET_FILE:lenet-cuda> $<TARGET_FILE:lenet-serial> ${LENET_TEST_DATA})
  add_test(NAME "cli: lenet-cuda without a GPU says so in one line"
    COMMAND ${_cuda_cli} no-gpu ${_cuda_cli_args})
  add_test(NAME "cli: lenet-cuda trains each kernel version, verified against serial"
    COMMAND ${_cuda_cli} train ${_cuda_cli_args})
  set_tests_properties("cli: lenet-cuda without a GPU says so in one line"
    "cli: lenet-cuda trains each kernel version, verified against serial"
    PROPERTIES LABELS "cuda;cli" SKIP_RETURN_CODE 77)
  # One CUDA runtime on the link line, the static one (backend_cuda/CMakeLists.txt): lenet-cuda
  # must not depend on libcudart.so.
  add_test(NAME "cuda: lenet-cuda links the static CUDA runtime only"
    COMMAND bash -c "ldd \"$0\" >/dev/null && ! ldd \"$0\" | grep libcudart"
            $<TARGET_FILE:lenet-cuda>)
  set_tests_properties("cuda: lenet-cuda links the static CUDA runtime only" PROPERTIES
    LABELS "cuda")
endif()

# Accuracy on the real data sets (SKIPPED without them), against what an independent PyTorch
# model of the same network reached (docs/network.md).
add_test(NAME "accuracy: serial, digits, 3 epochs >= 89%"
  COMMAND bash ${_cli}/accuracy.sh ${LENET_DATA_DIR}/digits 89 ${LENET_SERIAL_EXE} --epochs 3)
add_test(NAME "accuracy: serial, fashion, 1 epoch >= 81%"
  COMMAND bash ${_cli}/accuracy.sh ${LENET_DATA_DIR}/fashion 81 ${LENET_SERIAL_EXE} --epochs 1)
set_tests_properties("accuracy: serial, digits, 3 epochs >= 89%"
  "accuracy: serial, fashion, 1 epoch >= 81%" PROPERTIES LABELS "serial;accuracy"
  SKIP_RETURN_CODE 77)

# Kill-and-resume bit-identity and divergence handling, through the real executable.
add_test(NAME "reliability: serial kill, resume, divergence"
  COMMAND bash ${_cli}/reliability.sh ${LENET_DATA_DIR}/fashion ${LENET_SERIAL_EXE})
set_tests_properties("reliability: serial kill, resume, divergence" PROPERTIES
  LABELS "serial;reliability" SKIP_RETURN_CODE 77)
if(TARGET lenet-openmp)
  add_test(NAME "reliability: openmp (2 threads) kill, resume, divergence"
    COMMAND bash ${_cli}/reliability.sh ${LENET_DATA_DIR}/fashion
            ${LENET_OPENMP_EXE} env OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive)
  set_tests_properties("reliability: openmp (2 threads) kill, resume, divergence" PROPERTIES
    LABELS "openmp;reliability" SKIP_RETURN_CODE 77)
endif()
if(TARGET lenet-mpi)
  add_test(NAME "reliability: mpi (2 ranks) kill, resume, divergence"
    COMMAND ${_mpi_run} bash ${_cli}/reliability.sh ${LENET_DATA_DIR}/fashion
            $<TARGET_FILE:lenet-mpi> ${LENET_MPI_LAUNCH} -n 2)
  set_tests_properties("reliability: mpi (2 ranks) kill, resume, divergence" PROPERTIES
    LABELS "mpi;reliability" SKIP_RETURN_CODE 77 TIMEOUT 300 ENVIRONMENT "RELIABILITY_IMAGES=4000")
endif()

# The peers (peers/, docs/performance.md#peers), lenet-tinydnn and lenet-dlib, each about a
# second on the real digits. Registered whether or not the peer was built: SKIPPED (77) when it
# was not.
foreach(peer tinydnn:tiny-dnn dlib:dlib)
  string(REPLACE ":" ";" peer "${peer}")
  list(GET peer 0 exe)
  list(GET peer 1 name)
  add_test(NAME "peers: lenet-${exe} starts as the spec, learns, reports"
    COMMAND bash ${_cli}/peers.sh ${PROJECT_BINARY_DIR}/peers/lenet-${exe}
            ${name} $<TARGET_FILE:lenet-serial> ${LENET_DATA_DIR}/digits 80)
  set_tests_properties("peers: lenet-${exe} starts as the spec, learns, reports" PROPERTIES
    LABELS "peers" SKIP_RETURN_CODE 77 TIMEOUT 60 ENVIRONMENT "OPENBLAS_NUM_THREADS=1")
endforeach()

# The scripts (label scripts): what the set-up installs and leaves enabled; the run CSV's one
# reader (reports/runs.py, which the scripts reach through lib.sh's csv_get and csv_rows): a
# GPU's device name with a comma and quotes in a real lenet-serial row, empty fields, CRLF, no
# rows, a missing column or file; run_scripts/mpi_launch.sh's flags for each MPI family, without
# an MPI.
add_test(NAME "setup: main.sh installs no Slurm, munge, SimGrid or peer package"
  COMMAND bash ${_cli}/setup_checks.sh list ${PROJECT_SOURCE_DIR}/run_scripts/setup.sh)
add_test(NAME "setup: no munge, slurmctld or slurmd service enabled on this machine"
  COMMAND bash ${_cli}/setup_checks.sh services ${PROJECT_SOURCE_DIR}/run_scripts/setup.sh)
add_test(NAME "scripts: the CSV reader reads quoted device names, empty fields and CRLF"
  COMMAND bash ${_cli}/csv_reader.sh ${LENET_SERIAL_EXE} ${LENET_TEST_DATA})
set_tests_properties("setup: main.sh installs no Slurm, munge, SimGrid or peer package"
  "setup: no munge, slurmctld or slurmd service enabled on this machine" PROPERTIES
  LABELS "scripts")
# Label csv-reader: the Debian 13 root runs it on that Python (tests/portability/debian13.sh).
set_tests_properties("scripts: the CSV reader reads quoted device names, empty fields and CRLF"
  PROPERTIES LABELS "scripts;csv-reader")
add_test(NAME "scripts: mpi_launch.sh gives each MPI family its own flags"
  COMMAND bash ${_cli}/mpi_launch_test.sh ${PROJECT_SOURCE_DIR}/run_scripts/mpi_launch.sh)
set_tests_properties("scripts: mpi_launch.sh gives each MPI family its own flags" PROPERTIES
  LABELS "scripts;mpi")

# An installed copy's thread and rank sweeps (cmake --install, docs/sweeps.md) find its programs
# and write their reports, run from another folder.
add_test(NAME "scripts: the installed omp_sweep.sh and mpi_sweep.sh run from their prefix"
  COMMAND bash ${_cli}/installed_sweeps.sh ${PROJECT_BINARY_DIR} ${LENET_TEST_DATA})
set_tests_properties("scripts: the installed omp_sweep.sh and mpi_sweep.sh run from their prefix"
  PROPERTIES LABELS "scripts" TIMEOUT 900)

# lenet-bench-layers prints what docs/performance.md reads: the CPU, the measured peak, the
# sigmoids' ceiling and each kernels' whole sample (what is printed, not how fast).
if(TARGET lenet-bench-layers)
  add_test(NAME "bench: lenet-bench-layers reports the peak, the ceiling and every kernels"
    COMMAND bash ${_cli}/bench_layers.sh $<TARGET_FILE:lenet-bench-layers> ${LENET_SERIAL_EXE})
  set_tests_properties("bench: lenet-bench-layers reports the peak, the ceiling and every kernels"
    PROPERTIES LABELS "bench;cli" TIMEOUT 600)
  # experiments/epoch_budget.sh, which reads that bench's rows beside lenet-serial's epochs.
  add_test(NAME "scripts: epoch_budget.sh refuses bad flags and prints each kernels' ratio"
    COMMAND bash ${_cli}/epoch_budget.sh ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}
    ${LENET_TEST_DATA})
  set_tests_properties("scripts: epoch_budget.sh refuses bad flags and prints each kernels' ratio"
    PROPERTIES LABELS "scripts;bench" TIMEOUT 600)
endif()
