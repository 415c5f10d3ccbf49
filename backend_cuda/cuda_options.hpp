// lenet-cuda's own flags: --kernels (v1, v2 or fused: docs/cuda.md) and --device.
#pragma once

#include <memory>

#include "../common/backend.hpp"
#include "../common/options.hpp"
#include "cuda_backend.hpp"

namespace lenet {

void add_cuda_options(CLI::App& app, CudaOptions& o);

// The backend for the common options' batch size and --timing; throws lenet::Error (exit code
// 2) when there is no usable GPU.
std::unique_ptr<Backend> make_cuda_backend(CudaOptions o, const Options& common);

}  // namespace lenet
