# The course lab kit (run_scripts/lab.sh, docs/labs.md). `lab.sh grade N DIR` runs the tests
# labelled labN; labs 1, 2 and 4 tag their Catch2 tests (tests/openmp.cmake, tests/CMakeLists.txt),
# the MPI and CUDA tests get their label here.
foreach(t "mpi: [vectors] on 2 ranks" "mpi: [allreduce] on 2 ranks" "mpi: [exact] on 2 ranks"
          "mpi: [hybrid] on 2 ranks")
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

# The kit itself: for every lab, the starter builds and the grader reports its checks as failed
# (a starter that passes its own checks is a broken lab), and the solution passes them all; for
# lab 1, a race in the reduction is caught and a starter solved by hand gets full points. The
# gradings share one build cache (build-lab/ in the source tree), one at a time.
set(_labkit bash ${CMAKE_CURRENT_SOURCE_DIR}/labkit_test.sh ${PROJECT_SOURCE_DIR})
set(_labkit_tests "")
foreach(n 1 2 3 4 5)
  add_test(NAME "labkit: lab ${n}, the solution passes and the starter fails its checks"
    COMMAND ${_labkit} ${n})
  list(APPEND _labkit_tests "labkit: lab ${n}, the solution passes and the starter fails its checks")
endforeach()
add_test(NAME "labkit: lab 1, a race is caught and a hand-solved starter gets full points"
  COMMAND ${_labkit} 1 race-and-solved)
list(APPEND _labkit_tests "labkit: lab 1, a race is caught and a hand-solved starter gets full points")
set_tests_properties(${_labkit_tests} PROPERTIES LABELS labkit SKIP_RETURN_CODE 77
  RESOURCE_LOCK lab-cache TIMEOUT 1800)
