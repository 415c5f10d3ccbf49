// Version 2, C1 for a whole batch: 6 filters 5x5 over each 28x28 input, then a sigmoid.
//   forward:  z1[m][i][j] = b1[m] + sum_{u,v} W1[m][u][v] * x[i+u][j+v]      a1 = sigmoid(z1)
//   backward: dW1[m][u][v] = sum_{samples} sum_{i,j} d1[m][i][j] * x[i+u][j+v]
//             db1[m] = sum_{samples} sum_{i,j} d1[m][i][j],   then W1, b1 -= scale * gradient
// Forward: one block per sample. The block first tiles the image (as floats) and W1, b1 into
// shared memory, because each x is read by up to 150 outputs; then thread t = i*24 + j computes
// position (i, j) of all 6 maps, so consecutive threads write consecutive a1 cells.
// Backward: one block per parameter (W1 then b1, 156 blocks); its threads share the B * 576 terms,
// block_sum adds the partial sums, and thread 0 updates the parameter.
#include "../check.hpp"
#include "../device_math.cuh"
#include "layers.hpp"

namespace lenet::cuda::v2 {
namespace {

constexpr int kForwardThreads = kC1MapSize;  // one per output position (i, j): 576 = 18 warps
constexpr int kThreads = 256;
constexpr int kFilterSize = kC1Kernel * kC1Kernel;  // 25
static_assert(kB1 == kW1 + kW1Size, "b1 follows W1: one copy loads both");

__global__ void __launch_bounds__(kForwardThreads)
    c1_forward_kernel(const float* params, Samples b, float* a1) {
  __shared__ float x[kImageSize];
  __shared__ float w[kW1Size + kB1Size];  // W1 then b1
  const int s = blockIdx.x, t = threadIdx.x;
  const uint8_t* image = b.pixels_of(s);
  for (int k = t; k < kImageSize; k += kForwardThreads)
    x[k] = input_x(image[k]);
  for (int k = t; k < kW1Size + kB1Size; k += kForwardThreads)
    w[k] = params[kW1 + k];
  __syncthreads();
  const int i = t / kC1Side, j = t % kC1Side;
  float* out = a1 + static_cast<size_t>(s) * kC1Size;
  for (int m = 0; m < kC1Maps; ++m) {
    float z = w[kW1Size + m];
    for (int u = 0; u < kC1Kernel; ++u) {
      for (int v = 0; v < kC1Kernel; ++v) {
        z += w[m * kFilterSize + u * kC1Kernel + v] * x[(i + u) * kImageSide + j + v];
      }
    }
    out[m * kC1MapSize + t] = sigmoid(z);
  }
}

// Block w owns parameter kW1 + w: W1[m][u][v] for w < 150, b1[w - 150] after that. Term q of the
// sum is sample q / 576, position q % 576; a bias term is d1 itself (its "input" is 1).
__global__ void c1_backward_update_kernel(float* params, Samples b, const float* d1, float scale) {
  __shared__ float scratch[kThreads / 32];
  const int w = blockIdx.x;
  const bool bias = w >= kW1Size;
  const int m = bias ? w - kW1Size : w / kFilterSize;
  const int u = (w % kFilterSize) / kC1Kernel, v = w % kC1Kernel;  // unused for a bias
  const int terms = b.count * kC1MapSize;
  float sum = 0.0f;
  for (int q = threadIdx.x; q < terms; q += kThreads) {
    const int s = q / kC1MapSize, r = q % kC1MapSize;
    const int i = r / kC1Side, j = r % kC1Side;
    const float x = bias ? 1.0f : input_x(b.pixels_of(s)[(i + u) * kImageSide + j + v]);
    sum += d1[static_cast<size_t>(s) * kC1Size + m * kC1MapSize + r] * x;
  }
  sum = block_sum<kThreads>(sum, scratch);
  if (threadIdx.x == 0) params[kW1 + w] -= scale * sum;
}

}  // namespace

void c1_forward(const float* params, const Samples& b, float* a1, cudaStream_t stream) {
  c1_forward_kernel<<<b.count, kForwardThreads, 0, stream>>>(params, b, a1);
  CUDA_CHECK_LAUNCH();
}

void c1_backward_update(float* params, const Samples& b, const float* d1, float scale,
                        cudaStream_t stream) {
  c1_backward_update_kernel<<<kW1Size + kB1Size, kThreads, 0, stream>>>(params, b, d1, scale);
  CUDA_CHECK_LAUNCH();
}

}  // namespace lenet::cuda::v2
