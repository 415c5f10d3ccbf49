// The CUDA tests' main: without a usable GPU there is nothing to run, so it says why and exits
// with 77, which CTest reports as SKIPPED (SKIP_RETURN_CODE in tests/unit/unit.cmake).
#define CATCH_CONFIG_RUNNER
#include <cuda_runtime.h>

#include <cstdio>

#include "catch.hpp"

int main(int argc, char** argv) {
  int devices = 0;
  const cudaError_t err = cudaGetDeviceCount(&devices);
  if (err != cudaSuccess || devices == 0) {
    std::printf("SKIPPED: no CUDA device (%s)\n",
                err != cudaSuccess ? cudaGetErrorString(err) : "cudaGetDeviceCount found none");
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
