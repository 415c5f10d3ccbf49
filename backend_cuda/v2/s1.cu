// Version 2, S1 for a whole batch: ONE 4x4 kernel and ONE bias shared by all 6 maps, stride 4.
//   forward:  z2[m][i][j] = b2 + sum_{u,v} W2[u][v] * a1[m][4i+u][4j+v]      a2 = sigmoid(z2)
//   backward: d1[m][4i+u][4j+v] = W2[u][v] * d2[m][i][j] * a1 * (1 - a1)   (one window per cell)
//             dW2[u][v] = sum_{samples} sum_{m,i,j} d2[m][i][j] * a1[m][4i+u][4j+v]
//             db2 = sum_{samples} sum_{m,i,j} d2[m][i][j],   then W2, b2 -= scale * gradient
// Forward and d1: one thread per output over the flattened batch (B * 216, B * 3456 threads), so
// consecutive threads touch consecutive cells. Weight gradient: one block per parameter (W2 then
// b2, 17 blocks) summing B * 216 terms with block_sum; thread 0 updates the parameter.
#include "../check.hpp"
#include "../device_math.cuh"
#include "layers.hpp"

namespace lenet::cuda::v2 {
namespace {

constexpr int kThreads = 256;
static_assert(kB2 == kW2 + kW2Size, "b2 follows W2");

// The a1 cell (within one sample) that window n's tap (u, v) reads: a1[m][4i+u][4j+v].
__device__ int window_cell(int n, int u, int v) {
  const int m = n / kS1MapSize, i = (n % kS1MapSize) / kS1Side, j = n % kS1Side;
  return m * kC1MapSize + (kS1Kernel * i + u) * kC1Side + kS1Kernel * j + v;
}

__global__ void s1_forward_kernel(const float* params, const float* a1, int count, float* a2) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= count * kS1Size) return;
  const int s = t / kS1Size, n = t % kS1Size;
  const float* in = a1 + static_cast<size_t>(s) * kC1Size;
  const float* W2 = params + kW2;
  float z = params[kB2];
  for (int u = 0; u < kS1Kernel; ++u) {
    for (int v = 0; v < kS1Kernel; ++v)
      z += W2[u * kS1Kernel + v] * in[window_cell(n, u, v)];
  }
  a2[t] = sigmoid(z);
}

// Cell c = a1[m][row][col] of sample s lies in window (m, row/4, col/4) at tap (row%4, col%4).
__global__ void s1_delta_kernel(const float* params, const float* a1, const float* d2, int count,
                                float* d1) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= count * kC1Size) return;
  const int s = t / kC1Size, c = t % kC1Size;
  const int m = c / kC1MapSize, row = (c % kC1MapSize) / kC1Side, col = c % kC1Side;
  const int n = m * kS1MapSize + (row / kS1Kernel) * kS1Side + col / kS1Kernel;
  const float w = params[kW2 + (row % kS1Kernel) * kS1Kernel + col % kS1Kernel];
  d1[t] = w * d2[s * kS1Size + n] * a1[t] * (1.0f - a1[t]);
}

// Block w owns parameter kW2 + w: W2[u][v] for w < 16, b2 for w = 16. Term q is sample q / 216,
// window q % 216.
__global__ void s1_backward_update_kernel(float* params, const float* a1, const float* d2,
                                          int count, float scale) {
  __shared__ float scratch[kThreads / 32];
  const int w = blockIdx.x;
  const bool bias = w == kW2Size;
  const int u = w / kS1Kernel, v = w % kS1Kernel;  // unused for the bias
  float sum = 0.0f;
  for (int q = threadIdx.x; q < count * kS1Size; q += kThreads) {
    const int s = q / kS1Size, n = q % kS1Size;
    const float in = bias ? 1.0f : a1[static_cast<size_t>(s) * kC1Size + window_cell(n, u, v)];
    sum += d2[q] * in;
  }
  sum = block_sum<kThreads>(sum, scratch);
  if (threadIdx.x == 0) params[kW2 + w] -= scale * sum;
}

}  // namespace

void s1_forward(const float* params, const float* a1, int count, float* a2, cudaStream_t stream) {
  s1_forward_kernel<<<blocks_for(count * kS1Size, kThreads), kThreads, 0, stream>>>(params, a1,
                                                                                    count, a2);
  CUDA_CHECK_LAUNCH();
}

void s1_backward_delta(const float* params, const float* a1, const float* d2, int count, float* d1,
                       cudaStream_t stream) {
  s1_delta_kernel<<<blocks_for(count * kC1Size, kThreads), kThreads, 0, stream>>>(params, a1, d2,
                                                                                  count, d1);
  CUDA_CHECK_LAUNCH();
}

void s1_backward_update(float* params, const float* a1, const float* d2, int count, float scale,
                        cudaStream_t stream) {
  s1_backward_update_kernel<<<kW2Size + kB2Size, kThreads, 0, stream>>>(params, a1, d2, count,
                                                                        scale);
  CUDA_CHECK_LAUNCH();
}

}  // namespace lenet::cuda::v2
