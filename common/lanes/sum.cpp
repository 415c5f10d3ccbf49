// The chunk's gradient sum: each sample's gradient added to chunk_sum, parameter by parameter in
// sample order, as the per-sample adapter adds its samples' (docs/network.md). Each group's
// per-lane values are first transposed (transpose.hpp), a block of kLanes parameters at a time,
// so that sample s's values lie in one vector and the sums run along the parameters.
// dW3[k][n] = d3[k] * a2[n] of each sample is formed here, as its rounded product, then added:
// this file is compiled without FMA contraction (common/CMakeLists.txt),
// which would fuse the two and round once, as ref's per-sample dW3 does not.
#include <algorithm>

#include "lanes_kernels.hpp"
#include "transpose.hpp"

namespace lenet {

using lanes::kLanes;
using lanes::vfloat;

namespace {

// to[s][i] = from[i] lane s, for i < count (a whole number of blocks), s < kLanes.
template <int Count>
void samples_in_rows(const vfloat* from, float (&to)[kLanes][Count]) {
  static_assert(Count % kLanes == 0);
  for (int i = 0; i < Count; i += kLanes) {
    vfloat block[kLanes];
    std::copy_n(from + i, kLanes, block);
    lanes::transpose(block);
    for (int s = 0; s < kLanes; ++s)
      simd::store(&to[s][i], block[s]);
  }
}

}  // namespace

void LanesKernels::add_gradients(int /*first*/, float* chunk_sum) {
  for (int q = 0; q < used_; ++q) {
    const lanes::Lanes& g = groups_[q];
    const int samples = std::min(kLanes, n_ - q * kLanes);  // this group's, in lanes 0, 1, ...
    float grad[kLanes][simd::padded(kW3)];                  // dW1, db1, dW2, db2
    float a2[kLanes][simd::padded(kS1Size)];
    float d3[kLanes][simd::padded(kClasses)];
    samples_in_rows(g.grad, grad);
    samples_in_rows(g.a2, a2);
    samples_in_rows(g.d3, d3);
    for (int s = 0; s < samples; ++s) {
      for (int i = 0; i < kW3; ++i)
        chunk_sum[i] += grad[s][i];
      for (int k = 0; k < kClasses; ++k) {
        float* dW3 = chunk_sum + kW3 + k * kS1Size;
        for (int i = 0; i < kS1Size; ++i)
          dW3[i] += d3[s][k] * a2[s][i];
        chunk_sum[kB3 + k] += d3[s][k];
      }
    }
  }
}

}  // namespace lenet
