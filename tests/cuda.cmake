# The CUDA backend's tests (included by tests/CMakeLists.txt when lenet_cuda is built). They need
# a GPU: without one, lenet_cuda_tests prints "SKIPPED: no CUDA device (...)" and exits 77, which
# CTest shows as skipped, and the command-line test checks the one-line "no CUDA device" error
# instead, so it passes on any machine.
add_executable(lenet_cuda_tests test_cuda.cpp test_cuda_main.cpp)
target_link_libraries(lenet_cuda_tests PRIVATE
  lenet_cuda lenet_serial lenet_test_support Catch2::Catch2)
# One CTest test for the whole executable: test discovery would run it at build time, where
# there may be no GPU.
add_test(NAME "cuda: kernels match PyTorch, serial and each other" COMMAND lenet_cuda_tests)
set_tests_properties("cuda: kernels match PyTorch, serial and each other" PROPERTIES
  LABELS "cuda" SKIP_RETURN_CODE 77)

add_test(NAME "cli: lenet-cuda trains, or says there is no GPU"
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_cuda_cli.sh $<TARGET_FILE:lenet-cuda>
          $<TARGET_FILE:lenet-serial> ${CMAKE_CURRENT_SOURCE_DIR}/vectors/data)
set_tests_properties("cli: lenet-cuda trains, or says there is no GPU" PROPERTIES
  LABELS "cuda;cli")
