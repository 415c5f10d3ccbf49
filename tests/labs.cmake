# The course lab kit (labkit/, docs/labs.md). The labels let a student run a lab's tests by hand
# (`ctest -L lab3`); the grader picks its tests by name from each lab's manifest
# (labkit/labs/labN.json). Labs 1, 2 and 4 tag their Catch2 tests (tests/openmp.cmake,
# tests/CMakeLists.txt); the MPI and CUDA tests get their label here.
foreach(t "mpi: [allreduce] on 2 ranks" "mpi: [exact] on 2 ranks" "mpi: [allreduce] on 3 ranks"
          "mpi: [exact] on 3 ranks" "mpi: [allreduce] on 4 ranks" "mpi: [exact] on 4 ranks")
  if(TEST "${t}")
    set_property(TEST "${t}" APPEND PROPERTY LABELS lab3)
  endif()
endforeach()
# Without a GPU, lab 5 is graded on the CPU emulation (tests/cuda_emu): v1 against serial over an
# epoch here, and the PyTorch vectors (the Catch2 case tagged [lab5], tests/cuda_emu/cuda_emu.cmake).
if(TEST "cuda-emulated: lenet-cuda --kernels v1 trains like serial, B = 1 to 499")
  set_property(TEST "cuda-emulated: lenet-cuda --kernels v1 trains like serial, B = 1 to 499"
    APPEND PROPERTY LABELS lab5-emulated)
endif()
if(TEST "cuda: kernels match PyTorch, serial and each other")
  set_property(TEST "cuda: kernels match PyTorch, serial and each other" APPEND PROPERTY
    LABELS lab5)
endif()

# The kit itself (labkit/tests/test_labkit.py): with no build, the manifests, handouts,
# starters and refusals; then, per lab, submissions the test writes (correct ones written
# otherwise, tampered tests, serial or scalar, hangs and deadlocks), and the platforms' outputs.
# The gradings share one build cache, one at a time.
# A starter (lab.sh start) has the kit but not its tests, which hold correct submissions.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/labkit/tests/test_labkit.py)
  set(_labkit ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/labkit/tests/test_labkit.py)
  add_test(NAME "labkit: manifests, handouts, starters without answers, refusals"
    COMMAND ${_labkit} kit)
  set(_labkit_tests "labkit: manifests, handouts, starters without answers, refusals")
  foreach(n 1 2 3 4 5)
    add_test(NAME "labkit: lab ${n} graded, sealed and bounded" COMMAND ${_labkit} lab ${n})
    list(APPEND _labkit_tests "labkit: lab ${n} graded, sealed and bounded")
  endforeach()
  add_test(NAME "labkit: Gradescope, PrairieLearn and GitHub Classroom results"
    COMMAND ${_labkit} platforms)
  list(APPEND _labkit_tests "labkit: Gradescope, PrairieLearn and GitHub Classroom results")
  # COST: the gradings, one at a time, are the suite's longest chain (about 20 minutes on 2
  # cores): they start first, and the other tests fill the other core beside them.
  set_tests_properties(${_labkit_tests} PROPERTIES LABELS labkit SKIP_RETURN_CODE 77
    RESOURCE_LOCK lab-cache TIMEOUT 1800 COST 1000)
endif()
