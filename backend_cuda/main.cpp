// lenet-cuda: the network on one NVIDIA GPU. Everything but "how to train a batch" is the shared
// driver's job (common/driver.hpp); --kernels picks the kernel version (docs/cuda.md).
#include "../common/driver.hpp"
#include "cuda_backend.hpp"

int main(int argc, char** argv) {
  lenet::CudaOptions cuda;
  lenet::BackendSpec spec;
  spec.program = "lenet-cuda";
  spec.add_options = [&](CLI::App& app) {
    app.add_option("--kernels", cuda.kernels, "CUDA kernel version (docs/cuda.md)")
        ->check(CLI::IsMember(lenet::cuda_kernel_versions()))
        ->capture_default_str();
    app.add_option("--device", cuda.device, "which GPU to use, numbered from 0")
        ->check(CLI::Range(0, 1 << 30))
        ->capture_default_str();
  };
  spec.create = [&](const lenet::Options& opts) {
    cuda.batch = opts.batch;
    cuda.timing = opts.timing;
    return lenet::make_cuda_backend(cuda);
  };
  return lenet::run_driver(argc, argv, spec);
}
