#include "cuda_options.hpp"

namespace lenet {

void add_cuda_options(CLI::App& app, CudaOptions& o) {
  app.add_option("--kernels", o.kernels, "the CUDA kernels (docs/cuda.md)")
      ->check(CLI::IsMember(cuda_kernel_versions()))
      ->capture_default_str();
  add_list_kernels_option(app, cuda_kernel_versions());
  app.add_option("--device", o.device, "which GPU to use, numbered from 0")
      ->check(CLI::Range(0, 1 << 30))
      ->capture_default_str();
}

std::unique_ptr<Backend> make_cuda_backend(CudaOptions o, const Options& common) {
  o.batch = common.batch;
  o.timing = common.timing;
  return make_cuda_backend(o);
}

}  // namespace lenet
