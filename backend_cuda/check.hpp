// Every CUDA call and every kernel launch is checked: a failure becomes a lenet::Error whose one
// line names the call, its file and line, and CUDA's own description of the error.
#pragma once

#include <cuda_runtime.h>

namespace lenet::cuda {

[[noreturn]] void fail(cudaError_t err, const char* call, const char* file, int line);

inline void check(cudaError_t err, const char* call, const char* file, int line) {
  if (err != cudaSuccess) fail(err, call, file, line);
}

}  // namespace lenet::cuda

#define CUDA_CHECK(call) ::lenet::cuda::check((call), #call, __FILE__, __LINE__)

// A launch reports a bad configuration (too many threads, too much shared memory) through
// cudaGetLastError, not through a return value: call this right after every <<<...>>>.
#define CUDA_CHECK_LAUNCH() \
  ::lenet::cuda::check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
