// Version 1, C1: 6 filters 5x5 over the 28x28 input, stride 1, then a sigmoid.
//   forward:  z1[m][i][j] = b1[m] + sum_{u,v} W1[m][u][v] * x[i+u][j+v]      a1 = sigmoid(z1)
//   backward: dW1[m][u][v] = sum_{i,j} d1[m][i][j] * x[i+u][j+v]            db1[m] = sum d1[m]
// Forward: one thread per output a1[m][i][j] (3456 threads), reading x straight from the bytes.
// Backward: one block per parameter, W1 then b1 as in the parameter vector (156 blocks); its
// threads share the 576 (i, j) terms and a shared-memory tree adds their partial sums.
#include "../check.hpp"
#include "../device_math.cuh"
#include "layers.hpp"

namespace lenet::cuda::v1 {
namespace {

constexpr int kThreads = 256;
constexpr int kFilterSize = kC1Kernel * kC1Kernel;  // 25

// LAB 5 BEGIN: the C1 forward kernel, one thread per output
__global__ void c1_forward_kernel(const float* params, Samples b, int s, float* a1) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= kC1Size) return;
  const int m = t / kC1MapSize, i = (t % kC1MapSize) / kC1Side, j = t % kC1Side;
  const uint8_t* image = b.pixels_of(s);
  const float* W1 = params + kW1 + m * kFilterSize;
  float z = params[kB1 + m];
  for (int u = 0; u < kC1Kernel; ++u) {
    for (int v = 0; v < kC1Kernel; ++v) {
      z += W1[u * kC1Kernel + v] * input_x(image[(i + u) * kImageSide + j + v]);
    }
  }
  a1[t] = sigmoid(z);
}
// LAB 5 END

// Block w computes gradient entry kW1 + w: W1[m][u][v] for w < 150, b1[w - 150] after that (b1
// follows W1 in the parameter vector). A bias term is d1 itself: its "input" is 1.
__global__ void c1_backward_kernel(Samples b, int s, const float* d1, float* grad) {
  static_assert(kB1 == kW1 + kW1Size, "b1 follows W1");
  __shared__ float part[kThreads];
  const int w = blockIdx.x;
  const bool bias = w >= kW1Size;
  const int m = bias ? w - kW1Size : w / kFilterSize;
  const int u = (w % kFilterSize) / kC1Kernel, v = w % kC1Kernel;  // unused for a bias
  const uint8_t* image = b.pixels_of(s);
  float sum = 0.0f;
  for (int r = threadIdx.x; r < kC1MapSize; r += kThreads) {
    const int i = r / kC1Side, j = r % kC1Side;
    const float x = bias ? 1.0f : input_x(image[(i + u) * kImageSide + j + v]);
    sum += d1[m * kC1MapSize + r] * x;
  }
  const float total = tree_sum<kThreads>(sum, part);
  if (threadIdx.x == 0) grad[kW1 + w] += total;
}

}  // namespace

void c1_forward(const float* params, const Samples& b, int s, float* a1, cudaStream_t stream) {
  c1_forward_kernel<<<blocks_for(kC1Size, kThreads), kThreads, 0, stream>>>(params, b, s, a1);
  CUDA_CHECK_LAUNCH();
}

void c1_backward(const Samples& b, int s, const float* d1, float* grad, cudaStream_t stream) {
  c1_backward_kernel<<<kW1Size + kB1Size, kThreads, 0, stream>>>(b, s, d1, grad);
  CUDA_CHECK_LAUNCH();
}

}  // namespace lenet::cuda::v1
