// Version 1, the SGD step on the summed batch gradient, one thread per parameter:
//   params[i] -= scale * grad[i],  scale = lr / B   (as common/gradient.cpp's sgd_update)
#include "../check.hpp"
#include "../device_math.cuh"
#include "layers.hpp"

namespace lenet::cuda::v1 {
namespace {

constexpr int kThreads = 256;

__global__ void sgd_update_kernel(float* params, const float* grad, float scale) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kParamCount) params[i] -= scale * grad[i];
}

}  // namespace

void sgd_update(float* params, const float* grad, float scale, cudaStream_t stream) {
  sgd_update_kernel<<<blocks_for(kParamCount, kThreads), kThreads, 0, stream>>>(params, grad,
                                                                                scale);
  CUDA_CHECK_LAUNCH();
}

}  // namespace lenet::cuda::v1
