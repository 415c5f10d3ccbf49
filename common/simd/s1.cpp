// S1: learnable pooling, ONE 4x4 kernel and ONE bias shared by all 6 maps, stride 4, sigmoid.
//   forward:  z2[m][i][j] = b2 + sum_{u,v} W2[u][v] * a1[m][4i+u][4j+v]      a2 = sigmoid(z2)
//   backward: d2 = dloss/dz2 comes from F;
//             dW2[u][v] = sum_{m,i,j} d2[m][i][j] * a1[m][4i+u][4j+v]        db2 = sum d2
//             d1[m][4i+u][4j+v] = W2[u][v] * d2[m][i][j] * a1 * (1 - a1)
// The 4x4 windows of one output row (m, i) are 4 rows of 24 a1 values: a "band" b = 6 m + i,
// at a1 + 96 b. Along a band row, column c belongs to window j = c / 4 at kernel column
// v = c % 4, so a vector of columns starting at a multiple of 4 sees the pattern
// W2[u][0..3] repeated: the kernel row tiled across the lanes.
#include <algorithm>

#include "../vec/exp_vectors.hpp"
#include "simd_kernels.hpp"

namespace lenet {

using namespace simd;

namespace {

constexpr int kBand = kS1Kernel * kC1Side;  // 96 a1 values per output row (m, i)
constexpr int kBands = kC1Maps * kS1Side;   // 36

// A band row (24 columns) as whole vectors (vec.hpp's vector_start): with 16 lanes, at columns
// 0 and 8, overlapping in columns 8..15.
constexpr int kColumnVectors = vectors_in_row(kC1Side);
static_assert(kC1Side % kS1Kernel == 0 && kLanes % kS1Kernel == 0);

// tile[u] lane l = W2[u][l % 4].
void tile_kernel_rows(const float* W2, vfloat tile[kS1Kernel]) {
  for (int u = 0; u < kS1Kernel; ++u) {
    for (int l = 0; l < kLanes; ++l)
      tile[u][l] = W2[u * kS1Kernel + l % kS1Kernel];
  }
}

// LAB 4 BEGIN: helpers of S1 forward
// Lane l of the result = a[2l] + a[2l+1], reading a and b as one vector of 2 * kLanes lanes.
vfloat add_pairs(vfloat a, vfloat b) {
  const auto even = [](int l) { return 2 * l; };
  const auto odd = [](int l) { return 2 * l + 1; };
  return shuffle(a, b, even) + shuffle(a, b, odd);
}
// LAB 4 END

}  // namespace

// LAB 4 BEGIN: S1 forward with explicit vectors
void SimdKernels::s1_forward(const float* params) {
  const float* W2 = params + kW2;
  const float b2 = params[kB2];
  vfloat tile[kS1Kernel];
  tile_kernel_rows(W2, tile);
  // 1. Down the 4 rows of each band: rows[b][c] = sum_u W2[u][c % 4] * a1[b][u][c].
  for (int b = 0; b < kBands; ++b) {
    for (int k = 0; k < kColumnVectors; ++k) {
      const float* a1 = a1_ + b * kBand + vector_start(k, kC1Side);
      vfloat sum = tile[0] * load(a1);
      for (int u = 1; u < kS1Kernel; ++u)
        sum += tile[u] * load(a1 + u * kC1Side);
      store(rows_ + b * kC1Side + vector_start(k, kC1Side), sum);
    }
  }
  // 2. Across each window's 4 columns: z2[n] = b2 + rows[4n] + ... + rows[4n + 3], where
  // n = 6 b + j; 4 vectors of row sums give one vector of z2.
  for (int n = 0; n < kS1Size; n += kLanes) {
    const float* r = rows_ + 4 * n;
    const vfloat z = b2 + add_pairs(add_pairs(load(r), load(r + kLanes)),
                                    add_pairs(load(r + 2 * kLanes), load(r + 3 * kLanes)));
    store(z2_ + n, z);
  }
  // The sigmoids in a pass of their own, several vectors at a time (exp_vectors.hpp).
  sigmoids(z2_, a2_, padded(kS1Size));
}
// LAB 4 END

void SimdKernels::s1_backward(const float* params, float* grad) {
  const float* W2 = params + kW2;
  vfloat tile[kS1Kernel];
  tile_kernel_rows(W2, tile);
  // Lane l of a column vector starting at c0 needs d2 of window j = (c0 + l) / 4: load from
  // d2 + c0 / 4 and repeat each lane 4 times.
  const auto repeat4 = [](int l) { return l / 4; };
  vfloat dw[kS1Kernel] = {};  // lane-wise partial sums of dW2[u][l % 4]
  for (int b = 0; b < kBands; ++b) {
    for (int k = 0; k < kColumnVectors; ++k) {
      const int c0 = vector_start(k, kC1Side);
      // Columns an earlier, overlapping vector of this row already counted add 0 to dW2.
      const vint counted = fresh(k, kC1Side);
      const vfloat d2 = shuffle(load(d2_ + b * kS1Side + c0 / kS1Kernel), repeat4);
      for (int u = 0; u < kS1Kernel; ++u) {
        const int at = b * kBand + u * kC1Side + c0;
        const vfloat a1 = load(a1_ + at);
        const vfloat d2a1 = d2 * a1;
        dw[u] += counted ? d2a1 : 0.0f;
        store(d1_ + at, tile[u] * d2a1 * (1.0f - a1));
      }
    }
  }
  float* dW2 = grad + kW2;
  for (int u = 0; u < kS1Kernel; ++u) {
    for (int v = 0; v < kS1Kernel; ++v)
      dW2[u * kS1Kernel + v] = 0.0f;
    for (int l = 0; l < kLanes; ++l)
      dW2[u * kS1Kernel + l % kS1Kernel] += dw[u][l];
  }
  // db2: d2's pad lanes are 0.
  vfloat db = {};
  for (int n = 0; n < kS1Size; n += kLanes)
    db += load(d2_ + n);
  grad[kB2] = hsum(db);
}

}  // namespace lenet
