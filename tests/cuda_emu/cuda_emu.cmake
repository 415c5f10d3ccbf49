# The CUDA backend's tests without a GPU (label cuda-emulated; docs/cuda.md, "Tests without a
# GPU"): backend_cuda's .cu files, unchanged but for the launch syntax (translate.cmake),
# compiled by the host compiler against a CPU stand-in for the CUDA runtime (include/, runtime.cpp)
# in which every CUDA thread is a fiber. Needs no nvcc and no GPU; what passes here is EMULATED.
if(LENET_CUDA STREQUAL "OFF")
  message(STATUS "lenet: emulated CUDA tests not built: LENET_CUDA=OFF (no CUDA code at all)")
  return()
endif()
if(NOT CMAKE_SYSTEM_NAME STREQUAL "Linux" OR LENET_SANITIZE OR LENET_FUZZ)
  message(STATUS "lenet: emulated CUDA tests not built (they need Linux and no sanitizer: the "
    "fibers switch stacks)")
  return()
endif()
message(STATUS "lenet: emulated CUDA tests built (label cuda-emulated, no GPU needed)")
set(emu ${CMAKE_CURRENT_LIST_DIR})
set(cuda_src ${PROJECT_SOURCE_DIR}/backend_cuda)
include(${cuda_src}/sources.cmake)
include(${emu}/mutants.cmake)

add_library(cuda_emu STATIC ${emu}/runtime.cpp)
target_include_directories(cuda_emu PUBLIC ${emu}/include)

# lenet_cuda_emu_translate(<out-var> <source.cu> <output.cpp> <mutant or "">): the C++
# translation of a CUDA source.
function(lenet_cuda_emu_translate out cu cpp mutant)
  add_custom_command(OUTPUT ${cpp}
    COMMAND ${CMAKE_COMMAND} -DIN=${cu} -DOUT=${cpp} -DMUTANT=${mutant} -P ${emu}/translate.cmake
    DEPENDS ${cu} ${emu}/translate.cmake ${emu}/mutants.cmake
    COMMENT "cuda_emu: translating ${cu}" VERBATIM)
  # Its includes are found from the .cu file's own folder; cuda_runtime.h first, as nvcc does.
  get_filename_component(folder ${cu} DIRECTORY)
  set_source_files_properties(${cpp} PROPERTIES INCLUDE_DIRECTORIES ${folder}
    COMPILE_OPTIONS "-include;cuda_runtime.h")
  set(${out} ${cpp} PARENT_SCOPE)
endfunction()

set(emu_sources)
foreach(cu ${LENET_CUDA_SOURCES})
  lenet_cuda_emu_translate(cpp ${cuda_src}/${cu} ${CMAKE_CURRENT_BINARY_DIR}/cuda_emu/${cu}.cpp "")
  list(APPEND emu_sources ${cpp})
endforeach()
add_library(lenet_cuda_emu STATIC ${emu_sources})
target_link_libraries(lenet_cuda_emu PUBLIC lenet_common cuda_emu)
add_executable(lenet-cuda-emu ${cuda_src}/main.cpp ${cuda_src}/cuda_options.cpp)
target_link_libraries(lenet-cuda-emu PRIVATE lenet_cuda_emu)

# The CUDA test suite of a GPU (tests/unit/test_cuda.cpp, unchanged), one CTest test per case so
# that they run in parallel; the main says EMULATED. Seed 2: a shuffled order with warps running
# ahead. Tests tagged [lab5] grade lab 5 without a GPU (labels lab5-emulated, and
# lab5-emulated-vectors for the lab kit's check of them).
add_executable(lenet_cuda_emu_tests ${PROJECT_SOURCE_DIR}/tests/unit/test_cuda.cpp
  ${emu}/test_main.cpp)
target_link_libraries(lenet_cuda_emu_tests PRIVATE
  lenet_cuda_emu lenet_serial lenet_test_support lenet_catch2)
lenet_catch_tests(lenet_cuda_emu_tests PREFIX "cuda-emulated: " SPEC "[lab5]"
  LABELS "cuda-emulated;lab5-emulated;lab5-emulated-vectors" ENVIRONMENT "CUDA_EMU_SEED=2")
lenet_catch_tests(lenet_cuda_emu_tests PREFIX "cuda-emulated: " SPEC "~[lab5]"
  LABELS "cuda-emulated" ENVIRONMENT "CUDA_EMU_SEED=2")

# The emulation's own checks (each kind of bug it must catch) and the backend's error paths.
lenet_cuda_emu_translate(probes_cpp ${emu}/probes.cu ${CMAKE_CURRENT_BINARY_DIR}/cuda_emu/probes.cu.cpp
  "")
add_executable(cuda_emu_selftests ${emu}/test_emulation.cpp ${emu}/test_hardening.cpp
  ${probes_cpp} ${emu}/test_main.cpp)
target_include_directories(cuda_emu_selftests PRIVATE ${emu})
target_link_libraries(cuda_emu_selftests PRIVATE
  lenet_cuda_emu lenet_test_support lenet_catch2)
lenet_catch_tests(cuda_emu_selftests PREFIX "cuda-emulated: " LABELS "cuda-emulated")

# lenet-cuda-emu against lenet-serial, one epoch at B = 1, 7, 33, 100, 128 and 499, each with a
# last batch of one sample, in shuffled orders; and the same bits in four orders.
set(train_check bash ${emu}/train_check.sh $<TARGET_FILE:lenet-serial>
  ${LENET_TEST_DATA})
# v1's is lab 5's too, without a GPU (label lab5-emulated).
foreach(version v1 v2 fused)
  set(_labels "cuda-emulated;cli")
  if(version STREQUAL "v1")
    list(APPEND _labels lab5-emulated)
  endif()
  add_test(NAME "cuda-emulated: lenet-cuda --kernels ${version} trains like serial, B = 1 to 499"
    COMMAND ${train_check} pass $<TARGET_FILE:lenet-cuda-emu> ${version})
  set_tests_properties("cuda-emulated: lenet-cuda --kernels ${version} trains like serial, B = 1 to 499"
    PROPERTIES LABELS "${_labels}" TIMEOUT 600)
endforeach()
add_test(NAME "cuda-emulated: lenet-cuda without a GPU says so in one line"
  COMMAND env CUDA_EMU_DEVICES=0 bash ${PROJECT_SOURCE_DIR}/tests/cli/test_cuda_cli.sh no-gpu
          $<TARGET_FILE:lenet-cuda-emu> $<TARGET_FILE:lenet-serial>
          ${LENET_TEST_DATA})
# The same where the CUDA libraries find no driver either (CUDA's own reason would be "CUDA
# driver version is insufficient for CUDA runtime version").
add_test(NAME "cuda-emulated: lenet-cuda without a GPU or a driver says so in one line"
  COMMAND env CUDA_EMU_DRIVER=none bash ${PROJECT_SOURCE_DIR}/tests/cli/test_cuda_cli.sh no-gpu
          $<TARGET_FILE:lenet-cuda-emu> $<TARGET_FILE:lenet-serial>
          ${LENET_TEST_DATA})
set_tests_properties("cuda-emulated: lenet-cuda without a GPU says so in one line"
  "cuda-emulated: lenet-cuda without a GPU or a driver says so in one line"
  PROPERTIES LABELS "cuda-emulated;cli")
# Bad flags and files, through lenet-cuda's own main: the driver's checks, before any work.
add_test(NAME "cuda-emulated: lenet-cuda rejects bad input"
  COMMAND bash ${PROJECT_SOURCE_DIR}/tests/cli/cli_errors.sh $<TARGET_FILE:lenet-cuda-emu>
          ${LENET_TEST_DATA})
set_tests_properties("cuda-emulated: lenet-cuda rejects bad input"
  PROPERTIES LABELS "cuda-emulated;cli" TIMEOUT 300)

# Each mutant: the backend with one deliberate bug (mutants.cmake) must fail its training check.
foreach(mutant no_a1_barrier last_sample)
  set(cu ${MUTANT_${mutant}_FILE})
  lenet_cuda_emu_translate(cpp ${cuda_src}/${cu}
    ${CMAKE_CURRENT_BINARY_DIR}/cuda_emu_mutant_${mutant}/${cu}.cpp ${mutant})
  add_library(cuda_emu_mutant_${mutant} OBJECT ${cpp})
  target_link_libraries(cuda_emu_mutant_${mutant} PRIVATE lenet_common cuda_emu)
  # The mutated object comes first, so the library's own copy of that file is never linked.
  add_executable(lenet-cuda-emu-${mutant} ${cuda_src}/main.cpp ${cuda_src}/cuda_options.cpp)
  target_link_libraries(lenet-cuda-emu-${mutant} PRIVATE cuda_emu_mutant_${mutant} lenet_cuda_emu)
  add_test(NAME "cuda-emulated: a mutant (${mutant}, ${cu}) fails the training check"
    COMMAND ${train_check} fail $<TARGET_FILE:lenet-cuda-emu-${mutant}>
            ${MUTANT_${mutant}_VERSION})
  set_tests_properties("cuda-emulated: a mutant (${mutant}, ${cu}) fails the training check"
    PROPERTIES LABELS "cuda-emulated;cli" TIMEOUT 600)
endforeach()

# experiments/gpu_check.sh needs a GPU; its plan and its argument checks do not.
add_test(NAME "cli: gpu_check.sh --dry-run prints its plan, rejects bad arguments"
  COMMAND bash -c "out=$(bash \"$0\" --dry-run) && for s in build tests memcheck racecheck \
synccheck 'bench B=128' 'bench B=1' notebook; do grep -q \"^  $s \" <<<\"$out\" || exit 1; done && \
! bash \"$0\" --device x 2>/dev/null" ${PROJECT_SOURCE_DIR}/experiments/gpu_check.sh)
set_tests_properties("cli: gpu_check.sh --dry-run prints its plan, rejects bad arguments"
  PROPERTIES LABELS "cli")
