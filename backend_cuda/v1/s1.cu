// Version 1, S1: learnable pooling, ONE 4x4 kernel and ONE bias shared by all 6 maps, stride 4.
//   forward:  z2[m][i][j] = b2 + sum_{u,v} W2[u][v] * a1[m][4i+u][4j+v]      a2 = sigmoid(z2)
//   backward: dW2[u][v] = sum_{m,i,j} d2[m][i][j] * a1[m][4i+u][4j+v]        db2 = sum d2
//             d1[m][4i+u][4j+v] = W2[u][v] * d2[m][i][j] * a1 * (1 - a1)   (one window per cell)
// Forward: one thread per output a2[n], n = m*36 + i*6 + j (216 threads).
// Backward: d1 with one thread per a1 cell (3456 threads); the gradient with one block per
// parameter, W2 then b2 (17 blocks), each summing the 216 terms with a shared-memory tree.
#include "../check.hpp"
#include "../device_math.cuh"
#include "layers.hpp"

namespace lenet::cuda::v1 {
namespace {

constexpr int kThreads = 256;
static_assert(kS1Size <= kThreads, "one term per thread in s1_weight_kernel");

// The a1 cell that window n's tap (u, v) reads: a1[m][4i+u][4j+v].
__device__ int window_cell(int n, int u, int v) {
  const int m = n / kS1MapSize, i = (n % kS1MapSize) / kS1Side, j = n % kS1Side;
  return m * kC1MapSize + (kS1Kernel * i + u) * kC1Side + kS1Kernel * j + v;
}

__global__ void s1_forward_kernel(const float* params, const float* a1, float* a2) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= kS1Size) return;
  const float* W2 = params + kW2;
  float z = params[kB2];
  for (int u = 0; u < kS1Kernel; ++u) {
    for (int v = 0; v < kS1Kernel; ++v)
      z += W2[u * kS1Kernel + v] * a1[window_cell(n, u, v)];
  }
  a2[n] = sigmoid(z);
}

// Cell c = a1[m][row][col] lies in window (m, row/4, col/4) at tap (row%4, col%4).
__global__ void s1_delta_kernel(const float* params, const float* a1, const float* d2, float* d1) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= kC1Size) return;
  const int m = c / kC1MapSize, row = (c % kC1MapSize) / kC1Side, col = c % kC1Side;
  const int n = m * kS1MapSize + (row / kS1Kernel) * kS1Side + col / kS1Kernel;
  const float w = params[kW2 + (row % kS1Kernel) * kS1Kernel + col % kS1Kernel];
  d1[c] = w * d2[n] * a1[c] * (1.0f - a1[c]);
}

// Block w computes gradient entry kW2 + w: W2[u][v] for w < 16, b2 for w = 16 (b2 follows W2).
__global__ void s1_weight_kernel(const float* a1, const float* d2, float* grad) {
  static_assert(kB2 == kW2 + kW2Size, "b2 follows W2");
  __shared__ float part[kThreads];
  const int w = blockIdx.x, n = threadIdx.x;
  const bool bias = w == kW2Size;
  float term = 0.0f;
  if (n < kS1Size) term = d2[n] * (bias ? 1.0f : a1[window_cell(n, w / kS1Kernel, w % kS1Kernel)]);
  const float total = tree_sum<kThreads>(term, part);
  if (n == 0) grad[kW2 + w] += total;
}

}  // namespace

void s1_forward(const float* params, const float* a1, float* a2, cudaStream_t stream) {
  s1_forward_kernel<<<blocks_for(kS1Size, kThreads), kThreads, 0, stream>>>(params, a1, a2);
  CUDA_CHECK_LAUNCH();
}

void s1_backward(const float* params, const float* a1, const float* d2, float* grad, float* d1,
                 cudaStream_t stream) {
  s1_weight_kernel<<<kW2Size + kB2Size, kThreads, 0, stream>>>(a1, d2, grad);
  CUDA_CHECK_LAUNCH();
  s1_delta_kernel<<<blocks_for(kC1Size, kThreads), kThreads, 0, stream>>>(params, a1, d2, d1);
  CUDA_CHECK_LAUNCH();
}

}  // namespace lenet::cuda::v1
