// The chunk's gradient sum: chunk_sum = ((0 + g_0) + g_1) + ... + g_(n-1), parameter by
// parameter in sample order, as chunk_gradient adds the gradients of one-sample kernels
// (docs/network.md). dW3[k][n] = d3[k] * a2[n] of each sample is formed here, as its rounded
// product, then added: this file is compiled without FMA contraction (common/CMakeLists.txt),
// which would fuse the two and round once, as ref's per-sample dW3 does not.
#include <algorithm>

#include "lanes_kernels.hpp"

namespace lenet {

void LanesKernels::sum_gradients(int n, float* chunk_sum) const {
  std::fill(chunk_sum, chunk_sum + kParamCount, 0.0f);
  for (int s = 0; s < n; ++s) {
    const lanes::Lanes& g = groups_[s / lanes::kLanes];
    const int l = s % lanes::kLanes;
    // The tensors each lane holds whole.
    for (int k = 0; k < kW1Size; ++k)
      chunk_sum[kW1 + k] += g.dW1[k][l];
    for (int k = 0; k < kB1Size; ++k)
      chunk_sum[kB1 + k] += g.db1[k][l];
    for (int k = 0; k < kW2Size; ++k)
      chunk_sum[kW2 + k] += g.dW2[k][l];
    chunk_sum[kB2] += g.db2[l];
    // dW3 and db3 = d3, from sample s's a2 and d3, its a2 taken out of its lane first so that
    // the loop over n runs along contiguous floats.
    float a2[kS1Size];
    for (int i = 0; i < kS1Size; ++i)
      a2[i] = g.a2[i][l];
    for (int k = 0; k < kClasses; ++k) {
      const float d3 = g.d3[k][l];
      float* dW3 = chunk_sum + kW3 + k * kS1Size;
      for (int i = 0; i < kS1Size; ++i)
        dW3[i] += d3 * a2[i];
      chunk_sum[kB3 + k] += d3;
    }
  }
}

}  // namespace lenet
