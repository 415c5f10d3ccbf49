// S1: learnable pooling, ONE 4x4 kernel and ONE bias shared by all 6 maps, stride 4, sigmoid.
//   forward:  z2[m][i][j] = b2 + sum_{u,v} W2[u][v] * a1[m][4i+u][4j+v]      a2 = sigmoid(z2)
//   backward: d2 = dloss/dz2 comes from F;
//             dW2[u][v] = sum_{m,i,j} d2[m][i][j] * a1[m][4i+u][4j+v]        db2 = sum d2
//             d1[m][4i+u][4j+v] = W2[u][v] * d2[m][i][j] * a1 * (1 - a1)
// ref's loops (common/ref/s1.cpp), a vector for every float, the sums in ref's window order.
// d1 is C1's backward's to make (c1.cpp), a column at a time where it is used: with 16 lanes
// it is 221 KB, more than L1 holds, and written here to be read back there it cost more than
// the rest of S1's backward (2026-11-28, docs/performance.md).
#include "../vec/exp_vectors.hpp"
#include "layers.hpp"

namespace lenet::lanes {

namespace {

// The C1 cell under tap (u, v) of window (i, j) of map m.
int cell(int m, int i, int j, int u, int v) {
  return m * kC1MapSize + (kS1Kernel * i + u) * kC1Side + kS1Kernel * j + v;
}

}  // namespace

void s1_forward(const float* params, Lanes& g) {
  const float* W2 = params + kW2;
  const float b2 = params[kB2];
  // The 6 windows of an output row side by side: 6 independent sums of 16 multiply-adds.
  for (int m = 0; m < kC1Maps; ++m) {
    for (int i = 0; i < kS1Side; ++i) {
      vfloat z[kS1Side];
      for (int j = 0; j < kS1Side; ++j)
        z[j] = simd::splat(b2);
      for (int u = 0; u < kS1Kernel; ++u) {
        for (int v = 0; v < kS1Kernel; ++v) {
          const float w = W2[u * kS1Kernel + v];
          for (int j = 0; j < kS1Side; ++j)
            z[j] += w * g.a1[cell(m, i, j, u, v)];
        }
      }
      for (int j = 0; j < kS1Side; ++j)
        g.z2[m * kS1MapSize + i * kS1Side + j] = z[j];
    }
  }
  simd::sigmoids(reinterpret_cast<const float*>(g.z2), reinterpret_cast<float*>(g.a2),
                 kS1Size * kLanes);
}

void s1_backward(Lanes& g) {
  vfloat dW2[kW2Size] = {};
  // db2 in a loop of its own, in the same window order: inside the loop below it took a 17th
  // accumulator, which GCC kept on the stack (a store-to-load chain on every window).
  vfloat db2 = {};
  for (int k = 0; k < kS1Size; ++k)
    db2 += g.d2[k];
  for (int m = 0; m < kC1Maps; ++m) {
    for (int i = 0; i < kS1Side; ++i) {
      for (int j = 0; j < kS1Side; ++j) {
        const vfloat d = g.d2[m * kS1MapSize + i * kS1Side + j];
        for (int u = 0; u < kS1Kernel; ++u) {
          for (int v = 0; v < kS1Kernel; ++v)
            dW2[u * kS1Kernel + v] += d * g.a1[cell(m, i, j, u, v)];
        }
      }
    }
  }
  for (int k = 0; k < kW2Size; ++k)
    g.grad[kW2 + k] = dW2[k];
  g.grad[kB2] = db2;
}

}  // namespace lenet::lanes
