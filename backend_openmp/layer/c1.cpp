// C1: 6 filters 5x5 over the 28x28 input, stride 1, no padding, then a sigmoid.
//   forward:  z1[m][i][j] = b1[m] + sum_{u,v} W1[m][u][v] * x[i+u][j+v]      a1 = sigmoid(z1)
//   backward: d1 = dloss/dz1 comes from S1;
//             dW1[m][u][v] = sum_{i,j} d1[m][i][j] * x[i+u][j+v]            db1[m] = sum d1[m]
// The loops are ref's (common/ref/c1.cpp). Forward: the 144 output rows are shared among the
// threads. Backward: the 6 maps are, so at most 6 threads have work (3 + 3 on 2 threads,
// 2 + 2 + 1 + 1 on 4).
#include "../../common/vexp.hpp"
#include "layer_kernels.hpp"

namespace lenet {

void LayerKernels::c1_forward(const float* params) {
  const float* W1 = params + kW1;
  const float* b1 = params + kB1;
#pragma omp parallel for collapse(2) num_threads(threads_)
  for (int m = 0; m < kC1Maps; ++m) {
    for (int i = 0; i < kC1Side; ++i) {
      // One output row, accumulated tap by tap in (u, v) order.
      float row[kC1Side];
      for (int j = 0; j < kC1Side; ++j)
        row[j] = b1[m];
      for (int u = 0; u < kC1Kernel; ++u) {
        for (int v = 0; v < kC1Kernel; ++v) {
          const float w = W1[(m * kC1Kernel + u) * kC1Kernel + v];
          const float* x = act_.x + (i + u) * kImageSide + v;
          for (int j = 0; j < kC1Side; ++j)
            row[j] += w * x[j];
        }
      }
      float* z1 = act_.z1 + m * kC1MapSize + i * kC1Side;
      float* a1 = act_.a1 + m * kC1MapSize + i * kC1Side;
      for (int j = 0; j < kC1Side; ++j) {
        z1[j] = row[j];
        a1[j] = sigmoid(row[j]);
      }
    }
  }
}

void LayerKernels::c1_backward(const float* /*params*/, float* grad) {
  float* dW1 = grad + kW1;
  float* db1 = grad + kB1;
#pragma omp parallel for num_threads(threads_)
  for (int m = 0; m < kC1Maps; ++m) {
    // Lane-wise partial sums along j (one per output column) let the j loop vectorise; each
    // weight's 24 partial sums are added up once at the end.
    float acc[kC1Kernel][kC1Kernel][kC1Side] = {};
    float bias[kC1Side] = {};
    for (int i = 0; i < kC1Side; ++i) {
      const float* d1 = d1_ + m * kC1MapSize + i * kC1Side;
      for (int j = 0; j < kC1Side; ++j)
        bias[j] += d1[j];
      for (int u = 0; u < kC1Kernel; ++u) {
        for (int v = 0; v < kC1Kernel; ++v) {
          const float* x = act_.x + (i + u) * kImageSide + v;
          for (int j = 0; j < kC1Side; ++j)
            acc[u][v][j] += d1[j] * x[j];
        }
      }
    }
    for (int u = 0; u < kC1Kernel; ++u) {
      for (int v = 0; v < kC1Kernel; ++v) {
        float s = 0.0f;
        for (int j = 0; j < kC1Side; ++j)
          s += acc[u][v][j];
        dW1[(m * kC1Kernel + u) * kC1Kernel + v] = s;
      }
    }
    float s = 0.0f;
    for (int j = 0; j < kC1Side; ++j)
      s += bias[j];
    db1[m] = s;
  }
}

}  // namespace lenet
