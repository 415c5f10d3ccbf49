// C1: 6 filters 5x5 over the 28x28 input, stride 1, no padding, then a sigmoid.
//   forward:  z1[m][i][j] = b1[m] + sum_{u,v} W1[m][u][v] * x[i+u][j+v]      a1 = sigmoid(z1)
//   backward: d1 = dloss/dz1, S1's: d1[m][4i'+u][4j'+v] = W2[u][v] * d2[m][i'][j'] * a1 * (1 - a1),
//             made here a column at a time where it is used (s1.cpp says why);
//             dW1[m][u][v] = sum_{i,j} d1[m][i][j] * x[i+u][j+v]            db1[m] = sum d1[m]
// Each lane is one sample, so these are ref's loops (common/ref/c1.cpp) with a vector for every
// float, and each sum taken in ref's order: z1 tap by tap in (u, v) order; dW1 and db1 as ref's
// partial sums over i, one per column j, then those added in j order. C1 is 93% of the
// multiply-adds: the loops are blocked so that each vector loaded feeds several multiply-adds.
#include "../vec/exp_vectors.hpp"
#include "layers.hpp"

namespace lenet::lanes {

using simd::kVectorRegisters;

namespace {

// Forward: kFwdMaps maps x kFwdCols output columns summed in registers, all 25 taps: per tap
// kFwdMaps weight broadcasts and (sliding along the row) about one load of x feed
// kFwdMaps * kFwdCols independent multiply-adds, 12 in flight with 32 registers. Measured and
// predicted (experiments/mca.sh, docs/performance.md), with 32 registers: 6 x 4 spilled two
// accumulators on every tap (GCC 12, AVX-512), 6 x 3 spilled on AArch64 (llvm-mca: 2x the
// cycles on Neoverse V2); 3 x 4 was the fastest on the Sapphire Rapids machine and for
// llvm-mca's Neoverse V2, within 7% of 2 x 6 for its Zen 4. With 16 registers, 3 x 3.
constexpr int kFwdMaps = 3;
constexpr int kFwdCols = kVectorRegisters >= 32 ? 4 : 3;
// Backward: kBwdMaps maps x the 5 taps of one kernel row u, for one column j, summed over i in
// registers: per row i, 5 loads of x and kBwdMaps of d1 feed 5 kBwdMaps multiply-adds.
constexpr int kBwdMaps = 3;

static_assert(kC1Maps % kFwdMaps == 0 && kC1Side % kFwdCols == 0 && kC1Maps % kBwdMaps == 0);

}  // namespace

void c1_forward(const float* params, Lanes& g) {
  const float* W1 = params + kW1;
  const float* b1 = params + kB1;
  for (int m0 = 0; m0 < kC1Maps; m0 += kFwdMaps) {
    for (int i = 0; i < kC1Side; ++i) {
      for (int j0 = 0; j0 < kC1Side; j0 += kFwdCols) {
        vfloat z[kFwdMaps][kFwdCols];
        for (int m = 0; m < kFwdMaps; ++m) {
          for (int c = 0; c < kFwdCols; ++c)
            z[m][c] = simd::splat(b1[m0 + m]);
        }
        for (int u = 0; u < kC1Kernel; ++u) {
          for (int v = 0; v < kC1Kernel; ++v) {
            vfloat w[kFwdMaps];
            for (int m = 0; m < kFwdMaps; ++m)
              w[m] = simd::splat(W1[((m0 + m) * kC1Kernel + u) * kC1Kernel + v]);
            const vfloat* x = g.x + (i + u) * kImageSide + j0 + v;
            for (int c = 0; c < kFwdCols; ++c) {
              const vfloat xc = simd::in_register(x[c]);
              for (int m = 0; m < kFwdMaps; ++m)
                z[m][c] += w[m] * xc;
            }
          }
        }
        for (int m = 0; m < kFwdMaps; ++m) {
          for (int c = 0; c < kFwdCols; ++c)
            g.z1[(m0 + m) * kC1MapSize + i * kC1Side + j0 + c] = z[m][c];
        }
      }
      // The row's sigmoids while it is in the L1 cache (z1 and a1 are 221 KB each with 16
      // lanes, more than L1 holds), several vectors at a time (vec/exp_vectors.hpp: each lane
      // gets what ref's scalar sigmoid gives).
      for (int m = m0; m < m0 + kFwdMaps; ++m) {
        const int row = m * kC1MapSize + i * kC1Side;
        simd::sigmoids(reinterpret_cast<const float*>(g.z1 + row),
                       reinterpret_cast<float*>(g.a1 + row), kC1Side * kLanes);
      }
    }
  }
}

void c1_backward(const float* params, Lanes& g) {
  const float* W2 = params + kW2;
  // sum_w[m][u][v] and sum_b[m]: ref's final sums over the columns j, in j order.
  vfloat sum_w[kC1Maps][kC1Kernel][kC1Kernel] = {};
  vfloat sum_b[kC1Maps] = {};
  // Column j outside the kernel row u: the d1 column of the kBwdMaps maps and the x columns
  // under it stay in the L1 cache for the five rows u. Each sum still runs in ref's order: over
  // i inside, then over j in j order.
  for (int m0 = 0; m0 < kC1Maps; m0 += kBwdMaps) {
    for (int j = 0; j < kC1Side; ++j) {
      // The column's d1, S1's formula in ref's order of operations (common/ref/s1.cpp): a
      // buffer of 4.6 KB in place of a 221 KB d1 that S1 would write and C1 read back.
      vfloat d1[kBwdMaps][kC1Side];
      for (int m = 0; m < kBwdMaps; ++m) {
        vfloat bias = {};  // ref's partial sum for db1 over i, taken as the column is made
        for (int i = 0; i < kC1Side; ++i) {
          const vfloat a1 = g.a1[(m0 + m) * kC1MapSize + i * kC1Side + j];
          const vfloat d2 = g.d2[(m0 + m) * kS1MapSize + i / kS1Kernel * kS1Side + j / kS1Kernel];
          d1[m][i] = W2[i % kS1Kernel * kS1Kernel + j % kS1Kernel] * d2 * a1 * (1.0f - a1);
          bias += d1[m][i];
        }
        sum_b[m0 + m] += bias;
      }
      for (int u = 0; u < kC1Kernel; ++u) {
        // ref's partial sums acc[u][v][j] over i.
        vfloat acc[kBwdMaps][kC1Kernel] = {};
        for (int i = 0; i < kC1Side; ++i) {
          vfloat x[kC1Kernel];
          for (int v = 0; v < kC1Kernel; ++v)
            x[v] = simd::in_register(g.x[(i + u) * kImageSide + j + v]);
          for (int m = 0; m < kBwdMaps; ++m) {
            const vfloat d = d1[m][i];
            for (int v = 0; v < kC1Kernel; ++v)
              acc[m][v] += d * x[v];
          }
        }
        for (int m = 0; m < kBwdMaps; ++m) {
          for (int v = 0; v < kC1Kernel; ++v)
            sum_w[m0 + m][u][v] += acc[m][v];
        }
      }
    }
  }
  for (int m = 0; m < kC1Maps; ++m) {
    for (int u = 0; u < kC1Kernel; ++u) {
      for (int v = 0; v < kC1Kernel; ++v)
        g.grad[kW1 + (m * kC1Kernel + u) * kC1Kernel + v] = sum_w[m][u][v];
    }
    g.grad[kB1 + m] = sum_b[m];
  }
}

}  // namespace lenet::lanes
