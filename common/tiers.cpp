// The tier registry: which per-sample implementations this build has.
#include "error.hpp"
#include "ref/ref_kernels.hpp"
#include "simd/simd_kernels.hpp"
#include "tier.hpp"

namespace lenet {

std::vector<std::string> available_tiers() {
  return {"ref", "simd"};
}

std::unique_ptr<SampleKernels> make_kernels(const std::string& tier) {
  if (tier == "ref") return std::make_unique<RefKernels>();
  if (tier == "simd") return std::make_unique<SimdKernels>();
  throw Error("--kernels: unknown tier '" + tier + "' (this build has: ref, simd)");
}

}  // namespace lenet
