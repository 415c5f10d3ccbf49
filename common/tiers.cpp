// The tier registry: which per-sample implementations this build has.
#include "error.hpp"
#include "ref/ref_kernels.hpp"
#include "tier.hpp"

namespace lenet {

std::vector<std::string> available_tiers() { return {"ref"}; }

std::unique_ptr<SampleKernels> make_kernels(const std::string& tier) {
  if (tier == "ref") return std::make_unique<RefKernels>();
  throw Error("--kernels: unknown tier '" + tier + "' (this build has: ref)");
}

}  // namespace lenet
