// The kernels registry: which per-sample implementations this build has.
#include "kernels.hpp"

#include "error.hpp"
#include "lanes/lanes_kernels.hpp"
#include "ref/ref_kernels.hpp"
#include "simd/simd_kernels.hpp"

namespace lenet {

// ref first, the one to learn from; the last is --kernels' default (options.cpp).
std::vector<std::string> available_kernels() {
  return {"ref", "lanes", "simd"};
}

std::unique_ptr<SampleKernels> make_kernels(const std::string& kernels) {
  if (kernels == "ref") return std::make_unique<RefKernels>();
  if (kernels == "lanes") return std::make_unique<LanesKernels>();
  if (kernels == "simd") return std::make_unique<SimdKernels>();
  throw Error("--kernels: unknown kernels '" + kernels + "' (this build has: ref, lanes, simd)");
}

}  // namespace lenet
