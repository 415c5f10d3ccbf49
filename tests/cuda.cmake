# The CUDA backend's tests (included by tests/CMakeLists.txt when lenet_cuda is built). They need
# a GPU: without one, lenet_cuda_tests and the command-line training test print "SKIPPED: ..."
# and exit 77, which CTest shows as skipped. The no-GPU test checks the one-line "no CUDA
# device" error, and is the one skipped where a GPU is present.
add_executable(lenet_cuda_tests test_cuda.cpp test_cuda_main.cpp)
target_link_libraries(lenet_cuda_tests PRIVATE
  lenet_cuda lenet_serial lenet_test_support lenet_catch2)
# One CTest test for the whole executable: test discovery would run it at build time, where
# there may be no GPU.
add_test(NAME "cuda: kernels match PyTorch, serial and each other" COMMAND lenet_cuda_tests)
set_tests_properties("cuda: kernels match PyTorch, serial and each other" PROPERTIES
  LABELS "cuda" SKIP_RETURN_CODE 77)

set(cuda_cli bash ${CMAKE_CURRENT_SOURCE_DIR}/test_cuda_cli.sh)
set(cuda_cli_args $<TARGET_FILE:lenet-cuda> $<TARGET_FILE:lenet-serial>
  ${CMAKE_CURRENT_SOURCE_DIR}/vectors/data)
add_test(NAME "cli: lenet-cuda without a GPU says so in one line"
  COMMAND ${cuda_cli} no-gpu ${cuda_cli_args})
add_test(NAME "cli: lenet-cuda trains each kernel version, verified against serial"
  COMMAND ${cuda_cli} train ${cuda_cli_args})
set_tests_properties("cli: lenet-cuda without a GPU says so in one line"
  "cli: lenet-cuda trains each kernel version, verified against serial"
  PROPERTIES LABELS "cuda;cli" SKIP_RETURN_CODE 77)

# One CUDA runtime on the link line, the static one (backend_cuda/CMakeLists.txt): lenet-cuda
# must not depend on libcudart.so.
add_test(NAME "cuda: lenet-cuda links the static CUDA runtime only"
  COMMAND bash -c "ldd \"$0\" >/dev/null && ! ldd \"$0\" | grep libcudart" $<TARGET_FILE:lenet-cuda>)
set_tests_properties("cuda: lenet-cuda links the static CUDA runtime only" PROPERTIES LABELS "cuda")
