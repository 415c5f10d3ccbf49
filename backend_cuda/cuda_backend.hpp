// The CUDA backend: the network on one NVIDIA GPU, with the kernel version chosen by --kernels
// (backend_cuda/version.cuh lists them; docs/cuda.md explains them). Plain C++: main.cpp and the
// tests include it without nvcc.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "../common/backend.hpp"

namespace lenet {

struct CudaOptions {
  std::string kernels = "fused";  // v1, v2 or fused
  int device = 0;                 // which GPU (cudaSetDevice numbering)
  int batch = 32;                 // the expected batch size: work space is allocated up front
  bool timing = false;            // --timing will be on (the summary's launch count)
};

// The kernel versions, in the order they are explained.
std::vector<std::string> cuda_kernel_versions();

// Throws lenet::Error (exit code 2) when there is no usable GPU or `device` is not one of them.
std::unique_ptr<Backend> make_cuda_backend(const CudaOptions& options);

}  // namespace lenet
