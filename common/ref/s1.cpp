// S1: learnable pooling, ONE 4x4 kernel and ONE bias shared by all 6 maps, stride 4, sigmoid.
//   forward:  z2[m][i][j] = b2 + sum_{u,v} W2[u][v] * a1[m][4i+u][4j+v]      a2 = sigmoid(z2)
//   backward: d2 = dloss/dz2 comes from F;
//             dW2[u][v] = sum_{m,i,j} d2[m][i][j] * a1[m][4i+u][4j+v]        db2 = sum d2
//             g1[m][4i+u][4j+v] = W2[u][v] * d2[m][i][j]   (each a1 cell is in one window)
//             d1 = g1 * a1 * (1 - a1)                      (the sigmoid's derivative)
#include "../vexp.hpp"
#include "ref_kernels.hpp"

namespace lenet {

void RefKernels::s1_forward(const float* params) {
  const float* W2 = params + kW2;
  const float b2 = params[kB2];
  for (int m = 0; m < kC1Maps; ++m) {
    for (int i = 0; i < kS1Side; ++i) {
      for (int j = 0; j < kS1Side; ++j) {
        float z = b2;
        for (int u = 0; u < kS1Kernel; ++u) {
          for (int v = 0; v < kS1Kernel; ++v) {
            z += W2[u * kS1Kernel + v] *
                 act_.a1[m * kC1MapSize + (kS1Kernel * i + u) * kC1Side + kS1Kernel * j + v];
          }
        }
        const int n = m * kS1MapSize + i * kS1Side + j;
        act_.z2[n] = z;
        act_.a2[n] = sigmoid(z);
      }
    }
  }
}

void RefKernels::s1_backward(const float* params, float* grad) {
  const float* W2 = params + kW2;
  float* dW2 = grad + kW2;
  for (int k = 0; k < kW2Size; ++k)
    dW2[k] = 0.0f;
  float db2 = 0.0f;
  for (int m = 0; m < kC1Maps; ++m) {
    for (int i = 0; i < kS1Side; ++i) {
      for (int j = 0; j < kS1Side; ++j) {
        const float d2 = d2_[m * kS1MapSize + i * kS1Side + j];
        db2 += d2;
        for (int u = 0; u < kS1Kernel; ++u) {
          for (int v = 0; v < kS1Kernel; ++v) {
            const int cell = m * kC1MapSize + (kS1Kernel * i + u) * kC1Side + kS1Kernel * j + v;
            const float a1 = act_.a1[cell];
            dW2[u * kS1Kernel + v] += d2 * a1;
            d1_[cell] = W2[u * kS1Kernel + v] * d2 * a1 * (1.0f - a1);
          }
        }
      }
    }
  }
  grad[kB2] = db2;
}

}  // namespace lenet
