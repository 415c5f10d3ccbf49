// S1: learnable pooling, ONE 4x4 kernel and ONE bias shared by all 6 maps, stride 4, sigmoid.
//   forward:  z2[m][i][j] = b2 + sum_{u,v} W2[u][v] * a1[m][4i+u][4j+v]      a2 = sigmoid(z2)
//   backward: d2 = dloss/dz2 comes from F;
//             dW2[u][v] = sum_{m,i,j} d2[m][i][j] * a1[m][4i+u][4j+v]        db2 = sum d2
//             g1[m][4i+u][4j+v] = W2[u][v] * d2[m][i][j]   (each a1 cell is in one window)
//             d1 = g1 * a1 * (1 - a1)                      (the sigmoid's derivative)
// The weight gradient sums over the whole layer; the deltas are independent, one per C1 cell:
// two loop nests, so that the deltas can be shared among threads.
#include "../vexp.hpp"
#include "layers.hpp"

namespace lenet::ref {

// The C1 cell under tap (u, v) of window (i, j) of map m.
static int cell(int m, int i, int j, int u, int v) {
  return m * kC1MapSize + (kS1Kernel * i + u) * kC1Side + kS1Kernel * j + v;
}

void s1_forward(const float* params, const float* a1, float* z2, float* a2, int begin, int end) {
  const float* W2 = params + kW2;
  const float b2 = params[kB2];
  for (int r = begin; r < end; ++r) {
    const int m = r / kS1Side, i = r % kS1Side;
    for (int j = 0; j < kS1Side; ++j) {
      float z = b2;
      for (int u = 0; u < kS1Kernel; ++u) {
        for (int v = 0; v < kS1Kernel; ++v)
          z += W2[u * kS1Kernel + v] * a1[cell(m, i, j, u, v)];
      }
      const int n = r * kS1Side + j;  // m * 36 + i * 6 + j
      z2[n] = z;
      a2[n] = sigmoid(z);
    }
  }
}

void s1_weight_gradient(const float* a1, const float* d2, float* grad) {
  float* dW2 = grad + kW2;
  for (int k = 0; k < kW2Size; ++k)
    dW2[k] = 0.0f;
  float db2 = 0.0f;
  for (int m = 0; m < kC1Maps; ++m) {
    for (int i = 0; i < kS1Side; ++i) {
      for (int j = 0; j < kS1Side; ++j) {
        const float d = d2[m * kS1MapSize + i * kS1Side + j];
        db2 += d;
        for (int u = 0; u < kS1Kernel; ++u) {
          for (int v = 0; v < kS1Kernel; ++v)
            dW2[u * kS1Kernel + v] += d * a1[cell(m, i, j, u, v)];
        }
      }
    }
  }
  grad[kB2] = db2;
}

void s1_delta(const float* params, const float* a1, const float* d2, float* d1, int begin,
              int end) {
  const float* W2 = params + kW2;
  for (int r = begin; r < end; ++r) {
    const int m = r / kS1Side, i = r % kS1Side;
    for (int j = 0; j < kS1Side; ++j) {
      const float d = d2[r * kS1Side + j];
      for (int u = 0; u < kS1Kernel; ++u) {
        for (int v = 0; v < kS1Kernel; ++v) {
          const int c = cell(m, i, j, u, v);
          d1[c] = W2[u * kS1Kernel + v] * d * a1[c] * (1.0f - a1[c]);
        }
      }
    }
  }
}

}  // namespace lenet::ref
