#include "kernels_registry.hpp"

#include "error.hpp"
#include "lanes/lanes_kernels.hpp"
#include "per_sample.hpp"
#include "ref/ref_kernels.hpp"
#include "simd/simd_kernels.hpp"
#include "vec/vec.hpp"

namespace lenet {

// ref first, the one to learn from; the last is --kernels' default (options.cpp): the fastest
// per epoch on the build's target, as measured (docs/performance.md, "Two FMA units"): lanes with
// 16-float vectors (AVX-512: 1.28x simd on Sapphire Rapids, 1.07x on Zen 4), simd with 8 or 4
// (AVX2, SSE2: the two within 5% of each other, so the older default stays).
std::vector<std::string> available_kernels() {
  if constexpr (simd::kLanes >= 16) return {"ref", "simd", "lanes"};
  return {"ref", "lanes", "simd"};
}

std::unique_ptr<Kernels> make_kernels(const std::string& kernels) {
  if (kernels == "ref") return std::make_unique<PerSample>(std::make_unique<RefKernels>());
  if (kernels == "lanes") return std::make_unique<LanesKernels>();
  if (kernels == "simd") return std::make_unique<PerSample>(std::make_unique<SimdKernels>());
  throw Error("--kernels: unknown kernels '" + kernels + "' (this build has: ref, lanes, simd)");
}

}  // namespace lenet
