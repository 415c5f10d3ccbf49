// C1: 6 filters 5x5 over the 28x28 input, stride 1, no padding, then a sigmoid.
//   forward:  z1[m][i][j] = b1[m] + sum_{u,v} W1[m][u][v] * x[i+u][j+v]      a1 = sigmoid(z1)
//   backward: d1 = dloss/dz1 comes from S1;
//             dW1[m][u][v] = sum_{i,j} d1[m][i][j] * x[i+u][j+v]            db1[m] = sum d1[m]
// C1 is 93% of the network's multiply-adds, so its loops are ordered for the vectoriser: the
// innermost loop always runs along a 24-wide output row.
#include "../vexp.hpp"
#include "layers.hpp"

namespace lenet::ref {

void load_input(const uint8_t* pixels, float* x) {
  for (int i = 0; i < kImageSize; ++i)
    x[i] = static_cast<float>(pixels[i]) / 255.0f;
}

void c1_forward(const float* params, const float* x, float* z1, float* a1, int begin, int end) {
  const float* W1 = params + kW1;
  const float* b1 = params + kB1;
  for (int r = begin; r < end; ++r) {
    const int m = r / kC1Side, i = r % kC1Side;
    // One output row, accumulated tap by tap in (u, v) order.
    float row[kC1Side];
    for (int j = 0; j < kC1Side; ++j)
      row[j] = b1[m];
    for (int u = 0; u < kC1Kernel; ++u) {
      for (int v = 0; v < kC1Kernel; ++v) {
        const float w = W1[(m * kC1Kernel + u) * kC1Kernel + v];
        const float* in = x + (i + u) * kImageSide + v;
        for (int j = 0; j < kC1Side; ++j)
          row[j] += w * in[j];
      }
    }
    // Row i of map m starts at m * 576 + i * 24 = r * 24.
    for (int j = 0; j < kC1Side; ++j) {
      z1[r * kC1Side + j] = row[j];
      a1[r * kC1Side + j] = sigmoid(row[j]);
    }
  }
}

void c1_backward(const float* x, const float* d1, float* grad, int begin, int end) {
  float* dW1 = grad + kW1;
  float* db1 = grad + kB1;
  for (int m = begin; m < end; ++m) {
    // Lane-wise partial sums along j (one per output column) let the j loop vectorise; each
    // weight's 24 partial sums are added up once at the end.
    float acc[kC1Kernel][kC1Kernel][kC1Side] = {};
    float bias[kC1Side] = {};
    for (int i = 0; i < kC1Side; ++i) {
      const float* d = d1 + m * kC1MapSize + i * kC1Side;
      for (int j = 0; j < kC1Side; ++j)
        bias[j] += d[j];
      for (int u = 0; u < kC1Kernel; ++u) {
        for (int v = 0; v < kC1Kernel; ++v) {
          const float* in = x + (i + u) * kImageSide + v;
          for (int j = 0; j < kC1Side; ++j)
            acc[u][v][j] += d[j] * in[j];
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

}  // namespace lenet::ref
