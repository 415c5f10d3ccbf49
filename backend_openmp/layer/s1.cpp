// S1: learnable pooling, ONE 4x4 kernel and ONE bias shared by all 6 maps, stride 4, sigmoid.
//   forward:  z2[m][i][j] = b2 + sum_{u,v} W2[u][v] * a1[m][4i+u][4j+v]      a2 = sigmoid(z2)
//   backward: d2 = dloss/dz2 comes from F;
//             dW2[u][v] = sum_{m,i,j} d2[m][i][j] * a1[m][4i+u][4j+v]        db2 = sum d2
//             g1[m][4i+u][4j+v] = W2[u][v] * d2[m][i][j]   (each a1 cell is in one window)
//             d1 = g1 * a1 * (1 - a1)                      (the sigmoid's derivative)
// The loops are ref's (common/ref/s1.cpp), the 216 windows shared among the threads. Each
// window is 16 multiply-adds: far less work than a fork and a join.
#include "../../common/vexp.hpp"
#include "layer_kernels.hpp"

namespace lenet {

void LayerKernels::s1_forward(const float* params) {
  const float* W2 = params + kW2;
  const float b2 = params[kB2];
#pragma omp parallel for collapse(3) num_threads(threads_)
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

// ref's one loop nest also sums dW2 and db2 over all windows, the loop shared out here. Those
// sums keep ref's loop on one thread (`single`), while the others compute the deltas d1, which
// are independent. Summing each dW2[u][v] in a loop of its own would be the same sum on paper,
// but GCC compiles that loop another way (multiply, then add, instead of ref's fused
// multiply-add) and the bits change: the tests caught it.
void LayerKernels::s1_backward(const float* params, float* grad) {
  const float* W2 = params + kW2;
  float* dW2 = grad + kW2;
#pragma omp parallel num_threads(threads_)
  {
#pragma omp single nowait
    {
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
                dW2[u * kS1Kernel + v] += d2 * act_.a1[cell];
              }
            }
          }
        }
      }
      grad[kB2] = db2;
    }
#pragma omp for collapse(3) nowait
    for (int m = 0; m < kC1Maps; ++m) {
      for (int i = 0; i < kS1Side; ++i) {
        for (int j = 0; j < kS1Side; ++j) {
          const float d2 = d2_[m * kS1MapSize + i * kS1Side + j];
          for (int u = 0; u < kS1Kernel; ++u) {
            for (int v = 0; v < kS1Kernel; ++v) {
              const int cell = m * kC1MapSize + (kS1Kernel * i + u) * kC1Side + kS1Kernel * j + v;
              const float a1 = act_.a1[cell];
              d1_[cell] = W2[u * kS1Kernel + v] * d2 * a1 * (1.0f - a1);
            }
          }
        }
      }
    }
  }
}

}  // namespace lenet
