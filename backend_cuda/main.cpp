// lenet-cuda: the network on one NVIDIA GPU. Everything but "how to train a batch" is the shared
// driver's job (common/driver.hpp); --kernels picks the CUDA kernels (docs/cuda.md).
#include "../common/driver.hpp"
#include "cuda_options.hpp"

int main(int argc, char** argv) {
  lenet::CudaOptions cuda;
  lenet::BackendSpec spec;
  spec.program = "lenet-cuda";
  spec.add_options = [&](CLI::App& app) { lenet::add_cuda_options(app, cuda); };
  spec.create = [&](const lenet::Options& o) { return lenet::make_cuda_backend(cuda, o); };
  return lenet::run_driver(argc, argv, spec);
}
